"""What Orca 43 speaks on Varsel's pages in Chromium: the test of seeds 003, 001, 002 and 004.

Every assertion is on Orca's speech (its debug log), not on Chromium's accessibility tree. Orca's own words for
roles stay as Orca says them: "page tab" for a tab, "panel" for a group, "push button", "toggle button pressed".
Orca speaks an object's position ("5 of 5") because the mentor's Orca is set to (Speak object position).
The tests run in file order on one signed-in session.
"""
from __future__ import annotations

import json
import math
import re
import time
from datetime import datetime, timezone
from urllib.parse import urlparse

import pytest

from conftest import (ASSIGNMENT_ANNOUNCED, GATHERED_TITLES, SEND_LATER_HINT, SUMMARY_ANNOUNCED, ScreenReader, check_one_summary,
                      check_scheduled_row, demo_mentor_gathering_a_summary, normalize, run_at, schedule_and_cancel_by_keys,
                      send_gathered_and_an_assignment, signed_in_as, signed_in_as_coordinator, submit_and_hear, submitted, subprocess_type)
from transcript import orca_form, transcript_section
from varsel_server import DEMO_PASSWORD, wait_until

def joined(spoken: list[str]) -> str:
    return ". ".join(spoken)


def test_each_list_item_is_spoken_type_title_body_time_ago_read_state(reader):
    # 003: "each item is announced as '[type]: [title], [body], [time ago], [read/unread]'"
    reader.goto("/notifications")
    spoken, steps = reader.tab_until(lambda text: text.startswith("Assignment: New assignment, Visit Kari"))
    [item] = [text for text in spoken if text.startswith("Assignment:")]
    assert re.fullmatch(r"Assignment: New assignment, Visit Kari Nordmann at Storgata 1 on Tuesday, \d+ minutes ago, unread link",
                        item), item
    links = []
    for _ in range(10):
        links += [text for text in reader.press("Tab") if text.endswith(" link") and ": " in text]
    pattern = re.compile(r"^(Assignment|Certification expiry|Scenario prompt|Pause confirmation): .+, .+, .+, (read|unread) link$")
    assert len(links) == 4 and all(pattern.match(text) for text in links), links


def test_check_boxes_have_unique_names_that_match_their_labels(reader):
    # 004 (check box): "Name describes the purpose of the control and matches the visible label"
    reader.goto("/notifications")
    names = []
    for _ in range(30):
        names += [text for text in reader.press("Tab") if " check box " in text]
        if len(names) == 5:
            break
    assert len(names) == 5 and len(set(names)) == 5, names
    assert names[0] == "Select New assignment, 5 minutes ago check box not checked" or \
        re.fullmatch(r"Select New assignment, \d+ minutes ago check box not checked", names[0]), names
    labels = reader.page.eval_on_selector_all("#notification-list label", "ls => ls.map(l => l.textContent)")
    assert [name.removesuffix(" check box not checked") for name in names] == labels


def test_the_notifications_tab_says_notifications_3_unread_tab_5_of_5_and_is_one_tab_stop(reader):
    # 003: "it announces 'Notifications, 3 unread, tab, 5 of 5'" (label, count, role, position)
    reader.goto("/")
    spoken, steps = reader.tab_until(lambda text: "page tab" in text)
    assert spoken[:2] == ["Home page tab", "1 of 5"], spoken
    # One Tab stop: the whole bar was reached once, on the selected tab; arrow keys move inside it.
    assert sum("page tab" in text for step in steps for text in step) == 1
    assert reader.press("End")[:2] == ["Notifications, 3 unread page tab", "5 of 5"]
    assert reader.press("Left")[:2] == ["Profile page tab", "4 of 5"]
    assert reader.press("Right")[:2] == ["Notifications, 3 unread page tab", "5 of 5"]
    before = reader.press("shift+Tab")
    assert not any("page tab" in text for text in before), before
    # In browse mode, reading the page from the top, the count is spoken too (Orca reads no description there).
    # (Profile, whose content does not mention the count: Home's "3 unread notifications" link says it by design.)
    loaded = reader.goto("/profile")
    index = loaded.index("Notifications, 3 unread")
    assert loaded[index + 1:index + 3] == ["page tab", "5 of 5"], loaded[index - 2:index + 4]
    # …and only once: the visible badge is not read again after the tab.
    assert loaded[index + 3:] == [] and sum("3 unread" in text for text in loaded) == 1, loaded[index:]
    # Space follows the tab, as Enter does.
    reader.tab_until(lambda text: "page tab" in text)
    reader.press("End")
    mark = reader.desktop.mark()
    reader.desktop.key("space")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Notifications"), 15, since=mark)
    reader.desktop.wait_for_quiet(0.8)


def test_the_filter_bar_with_assignments_selected_says_filter_assignments_active(reader):
    # 003: "it announces 'Filter: Assignments, active'"
    reader.goto("/notifications")
    reader.tab_until(lambda text: text == "Assignments toggle button not pressed")
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.page.wait_for_url("**/notifications?filter=assignment")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading"), 15, since=mark)
    reader.desktop.wait_for_quiet(0.8)
    spoken, _ = reader.tab_until(lambda text: "toggle button" in text)
    assert spoken[spoken.index("Filter: Assignments, active panel"):][:2] == [
        "Filter: Assignments, active panel", "All toggle button not pressed"], spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Assignments toggle button"))
    assert "Assignments toggle button pressed" in spoken
    # Without a filter the bar says so, and no "active".
    reader.goto("/notifications")
    spoken, steps = reader.tab_until(lambda text: text == "All toggle button pressed")
    assert "Filter: All panel" in spoken, spoken


# The transcript and Orca, element by element -------------------------------------------------------------------

def test_the_web_transcript_says_what_orca_says_on_the_settings_screen(reader):
    expected = [orca_form(line) for line in transcript_section("Notification settings:") if " switch, " in line]
    reader.goto("/settings")
    heard = []
    for _ in range(30):
        step = reader.press("Tab")
        switch = [index for index, text in enumerate(step) if " switch " in text]
        if switch:
            heard.append(". ".join(step[switch[0]:]))
        if len(heard) == len(expected):
            break
    assert heard == expected


def test_the_web_transcript_says_what_orca_says_on_the_filtered_centre(reader):
    # The group, its six buttons and the first assignment (the second's date differs: the demo clock is fixed).
    expected = [orca_form(line) for line in transcript_section("Filter bar, Assignments selected:")][:8]
    reader.goto("/notifications?filter=assignment")
    heard = []
    for _ in range(20):
        heard += [text for text in reader.press("Tab")
                  if text.startswith("Filter: ") or " toggle button " in text or text.startswith("Assignment: ")]
        if len(heard) >= len(expected):
            break
    # The time ago is data, not wording: both sides are read with the server's clock.
    heard = [re.sub(r"\d+ minutes ago", "N minutes ago", text) for text in heard]
    expected = [re.sub(r"\d+ minutes ago", "N minutes ago", line) for line in expected]
    assert heard[:len(expected)] == expected


