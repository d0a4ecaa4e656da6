"""What Orca 43 speaks in Chromium on the integration tokens' page and where a person's text messages and email are
set: their profile, their settings' quiet hours, and a mentor's page as their coordinator sees it.

Every assertion is on Orca's speech (its debug log). The tests run in file order on one session of their own,
beside the Firefox and WebKit suite, so the screen-reader suites end together.
"""
from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest

from conftest import (FAILED_DELIVERY_ROW, UNREACHABLE_WEBHOOK, a_failed_webhook_delivery, delivery_row_by_arrowing, run_at,
                      signed_in_as, signed_in_as_admin, signed_in_as_coordinator, submitted, subprocess_type)


def test_making_an_integration_token_speaks_the_field_and_hint_the_confirmation_once_and_the_token_to_copy(reader):
    signed_in_as_admin(reader)
    reader.goto("/integrations")
    spoken, _ = reader.tab_until(lambda text: text.startswith("System's name"))
    field = spoken.index("System's name entry required")
    assert spoken[field - 1:field + 2] == ["form Make a token", "System's name entry required",
                                           "As logs and histories will show it, for example Member system"], spoken
    subprocess_type(reader.desktop, "Member system")
    role = reader.press("Tab")
    assert role[0] == "What it may do combo box", role
    reader.tab_until(lambda text: text == "Make token push button")
    spoken = submitted(reader, "Token for Member system")
    token = reader.page.input_value("#integration-token")
    assert re.fullmatch(r"varsel_it_[A-Za-z0-9_-]{43}", token), token
    # The confirmation once, the heading, the instructions; then, by Tab, the token in a field to select and copy.
    assert spoken.count("Made a token for Member system") == 1, spoken
    start = spoken.index("Made a token for Member system")
    assert spoken[start + 1:start + 3] == ["Token for Member system", "heading level 1"], spoken
    assert spoken[start + 3:start + 10] == ["Copy this token into Member system now",
                                            "It is shown this once: Varsel keeps only a fingerprint of it",
                                            "Whoever holds it can act as Member system, so keep it secret",
                                            "Token", "read only", "entry", token], spoken
    # By Tab: the field that holds it, to select and copy.
    spoken, _ = reader.tab_until(lambda text: token in text)
    assert reader.focused_id() == "integration-token"
    # A reload does not bring it back, and says why, once.
    loaded = reader.goto(urlparse(reader.page.url).path)
    assert loaded.count("That token was shown once and cannot be shown again") == 1, loaded
    shown_once = loaded.index("That token was shown once and cannot be shown again")
    assert loaded[shown_once + 1] == "If it was lost, revoke it and make a new one", loaded
    assert not any(token in text for text in loaded)


def test_an_integrations_webhooks_page_speaks_its_errors_then_adds_an_address_and_shows_its_secret_once(reader):
    signed_in_as_admin(reader)
    reader.goto("/integrations")
    # After the token's revoke button: its webhooks, named for the system.
    spoken, _ = reader.tab_until(lambda text: text.startswith("Webhooks for Member system"))
    assert spoken == ["Webhooks for Member system link"], spoken
    spoken = submitted(reader, "Webhooks for Member system")
    assert run_at(spoken, ["Webhooks for Member system", "heading level 1"]) >= 0, spoken
    assert "No webhook addresses yet" in spoken, spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Address entry"))
    field = next(index for index, text in enumerate(spoken) if text.startswith("Address entry"))
    assert spoken[field] == "Address entry required", spoken
    assert spoken[field + 1].startswith("An https address on the system's own server, for example"), spoken
    # A private address and no event: both errors, in the summary and at their fields.
    subprocess_type(reader.desktop, "http://10.0.0.1/hooks")
    reader.tab_until(lambda text: text == "Add address push button")
    spoken = submitted(reader, "Webhooks for Member system", first_words="Please correct the following:")
    errors = [text.removeprefix("• ") for text in spoken]
    assert "Address: Enter an https address on a public server, with no user name or password in it" in errors, spoken
    assert "Events to send: Choose at least one event" in errors, spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Address entry"))
    field = next(index for index, text in enumerate(spoken) if text.startswith("Address entry"))
    assert spoken[field + 1] == "invalid entry", spoken
    reader.desktop.key("ctrl+a")
    subprocess_type(reader.desktop, "https://cases.example.org/varsel-events")
    spoken = reader.press("Tab")
    assert any(text.startswith("Events to send") for text in spoken), spoken
    assert any(text.startswith("Assignment created check box not checked") for text in spoken), spoken
    assert "checked" in reader.press("space")[0], "the box says it is checked"
    reader.tab_until(lambda text: text == "Add address push button")
    spoken = submitted(reader, "Signing secret")
    secret = reader.page.input_value("#webhook-secret")
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{43}=", secret), secret
    # The confirmation once, the heading, the address, the instructions, and the secret in a field to copy.
    assert spoken.count("Added an address for Member system") == 1, spoken
    start = spoken.index("Added an address for Member system")
    assert spoken[start + 1:start + 3] == ["Signing secret", "heading level 1"], spoken
    assert run_at(spoken, ["Copy this secret into Member system now", "It is shown this once",
                           "Member system checks each request's signature with it"]) > start, spoken
    assert secret in spoken, spoken
    # Back on the list: the address in its row's words, and its recent deliveries under a heading named for it.
    loaded = reader.goto(urlparse(reader.page.url).path)
    assert "1 webhook address" in loaded, loaded
    assert not any(secret in text for text in loaded)
    assert any(re.fullmatch(r"https://cases\.example\.org/varsel-events, on, 1 event, added [A-Z][a-z]+ \d{1,2}, \d{4}", text)
               for text in loaded), loaded
    spoken, _ = reader.tab_until(lambda text: text.startswith("Remove https://cases.example.org/varsel-events"))
    assert reader.focused_id().endswith("-remove")
    # Read on in browse mode, as arrowing down does.
    # Arrowing reads by line: the heading wraps where the page is narrow, and Orca says it in two lines.
    heading = reader.press("Down")
    assert any(text.startswith("Recent deliveries to https://cases.example.org/varsel") and text.endswith("heading level 2")
               for text in heading), heading
    lines = [reader.press("Down") for _ in range(2)]
    assert any("Nothing sent yet" in line for line in lines), lines
    # Removing it: the confirmation once, and the list empty again.
    reader.tab_until(lambda text: text.startswith("Remove https://cases.example.org/varsel-events"), key="shift+Tab")
    spoken = submitted(reader, "Webhooks for Member system")
    assert spoken.count("Address removed: nothing more is sent to it") == 1, spoken
    assert "No webhook addresses yet" in spoken, spoken


