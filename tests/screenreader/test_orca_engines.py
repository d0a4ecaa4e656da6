"""What Orca 43 speaks on Varsel's pages in Firefox ESR and WebKitGTK: seed 003's six phrases, seed 001's dialog,
sign-in, the settings switches and the coordinator's screens, on the engines mentors and coordinators use.

Safari on every iPhone (and an installed web app there) is WebKit; NVDA users mostly read Firefox. Each engine
computes names, roles, states and live-region events itself, so the same page is read here again, on each, by keys
alone. Where Orca's WebKit script is the limit (it says nothing when focus lands on a heading, reads a switch as a
toggle button, and does not speak live regions), the test asserts what Orca says there and, beside it, what WebKit
itself reports through AT-SPI (`atspi_probe.py`): the switch role and its state, focus on the heading, the live-region
text. `docs/screen-readers.md` has the table per engine. Each engine has one session, signed in as the demo mentor; a test that needs another person signs in itself, so
any test can run alone.
"""
from __future__ import annotations

import re
import time

from conftest import (ASSIGNMENT_ANNOUNCED, FAILED_DELIVERY_ROW, GATHERED_TITLES, SEND_LATER_HINT, SUMMARY_ANNOUNCED, UNREACHABLE_WEBHOOK,
                      a_failed_webhook_delivery, check_one_summary, check_scheduled_row, delivery_row_by_arrowing,
                      demo_mentor_gathering_a_summary, normalize, run_at, schedule_and_cancel_by_keys, send_gathered_and_an_assignment,
                      sign_in_by_keyboard, stream_metric, subprocess_type)
from varsel_server import DEMO_PASSWORD, wait_until
from transcript import orca_form, transcript_section


def is_webkit(reader) -> bool:
    return reader.engine.name == "webkit"


def test_the_fresh_sign_in_page_says_required_and_nothing_is_invalid_before_anyone_types(engine_reader):
    reader = engine_reader
    # Signed out from the Profile, the sign-in page loads fresh.
    reader.goto("/profile")
    reader.tab_until(lambda text: text == "Sign out push button", key="shift+Tab")
    loaded = reader.activate("Return", "Sign in")
    reader.engine.after_load(reader.desktop, reader.probe)
    focus = reader.probe.mark()
    heard = sign_in_by_keyboard(reader, "demo-mentor")
    # Required is said; "invalid" is not, neither while the page is read nor on the first field.
    assert "Username entry required" in heard, heard
    assert not any("invalid" in text for text in loaded + heard), loaded + heard
    # The engine reports both fields required and neither invalid.
    fields = {r["id"]: r for r in reader.probe.since(focus, "focus") if r["id"] in ("username", "password")}
    assert sorted(fields) == ["password", "username"], fields
    for field in fields.values():
        assert "required" in field["states"] and "invalid entry" not in field["states"], field
    # The password, then Enter: a password sign-in, no passkey needed.
    spoken = reader.activate("Return", "Notifications")
    assert not any("invalid" in text for text in spoken), spoken


def test_each_list_item_is_spoken_type_title_body_time_ago_read_state(engine_reader):
    # 003: "each item is announced as '[type]: [title], [body], [time ago], [read/unread]'"
    reader = engine_reader
    reader.goto("/notifications")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Assignment: New assignment, Visit Kari"))
    [item] = [text for text in spoken if text.startswith("Assignment:")]
    assert re.fullmatch(r"Assignment: New assignment, Visit Kari Nordmann at Storgata 1 on Tuesday, \d+ minutes ago, unread link",
                        item), item


def test_the_notifications_tab_says_notifications_3_unread_tab_5_of_5(engine_reader):
    # 003: "it announces 'Notifications, 3 unread, tab, 5 of 5'" (label, count, role, position)
    reader = engine_reader
    reader.goto("/")
    spoken, steps = reader.tab_until(lambda text: "page tab" in text)
    assert spoken[:2] == ["Home page tab", "1 of 5"], spoken
    assert sum("page tab" in text for step in steps for text in step) == 1
    assert reader.press("End")[:2] == ["Notifications, 3 unread page tab", "5 of 5"]
    assert reader.focused()["id"] == "tab-notifications"