def test_each_settings_switch_says_label_state_and_hint_once(reader):
    # 003: "each toggle announces its label, current state (on/off), and hint for interaction"
    loaded = reader.goto("/settings")
    # Browse mode reads the hint once, not twice (visible paragraph and description).
    sound = loaded.index("Sound")
    assert loaded[sound:sound + 4] == ["Sound", "switch", "on", "Plays a sound when a notification arrives"], loaded[sound:sound + 6]
    assert loaded.count("Plays a sound when a notification arrives") == 1
    # A stand-in that counts the page's permission requests. The script ends in a statement, not in the function:
    # Playwright calls a function that an evaluated expression returns, and that call was once counted as the
    # page's own request (the "Sound switch asks for permission" defect was this test's).
    reader.page.evaluate("window.__asks = 0; Notification.requestPermission = () => { window.__asks++; return Promise.resolve('default'); }; undefined")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Sound switch"))
    assert spoken[-2:] == ["Sound switch on", "Plays a sound when a notification arrives"], spoken
    assert reader.focused_id() == "setting-sound"
    # Space toggles it; Orca speaks the new state itself, once; no permission prompt from this switch.
    assert reader.press("space", quiet=1.0) == ["off"]
    assert reader.press("space", quiet=1.0) == ["on"]
    assert reader.page.evaluate("window.__asks") == 0
    switches = [spoken[-2:]]
    # On to the Save button, the form's last control (one Tab further leaves the page for the tab bar).
    for _ in range(30):
        step = reader.press("Tab")
        if any(" switch " in text for text in step):
            switches.append(step[-2:])
        if any(text.startswith("Save settings") for text in step):
            break
    assert [pair[0] for pair in switches] == [
        "Sound switch on", "Vibration switch on", "System notifications switch on", "Speak personal details in announcements switch off",
        "Show details on the lock screen switch off",
        "Assignments by text message switch on", "Certifications by text message switch off", "Pause confirmations by text message switch off",
        "Scenario prompts by text message switch off", "Summaries by text message switch off",
        "Assignments by email switch on", "Certifications by email switch off", "Pause confirmations by email switch off",
        "Scenario prompts by email switch off", "Summaries by email switch off",
        "Certifications in the summary switch off", "Pause confirmations in the summary switch off",
        "Scenario prompts in the summary switch off"]
    assert all(len(pair) == 2 and not pair[1].startswith("Press") for pair in switches)
    # Permission is asked only from the System notifications switch, when it is turned on.
    reader.tab_until(lambda text: text.startswith("System notifications switch"), key="shift+Tab")
    assert reader.focused_id() == "setting-system-notifications"
    assert reader.press("space", quiet=1.0) == ["off"]
    assert reader.page.evaluate("window.__asks") == 0
    assert reader.press("space", quiet=1.0) == ["on"]
    assert reader.page.evaluate("window.__asks") == 1


def test_following_an_assignment_puts_focus_on_the_contact_name_heading(reader):
    # 003: "focus is placed on the contact name heading"
    reader.goto("/notifications")
    reader.tab_until(lambda text: text.startswith("Assignment: New assignment, Visit Kari"))
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Contact"), 15, since=mark)
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == "Kari Nordmann", 10, since=mark)
    reader.desktop.wait_for_quiet(0.8)
    spoken = reader.spoken_since(mark)
    assert spoken[spoken.index("Kari Nordmann") + 1] == "heading level 1"
    assert reader.focused_id() == "contact-name-heading"
    assert "Kari" not in reader.page.url


def test_the_dialog_is_spoken_when_it_opens_and_focus_return_is_spoken_when_it_closes(reader):
    # 001: the dialog's title and text are read when it opens; Escape closes it and focus returns to the launcher.
    reader.goto("/notifications")
    reader.tab_until(lambda text: text.startswith("Assignment: New assignment, Visit Kari"))
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Contact"), 15, since=mark)
    reader.desktop.wait_for_quiet(0.8)
    assert reader.press("Tab")[-2:] == ["Acknowledge assignment push button", "Opens a dialog"] or \
        "Acknowledge assignment push button" in reader.spoken_since(mark)
    opened = "Acknowledge this assignment? You confirm that you will visit and that the coordinator may count on you"
    returned = "Acknowledge assignment push button"
    for attempt, (open_key, close_keys) in enumerate([("Return", ["Escape"]), ("space", ["Tab", "Escape"]),
                                                      ("Return", ["Tab", "Tab", "Return"])]):
        spoken = reader.press(open_key, quiet=1.0)
        assert opened in spoken, (attempt, spoken)
        assert spoken.count(opened) == 1 and "You confirm that you will visit and that the coordinator may count on you" not in spoken
        assert reader.focused_id() == "acknowledge-dialog"
        spoken = []
        for key in close_keys:
            spoken = reader.press(key, quiet=1.0)
        assert returned in spoken, (attempt, close_keys, spoken)
        assert reader.focused_id() == "acknowledge-button"


ANNOUNCEMENTS = "Announcements while the centre is open (offset, politeness, region, text):"


def announced(reader, mark, phrase: str) -> list[str]:
    """Waits until Orca has said `phrase` and then fallen quiet; returns everything it said since `mark`."""
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == phrase, 10, f"Orca never said {phrase!r}", since=mark)
    reader.desktop.wait_for_quiet(1.5)
    return reader.spoken_since(mark)


def test_a_new_notification_is_announced_with_its_title_once(reader):
    # 003_6ff2725032226ce3.txt: "a polite live region announces 'New notification: [title]'"
    reader.goto("/notifications")
    coordinator = reader.server.token("demo-coordinator")
    mark = reader.desktop.mark()
    reader.server.create(coordinator, "Stairs drill", ["demo-mentor"])
    spoken = announced(reader, mark, "New notification: Stairs drill")
    assert spoken.count("New notification: Stairs drill") == 1, spoken
    # Polite: the live region it came from waits for the reader; the core's transcript says the same words, politely.
    assert reader.page.evaluate("document.getElementById('live-polite').getAttribute('aria-live')") == "polite"
    assert "+21.0 s  polite  main  New notification: Stairs drill" in transcript_section(ANNOUNCEMENTS)


def test_a_burst_of_three_is_one_sentence(reader):
    reader.goto("/notifications")
    coordinator = reader.server.token("demo-coordinator")
    mark = reader.desktop.mark()
    for title in ("First of three", "Second of three", "Third of three"):
        reader.server.create(coordinator, title, ["demo-mentor"])
    spoken = announced(reader, mark, "3 new notifications")
    assert not any(text.startswith("New notification: ") for text in spoken), spoken


