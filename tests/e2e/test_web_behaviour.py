"""Live behaviour, dialogs, check boxes, keyboard and the seeds' test procedures, in a real Chromium."""
import re

from ax_tree import find, focused, full_tree
from conftest import SCREENSHOTS, sign_in
from varsel_server import wait_until


def live_texts(page, selector="#live-polite"):
    return page.locator(selector + " p").all_inner_texts()


def test_a_burst_of_arrivals_is_one_sentence(page, server):
    coordinator = server.token("demo-coordinator")
    for n in range(3):
        server.create(coordinator, f"Burst {n}", ["demo-mentor"])
    assert wait_until(lambda: "3 new notifications" in live_texts(page))
    assert not any(text.startswith("New notification: Burst") for text in live_texts(page))
    assert page.locator("#notification-list li").count() == 8


def test_the_minutes_tick_leaves_the_focused_rows_name_alone(browser, server):
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.clock.install()
    sign_in(page, server)
    links = page.locator("#notification-list .notification-link")
    links.nth(0).focus()
    page.evaluate("document.querySelectorAll('#notification-list .notification-link').forEach((link) => link.setAttribute('aria-label', 'as it was'))")
    page.clock.run_for(61_000)
    # The tick has run once the other rows have their names back.
    assert wait_until(lambda: links.nth(1).get_attribute("aria-label") != "as it was")
    assert links.nth(0).get_attribute("aria-label") == "as it was", "a screen reader would read the focused row again"
    context.close()


def test_the_live_list_comes_back_when_the_stream_was_refused(page, server):
    # A proxy answering 502 while the server restarts ends an EventSource for good; the page connects again itself.
    refused = []

    def refuse_once(route):
        if refused:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.fulfill(status=502, content_type="text/plain", body="Bad gateway")

    page.route("**/api/v1/events?*", refuse_once)
    page.reload()
    page.wait_for_function("window.varselStream && window.varselStream.readyState === EventSource.OPEN", timeout=15000)
    assert len(refused) == 1
    server.create(server.token("demo-coordinator"), "After the gateway came back", ["demo-mentor"])
    assert wait_until(lambda: "New notification: After the gateway came back" in live_texts(page))
    assert page.locator("#notification-list li").first.locator(".title").inner_text() == "After the gateway came back"


def test_while_the_dialog_is_open_announcements_go_to_a_region_inside_it(page, server):
    page.get_by_role("link", name=re.compile("^Assignment: New assignment, Visit Kari")).click()
    page.wait_for_url(re.compile(r"/contacts/\d+"))
    page.click("#acknowledge-button")
    assert page.evaluate("document.getElementById('acknowledge-dialog').matches(':modal')")
    server.create(server.token("demo-coordinator"), "While the dialog is open", ["demo-mentor"])
    assert wait_until(lambda: "New notification: While the dialog is open" in live_texts(page, "#live-dialog"))
    assert live_texts(page) == []


def test_while_the_erase_dialog_is_open_announcements_go_to_a_region_inside_it(browser, server):
    coordinator = server.token("demo-coordinator")
    status, _, created = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "contact": {"name": "Eva Strand", "phone": "", "address": "Parkveien 2", "notes": ""}})
    assert status == 201, created
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    sign_in(page, server, "demo-coordinator")
    page.goto(server.base_url + "/contacts/{contactId}?assignment={id}".format(**created["assignment"]))
    page.wait_for_function("window.varselStream && window.varselStream.readyState === EventSource.OPEN", timeout=15000)
    page.click("#erase-button")
    page.wait_for_function("document.getElementById('erase-dialog').matches(':modal')")
    server.create(coordinator, "While erasing", ["demo-coordinator"])
    assert wait_until(lambda: "New notification: While erasing" in live_texts(page, "#live-erase-dialog"))
    assert live_texts(page) == []
    context.close()


def test_mark_all_as_read_twice_announces_the_count_then_that_there_was_nothing_to_do(page):
    # 002: the Clear contacts example's two outcomes: something changed, nothing to change.
    page.click("#mark-all-read")
    assert wait_until(lambda: "3 notifications marked as read" in live_texts(page))
    page.click("#mark-all-read")
    assert wait_until(lambda: "No unread notifications, nothing to mark as read" in live_texts(page))
    assert wait_until(lambda: len(find(page, "tab", "Notifications")) == 1)