def test_the_filter_bar_with_assignments_selected_says_filter_assignments_active(engine_reader):
    # 003: "it announces 'Filter: Assignments, active'"
    reader = engine_reader
    reader.goto("/notifications?filter=assignment")
    spoken, _ = reader.tab_until(lambda text: "toggle button" in text)
    assert spoken[spoken.index("Filter: Assignments, active panel"):][:2] == [
        "Filter: Assignments, active panel", "All toggle button not pressed"], spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Assignments toggle button"))
    assert "Assignments toggle button pressed" in spoken


def test_each_settings_switch_says_label_state_and_hint(engine_reader):
    # 003: "each toggle announces its label, current state (on/off), and hint for interaction"
    reader = engine_reader
    expected = [orca_form(line, reader.engine.name) for line in transcript_section("Notification settings:") if " switch, " in line]
    reader.goto("/settings")
    heard, switches = [], []
    for _ in range(50):
        step = reader.press("Tab")
        focused = reader.focused()
        if focused.get("attributes", {}).get("xml-roles") == "switch":
            said = [index for index, text in enumerate(step) if text.startswith(focused["name"] + " ")]
            heard.append(". ".join(step[said[0]:]) if said else ". ".join(step))
            switches.append(focused)
        if len(heard) == len(expected):
            break
    assert heard == expected
    # What the engine itself reports for each: a switch (its ARIA role) with its checked state. On WebKit this is
    # the part Orca 43 does not word as a switch.
    assert [s["attributes"].get("xml-roles") for s in switches] == ["switch"] * len(expected), switches
    assert ["checked" in s["states"] for s in switches] == [line.split(". ")[0].endswith((" on", " button pressed")) for line in expected]
    # Space toggles the last one; the engine reports the new state and Orca says it.
    last, changes = switches[-1], reader.probe.mark()
    assert reader.press("space", quiet=1.0) == (["pressed"] if is_webkit(reader) else ["on"])
    reader.probe.wait_for(lambda r: r["event"] == "state" and r["id"] == last["id"] and r["state"] == "checked"
                          and r["value"] is True, 10, "the switch's new state was not reported", since=changes)
    assert reader.press("space", quiet=1.0) == (["not pressed"] if is_webkit(reader) else ["off"])


def test_following_an_assignment_puts_focus_on_the_contact_name_heading(engine_reader):
    # 003: "focus is placed on the contact name heading"
    reader = engine_reader
    reader.goto("/notifications")
    reader.tab_until(lambda text: text.startswith("Assignment: New assignment, Visit Kari"))
    focus = reader.probe.mark()
    spoken = reader.activate("Return", "Contact")
    heading = reader.probe.wait_for(lambda r: r["event"] == "focus" and r["id"] == "contact-name-heading", 10,
                                    "focus did not land on the contact name heading", since=focus)
    assert heading["role"] == "heading" and heading["name"] == "Kari Nordmann", heading
    if is_webkit(reader):
        # Orca 43's WebKit script is silent when focus lands on a heading: it says the window's title only.
        assert "Contact – Varsel" in spoken, spoken
    else:
        assert spoken[spoken.index("Kari Nordmann") + 1] == "heading level 1", spoken


def test_an_address_that_is_no_page_says_page_not_found_and_one_tab_reaches_the_way_home(engine_reader):
    reader = engine_reader
    focus = reader.probe.mark()
    loaded = reader.goto("/dashboard")
    heading = reader.probe.wait_for(lambda r: r["event"] == "focus" and r["id"] == "not-found-heading", 10,
                                    "focus did not land on the heading", since=focus)
    assert heading["role"] == "heading" and heading["name"] == "Page not found", heading
    if is_webkit(reader):
        # Orca 43's WebKit script is silent when focus lands on a heading: it says the window's title only.
        assert "Page not found – Varsel" in loaded, loaded
    elif "Page not found" in loaded:
        # Orca says the load, a summary, then reads the page from the top, its heading on the way.
        assert loaded[loaded.index("Page not found") + 1] == "heading level 1", loaded
    else:
        # Orca reads a page that has finished loading only if Firefox's address bar no longer holds focus by then
        # (its web script's busy-state handler returns early otherwise). When Firefox moves focus into the page a
        # moment later, Orca takes the heading as the new focus without speaking: the person hears the load message
        # with the page's title, and nothing after it.
        assert loaded[-1] == "Finished loading Page not found – Varsel", loaded
    spoken, steps = reader.tab_until(lambda text: text.startswith("Go to your notifications"))
    # "visited link" once the person has been to their notifications, as every signed-in person has.
    assert len(steps) == 1 and any(re.fullmatch(r"Go to your notifications (visited )?link", text) for text in spoken), steps