def test_an_urgent_notification_is_announced_as_urgent_with_its_title(reader):
    reader.goto("/notifications")
    mark = reader.desktop.mark()
    status, _, body = reader.server.request("POST", "/api/v1/notifications", reader.server.token("demo-coordinator"), {
        "recipients": ["demo-mentor"], "kind": "certificationExpiry", "title": "Guide certificate expires today",
        "body": "Renew it today", "urgency": "urgent"})
    assert status == 201, body
    spoken = announced(reader, mark, "New urgent notification: Guide certificate expires today")
    assert spoken.count("New urgent notification: Guide certificate expires today") == 1, spoken
    assert reader.page.evaluate("document.getElementById('live-assertive').getAttribute('aria-live')") == "assertive"
    assert "+25.0 s  assertive  main  New urgent notification: Guide certificate expires today" in transcript_section(ANNOUNCEMENTS)


def test_mark_all_as_read_twice_speaks_the_outcome_after_the_button(reader):
    # 002: feedback for the user's own action follows the control's own speech, and says what happened.
    reader.goto("/notifications")
    unread = reader.page.evaluate("Number(document.getElementById('tab-notifications-badge').textContent.split(' ')[0])")
    reader.tab_until(lambda text: text == "Mark all as read push button")
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == f"{unread} notifications marked as read", 10, since=mark)
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == "No unread notifications, nothing to mark as read", 10, since=mark)
    reader.desktop.wait_for_quiet(1.0)
    spoken, _ = reader.tab_until(lambda text: "page tab" in text)
    assert spoken[:2] == ["Notifications page tab", "5 of 5"], spoken


def test_a_confirmation_after_a_form_post_is_spoken_once(reader):
    reader.goto("/settings")
    reader.tab_until(lambda text: text == "Save settings push button")
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == "Settings saved", 10, since=mark)
    reader.desktop.wait_for_quiet(1.5)
    spoken = reader.spoken_since(mark)
    assert spoken.count("Settings saved") == 1, "\n".join(spoken)


def test_an_assignment_row_is_named_in_full_and_its_buttons_say_which_assignment(reader):
    # Each row "named in full for a screen reader (who, where, when, state, how long it has waited)";
    # acknowledge and decline from the list, each button saying which assignment it acts on.
    reader.goto("/assignments")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Kari Nordmann, Storgata 1"))
    [row] = [text for text in spoken if text.startswith("Kari Nordmann, Storgata 1")]
    assert re.fullmatch(r"Kari Nordmann, Storgata 1, 0155 Oslo, waiting for your answer, \d+ minutes link", row), row
    assert "Acknowledge the assignment with Kari Nordmann push button" in reader.press("Tab")
    assert "Decline the assignment with Kari Nordmann push button" in reader.press("Tab")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Ola Hansen, Kirkegata 5"))
    assert any(re.fullmatch(r"Ola Hansen, Kirkegata 5, 0153 Oslo, acknowledged, answered after 1 hour link", text) for text in spoken), spoken


def test_following_a_scenario_prompt_puts_focus_on_the_scenario_heading(reader):
    # Every screen is a deep-link target whose heading takes focus when opened from a notification.
    reader.goto("/notifications")
    reader.tab_until(lambda text: text.startswith("Scenario prompt: New training scenario"))
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == "A first visit", 15, since=mark)
    reader.desktop.wait_for_quiet(0.8)
    spoken = reader.spoken_since(mark)
    assert spoken[spoken.index("A first visit") + 1] == "heading level 1", spoken
    assert reader.focused_id() == "scenario-heading"


def test_the_profile_language_choice_is_spoken_and_its_confirmation_once(reader):
    # The Profile's language (nb/en) is a labelled choice, and saving it is confirmed once.
    reader.goto("/profile")
    spoken, _ = reader.tab_until(lambda text: "radio button" in text)
    # The fieldset's legend names the group; the choice says its own name (an autonym), its state and position.
    assert spoken[-4:] == ["Language panel", "English", "selected radio button", "1 of 2"], spoken
    spoken, _ = reader.tab_until(lambda text: text == "Save language push button")
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == "Language saved", 10, since=mark)
    reader.desktop.wait_for_quiet(1.5)
    assert reader.spoken_since(mark).count("Language saved") == 1


def test_a_new_notification_is_announced_in_norwegian_for_a_norwegian_reader(reader):
    # The same criterion in Norwegian Bokmål: "Nytt varsel: [tittel]". The reader's language is switched through the
    # Profile's own form (the test of that form is above), and switched back after.
    def choose(language: str) -> None:
        reader.page.evaluate("""language => fetch('/profile/language', {method: 'POST', headers: {'Content-Type':
            'application/x-www-form-urlencoded'}, body: '_csrf=' + encodeURIComponent(document.body.dataset.csrf) + '&language=' + language})""",
                             language)
    reader.goto("/notifications")
    choose("nb")
    try:
        reader.goto("/notifications")
        mark = reader.desktop.mark()
        reader.server.create(reader.server.token("demo-coordinator"), "Trappeøvelse", ["demo-mentor"])
        spoken = announced(reader, mark, "Nytt varsel: Trappeøvelse")
        assert spoken.count("Nytt varsel: Trappeøvelse") == 1, spoken
        assert "+21.0 s  polite  main  Nytt varsel: Trappeøvelse" in transcript_section(ANNOUNCEMENTS, locale="nb")
    finally:
        choose("en")


def test_the_send_forms_title_field_says_that_a_title_is_read_aloud(reader):
    # A coordinator's screen, last in the module: the session signs out and back in as the demo coordinator.
    reader.page.evaluate("""() => fetch('/signout', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: '_csrf=' + encodeURIComponent(document.body.dataset.csrf)})""")
    reader.page.goto(reader.server.base_url + "/signin")
    reader.page.fill("#username", "demo-coordinator")
    reader.page.fill("#password", DEMO_PASSWORD)
    reader.page.click("button[type=submit]")
    reader.page.wait_for_url("**/notifications")
    reader.goto("/coordinator")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Title entry"))
    # The field's name and role, then its hint (the description Orca reads after it).
    assert spoken[spoken.index("Title entry"):][:2] == [
        "Title entry", "Read aloud when the notification arrives and shown on lock screens, so it must not name anyone"], spoken


# The coordinator's screens ---------------------------------------------------------------------------------------