def test_feedback_for_the_users_own_action_waits_a_second(page):
    page.click("#mark-all-read")
    page.wait_for_timeout(400)
    assert live_texts(page) == [], "the confirmation must not cut off the button's own echo"
    assert wait_until(lambda: live_texts(page) == ["3 notifications marked as read"], timeout=3)


def test_an_urgent_notification_is_assertive(page, server):
    coordinator = server.token("demo-coordinator")
    status, _, _ = server.request("POST", "/api/v1/notifications", coordinator, {
        "recipients": ["demo-mentor"], "kind": "certificationExpiry", "title": "Certification expires today", "body": "Renew now",
        "urgency": "urgent"})
    assert status == 201
    assert wait_until(lambda: "New urgent notification: Certification expires today" in live_texts(page, "#live-assertive"))
    [assertive] = [n for n in full_tree(page) if n.prop("live") == "assertive"]
    assert assertive


def test_personal_details_are_not_announced_unless_allowed(page, server):
    coordinator = server.token("demo-coordinator")
    status, _, _ = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "contact": {"name": "Per Olsen", "phone": "", "address": "Torggata 3", "notes": ""}})
    assert status == 201
    assert wait_until(lambda: "New notification: New assignment" in live_texts(page))
    assert not any("Per Olsen" in text for text in live_texts(page) + live_texts(page, "#live-assertive"))


def test_keyboard_focus_confined_escape_closes_and_returns_focus_background_inert(page):
    page.get_by_role("link", name=re.compile("^Assignment: New assignment, Visit Kari")).click()
    page.wait_for_url(re.compile(r"/contacts/\d+"))
    page.focus("#acknowledge-button")
    page.keyboard.press("Enter")
    assert page.evaluate("document.getElementById('acknowledge-dialog').matches(':modal')")
    # 001 name: the dialog is named by its visible title.
    [dialog] = find(page, "dialog")
    assert dialog.name == page.inner_text("#acknowledge-dialog-title") == "Acknowledge this assignment?"
    assert dialog.prop("modal") is True
    # 001 tab: focus moves, confined within the dialog.
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('acknowledge-dialog').contains(document.activeElement)")
    # 001 state: other content is inert.
    assert not any(n.name == "Kari Nordmann" for n in find(page, "heading"))
    # 001 escape: closes and returns focus to the button that launched it.
    page.keyboard.press("Escape")
    assert wait_until(lambda: not page.evaluate("document.getElementById('acknowledge-dialog').open"))
    assert page.evaluate("document.activeElement.id") == "acknowledge-button"
    # Enter and Space activate buttons: confirm with the keyboard.
    page.keyboard.press("Enter")
    page.focus("#confirm-acknowledge")
    page.keyboard.press("Space")
    page.wait_for_url(re.compile(r"done=acknowledged"))
    assert page.inner_text("#assignment-status") == "You have acknowledged this assignment."


def test_check_boxes_name_role_grouping_state_and_keyboard(page):
    box = page.locator("#notification-list input[type=checkbox]").first
    label = page.locator("#notification-list label").first.inner_text()
    checkboxes = find(page, "checkbox")
    assert len(checkboxes) == 5
    # Name matches the visible label; the label is tied to the box (a click on it toggles it).
    # Unique: two items are titled "New assignment"; their ages tell them apart.
    assert checkboxes[0].name == label and re.fullmatch(r"Select New assignment, \d+ minutes ago", label)
    assert len({box.name for box in checkboxes}) == 5
    assert checkboxes[0].prop("checked") == "false"
    box.focus()
    page.keyboard.press("Space")
    assert find(page, "checkbox", label)[0].prop("checked") == "true"
    page.click("#notification-list label >> nth=0")
    assert find(page, "checkbox", label)[0].prop("checked") == "false"