def test_the_dialog_is_spoken_when_it_opens_keeps_focus_inside_and_escape_returns_to_the_launcher(engine_reader):
    # 001: the dialog's title and text are read when it opens; Tab stays inside; Escape returns focus to the launcher.
    reader = engine_reader
    reader.goto("/notifications")
    reader.tab_until(lambda text: text.startswith("Assignment: New assignment, Visit Kari"))
    reader.activate("Return", "Contact")
    launcher = "Acknowledge assignment push button"
    spoken, _ = reader.tab_until(lambda text: text.startswith("Acknowledge assignment"))
    assert spoken[-2:] == [launcher, "Opens a dialog"], spoken
    question, text = "Acknowledge this assignment?", "You confirm that you will visit and that the coordinator may count on you"
    # Named by its visible title (001). Firefox's Orca reads the name and the dialog's text at once, as Chromium's
    # does; Orca 43's WebKit script says the name and the role only, and WebKit exposes the text as the dialog's
    # content (checked below through AT-SPI).
    said_open = f"{question} dialog" if is_webkit(reader) else f"{question} {text}"
    for attempt, (open_key, moves, close_key) in enumerate([
            ("Return", [("Tab", "Acknowledge assignment push button", "confirm-acknowledge"),
                        ("Tab", "Cancel push button", "cancel-acknowledge"),
                        ("Tab", "Acknowledge assignment push button", "confirm-acknowledge"),
                        ("shift+Tab", "Cancel push button", "cancel-acknowledge")], "Escape"),
            ("space", [("Tab", "Acknowledge assignment push button", "confirm-acknowledge"),
                       ("Tab", "Cancel push button", "cancel-acknowledge")], "Return")]):
        spoken = reader.press(open_key, quiet=1.0)
        assert said_open in spoken and spoken.count(said_open) == 1, (attempt, spoken)
        assert not any(said.startswith("You confirm") for said in spoken), (attempt, spoken)
        dialog = reader.focused()
        assert dialog["id"] == "acknowledge-dialog" and dialog["name"] == question, dialog
        assert text in " ".join(dialog.get("content", [])), dialog
        for key, said, focused in moves:
            assert said in reader.press(key), (attempt, key)
            assert reader.focused_id() == focused, (attempt, key)
        spoken = reader.press(close_key, quiet=1.0)
        assert launcher in spoken, (attempt, close_key, spoken)
        assert reader.focused_id() == "acknowledge-button"


def test_a_new_notification_is_announced_with_its_title_once(engine_reader):
    # 003: "a polite live region announces 'New notification: [title]'"
    reader = engine_reader
    opened, loads = stream_metric(reader.server, "opened_total"), reader.probe.mark()
    reader.goto("/notifications")
    # The page's own stream has connected (the server counted one more), so what follows reaches this page; and the
    # page's tree has been read as a screen reader reads it on load, live regions included.
    assert wait_until(lambda: stream_metric(reader.server, "opened_total") > opened, 20), "the page opened no live stream"
    reader.probe.wait_for(lambda r: r["event"] == "tree" and r["name"].startswith("Notifications") and "polite" in r["live"], 30,
                          "the engine showed no polite live region on the centre", since=loads)
    coordinator = reader.server.token("demo-coordinator")
    mark, events = reader.desktop.mark(), reader.probe.mark()
    reader.server.create(coordinator, "Stairs drill", ["demo-mentor"])
    live = reader.probe.wait_for(lambda r: r["event"] == "live" and r["text"] == "New notification: Stairs drill", 30,
                                 f"the engine reported no live-region text ({stream_metric(reader.server, 'open')} live streams"
                                 " were open on the server when it was sent)", since=events)
    assert live["politeness"] == "polite", live
    if not is_webkit(reader):
        reader.desktop.wait_for_speech(lambda u: normalize(u.text) == "New notification: Stairs drill", 10,
                                       "Orca never said it", since=mark)
    reader.desktop.wait_for_quiet(1.5)
    spoken = reader.spoken_since(mark)
    # Once on every engine; Orca 43's WebKit script has no live-region support, so there the engine's event is the proof.
    said = spoken.count("New notification: Stairs drill")
    assert (said <= 1 if is_webkit(reader) else said == 1), spoken
    assert [r["text"] for r in reader.probe.since(events, "live")].count("New notification: Stairs drill") == 1