def test_a_dashboard_row_is_named_in_full_who_where_mentor_state_waited_and_overdue(reader):
    # Each assignment on the coordinator's dashboard is one link named in full: who is visited, where, by which
    # mentor, its state, how long it has waited, and "overdue" when it has waited too long.
    signed_in_as_coordinator(reader)
    reader.goto("/coordinator/assignments")
    shown = reader.page.text_content("#assignment-3 a").strip()
    spoken, _ = reader.tab_until(lambda text: text.startswith("Per Olsen, "))
    [row] = [text for text in spoken if text.startswith("Per Olsen, ")]
    assert re.fullmatch(r"Per Olsen, Fjordveien 3, 0250 Oslo, Ingrid Berg, waiting for an answer, \d+ days, overdue, no device shows notifications link", row), row
    assert row == normalize(shown) + " link", (row, shown)
    # The next rows, in the page's order: the one still waiting (not overdue), then the acknowledged one.
    [row] = [text for text in reader.press("Tab") if text.endswith(" link")]
    assert re.fullmatch(r"Kari Nordmann, Storgata 1, 0155 Oslo, Demo Mentor, waiting for an answer, \d+ minutes, no device shows notifications link", row), row
    [row] = [text for text in reader.press("Tab") if text.endswith(" link")]
    assert row == "Ola Hansen, Kirkegata 5, 0153 Oslo, Demo Mentor, acknowledged, answered after 1 hour link", row


def test_the_assignment_form_sent_without_a_name_speaks_its_error_summary_and_the_invalid_field_with_its_error(reader):
    signed_in_as_coordinator(reader)
    reader.goto("/coordinator")
    reader.tab_until(lambda text: text == "Address entry")
    subprocess_type(reader.desktop, "Storgata 9")
    reader.tab_until(lambda text: text == "Create assignment push button")
    summary, error = "Please correct the following:", "Name of the person to visit: This field is required"
    spoken = submitted(reader, "Send notifications", first_words=summary)
    # The summary (an alert) is spoken: its heading and the one mistake, as a link to the field.
    assert reader.page.get_attribute("#error-summary", "role") == "alert"
    assert error in [text.removeprefix("• ") for text in spoken], spoken
    assert run_at(spoken, [summary, "heading level 2"]) >= 0, spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Name of the person to visit: "))
    assert spoken[-1] == error + ". link", spoken
    # The field says it is invalid and why, once focused.
    spoken, _ = reader.tab_until(lambda text: text.startswith("Name of the person to visit entry"))
    field = spoken.index("Name of the person to visit entry")
    assert spoken[field:field + 3] == ["Name of the person to visit entry", "invalid entry", "This field is required"], spoken
    assert reader.focused_id() == "assignment-name"
    # What was typed is kept.
    assert reader.press("Tab")[0] == "Address entry Storgata 9 selected"


def test_a_send_for_later_is_heard_in_its_row_with_to_whom_and_when_and_cancelled_by_keys(reader):
    signed_in_as_coordinator(reader)
    title = "Morning practice call"
    reader.goto("/coordinator")
    reader.page.select_option("#send-recipient", label="Demo Mentor")
    field_spoken, row_spoken, _ = schedule_and_cancel_by_keys(reader, title, "Send notifications")
    field = field_spoken.index("Send later at entry")
    assert field_spoken[field:field + 2] == ["Send later at entry", SEND_LATER_HINT], field_spoken
    check_scheduled_row(title, row_spoken)
    _, _, listed = reader.server.request("GET", "/api/v1/scheduled-sends", reader.server.token("demo-coordinator"))
    assert title not in [item["title"] for item in listed["items"]], listed


def test_a_scenario_is_scheduled_from_the_scenarios_page_with_the_same_send_later_field(reader):
    signed_in_as_coordinator(reader)
    title = "Stairs for Monday"
    reader.goto("/scenarios")
    reader.tab_until(lambda text: text.startswith("Title entry"))
    subprocess_type(reader.desktop, title)
    reader.tab_until(lambda text: text.startswith("The scenario"))
    subprocess_type(reader.desktop, "Guide a visitor down the stairs")
    field_spoken, _ = reader.tab_until(lambda text: text.startswith("Send later at entry"))
    field = field_spoken.index("Send later at entry")
    assert field_spoken[field:field + 2] == ["Send later at entry", SEND_LATER_HINT], field_spoken
    subprocess_type(reader.desktop, "8")
    reader.tab_until(lambda text: text == "Publish push button")
    submit_and_hear(reader, "Training scenarios", "Scheduled: it is listed under Scheduled sends until it goes")
    token = reader.server.token("demo-coordinator")
    _, _, listed = reader.server.request("GET", "/api/v1/scheduled-sends", token)
    [send] = [item for item in listed["items"] if item["title"] == title]
    assert send["publishesScenario"] is True, send
    status, _, _ = reader.server.request("DELETE", f"/api/v1/scheduled-sends/{send['id']}", token)
    assert status == 200


def test_a_people_row_is_named_in_full_state_certification_and_live_assignments(reader):
    # Each person is one link: name, state, the certification that expires first and when, live assignments.
    signed_in_as_coordinator(reader)
    token = reader.server.token("demo-coordinator")
    _, _, people = reader.server.request("GET", "/api/v1/users", token)
    ingrid = next(person for person in people if person["username"] == "demo-mentor-2")
    _, _, person = reader.server.request("GET", f"/api/v1/users/{ingrid['id']}", token)
    [certification] = person["certifications"]
    expires = datetime.fromisoformat(certification["expiresAt"].replace("Z", "+00:00"))
    days = math.floor((expires - datetime.now(timezone.utc)).total_seconds() / 86400)
    assert 1 < days < 31, days
    reader.goto("/people")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Ingrid Berg, "))
    [row] = [text for text in spoken if text.startswith("Ingrid Berg, ")]
    assert row == f"Ingrid Berg, active, Likepersonsertifikat expires in {days} days, 1 live assignment, no device shows notifications link", row
    assert row == person["summary"] + " link"
    # The person before her, with a certification more than a month away: its date instead of a count of days.
    spoken, _ = reader.tab_until(lambda text: text.startswith("Demo Mentor, "), key="shift+Tab")
    [row] = [text for text in spoken if text.startswith("Demo Mentor, ")]
    assert re.fullmatch(r"Demo Mentor, active, Peer mentor certificate valid until [A-Z][a-z]+ \d{1,2}, \d{4}, \d+ live assignments, no device shows notifications link",
                        row), row