def test_procedure_cues_and_state_changes(browser, server):
    # 000 steps 1-4: trigger an error; it is shown as text (not colour alone) and announced (role alert).
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    sign_in(page, server, "demo-coordinator")
    page.goto(server.base_url + "/coordinator")
    # The Title field says, with its name, that a title is public.
    [title] = find(page, "textbox", "Title")
    assert title.description == "Read aloud when the notification arrives and shown on lock screens, so it must not name anyone."
    page.click("section[aria-labelledby=send-heading] button[type=submit]")
    page.wait_for_selector("#error-summary")
    alerts = find(page, "alert")
    assert alerts and "Please correct the following" in page.inner_text("#error-summary")
    [title] = find(page, "textbox", "Title")
    # The error first, then the field's standing hint (a title is read aloud, so it must not name anyone).
    assert title.prop("invalid") == "true" and title.description == (
        "This field is required. Read aloud when the notification arrives and shown on lock screens, so it must not name anyone.")
    # 000 steps 5-9: labels match the text on screen; state is exposed and changes are reflected.
    page.goto(server.base_url + "/settings")
    for switch in find(page, "switch"):
        visible = page.locator(f"label:text-is('{switch.name}')")
        assert visible.count() == 1
    page.click("label:text-is('Vibration')")
    assert wait_until(lambda: find(page, "switch", "Vibration")[0].prop("checked") == "false")
    context.close()


def test_without_javascript_everything_works_by_forms_and_redirects(browser, server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    sign_in(page, server)
    assert page.locator("#notification-list li").count() == 5
    page.click("#filter-bar button:text-is('Assignments')")
    page.wait_for_url(re.compile("filter=assignment"))
    assert page.locator("#notification-list li").count() == 2
    page.click("#mark-all-read")
    page.wait_for_url(re.compile("done=readall-3"))
    assert page.inner_text("#flash") == "3 notifications marked as read"
    # The confirmation is plain text, in Chromium's accessibility tree once (not also a live region or a focus).
    spoken_texts = [node.name for node in find(page, "StaticText")]
    assert spoken_texts.count("3 notifications marked as read") == 1, spoken_texts
    assert "filter=assignment" in page.url
    page.goto(server.base_url + "/settings")
    page.uncheck("#setting-sound")
    page.click("#save-settings")
    page.wait_for_url(re.compile("done=settings"))
    assert not page.is_checked("#setting-sound")
    # The dialog without script: the launcher leads to an inline confirmation.
    page.goto(server.base_url + "/notifications")
    page.click("a[aria-label^='Assignment: New assignment, Visit Kari']")
    page.wait_for_url(re.compile(r"/contacts/\d+"))
    page.click("#acknowledge-button")
    page.wait_for_url(re.compile("confirm=acknowledge"))
    page.click("#confirm-acknowledge")
    page.wait_for_url(re.compile("done=acknowledged"))
    assert page.inner_text("#flash") == "Assignment acknowledged"
    context.close()


TAB_STATES = """() => Array.from(document.querySelectorAll('.tab-bar [role=tab]')).map(tab => [tab.id,
    tab.getAttribute('aria-selected'), tab.getAttribute('tabindex'), tab.getAttribute('aria-current')])"""


def test_the_selected_tab_is_marked_once_the_page_has_loaded_and_without_script_is_the_current_page(browser, server, page):
    # With script: after the load, the selected tab is aria-selected and the tab bar's one Tab stop; the others not.
    page.goto(server.base_url + "/settings")
    page.wait_for_load_state("load")
    assert wait_until(lambda: page.evaluate(TAB_STATES)[-1][1] == "true")
    assert page.evaluate(TAB_STATES) == [
        ["tab-home", "false", "-1", None], ["tab-assignments", "false", "-1", None], ["tab-contacts", "false", "-1", None],
        ["tab-profile", "false", "-1", None], ["tab-notifications", "true", "0", "page"]]
    [selected] = [node for node in find(page, "tab") if node.prop("selected") is True]
    assert selected.name == "Notifications, 3 unread"
    # The page as the server sends it: no tab selected yet (Chromium would report it as a selection change while the
    # page loads), the current page marked for a browser without script.
    context = browser.new_context(java_script_enabled=False)
    bare = context.new_page()
    sign_in(bare, server)
    bare.goto(server.base_url + "/settings")
    assert bare.evaluate(TAB_STATES) == [
        ["tab-home", None, None, None], ["tab-assignments", None, None, None], ["tab-contacts", None, None, None],
        ["tab-profile", None, None, None], ["tab-notifications", None, None, "page"]]
    context.close()


def no_horizontal_overflow(page):
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")


def test_reflow_at_320_css_pixels_and_text_at_200_percent(browser, server):
    context = browser.new_context(bypass_csp=True, viewport={"width": 320, "height": 640})
    page = context.new_page()
    sign_in(page, server)
    for path in ["/notifications", "/settings", "/contacts/2?assignment=2"]:
        page.goto(server.base_url + path)
        assert no_horizontal_overflow(page), f"{path} scrolls sideways at 320 px"
    context.close()
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, server)
    for path in ["/notifications", "/settings"]:
        page.goto(server.base_url + path)
        page.evaluate("document.documentElement.style.fontSize = '200%'")
        assert no_horizontal_overflow(page), f"{path} overflows at 200 % text"
        # Nothing is clipped: every list item's text is fully inside its box.
        clipped = page.evaluate("""Array.from(document.querySelectorAll('li, label, button, a'))
            .filter(e => e.offsetParent && (e.scrollWidth > e.clientWidth + 1)).map(e => e.outerHTML.slice(0, 80))""")
        assert clipped == []
    context.close()