def test_a_summary_is_one_announcement_at_its_time_while_an_assignment_comes_at_once(engine_reader):
    # What the summary gathers is not announced when it arrives; the assignment sent with it is, at once; at the
    # summary's time one announcement counts what was gathered. The summary's arrival, later, is the proof that the
    # gathered ones had their chance to be announced and were not.
    reader = engine_reader
    opened, loads = stream_metric(reader.server, "opened_total"), reader.probe.mark()
    reader.goto("/notifications")
    assert wait_until(lambda: stream_metric(reader.server, "opened_total") > opened, 20), "the page opened no live stream"
    reader.probe.wait_for(lambda r: r["event"] == "tree" and r["name"].startswith("Notifications") and "polite" in r["live"], 30,
                          "the engine showed no polite live region on the centre", since=loads)
    with demo_mentor_gathering_a_summary(reader.server) as moment:
        mark, events = reader.desktop.mark(), reader.probe.mark()
        send_gathered_and_an_assignment(reader.server)
        reader.probe.wait_for(lambda r: r["event"] == "live" and r["text"] == ASSIGNMENT_ANNOUNCED, 30,
                              "the engine reported no live-region text for the assignment", since=events)
        assert time.time() < moment, "the assignment came at once, before the summary's time"
        reader.probe.wait_for(lambda r: r["event"] == "live" and r["text"] == SUMMARY_ANNOUNCED, moment - time.time() + 30,
                              "the engine reported no live-region text for the summary", since=events)
        assert time.time() >= moment - 1, "not before its time"
        if not is_webkit(reader):
            reader.desktop.wait_for_speech(lambda u: normalize(u.text) == SUMMARY_ANNOUNCED, 10, "Orca never said the summary", since=mark)
        reader.desktop.wait_for_quiet(1.5)
    assert [r["text"] for r in reader.probe.since(events, "live")] == [ASSIGNMENT_ANNOUNCED, SUMMARY_ANNOUNCED]
    spoken = reader.spoken_since(mark)
    # Orca 43's WebKit script has no live-region support: there the engine's events above are the proof.
    heard = [text for text in spoken if text.startswith("New notification")]
    if is_webkit(reader):
        assert all(text in (ASSIGNMENT_ANNOUNCED, SUMMARY_ANNOUNCED) and heard.count(text) == 1 for text in heard), spoken
    else:
        assert heard == [ASSIGNMENT_ANNOUNCED, SUMMARY_ANNOUNCED], spoken
    assert not any(title in text for text in spoken for title in GATHERED_TITLES), spoken
    check_one_summary(reader.server)


def sign_out_and_in_as(reader, username: str) -> None:
    reader.goto("/profile")
    reader.tab_until(lambda text: text == "Sign out push button", key="shift+Tab")
    reader.activate("Return", "Sign in")
    reader.engine.after_load(reader.desktop, reader.probe)
    sign_in_by_keyboard(reader, username)
    reader.activate("Return", "Notifications")


def test_a_people_row_is_named_in_full(engine_reader):
    reader = engine_reader
    sign_out_and_in_as(reader, "demo-coordinator")
    reader.goto("/people")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Ingrid Berg, "))
    [row] = [text for text in spoken if text.startswith("Ingrid Berg, ")]
    assert re.fullmatch(r"Ingrid Berg, active, Likepersonsertifikat expires in \d+ days, 1 live assignment, no device shows notifications link", row), row