def test_a_deactivated_persons_row_says_so_in_its_words_once_and_its_mark_is_for_the_eye_only(reader):
    signed_in_as_coordinator(reader)
    token = reader.server.token("demo-coordinator")
    status, _, invited = reader.server.request("POST", "/api/v1/users", token, {
        "username": "berit.moe", "displayName": "Berit Moe", "role": "mentor", "locale": "en"})
    assert status == 201, invited
    status, _, _ = reader.server.request("POST", f"/api/v1/users/{invited['user']['id']}/deactivate", token)
    assert status == 200
    assert reader.page.evaluate("document.querySelectorAll('.state-mark').length") == 0
    reader.goto("/people")
    assert reader.page.inner_text("li.person-deactivated .state-mark") == "Deactivated"
    row = "Berit Moe, deactivated, no live assignments"
    spoken, _ = reader.tab_until(lambda text: text.startswith("Berit Moe, "))
    assert [text for text in spoken if text.startswith("Berit Moe, ")] == [row + " link"], spoken
    # Her line read in browse mode, as arrowing down the list does: the row in its words, and not the visible mark
    # ("Deactivated") before it.
    reader.press("Up")
    line = reader.press("Down")
    assert any(text.startswith(row) for text in line), line
    assert not any(text.startswith("Deactivated") for text in line), line


def test_an_address_that_is_no_page_says_page_not_found_and_one_tab_reaches_the_way_home(reader):
    # A mistyped or old address is a page in the frame, not raw JSON: its heading takes focus, then the way home.
    loaded = reader.goto("/dashboard")
    assert loaded[loaded.index("Page not found") + 1] == "heading level 1", loaded
    assert reader.focused_id() == "not-found-heading"
    spoken, steps = reader.tab_until(lambda text: text.startswith("Go to your notifications"))
    # "visited link" once the person has been to their notifications, as every signed-in person has.
    assert len(steps) == 1 and any(re.fullmatch(r"Go to your notifications (visited )?link", text) for text in spoken), steps


def test_the_sign_in_page_says_where_a_new_person_types_their_coordinators_code(reader):
    # After the sign-in button, one more Tab: the way to the page for the code a coordinator read aloud.
    loaded = reader.goto("/signin")
    assert any(text.startswith("I have a code from my coordinator") for text in loaded), loaded
    spoken, _ = reader.tab_until(lambda text: text.startswith("I have a code from my coordinator"))
    assert spoken[0] == "I have a code from my coordinator link", spoken
    assert reader.focused_id() == "have-code"


def test_adding_a_mentor_speaks_the_confirmation_the_link_heading_instructions_link_and_code(reader):
    signed_in_as_coordinator(reader)
    reader.goto("/people/new")
    reader.tab_until(lambda text: text == "Full name entry")
    subprocess_type(reader.desktop, "Sara Lund")
    assert reader.press("Tab")[:2] == ["Username entry", "What they sign in with: 2 to 64 letters, digits, full stops, hyphens or underscores"]
    subprocess_type(reader.desktop, "sara.lund")
    reader.tab_until(lambda text: text == "Add push button")
    spoken = submitted(reader, "Set-password link for Sara Lund")
    url = reader.page.get_attribute("#set-password-link", "href")
    code = reader.page.text_content("#set-password-code")
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}", code) and url == f"{reader.server.base_url}/password/{code}"
    # Orca reads the new page from the top: the confirmation (once), the heading, then the instructions.
    assert spoken.count("Sara Lund added") == 1, spoken
    start = spoken.index("Sara Lund added")
    assert spoken[start + 1:start + 4] == ["Set-password link for Sara Lund", "heading level 1", "Pass this on to Sara Lund"], spoken
    assert re.fullmatch(r"It works once, until [A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d{2} [AP]M, and is not shown again",
                        spoken[start + 4]), spoken[start + 4]
    assert ". ".join(spoken[start + 3:start + 5]) == normalize(reader.page.text_content("#link-instructions"))
    # The link, then the code with the way to use it; Orca says each dash of the code.
    link = spoken.index(url, start)
    assert spoken[link + 1] == "link"
    host = urlparse(reader.server.base_url).netloc
    where = spoken.index(f"Or go to {host}/password and enter this code:", link)
    assert code.replace("-", " dash ") in spoken[where + 1:where + 4], spoken[where:]
    # By Tab: the link says where it goes.
    spoken, _ = reader.tab_until(lambda text: text.startswith("http"))
    assert spoken[-1] == url + " link"


def test_the_set_password_page_speaks_whom_it_is_for_the_password_rules_and_a_mismatch(reader):
    # The person opens the link in a browser nobody is signed in to.
    signed_in_as_coordinator(reader)
    status, _, invited = reader.server.request("POST", "/api/v1/users", reader.server.token("demo-coordinator"), {
        "username": "nils.dahl", "displayName": "Nils Dahl", "role": "mentor", "locale": "en"})
    assert status == 201, invited
    link = invited["setPasswordLink"]["url"]
    context = reader.page.context.browser.new_context()
    try:
        page = context.new_page()
        mark = reader.desktop.mark()
        page.goto(link)
        # The new window opens with the address bar focused (the link in it): Enter opens it as a person would,
        # and Orca reads the page from the top. Orca names the bar, or, when it handles the bar's text change before
        # its focus, reads the address in it: either says the focus is there.
        reader.desktop.focus_window("Choose your password")
        address = link.split("://", 1)[1]
        reader.desktop.wait_for_speech(lambda u: u.text.startswith("Address and search bar") or u.text == address, 20,
                                       "the new window's address bar did not take focus", since=mark)
        reader.desktop.wait_for_quiet(1.0, 20)
        person = ScreenReader(reader.desktop, page, reader.server)
        loaded = submitted(person, "Choose your password", first_words="For Nils Dahl, who signs in as nils.dahl")
        heading = loaded.index("Choose your password")
        assert loaded[heading:heading + 3] == ["Choose your password", "heading level 1", "For Nils Dahl, who signs in as nils.dahl"], loaded
        spoken = person.press("Tab")
        field = spoken.index("New password password text")
        assert spoken[field:field + 2] == ["New password password text",
                                           "8 to 72 characters. A few words you will remember make a good password"], spoken
        # Two different passwords: the page comes back saying so, and the second field says it too.
        subprocess_type(reader.desktop, "correct horse battery")
        assert person.press("Tab")[0] == "The same password again password text"
        subprocess_type(reader.desktop, "correct horse battery staple")
        person.tab_until(lambda text: text == "Save the password and sign in push button")
        error = "The same password again: The two passwords are not the same"
        spoken = submitted(person, "Choose your password", first_words="Please correct the following:")
        assert error in [text.removeprefix("• ") for text in spoken], spoken
        assert run_at(spoken, ["Please correct the following:", "heading level 2"]) >= 0, spoken
        spoken, _ = person.tab_until(lambda text: text.startswith("The same password again password text"))
        field = spoken.index("The same password again password text")
        assert spoken[field:field + 2] == ["The same password again password text", "The two passwords are not the same"], spoken
        assert person.focused_id() == "repeat-password" and page.get_attribute("#repeat-password", "aria-invalid") == "true"
    finally:
        context.close()
        reader.desktop.focus_window(reader.page.title())


