"""axe-core on every page with the WCAG 2.x A/AA and best-practice tags: zero violations."""
import re

import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import sign_in
from test_web_low_vision import THEMES

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
MENTOR_PAGES = ["/", "/assignments", "/contacts", "/profile", "/notifications", "/notifications?filter=assignment",
                "/settings", "/contacts/2?assignment=2&from=notification", "/certifications", "/pause", "/scenarios",
                "/scenarios/1", "/contacts/1?assignment=1"]
# The coordinator's screens: the dashboard (filtered too), an assignment's page with its history and the
# reassignment form, the scenarios with the publish form, one scenario's progress, the Profile.
COORDINATOR_PAGES = ["/coordinator", "/coordinator/assignments", "/coordinator/assignments?show=overdue&mentor=3",
                     "/contacts/3?assignment=3", "/scenarios", "/scenarios/1", "/profile"]


def violations(page):
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": TAGS}})
    return [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in results.response["violations"]]


@pytest.mark.parametrize("path", MENTOR_PAGES)
def test_mentor_pages_have_no_axe_violations(page, server, path):
    page.goto(server.base_url + path)
    assert violations(page) == []


def test_sign_in_coordinator_and_dialog_have_no_axe_violations(browser, server):
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.goto(server.base_url + "/signin")
    assert violations(page) == []
    sign_in(page, server, "demo-coordinator")
    for path in COORDINATOR_PAGES:
        page.goto(server.base_url + path)
        assert (path, violations(page)) == (path, [])
    # A form sent back with its errors: the summary, the invalid fields and their messages.
    page.goto(server.base_url + "/scenarios")
    page.click("#publish-scenario")
    page.wait_for_load_state()
    assert page.locator("#error-summary").count() == 1
    assert violations(page) == []
    context.close()


def test_the_scheduled_sends_list_and_a_sends_page_have_no_axe_violations(browser, server):
    # A send scheduled from the form: the list on the coordinator's page, the send's own page, and that page sent back
    # with its time emptied (its error); then it is cancelled, leaving nothing waiting.
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    sign_in(page, server, "demo-coordinator")
    page.goto(server.base_url + "/coordinator")
    page.select_option("#send-recipient", label="Demo Mentor")
    page.fill("#send-title", "Axe practice")
    page.fill("#send-time", "8")
    page.click("#send-time >> xpath=ancestor::form//button[@type='submit']")
    page.wait_for_url("**/coordinator?done=scheduled")
    assert page.locator(".scheduled-description").count() >= 1
    assert violations(page) == []
    page.click("text=Change Axe practice")
    page.wait_for_url("**/coordinator/scheduled/*")
    assert violations(page) == []
    page.fill("#scheduled-time", "")
    page.click("#scheduled-save")
    page.wait_for_load_state()
    assert page.get_attribute("#scheduled-time", "aria-invalid") == "true"
    assert violations(page) == []
    page.click("#scheduled-cancel")
    page.wait_for_url("**/coordinator?done=scheduled-cancelled")
    assert page.locator("text=Do not send Axe practice").count() == 0
    context.close()


def test_the_profile_with_errors_has_no_axe_violations(page, server):
    page.goto(server.base_url + "/profile")
    page.fill("#pause-until", "")
    page.click("#request-pause")
    page.wait_for_load_state()
    assert page.get_attribute("#pause-until", "aria-invalid") == "true"
    assert violations(page) == []


def test_the_open_dialog_has_no_axe_violations(page, server):
    page.goto(server.base_url + "/contacts/2?assignment=2")
    page.click("#acknowledge-button")
    assert violations(page) == []


MEDIA_QUERIES = {"color_scheme": "prefers-color-scheme", "contrast": "prefers-contrast", "forced_colors": "forced-colors"}


def in_theme(page, theme: str) -> bool:
    """Whether the page's media queries answer as the theme says (the emulation is in force)."""
    return all(page.evaluate(f"matchMedia('({MEDIA_QUERIES[key]}: {value})').matches") for key, value in THEMES[theme].items())


