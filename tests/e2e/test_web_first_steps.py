"""A new person's first steps from the sign-in page, and the demo's texts as of the day it is loaded."""
from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
          "December"]


def test_the_sign_in_page_leads_a_new_person_to_the_page_for_their_coordinators_code(browser, server):
    coordinator = server.token("demo-coordinator")
    status, _, invited = server.request("POST", "/api/v1/users", coordinator,
                                        {"username": "sara", "displayName": "Sara Lund", "role": "mentor", "locale": "en"})
    assert status == 201, invited
    code = invited["setPasswordLink"]["code"]
    page = browser.new_context().new_page()
    page.goto(server.base_url + "/signin")
    link = page.locator("#have-code")
    assert link.inner_text() == "I have a code from my coordinator" and link.get_attribute("href") == "/password"
    link.click()
    page.wait_for_url("**/password")
    # Typed as it was read aloud: lower case, the groups apart.
    page.fill("#code", code.lower().replace("-", " "))
    page.click("#continue")
    assert page.inner_text("#password-for") == "For Sara Lund, who signs in as sara."
    page.context.close()


def test_the_demo_certification_warning_names_the_day_seven_days_after_it_was_sent(server):
    mentor = server.token("demo-mentor")
    status, _, listing = server.request("GET", "/api/v1/notifications?limit=50", mentor)
    assert status == 200, listing
    [warning] = [item for item in listing["items"] if item["kind"] == "certificationExpiry"]
    sent = datetime.fromisoformat(warning["createdAt"].replace("Z", "+00:00")).astimezone(ZoneInfo("Europe/Oslo"))
    expires = sent + timedelta(days=7)
    assert warning["title"] == "Certification expires in 7 days"
    assert warning["body"] == f"Your peer mentor certification expires on {expires.day} {MONTHS[expires.month - 1]}. Book a renewal course."
    [pause] = [item for item in listing["items"] if item["kind"] == "pauseConfirmation"]
    started = datetime.fromisoformat(pause["createdAt"].replace("Z", "+00:00")).astimezone(ZoneInfo("Europe/Oslo"))
    until = started + timedelta(days=17)
    assert pause["body"] == f"You will not get new assignments until {until.day} {MONTHS[until.month - 1]}."