def test_the_coordinators_tab_bar_says_people_tab_2_of_5_and_notifications_n_unread_tab_5_of_5_and_is_one_tab_stop(reader):
    # The coordinator's bar: Dashboard, People, Send, Scenarios, Notifications; the count is said with its tab.
    signed_in_as_coordinator(reader)
    loaded = reader.goto("/people")
    unread = reader.page.evaluate("Number(document.getElementById('tab-notifications-badge').textContent)")
    assert unread >= 1
    notifications = f"Notifications, {unread} unread"
    # Read from the top in browse mode: every tab with its role and position.
    index = loaded.index("People", loaded.index("Dashboard"))
    assert loaded[index:index + 3] == ["People", "page tab", "2 of 5"], loaded[index:]
    index = loaded.index(notifications)
    assert loaded[index:index + 3] == [notifications, "page tab", "5 of 5"], loaded[index:]
    # By keyboard: one Tab stop, on the selected tab; the arrows, Home and End move within the bar.
    spoken, steps = reader.tab_until(lambda text: "page tab" in text)
    assert spoken[:2] == ["People page tab", "2 of 5"], spoken
    assert sum("page tab" in text for step in steps for text in step) == 1
    assert reader.press("End")[:2] == [f"{notifications} page tab", "5 of 5"]
    assert reader.press("Home")[:2] == ["Dashboard page tab", "1 of 5"]
    assert reader.press("Left")[:2] == [f"{notifications} page tab", "5 of 5"]
    assert reader.press("Right")[:2] == ["Dashboard page tab", "1 of 5"]
    assert reader.press("Right")[:2] == ["People page tab", "2 of 5"]
    before = reader.press("shift+Tab")
    assert not any("page tab" in text for text in before), before
    # Enter follows the tab.
    reader.tab_until(lambda text: "page tab" in text)
    assert reader.press("Right")[:2] == ["Send page tab", "3 of 5"]
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Send notifications"), 15, since=mark)
    reader.desktop.wait_for_quiet(0.8)


# Erasing a visited person's details ------------------------------------------------------------------------------

ERASE_DIALOG = ("Erase the details of Eva Strand? Their name, address, phone number and notes are removed from Varsel everywhere, "
                "at once. The assignment's history stays. This cannot be undone")


@pytest.fixture(scope="module")
def eva_strand(server):
    """An assignment of these tests' own, from the demo coordinator to the demo mentor: erasing it touches no other test's data."""
    status, _, created = server.request("POST", "/api/v1/assignments", server.token("demo-coordinator"), {
        "mentor": "demo-mentor", "contact": {"name": "Eva Strand", "phone": "", "address": "Parkveien 2", "notes": ""}})
    assert status == 201, created
    return created["assignment"]


def test_the_erasure_dialog_is_spoken_when_it_opens_keeps_focus_inside_and_cancel_returns_to_the_launcher(reader, eva_strand):
    # The coordinator opens the person's page from the dashboard row; the dialog's question and text are read when it
    # opens, Tab and Shift+Tab stay on its two buttons, and Cancel (or Escape) closes it with the launcher spoken again.
    signed_in_as_coordinator(reader)
    reader.goto("/coordinator/assignments")
    reader.tab_until(lambda text: text.startswith("Eva Strand, Parkveien 2, Demo Mentor, "))
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.page.wait_for_url(f"**/contacts/{eva_strand['contactId']}?assignment={eva_strand['id']}")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Contact"), 15, since=mark)
    reader.desktop.wait_for_quiet(0.8)
    launcher = "Erase these details push button"
    spoken, _ = reader.tab_until(lambda text: text.startswith(launcher))
    assert spoken[spoken.index(launcher):][:2] == [launcher, "Opens a dialog"], spoken
    for attempt, (open_key, moves, close_key) in enumerate([
            ("Return", [("Tab", "Erase push button", "confirm-erase"), ("Tab", "Cancel push button", "cancel-erase"),
                        ("Tab", "Erase push button", "confirm-erase"), ("shift+Tab", "Cancel push button", "cancel-erase")],
             "Return"),
            ("space", [("shift+Tab", "Cancel push button", "cancel-erase")], "space"),
            ("Return", [], "Escape")]):
        spoken = reader.press(open_key, quiet=1.0)
        assert spoken.count(ERASE_DIALOG) == 1, (attempt, spoken)
        assert reader.focused_id() == "erase-dialog"
        # Focus is confined: from the last button Tab comes back to the first, and Shift+Tab from the first to the last.
        for key, said, focused in moves:
            spoken = reader.press(key)
            assert said in spoken, (attempt, key, spoken)
            assert reader.focused_id() == focused, (attempt, key)
        spoken = reader.press(close_key, quiet=1.0)
        assert launcher in spoken, (attempt, close_key, spoken)
        assert reader.focused_id() == "erase-button"
        # (Read once Orca is quiet, not polled: Playwright's wait_for_function made Orca add "clickable" to the dialog.)
        assert reader.page.evaluate("document.getElementById('erase-dialog').open") is False
    # Cancelled three times: the details are all still there.
    _, _, assignment = reader.server.request("GET", f"/api/v1/assignments/{eva_strand['id']}", reader.server.token("demo-coordinator"))
    assert assignment["contact"]["name"] == "Eva Strand", assignment


def test_erasing_speaks_the_confirmation_once_then_details_removed_and_when_and_the_mentor_hears_details_removed(reader, eva_strand):
    # Confirmed in the dialog, the page comes back without the person: the confirmation (once), the heading and when
    # the details were removed. The dashboard row and the mentor's notification then say "details removed" too.
    signed_in_as_coordinator(reader)
    reader.goto(f"/contacts/{eva_strand['contactId']}?assignment={eva_strand['id']}")
    reader.tab_until(lambda text: text.startswith("Erase these details push button"))
    assert reader.press("Return", quiet=1.0).count(ERASE_DIALOG) == 1
    assert "Erase push button" in reader.press("Tab")
    spoken = submitted(reader, "Contact", first_words="Details erased")
    assert spoken.count("Details erased") == 1, spoken
    start = spoken.index("Details erased")
    assert spoken[start + 1:start + 3] == ["Details removed", "heading level 1"], spoken[start:]
    removed = spoken[start + 3]
    assert re.fullmatch(r"The details of this person were removed on [A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d{2} [AP]M", removed), removed
    assert removed == normalize(reader.page.text_content("#contact-name-heading + p"))
    assert not any("Eva Strand" in text or "Parkveien" in text for text in spoken), spoken
    # The dashboard row: the person is gone from it, the mentor and the state stay. (A "visited link" once the
    # dialog's test above has followed it.)
    reader.goto("/coordinator/assignments")
    spoken, _ = reader.tab_until(lambda text: text.startswith("details removed, "))
    [row] = [text for text in spoken if text.startswith("details removed, ")]
    assert re.fullmatch(r"details removed, Demo Mentor, waiting for an answer, (less than a minute|1 minute|\d+ minutes), no device shows notifications (visited )?link",
                        row), row
    # The mentor's notification about the assignment, in her list.
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    loaded = reader.goto("/notifications")
    assert not any("Eva Strand" in text or "Parkveien" in text for text in loaded), loaded
    spoken, _ = reader.tab_until(lambda text: text.startswith("Assignment: Details removed"))
    at = next(index for index, text in enumerate(spoken) if text.startswith("Assignment: Details removed"))
    # Orca says the row and its role in one utterance, or (on a loaded machine) the role as the next one: the same words.
    item = spoken[at] + (" link" if spoken[at + 1:at + 2] == ["link"] else "")
    assert re.fullmatch(r"Assignment: Details removed, (just now|1 minute ago|\d+ minutes ago), unread link", item), spoken