def test_the_send_forms_title_field_says_that_a_title_is_read_aloud_and_nothing_is_invalid(engine_reader):
    reader = engine_reader
    sign_out_and_in_as(reader, "demo-coordinator")
    loaded = reader.goto("/coordinator")
    spoken, steps = reader.tab_until(lambda text: text.startswith("Title entry"))
    assert spoken[spoken.index("Title entry"):][:2] == [
        "Title entry", "Read aloud when the notification arrives and shown on lock screens, so it must not name anyone"], spoken
    assert not any("invalid" in text for step in [loaded] + steps for text in step)


def sign_in_as_engine_admin(reader) -> None:
    """Signs in as an admin of this engine's server, adding the account the first time."""
    status, _, _ = reader.server.request("POST", "/api/v1/session", body={"username": "engine-admin", "password": DEMO_PASSWORD})
    if status != 201:
        from test_cli_and_privacy import run_varsel
        added = run_varsel("user", "add", "engine-admin", "--role", "admin", "--display-name", "Engine Admin", "--database",
                           str(reader.server.database), "--bcrypt-cost", "4", stdin=DEMO_PASSWORD + "\n")
        assert added.returncode == 0, added.stderr
    sign_out_and_in_as(reader, "engine-admin")


def test_an_integration_token_is_made_shown_once_to_copy_and_revoked_by_keys_alone(engine_reader):
    reader = engine_reader
    sign_in_as_engine_admin(reader)
    name = f"Case system {reader.engine.name}"
    reader.goto("/integrations")
    spoken, _ = reader.tab_until(lambda text: text.startswith("System's name"))
    field = spoken.index("System's name entry required")
    assert spoken[field + 1] == "As logs and histories will show it, for example Member system", spoken
    subprocess_type(reader.desktop, name)
    reader.tab_until(lambda text: text.startswith("Make token"))
    made = reader.activate("Return", f"Token for {name}")
    instructions = (f"Copy this token into {name} now. It is shown this once: Varsel keeps only a fingerprint of it. "
                    f"Whoever holds it can act as {name}, so keep it secret")
    if is_webkit(reader):
        # Orca 43's WebKit script says the new page's title only; what it says on Tab (below) is the proof.
        assert f"Token for {name} – Varsel" in made, made
    else:
        assert made.count(f"Made a token for {name}") == 1, made
        start = made.index(f"Made a token for {name}")
        assert made[start + 1:start + 3] == [f"Token for {name}", "heading level 1"], made
    # By Tab, the token in its read-only field, selected to copy, with the instructions as its description. WebKit
    # may report the field's selected text before its focus, and Orca then says the bare token first and reads the
    # field a moment later, as the focus arrives: so the field's reading is waited for, not only the token.
    mark = reader.desktop.mark()
    reader.tab_until(lambda text: "varsel_it_" in text)
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Token read only entry varsel_it_"), 10,
                                   "Orca did not read the token's field", since=mark)
    reader.desktop.wait_for_quiet(0.6)
    spoken = reader.spoken_since(mark)
    [said] = [text for text in spoken if text.startswith("Token read only entry varsel_it_")]
    token = re.fullmatch(r"Token read only entry (varsel_it_[A-Za-z0-9_-]{43}) selected", said).group(1)
    assert spoken[spoken.index(said) + 1] == instructions, spoken
    assert reader.focused_id() == "integration-token"
    assert reader.server.request("GET", "/api/v1/me", token)[0] == 200
    reader.goto("/integrations")
    spoken, _ = reader.tab_until(lambda text: text.startswith(f"Revoke {name}"))
    assert spoken[-1] == f"Revoke {name} push button", spoken
    revoked = reader.activate("Return", "Integration tokens")
    if not is_webkit(reader):
        assert revoked.count("Token revoked: the system's next request is refused") == 1, revoked
        assert any(re.fullmatch(rf"{name}, coordinator, made [A-Z][a-z]+ \d{{1,2}}, \d{{4}} by Engine Admin, last used just now, "
                                r"revoked [A-Z][a-z]+ \d{1,2}, \d{4}", text) for text in revoked), revoked
    assert reader.server.request("GET", "/api/v1/me", token)[0] == 401


