"""The six acceptance criteria of seed 003_6ff2725032226ce3.txt, read from Chromium's accessibility tree."""
import re

from ax_tree import find, focused, full_tree, web_phrase
from varsel_server import wait_until


def test_each_list_item_is_announced_as_type_title_body_time_ago_read_state(page):
    # 003: "each item is announced as '[type]: [title], [body], [time ago], [read/unread]'"
    names = [n.name for n in find(page, "link") if n.name.startswith(("Assignment:", "Certification expiry:", "Scenario prompt:", "Pause confirmation:"))]
    assert names[0] == "Assignment: New assignment, Visit Kari Nordmann at Storgata 1 on Tuesday, 5 minutes ago, unread"
    assert len(names) == 5
    pattern = re.compile(r"^(Assignment|Certification expiry|Scenario prompt|Pause confirmation): .+, .+, .+, (read|unread)$")
    assert all(pattern.match(name) for name in names), names
    assert sum(name.endswith(", unread") for name in names) == 3


def test_the_notifications_tab_with_3_unread_says_notifications_3_unread_tab_5_of_5(page):
    # 003: "it announces 'Notifications, 3 unread, tab, 5 of 5'"
    # The count is part of the name, from the tab's content: Orca reads no description in browse mode.
    [tab] = find(page, "tab", "Notifications, 3 unread")
    assert tab.description == ""
    element = page.locator("#tab-notifications")
    position = (element.get_attribute("aria-posinset"), element.get_attribute("aria-setsize"))
    assert position == ("5", "5")
    assert web_phrase(tab, role_word="tab", position=position) == "Notifications, 3 unread, tab, 5 of 5"
    assert [n.name for n in find(page, "tab")] == ["Home", "Assignments", "Contacts", "Profile", "Notifications, 3 unread"]


def test_the_filter_bar_with_assignments_selected_says_filter_assignments_active(page, server):
    # 003: "it announces 'Filter: Assignments, active'"
    page.goto(server.base_url + "/notifications?filter=assignment")
    # Orca speaks a group's name on entry, never its description: the state is part of the name.
    [group] = find(page, "group", "Filter: Assignments, active")
    assert web_phrase(group) == "Filter: Assignments, active"
    # The options are toggle buttons; the current one is pressed.
    pressed = [n.name for n in find(page, "button") if n.prop("pressed") == "true"]
    assert pressed == ["Assignments"]
    # Only assignments are listed.
    items = [n.name for n in find(page, "link") if ", unread" in n.name or ", read" in n.name]
    assert items and all(name.startswith("Assignment:") for name in items)


def test_following_an_assignment_puts_focus_on_the_contact_name_heading(page):
    # 003: "focus is placed on the contact name heading"
    page.get_by_role("link", name=re.compile("^Assignment: New assignment, Visit Kari")).click()
    page.wait_for_url(re.compile(r"/contacts/\d+"))
    assert wait_until(lambda: page.evaluate("document.activeElement && document.activeElement.id") == "contact-name-heading")
    node = focused(page)
    assert node is not None and node.role == "heading" and node.name == "Kari Nordmann"
    assert "Kari" not in page.url and "Storgata" not in page.url


def test_each_settings_switch_has_its_label_state_and_hint(page, server):
    # 003: "each toggle announces its label, current state (on/off), and hint for interaction"
    page.goto(server.base_url + "/settings")
    switches = find(page, "switch")
    # Five kinds (the four and summaries), sound, vibration, system notifications, the two privacy switches, the
    # three kinds the summary may gather, and this device's push switch.
    assert len(switches) == 14
    for switch in switches:
        assert switch.name
        assert switch.prop("checked") in ("true", "false")
        # The hint says what the switch does; no key to press (wrong on a touch screen, known to the reader).
        assert switch.description and "Press" not in switch.description
    [sound] = find(page, "switch", "Sound")
    assert sound.prop("checked") == "true"
    assert sound.description == "Plays a sound when a notification arrives"
    [privacy] = find(page, "switch", "Speak personal details in announcements")
    assert privacy.prop("checked") == "false"
    page.focus("#setting-sound")
    page.keyboard.press("Space")
    assert wait_until(lambda: find(page, "switch", "Sound")[0].prop("checked") == "false")


def test_a_new_notification_is_announced_politely_as_new_notification_title(page, server):
    # 003: "a polite live region announces 'New notification: [title]'"
    [region] = [n for n in full_tree(page) if n.prop("live") == "polite" and n.role == "log"]
    assert region
    coordinator = server.token("demo-coordinator")
    server.create(coordinator, "Scenario: guiding on stairs", ["demo-mentor"])
    assert wait_until(lambda: "New notification: Scenario: guiding on stairs" in page.inner_text("#live-polite"))
    # Inserted at the top of the list without moving focus.
    assert page.evaluate("document.activeElement === document.body || document.activeElement.id === 'main'")
    first = page.locator("#notification-list li").first.locator("a").get_attribute("aria-label")
    assert first.startswith("Scenario prompt: Scenario: guiding on stairs")
    # 004: the added row's check box is named by its visible label, as server-rendered rows are.
    assert find(page, "checkbox", "Select Scenario: guiding on stairs, just now")
    assert wait_until(lambda: len(find(page, "tab", "Notifications, 4 unread")) == 1)