# Passkeys -------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def authenticator(reader):
    """Chromium's virtual authenticator (user verified, present at once) for the session's page; passkey autofill off:
    the virtual authenticator would answer it as the sign-in page loads, where a person first picks the passkey."""
    cdp = reader.page.context.new_cdp_session(reader.page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    authenticator_id = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]
    reader.page.add_init_script("if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = async () => false;")
    yield authenticator_id
    cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator_id})


def until_said(reader, phrase: str, act) -> list[str]:
    """Does `act` (a key, a navigation) and returns what Orca said until it said `phrase` and fell quiet. Waits for the
    phrase itself: Orca's "Finished loading" line was missing now and then after a page the passkey script opened."""
    mark = reader.desktop.mark()
    act()
    reader.desktop.wait_for_speech(lambda u: normalize(u.text) == phrase, 30, f"Orca never said {phrase!r}", since=mark)
    reader.desktop.wait_for_quiet(1.5, 20)
    return reader.spoken_since(mark)


def test_a_passkey_without_a_name_is_refused_with_its_rule_spoken_once_from_the_button_and_from_the_field(reader, authenticator):
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    reader.goto("/profile")
    rule = "Give the passkey a name of 1 to 60 characters"
    # From the button before the Passkeys section, put there without a sound (Orca follows the keyboard, not a
    # script's focus): a few Tabs, not the whole Profile's.
    reader.page.focus("#change-password")
    reader.tab_until(lambda text: text.startswith("Name for the new passkey"), limit=6)
    reader.press("BackSpace")  # the name, selected as the field took focus, is deleted
    reader.tab_until(lambda text: text == "Add a passkey push button")
    for key_in in ("the button", "the field"):
        mark = reader.desktop.mark()
        reader.desktop.key("Return")
        reader.desktop.wait_for_speech(lambda u: rule in normalize(u.text), 20, f"Orca never said the rule, from {key_in}", since=mark)
        reader.desktop.wait_for_quiet(1.5, 20)
        spoken = reader.spoken_since(mark)
        # Focus is in the field, which says it is invalid; the rule is heard once, not also from the live region.
        assert sum(text.count(rule) for text in spoken) == 1, (key_in, spoken)
        assert reader.focused_id() == "new-passkey-name", key_in
        if key_in == "the button":
            assert "invalid entry" in spoken, spoken
    assert reader.server.request("GET", "/api/v1/me/passkeys", reader.server.token("demo-mentor"))[2]["items"] == []  # none was added


def test_adding_a_passkey_speaks_its_name_field_the_confirmation_once_and_each_passkey_with_its_buttons(reader, authenticator):
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    reader.goto("/profile")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Name for the new passkey"))
    assert spoken[-3:-1] == ["Name for the new passkey entry My phone selected required",
                             "So you can tell your passkeys apart, such as \u201cMy iPhone\u201d. At most 60 characters"], spoken
    reader.tab_until(lambda text: text == "Add a passkey push button")
    spoken = until_said(reader, "Passkey added", lambda: reader.desktop.key("Return"))
    assert spoken.count("Passkey added") == 1, spoken
    # Read on from the confirmation, the Profile reaches its passkeys: the list, the passkey's name as a heading, its dates.
    passkeys = spoken[spoken.index("Passkeys"):]
    assert passkeys[:5] == ["Passkeys", "heading level 2",
                            "Sign in with your phone's own lock (Face ID, fingerprint or PIN) instead of typing your password",
                            "List with 1 item", "My phone"], passkeys[:12]
    assert passkeys[5] == "heading level 3" and re.fullmatch(r"Added [A-Z][a-z]+ \d{1,2}, \d{4}, never used", passkeys[6]), passkeys[:12]
    spoken, _ = reader.tab_until(lambda text: text.startswith("New name for My phone"))
    assert "New name for My phone entry My phone selected required" in spoken, spoken
    assert "Rename My phone push button" in reader.press("Tab")
    assert "Remove My phone push button" in reader.press("Tab")


def test_sign_in_with_a_passkey_is_the_first_stop_and_one_keypress_signs_in(reader, authenticator):
    reader.page.evaluate("""() => fetch('/signout', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: '_csrf=' + encodeURIComponent(document.body.dataset.csrf)})""")
    loaded = until_said(reader, "Or sign in with your password", lambda: reader.page.goto(reader.server.base_url + "/signin"))
    start = loaded.index("Varsel")
    assert loaded[start:start + 6] == ["Varsel", "heading level 1", "Sign in with a passkey", "push button", "Or sign in with your password",
                                       "heading level 2"], loaded
    assert reader.press("Tab") == ["Sign in with a passkey push button"]
    spoken = until_said(reader, "Notifications", lambda: reader.desktop.key("Return"))
    reader.page.wait_for_url("**/notifications", timeout=10_000)
    assert "heading level 1" in spoken[spoken.index("Notifications"):], spoken


def test_removing_a_passkey_speaks_the_confirmation_once_and_that_none_are_left(reader, authenticator):
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    # The passkey the test before this one added; run alone (a rerun of the failed ones), the test adds it itself,
    # by mouse, since how adding one is spoken is that test's to prove.
    reader.page.goto(reader.server.base_url + "/profile")
    if reader.page.locator("#remove-passkey-1").count() == 0:
        reader.page.click("#add-passkey")
        reader.page.wait_for_url("**/profile?done=passkey-added", timeout=10_000)
    reader.goto("/profile")
    # Focus starts on the button before the Passkeys section, put there without a sound (Orca follows the keyboard,
    # not a script's focus), so the keys that follow are the ones the test is about.
    reader.page.focus("#change-password")
    reader.tab_until(lambda text: text == "Remove My phone push button", limit=6)
    spoken = until_said(reader, "Passkey removed", lambda: reader.desktop.key("Return"))
    assert spoken.count("Passkey removed") == 1, spoken
    passkeys = spoken[spoken.index("Passkeys"):]
    assert passkeys[2:4] == ["Sign in with your phone's own lock (Face ID, fingerprint or PIN) instead of typing your password",
                             "You have no passkeys"], passkeys[:8]