def test_a_webhook_address_is_added_its_secret_shown_once_and_removed_by_keys_alone(engine_reader):
    reader = engine_reader
    sign_in_as_engine_admin(reader)
    name = f"Hook system {reader.engine.name}"
    reader.goto("/integrations")
    reader.tab_until(lambda text: text.startswith("System's name"))
    subprocess_type(reader.desktop, name)
    reader.tab_until(lambda text: text.startswith("Make token"))
    reader.activate("Return", f"Token for {name}")
    reader.goto("/integrations")
    spoken, _ = reader.tab_until(lambda text: text.startswith(f"Webhooks for {name}"))
    assert spoken[-1] == f"Webhooks for {name} link", spoken
    opened = reader.activate("Return", f"Webhooks for {name}")
    if not is_webkit(reader):
        assert run_at(opened, [f"Webhooks for {name}", "heading level 1"]) >= 0, opened
    spoken, _ = reader.tab_until(lambda text: text.startswith("Address entry"))
    field = next(index for index, text in enumerate(spoken) if text.startswith("Address entry"))
    assert spoken[field] == "Address entry required", spoken
    assert spoken[field + 1].startswith("An https address on the system's own server, for example"), spoken
    subprocess_type(reader.desktop, "https://cases.example.org/varsel-events")
    spoken, _ = reader.tab_until(lambda text: "Assignment created" in text)
    assert any(re.fullmatch(r"Assignment created check box( not checked)?", text) for text in spoken), spoken
    changes = reader.probe.mark()
    reader.press("space")
    reader.probe.wait_for(lambda r: r["event"] == "state" and r["state"] == "checked" and r["value"] is True, 10,
                          "the check box's new state was not reported", since=changes)
    reader.tab_until(lambda text: text.startswith("Add address"))
    added = reader.activate("Return", "Signing secret")
    if is_webkit(reader):
        # Orca 43's WebKit script says the new page's title only; what it says on Tab (below) is the proof.
        assert "Signing secret – Varsel" in added, added
    else:
        assert added.count(f"Added an address for {name}") == 1, added
        start = added.index(f"Added an address for {name}")
        assert added[start + 1:start + 3] == ["Signing secret", "heading level 1"], added
    # By Tab, the secret in its read-only field, with the instructions as its description.
    spoken, _ = reader.tab_until(lambda text: text.startswith("Signing secret read only entry"))
    [said] = [text for text in spoken if text.startswith("Signing secret read only entry")]
    assert re.fullmatch(r"Signing secret read only entry whsec_[A-Za-z0-9+/]{43}=( selected)?", said), said
    assert spoken[spoken.index(said) + 1] == (f"Copy this secret into {name} now. It is shown this once. "
                                              f"{name} checks each request's signature with it"), spoken
    assert reader.focused_id() == "webhook-secret"
    # Back on the list by its link: a Remove button named for the address.
    reader.tab_until(lambda text: text.startswith(f"Webhooks for {name}"))
    reader.activate("Return", f"Webhooks for {name}")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Remove https://cases.example.org/varsel-events"))
    assert spoken[-1] == "Remove https://cases.example.org/varsel-events push button", spoken
    removed = reader.activate("Return", f"Webhooks for {name}")
    if not is_webkit(reader):
        assert removed.count("Address removed: nothing more is sent to it") == 1, removed
        assert "No webhook addresses yet" in removed, removed