def test_targets_are_at_least_24_pixels(page, server):
    for path in ["/notifications", "/settings"]:
        page.goto(server.base_url + path)
        small = page.evaluate("""Array.from(document.querySelectorAll('a, button, input, select, textarea'))
            .filter(e => e.offsetParent && !e.closest('.skip-link') && !e.classList.contains('skip-link'))
            .map(e => [e.outerHTML.slice(0, 60), e.getBoundingClientRect()])
            .filter(([, r]) => r.width < 24 || r.height < 24)""")
        assert small == [], small


def test_screenshots_for_the_readme(page, server):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "notification-centre.png"), full_page=True)
    page.goto(server.base_url + "/settings")
    page.screenshot(path=str(SCREENSHOTS / "settings.png"), full_page=True)
    assert (SCREENSHOTS / "settings.png").stat().st_size > 10_000


def test_without_script_the_current_tab_is_marked_as_with_it(browser, server):
    weights = {}
    for scripted in (True, False):
        context = browser.new_context(bypass_csp=True)
        page = context.new_page()
        if not scripted:
            page.route("**/static/*.js", lambda route: route.abort())
        sign_in(page, server)
        page.goto(server.base_url + "/profile")
        if scripted:
            page.wait_for_selector("#tab-profile[aria-selected=true]")
        weights[scripted] = page.evaluate("""[...document.querySelectorAll('.tab-bar a')].map((tab) =>
            [tab.id, getComputedStyle(tab).fontWeight, getComputedStyle(tab.querySelector('.tab-label')).textDecorationLine])""")
        context.close()
    assert weights[False] == weights[True], weights
    current = [tab for tab in weights[False] if tab[0] == "tab-profile"]
    assert current == [["tab-profile", "700", "underline"]], weights[False]


def test_a_later_page_of_the_list_takes_no_live_rows_and_the_first_page_does(page, server):
    # A later page of the centre holds older notifications: one that arrives while it is open belongs on the first
    # page. A cursor past every notification's id shows the whole list as a later page would.
    def rows_after_a_new_notification(title):
        page.wait_for_function("window.varselStream && window.varselStream.readyState === EventSource.OPEN", timeout=15000)
        # Listening after the page's own listener: once this one has run, the page has handled the event.
        page.evaluate("""() => { window.createdSeen = 0;
            window.varselStream.addEventListener('notification.created', () => { window.createdSeen += 1; }); }""")
        before = page.locator("#notification-list li").count()
        server.create(server.token("demo-coordinator"), title, ["demo-mentor"])
        page.wait_for_function("window.createdSeen === 1", timeout=15000)
        return before, page.locator("#notification-list li").count()

    page.goto(server.base_url + "/notifications?cursor=n999999")
    assert page.get_attribute("#newest-notifications", "href") == "/notifications"
    before, after = rows_after_a_new_notification("Arrived while on a later page")
    assert after == before, "a later page takes no live row"
    page.goto(server.base_url + "/notifications")
    before, after = rows_after_a_new_notification("Arrived on the first page")
    assert after == before + 1
    assert page.locator("#notification-list li").first.locator(".title").inner_text() == "Arrived on the first page"