def test_the_set_password_page_offers_a_passkey_instead_and_adding_one_signs_in_with_the_confirmation_once(reader, authenticator, server):
    status, _, invited = server.request("POST", "/api/v1/users", server.token("demo-coordinator"), {
        "username": "nina", "displayName": "Nina Berg", "role": "mentor", "locale": "en"})
    assert status == 201, invited
    reader.page.evaluate("""() => fetch('/signout', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: '_csrf=' + encodeURIComponent(document.body.dataset.csrf)})""")
    loaded = until_said(reader, "Or add a passkey instead",
                        lambda: reader.page.goto(f"{server.base_url}/password/{invited['setPasswordLink']['code']}"))
    start = loaded.index("Or add a passkey instead")
    assert loaded[start:start + 3] == ["Or add a passkey instead", "heading level 2",
                                       "Sign in with your phone's own lock (Face ID, fingerprint or PIN) instead of typing your password"], loaded
    spoken, _ = reader.tab_until(lambda text: text.startswith("Name for the new passkey"))
    assert "Name for the new passkey entry My phone selected required" in spoken, spoken
    reader.tab_until(lambda text: text == "Add a passkey push button")
    spoken = until_said(reader, "Passkey added", lambda: reader.desktop.key("Return"))
    assert spoken.count("Passkey added") == 1, spoken
    reader.page.wait_for_url("**/?done=passkey-added")


# Devices that get notifications ----------------------------------------------------------------------------------

IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Mobile/15E148 Safari/604.1"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"


def test_the_profile_says_which_device_shows_notifications_and_which_to_wake_up(reader, server):
    # Two phones of the demo mentor's get a push each (a stand-in push service takes both); the Android phone's
    # service worker reports it shown, the iPhone's never does. Read from the top, the Profile names each phone and
    # says how its notifications stand, with what to do about the one that stopped showing them.
    from push_service import Device, StandInPushService

    mentor = server.token("demo-mentor")
    service = StandInPushService()
    try:
        phones = {}
        for name, agent in (("iphone", IPHONE), ("android", ANDROID)):
            device = Device()
            status, _, subscribed = server.request("POST", "/api/v1/push-subscriptions", mentor, device.subscription(service.endpoint(name)),
                                                   headers={"User-Agent": agent})
            assert status == 201, subscribed
            phones[name] = (device, subscribed)
        server.create(server.token("demo-coordinator"), "Phone check", ["demo-mentor"])
        receipt = json.loads(phones["android"][0].decrypt(service.wait_for("android", 1)[0]))["notification"]["data"]["receipt"]
        service.wait_for("iphone", 1)
        assert server.request("POST", receipt["url"], None, {"notificationID": receipt["notificationID"], "token": receipt["token"]})[0] == 204

        def healths():
            return {d["deviceName"]: d["health"] for d in server.request("GET", "/api/v1/push-subscriptions", mentor)[2]}
        # The positive signal that the iPhone's push went unconfirmed past the stale time (two seconds here).
        assert wait_until(lambda: healths() == {"iPhone (Safari)": "notConfirmed", "Android (Chrome)": "shows"}, timeout=20), healths()
    finally:
        service.close()
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    loaded = reader.goto("/profile")
    start = loaded.index("Devices that get notifications")
    assert loaded[start + 1:start + 3] == ["heading level 2", "Each phone or computer where you turned on notifications, and whether it shows them"], loaded[start:]
    assert loaded[start + 3] == "List with 2 items", loaded[start:]
    # Each item, then its position (the mentor's Orca speaks object positions).
    iphone, android = loaded[start + 4], loaded[start + 6]
    assert (loaded[start + 5], loaded[start + 7]) == ("1 of 2", "2 of 2"), loaded[start:]
    assert re.fullmatch(r"iPhone \(Safari\), not confirmed since [A-Z][a-z]+ \d{1,2}, \d{4}: open Varsel on this phone to wake it up", iphone), iphone
    assert re.fullmatch(r"Android \(Chrome\), last notification shown today at \d{1,2}:\d{2} [AP]M", android), android
    # The coordinator sees the same on the mentor's page: one phone still shows notifications, so no warning; the
    # second demo mentor has none, and her page says so.
    signed_in_as_coordinator(reader)
    _, _, people = reader.server.request("GET", "/api/v1/users", reader.server.token("demo-coordinator"))
    ids = {person["username"]: person["id"] for person in people}
    loaded = reader.goto(f"/people/{ids['demo-mentor']}")
    [summary] = [text for text in loaded if text.startswith("Demo Mentor, active, ")]
    assert "no device shows notifications" not in summary, summary
    start = loaded.index("Devices that get notifications")
    assert loaded[start + 1:start + 3] == ["heading level 2", "List with 2 items"], loaded[start:]
    assert (loaded[start + 3], loaded[start + 5]) == (iphone, android), loaded[start:]
    loaded = reader.goto(f"/people/{ids['demo-mentor-2']}")
    [summary] = [text for text in loaded if text.startswith("Ingrid Berg, active, ")]
    assert re.fullmatch(r"Ingrid Berg, active, Likepersonsertifikat expires in \d+ days, 1 live assignment, no device shows notifications",
                        summary), summary
    start = loaded.index("Devices that get notifications")
    assert loaded[start + 1:start + 3] == ["heading level 2", "Notifications are turned on on none of their devices"], loaded[start:]


def test_a_summary_is_one_announcement_at_its_time_while_an_assignment_comes_at_once(reader):
    # What the summary gathers is not announced when it arrives; the assignment sent with it is, at once; at the
    # summary's time one announcement counts what was gathered. (Last in the file: it adds an assignment.)
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    reader.goto("/notifications")
    with demo_mentor_gathering_a_summary(reader.server) as moment:
        mark = reader.desktop.mark()
        send_gathered_and_an_assignment(reader.server)
        spoken = announced(reader, mark, ASSIGNMENT_ANNOUNCED)
        assert time.time() < moment, "the assignment came at once, before the summary's time"
        reader.desktop.wait_for_speech(lambda u: normalize(u.text) == SUMMARY_ANNOUNCED, moment - time.time() + 20,
                                       "Orca never said the summary", since=mark)
        assert time.time() >= moment - 1, "not before its time"
        reader.desktop.wait_for_quiet(1.5)
        spoken = reader.spoken_since(mark)
    heard = [text for text in spoken if text.startswith("New notification")]
    assert heard == [ASSIGNMENT_ANNOUNCED, SUMMARY_ANNOUNCED], spoken
    assert not any(title in text for text in spoken for title in GATHERED_TITLES), spoken
    check_one_summary(reader.server)