def test_a_failed_delivery_is_heard_in_its_row_with_its_event_attempts_and_the_reason(reader):
    signed_in_as_admin(reader)
    with a_failed_webhook_delivery(reader.server, "Member system") as integration:
        reader.goto(f"/integrations/{integration}/webhooks")
        reader.tab_until(lambda text: text.startswith(f"Remove {UNREACHABLE_WEBHOOK}"))
        row = delivery_row_by_arrowing(reader)
        assert FAILED_DELIVERY_ROW.fullmatch(row), row
        # Back to the address's Remove button, and removed: nothing more is tried.
        reader.tab_until(lambda text: text.startswith(f"Remove {UNREACHABLE_WEBHOOK}"), key="shift+Tab")
        spoken = submitted(reader, "Webhooks for Member system")
        assert spoken.count("Address removed: nothing more is sent to it") == 1, spoken


def test_an_integration_token_row_is_named_in_full_and_revoking_it_speaks_the_confirmation_once(reader):
    signed_in_as_admin(reader)
    reader.goto("/integrations")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Revoke Member system"))
    assert spoken[-3:] == ["List with 1 item", "form", "Revoke Member system push button"], spoken
    assert reader.focused_id().endswith("-revoke")
    # The row in its words, in browse mode as arrowing through the list reads it.
    line = reader.press("Up")
    assert any(re.fullmatch(r"Member system, coordinator, made [A-Z][a-z]+ \d{1,2}, \d{4} by Orca Admin, never used", text)
               for text in line), line
    reader.tab_until(lambda text: text.startswith("Revoke Member system"))
    spoken = submitted(reader, "Integration tokens")
    assert spoken.count("Token revoked: the system's next request is refused") == 1, spoken
    assert reader.page.inner_text("li.person-deactivated .state-mark") == "Revoked"
    assert not any(text.startswith("Revoked") for text in spoken), "the mark is for the eye only"


# Text messages and email ------------------------------------------------------------------------------------------