@pytest.mark.parametrize("theme", list(THEMES))
def test_the_people_screens_and_the_set_password_page_have_no_axe_violations_in_every_theme(browser, server, theme):
    # The coordinator's people screens: the list (filtered too), adding a person (and with its errors), the one-time
    # link shown after adding, a mentor's page with a certification; then the page the link opens, for nobody signed in.
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.emulate_media(**THEMES[theme])
    sign_in(page, server, "demo-coordinator")
    assert in_theme(page, theme)
    for path in ["/people", "/people?show=attention", "/people/new"]:
        page.goto(server.base_url + path)
        assert (path, violations(page)) == (path, [])
    page.goto(server.base_url + "/people?show=attention")
    ingrid = page.locator("#people-heading ~ ul a", has_text="Ingrid Berg, ").get_attribute("href")
    page.goto(server.base_url + ingrid)
    assert page.locator("[id^=certification-] input[type=date]").count() >= 1
    assert (ingrid, violations(page)) == (ingrid, [])
    # Adding a person with nothing filled in: the summary, both invalid fields and their messages.
    page.goto(server.base_url + "/people/new")
    page.click("#add-person-submit")
    page.wait_for_load_state()
    assert page.locator("#error-summary").count() == 1 and page.get_attribute("#person-name", "aria-invalid") == "true"
    assert ("/people/new with errors", violations(page)) == ("/people/new with errors", [])
    # Adding one: the link page, shown only once.
    page.fill("#person-name", "Sara Lund")
    page.fill("#person-username", "sara.lund")
    page.click("#add-person-submit")
    page.wait_for_load_state()
    link = page.get_attribute("#set-password-link", "href")
    assert link and page.locator("#set-password-code").count() == 1
    assert ("the link page", violations(page)) == ("the link page", [])
    context.close()

    anonymous = browser.new_context(bypass_csp=True)
    page = anonymous.new_page()
    page.emulate_media(**THEMES[theme])
    page.goto(link)
    assert page.locator("#new-password").count() == 1 and in_theme(page, theme)
    assert ("/password/<code>", violations(page)) == ("/password/<code>", [])
    # Two different passwords: the summary and the invalid second field.
    page.fill("#new-password", "correct horse battery")
    page.fill("#repeat-password", "correct horse battery staple")
    page.click("#set-password")
    page.wait_for_load_state()
    assert page.get_attribute("#repeat-password", "aria-invalid") == "true"
    assert ("/password/<code> with errors", violations(page)) == ("/password/<code> with errors", [])
    # A link that is not (or no longer) valid, and the page that asks for the code instead.
    page.goto(server.base_url + "/password/ABCD-EFGH-JKLM")
    assert page.locator("#password-error").count() == 1
    assert ("/password/<invalid>", violations(page)) == ("/password/<invalid>", [])
    page.goto(server.base_url + "/password")
    assert page.locator("#code").count() == 1
    assert ("/password", violations(page)) == ("/password", [])
    anonymous.close()


def relative_luminance(colour: str) -> float:
    red, green, blue = (float(part) / 255 for part in re.findall(r"[\d.]+", colour)[:3])
    linear = [part / 12.92 if part <= 0.04045 else ((part + 0.055) / 1.055) ** 2.4 for part in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def low_contrast_in_dialog(page, dialog: str) -> list[tuple[str, float]]:
    """The dialog's headings, paragraphs and buttons whose text has less than 4.5:1 against the background behind it.

    axe leaves the colour contrast inside an open dialog undecided ("incomplete": the dialog overlaps the page, so
    its background "could not be determined"), modal or not; zero violations say nothing about it, so it is measured here.
    """
    pairs = page.eval_on_selector(dialog, """dialog => Array.from(dialog.querySelectorAll('h2, p, button')).map(element => {
        let behind = element;
        while (behind && /^(transparent|rgba\\(.*, 0\\))$/.test(getComputedStyle(behind).backgroundColor)) behind = behind.parentElement;
        return [element.id, getComputedStyle(element).color, behind ? getComputedStyle(behind).backgroundColor : 'rgb(255, 255, 255)'];
    })""")
    ratios = []
    for name, text, background in pairs:
        lighter, darker = sorted((relative_luminance(text), relative_luminance(background)), reverse=True)
        ratios.append((name, round((lighter + 0.05) / (darker + 0.05), 2)))
    assert len(ratios) == 4, ratios
    return [(name, ratio) for name, ratio in ratios if ratio < 4.5]


@pytest.mark.parametrize("theme", list(THEMES))
def test_the_erasure_dialog_and_the_details_removed_page_have_no_axe_violations_in_every_theme(browser, server, theme):
    # A visited person's page with the erasure dialog open, as it is sent to a browser without script (part of the
    # page) and as the script shows it (modal); the page erasing leads to; and that page as the mentor opens it
    # from her notification.
    status, _, created = server.request("POST", "/api/v1/assignments", server.token("demo-coordinator"), {
        "mentor": "demo-mentor", "contact": {"name": "Eva Strand", "phone": "", "address": "Parkveien 2", "notes": ""}})
    assert status == 201, created
    contact = "/contacts/{contactId}?assignment={id}".format(**created["assignment"])
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.emulate_media(**THEMES[theme])
    sign_in(page, server, "demo-coordinator")
    assert in_theme(page, theme)
    page.route("**/static/*.js", lambda route: route.abort())
    page.goto(server.base_url + contact + "&confirm=erase")
    assert page.evaluate("document.getElementById('erase-dialog').open && !document.getElementById('erase-dialog').matches(':modal')")
    assert ("the dialog without script", violations(page)) == ("the dialog without script", [])
    assert low_contrast_in_dialog(page, "#erase-dialog") == []
    page.unroute("**/static/*.js")
    page.goto(server.base_url + contact + "&confirm=erase")
    page.wait_for_function("document.getElementById('erase-dialog').matches(':modal')")
    assert page.evaluate("document.activeElement.id") == "erase-dialog"
    assert ("the modal dialog", violations(page)) == ("the modal dialog", [])
    assert low_contrast_in_dialog(page, "#erase-dialog") == []
    page.click("#confirm-erase")
    page.wait_for_selector("#flash")
    assert (page.text_content("#flash"), page.text_content("h1")) == ("Details erased", "Details removed")
    assert ("Details removed", violations(page)) == ("Details removed", [])
    context.close()

    mentor = browser.new_context(bypass_csp=True)
    page = mentor.new_page()
    page.emulate_media(**THEMES[theme])
    sign_in(page, server, "demo-mentor")
    page.goto(server.base_url + f"/notifications/{created['notificationId']}/open")
    assert page.text_content("h1") == "Details removed" and in_theme(page, theme)
    assert ("the mentor's Details removed", violations(page)) == ("the mentor's Details removed", [])
    mentor.close()