def test_a_failed_webhook_delivery_is_heard_in_its_row_with_its_event_attempts_and_reason(engine_reader):
    reader = engine_reader
    sign_in_as_engine_admin(reader)
    name = f"Delivery system {reader.engine.name}"
    from test_cli_and_privacy import run_varsel
    made = run_varsel("token", "create", name, "--role", "coordinator", "--database", str(reader.server.database))
    assert made.returncode == 0, made.stderr
    with a_failed_webhook_delivery(reader.server, name) as integration:
        reader.goto(f"/integrations/{integration}/webhooks")
        reader.tab_until(lambda text: text.startswith(f"Remove {UNREACHABLE_WEBHOOK}"))
        if is_webkit(reader):
            # Orca 43's WebKit script does not read on by arrowing: by its structural navigation keys (on for this
            # alone, since the other tests type letters into fields), the next heading and the next list item, which
            # it reads up to the end of the row's first line; then reading on from there (say all) says the row whole.
            assert reader.press("Insert+z") == ["Structural navigation keys on"]
            try:
                heading = reader.press("h")
                assert heading == [f"Recent deliveries to {UNREACHABLE_WEBHOOK} heading level 2"], heading
                first_line = reader.press("i")
                assert len(first_line) == 1 and first_line[0].startswith("Assignment created, failing after "), first_line
                spoken = reader.press("KP_Add", quiet=2)
                assert spoken[1:3] == ["Add an address", "heading level 2"], spoken
                row = spoken[0]
            finally:
                assert reader.press("Insert+z") == ["Structural navigation keys off"]
        else:
            row = delivery_row_by_arrowing(reader)
        assert FAILED_DELIVERY_ROW.fullmatch(row), row
        # Back to the address's Remove button (where reading left focus, or by shift+Tab), and removed.
        if not reader.focused_id().endswith("-remove"):
            reader.tab_until(lambda text: text.startswith(f"Remove {UNREACHABLE_WEBHOOK}"), key="shift+Tab")
        removed = reader.activate("Return", f"Webhooks for {name}")
        if not is_webkit(reader):
            assert removed.count("Address removed: nothing more is sent to it") == 1, removed


def test_a_send_for_later_is_scheduled_heard_in_its_row_and_cancelled_by_keys_alone(engine_reader):
    reader = engine_reader
    sign_out_and_in_as(reader, "demo-coordinator")
    title = f"Morning practice on {reader.engine.name}"
    reader.goto("/coordinator")
    # The recipient by typing the start of the name into the closed list, as a person would (no space: in WebKit, a
    # space opens the list).
    reader.tab_until(lambda text: text.startswith("Recipient"))
    subprocess_type(reader.desktop, "Demo")
    field_spoken, row_spoken, _ = schedule_and_cancel_by_keys(reader, title, "Send notifications")
    field = next(index for index, text in enumerate(field_spoken) if text.startswith("Send later at entry"))
    assert field_spoken[field + 1] == SEND_LATER_HINT, field_spoken
    check_scheduled_row(title, row_spoken)
    _, _, listed = reader.server.request("GET", "/api/v1/scheduled-sends", reader.server.token("demo-coordinator"))
    assert title not in [item["title"] for item in listed["items"]], listed


def test_a_mobile_number_is_set_and_verified_by_keys_alone(engine_reader):
    reader = engine_reader
    # Another test may have left another person signed in.
    sign_out_and_in_as(reader, "demo-mentor")
    reader.goto("/profile")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Mobile number entry"))
    field = next(index for index, text in enumerate(spoken) if text.startswith("Mobile number entry"))
    assert spoken[field + 1] == "A Norwegian number as you would write it, or + and the country code. Varsel sends a code to check it", spoken
    subprocess_type(reader.desktop, "912 34 567")
    reader.tab_until(lambda text: text.startswith("Send a code to this number"))
    sent = reader.activate("Return", "Profile")
    if is_webkit(reader):
        # Orca 43's WebKit script says the new page's title only; the code field on Tab (below) is the proof.
        assert "Profile – Varsel" in sent, sent
    else:
        assert sent.count("A code was sent to the mobile number") == 1, sent
    message = reader.server.gateway.messages("+4791234567")[-1].text
    code = "".join(re.search(r"(\d{3}) (\d{3})", message).groups())
    spoken, _ = reader.tab_until(lambda text: text.startswith("Code sent to +47 912 34 567"))
    field = next(index for index, text in enumerate(spoken) if text.startswith("Code sent to +47 912 34 567"))
    assert spoken[field] == "Code sent to +47 912 34 567 entry", spoken
    assert spoken[field + 1] == "Six digits. The code works for 10 minutes", spoken
    assert reader.focused_id() == "channel-sms-code"
    subprocess_type(reader.desktop, code)
    verified = reader.activate("Return", "Profile")
    if not is_webkit(reader):
        assert verified.count("Your mobile number is verified") == 1, verified
    status, _, channels = reader.server.request("GET", "/api/v1/me/channels", reader.server.token("demo-mentor"))
    assert status == 200 and channels[0]["verified"] is True, channels