def test_the_profile_sets_a_mobile_number_speaks_the_code_sent_once_a_wrong_code_and_the_number_verified(reader):
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    reader.goto("/profile")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Mobile number entry"))
    field = spoken.index("Mobile number entry")
    assert spoken[field + 1] == "A Norwegian number as you would write it, or + and the country code. Varsel sends a code to check it", spoken
    subprocess_type(reader.desktop, "912 34 567")
    assert "Send a code to this number push button" in reader.press("Tab")
    spoken = submitted(reader, "Profile")
    # Orca reads the confirmation sentence by sentence, once.
    assert spoken.count("A code was sent to the mobile number") == 1, spoken
    assert run_at(spoken, ["A code was sent to the mobile number", "Type it in the code field"]) >= 0, spoken
    code = re.search(r"(\d{3}) (\d{3})", reader.server.gateway.messages("+4791234567")[-1].text)
    code = code.group(1) + code.group(2)
    # By Tab, the code field names where the code went, and says what it holds.
    spoken, _ = reader.tab_until(lambda text: text.startswith("Code sent to"))
    field = next(index for index, text in enumerate(spoken) if text.startswith("Code sent to"))
    assert spoken[field:field + 2] == ["Code sent to +47 912 34 567 entry", "Six digits. The code works for 10 minutes"], spoken
    wrong = "000000" if code != "000000" else "111111"
    subprocess_type(reader.desktop, wrong)
    summary = "Please correct the following:"
    spoken = submitted(reader, "Profile", first_words=summary)
    assert "Code: The code is wrong. 4 tries left" in [text.removeprefix("• ") for text in spoken], spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Code sent to +47 912 34 567 entry"))
    field = spoken.index("Code sent to +47 912 34 567 entry")
    # The hint and the error are the field's description, read as one.
    assert spoken[field:field + 3] == ["Code sent to +47 912 34 567 entry", "invalid entry",
                                       "Six digits. The code works for 10 minutes. The code is wrong. 4 tries left"], spoken
    subprocess_type(reader.desktop, code)
    spoken = submitted(reader, "Profile")
    assert spoken.count("Your mobile number is verified") == 1, spoken
    assert reader.page.inner_text("#channel-sms-state") == "Mobile number +47 912 34 567, verified"


@pytest.fixture
def no_quiet_hours_after(server):
    """Removes the demo mentor's quiet hours after the test, so no later test's pushes wait for the morning."""
    yield
    mentor = server.token("demo-mentor")
    _, _, preferences = server.request("GET", "/api/v1/preferences", mentor)
    preferences["quietHours"] = None
    status, _, _ = server.request("PUT", "/api/v1/preferences", mentor, preferences)
    assert status == 200


def test_the_settings_offer_text_messages_per_kind_and_quiet_hours_with_their_hint_and_errors(reader, no_quiet_hours_after):
    signed_in_as(reader, "demo-mentor", "Demo Mentor")
    reader.goto("/settings")
    spoken, _ = reader.tab_until(lambda text: text.startswith("Assignments by text message switch"))
    assert spoken[-2:] == ["Assignments by text message switch on",
                           "Sends a text message to your verified mobile number when you have not seen one in time"], spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Quiet hours start entry"))
    field = spoken.index("Quiet hours start entry")
    hint = ("Between these times only urgent notifications reach your phone and email; Varsel's page shows everything. "
            "Leave both empty for none")
    assert spoken[field + 1] == hint, spoken
    subprocess_type(reader.desktop, "22:00")
    reader.tab_until(lambda text: text == "Save settings push button")
    summary = "Please correct the following:"
    spoken = submitted(reader, "Notification settings", first_words=summary)
    error = "Quiet hours end: Fill in both times, different from each other, or leave both empty"
    assert error in [text.removeprefix("• ") for text in spoken], spoken
    spoken, _ = reader.tab_until(lambda text: text.startswith("Quiet hours end entry"))
    field = spoken.index("Quiet hours end entry")
    assert spoken[field:field + 3] == ["Quiet hours end entry", "invalid entry",
                                       hint + ". Fill in both times, different from each other, or leave both empty"], spoken
    subprocess_type(reader.desktop, "07:00")
    reader.tab_until(lambda text: text == "Save settings push button")
    spoken = submitted(reader, "Notification settings")
    assert spoken.count("Settings saved") == 1, spoken
    assert reader.page.input_value("#quiet-start") == "22:00" and reader.page.input_value("#quiet-end") == "07:00"


def test_a_mentors_page_says_which_channels_are_verified_and_a_coordinator_sends_a_code_to_the_mentor(reader):
    signed_in_as_coordinator(reader)
    token = reader.server.token("demo-coordinator")
    _, _, people = reader.server.request("GET", "/api/v1/users", token)
    ingrid = next(person for person in people if person["username"] == "demo-mentor-2")
    loaded = reader.goto(f"/people/{ingrid['id']}")
    assert "Text messages and email" in loaded and "Mobile number: none" in loaded, loaded
    spoken, _ = reader.tab_until(lambda text: text.startswith("Mobile number entry"))
    field = spoken.index("Mobile number entry")
    assert spoken[field + 1] == "A Norwegian number as you would write it, or + and the country code. Varsel sends a code to check it", spoken
    subprocess_type(reader.desktop, "412 34 567")
    reader.tab_until(lambda text: text == "Send a code to this number push button")
    spoken = submitted(reader, "Ingrid Berg")
    assert spoken.count("A code was sent to the mobile number") == 1, spoken
    # The code went to the mentor, who types it on her own Profile: no code field here to point to.
    assert run_at(spoken, ["A code was sent to the mobile number", "Its owner types it on their own Profile"]) >= 0, spoken
    # The page says where the code went, and that the number waits for the mentor to type it.
    assert "Mobile number +47 412 34 567, not verified: a code was sent" in spoken, spoken
    assert reader.server.gateway.messages("+4741234567")[-1].text.startswith("Koden din til Varsel er ")
