"""The whole assignment pipeline in Debian's Chromium, as two users.

A coordinator creates an assignment on the coordinator page; the mentor, on the notification centre, hears it
arrive (the polite live region), finds it under Assignments named in full, opens the contact, acknowledges it
in the dialog; the coordinator's dashboard then shows it acknowledged, with its history. Phrases are the core's
(Strings+Assignments.swift, seed 003's "New notification: [title]").
"""
from __future__ import annotations

import re

from ax_tree import find
from conftest import SCREENSHOTS
from varsel_server import wait_until


def signed_in(browser, server, username):
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 900})
    page = context.new_page()
    page.goto(server.base_url + "/signin")
    page.fill("#username", username)
    from varsel_server import DEMO_PASSWORD
    page.fill("#password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return context, page


def test_the_pipeline_from_coordinator_to_mentor_and_back(browser, server):
    mentor_context, mentor = signed_in(browser, server, "demo-mentor")
    coordinator_context, coordinator = signed_in(browser, server, "demo-coordinator")
    try:
        mentor.goto(server.base_url + "/notifications")
        # The coordinator creates an assignment from a contact.
        coordinator.goto(server.base_url + "/coordinator")
        coordinator.select_option("#assignment-mentor", label="Demo Mentor")
        coordinator.fill("#assignment-name", "Per Olsen")
        coordinator.fill("#assignment-address", "Torggata 3")
        coordinator.fill("#assignment-phone", "+47 900 00 000")
        coordinator.click("#assignment-heading ~ form button[type=submit]")
        coordinator.wait_for_load_state()

        # The mentor hears it arrive: seed 003's phrase, the title (no personal details in it).
        assert wait_until(lambda: "New notification: New assignment" in mentor.inner_text("#live-polite"), 15)

        # …finds it under Assignments, named in full: who, where, state, how long.
        mentor.click("a[role=tab][href='/assignments']")
        mentor.wait_for_url("**/assignments")
        waiting = mentor.locator("section[aria-labelledby=assignments-waitingForAnswer] a")
        names = waiting.all_inner_texts()
        assert "Per Olsen, Torggata 3, waiting for your answer, less than a minute" in names, names
        assert mentor.inner_text("#assignments-waitingForAnswer").startswith("Waiting for your answer (")
        assert find(mentor, "link", "Per Olsen, Torggata 3, waiting for your answer, less than a minute")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        mentor.screenshot(path=str(SCREENSHOTS / "mentor-assignments.png"), full_page=True)

        # …opens the contact and acknowledges in the dialog.
        mentor.get_by_role("link", name="Per Olsen, Torggata 3, waiting for your answer, less than a minute").click()
        mentor.wait_for_url(re.compile(r"/contacts/\d+\?assignment=\d+"))
        assert mentor.inner_text("h1") == "Per Olsen"
        mentor.click("#acknowledge-button")
        mentor.click("#confirm-acknowledge")
        mentor.wait_for_load_state()
        assert wait_until(lambda: "Assignment acknowledged" in mentor.inner_text("body"))

        # Home now has the next visit.
        mentor.goto(server.base_url + "/")
        assert "Next visit: Per Olsen, Torggata 3" in mentor.locator("#needs-you-now ~ ul").inner_text()
        mentor.screenshot(path=str(SCREENSHOTS / "mentor-home.png"), full_page=True)

        # The coordinator's dashboard shows it acknowledged, with its history.
        coordinator.goto(server.base_url + "/coordinator/assignments")
        row = coordinator.locator("section[aria-labelledby=dashboard-acknowledged] li", has_text="Per Olsen").first
        name = row.locator("a").inner_text()
        assert name.startswith("Per Olsen, Torggata 3, Demo Mentor, acknowledged, answered after "), name
        history = row.locator("ol.trail li").all_inner_texts()
        # The mentor's open page got it live: the history says so, between "notified" and "read".
        assert [line.split(",")[0] for line in history] == ["Created", "Mentor notified", "Delivered to the mentor's open app",
                                                            "Read by the mentor", "Acknowledged"], history
        assert row.locator("ol.trail").get_attribute("aria-label") == "History: Per Olsen"
        coordinator.screenshot(path=str(SCREENSHOTS / "coordinator-dashboard.png"), full_page=True)
    finally:
        mentor_context.close()
        coordinator_context.close()


def test_every_tab_has_content_and_contacts_show_only_live_assignments(page, server):
    page.goto(server.base_url + "/")
    assert page.inner_text("h1") == "Home"
    needs = page.locator("#needs-you-now ~ ul li").all_inner_texts()
    assert "1 assignment waits for your answer" in needs and "3 unread notifications" in needs, needs
    page.goto(server.base_url + "/assignments")
    headings = page.locator("h2").all_inner_texts()
    assert headings == ["Waiting for your answer (1)", "Acknowledged (1)", "Declined (0)", "Visit done (0)"], headings
    assert page.locator("section[aria-labelledby=assignments-acknowledged] a").inner_text().startswith(
        "Ola Hansen, Kirkegata 5, 0153 Oslo, acknowledged, answered after 1 hour")
    page.goto(server.base_url + "/contacts")
    # Both demo assignments are live (one waiting, one acknowledged); a declined one would not be listed.
    assert sorted(page.locator("main a").all_inner_texts()) == ["Kari Nordmann, Storgata 1, 0155 Oslo", "Ola Hansen, Kirkegata 5, 0153 Oslo"]
    page.goto(server.base_url + "/profile")
    assert page.locator("h2").all_inner_texts() == ["Certifications", "Pause", "Devices that get notifications", "Language", "Change password",
                                                    "Your data"]
    assert page.locator("#certifications ~ ul li").inner_text().startswith("Peer mentor certificate: valid until ")
    assert page.inner_text("#pause-state") == "You are not paused."
    # The demo's scenario prompt opens a real scenario with its text and the reflection form.
    page.goto(server.base_url + "/scenarios")
    assert page.locator("#scenarios-to-do ~ ul a").all_inner_texts() == ["A first visit, not done yet"]
    page.click("text=A first visit, not done yet")
    assert page.inner_text("h1") == "A first visit"
    assert "lost her sight this spring" in page.inner_text(".scenario-text")
    assert page.get_attribute("#reflection", "aria-describedby") == "reflection-hint"
    # A mentor has no dashboard.
    response = page.goto(server.base_url + "/coordinator/assignments")
    assert response.status == 403


def test_a_paused_mentor_is_not_offered_and_the_page_says_why(browser, server):
    mentor = server.token("demo-mentor")
    status, _, _ = server.request("POST", "/api/v1/pause", mentor, {"until": "2031-06-01"})
    assert status == 201
    context, coordinator = signed_in(browser, server, "demo-coordinator")
    try:
        coordinator.goto(server.base_url + "/coordinator")
        offered = coordinator.locator("#assignment-mentor option").all_inner_texts()
        assert "Demo Mentor" not in offered, offered
        assert coordinator.inner_text("#assignment-not-offered") == "Demo Mentor is not offered: paused until June 1, 2031"
        assert coordinator.get_attribute("#assignment-mentor", "aria-describedby") == "assignment-not-offered"
        # Messages still reach a paused mentor.
        assert "Demo Mentor" in coordinator.locator("#send-recipient option").all_inner_texts()
        # And the API refuses the assignment too, saying why without echoing anything sent.
        status, _, body = server.request("POST", "/api/v1/assignments", server.token("demo-coordinator"), {
            "mentor": "demo-mentor", "contact": {"name": "Per Olsen", "phone": "", "address": "Torggata 3", "notes": ""}})
        assert status == 409 and "paused" in body["detail"] and "Per Olsen" not in str(body)
    finally:
        context.close()


def test_reassignment_a_visit_done_and_the_history_in_the_browser(browser, server):
    """The coordinator gives the demo's overdue assignment (Ingrid Berg's, reminded and escalated at start-up) to
    Demo Mentor, who hears it arrive, acknowledges it from the Assignments list through the dialog, makes the visit
    and notes it; Ingrid loses the contact; the coordinator's page shows the whole history and the note."""
    mentor_context, mentor = signed_in(browser, server, "demo-mentor")
    coordinator_context, coordinator = signed_in(browser, server, "demo-coordinator")
    try:
        mentor.goto(server.base_url + "/notifications")
        coordinator.goto(server.base_url + "/coordinator/assignments?show=overdue")
        row = coordinator.locator("section[aria-labelledby=dashboard-waitingForAnswer] li").first
        assert row.locator("a").inner_text().startswith("Per Olsen, Fjordveien 3, 0250 Oslo, Ingrid Berg, waiting for an answer, ")
        assert row.locator("a").inner_text().endswith(", overdue, no device shows notifications")
        steps = [line.split(",")[0] for line in row.locator("ol.trail li").all_inner_texts()]
        assert steps == ["Created", "Mentor notified", "Reminder sent to the mentor", "Coordinator told it is unanswered"], steps
        old_link = row.locator("a").get_attribute("href")
        row.locator("a").click()
        coordinator.select_option("#reassign-mentor", label="Demo Mentor")
        coordinator.click("#reassign-button")
        coordinator.wait_for_load_state()
        assert wait_until(lambda: "Assignment reassigned" in coordinator.inner_text("body"))

        # The new mentor hears it, and acknowledges it from the list: the button opens the same dialog.
        assert wait_until(lambda: "New notification: New assignment" in mentor.inner_text("#live-polite"), 15)
        mentor.goto(server.base_url + "/assignments")
        mentor.get_by_role("button", name="Acknowledge the assignment with Per Olsen").click()
        mentor.wait_for_url(re.compile(r"/contacts/\d+\?assignment=\d+&confirm=acknowledge"))
        assert mentor.locator("#acknowledge-dialog").is_visible()
        mentor.click("#confirm-acknowledge")
        mentor.wait_for_load_state()
        assert wait_until(lambda: "Assignment acknowledged" in mentor.inner_text("body"))
        mentor.fill("#visit-note", "Coffee and a walk; she wants to try the bus next time.")
        mentor.click("#visit-done-button")
        mentor.wait_for_url(re.compile(r"/assignments\?done=visit"))
        assert "Visit done (1)" in mentor.locator("h2").all_inner_texts()
        assert mentor.locator("section[aria-labelledby=assignments-done] li").first.inner_text().startswith("Per Olsen, Fjordveien 3")

        # Ingrid's old link now says why, without the person's details.
        ingrid_context, ingrid = signed_in(browser, server, "demo-mentor-2")
        try:
            ingrid.goto(server.base_url + old_link)
            assert ingrid.inner_text("main p") == "Dette oppdraget er gitt til en annen likeperson."
            assert "Per Olsen" not in ingrid.inner_text("body")
        finally:
            ingrid_context.close()

        # The coordinator sees the note and the history through both mentors.
        coordinator.reload()
        assert coordinator.inner_text("#visit-note-heading + p") == "Coffee and a walk; she wants to try the bus next time."
        history = [line.split(",")[0] for line in coordinator.locator("ol.trail li").all_inner_texts()]
        assert history[:4] == ["Created", "Mentor notified", "Reminder sent to the mentor", "Coordinator told it is unanswered"], history
        assert history[4:] == ["Reassigned to Demo Mentor", "Mentor notified", "Delivered to the mentor's open app", "Read by the mentor",
                               "Acknowledged", "Visit done"], history
        assert coordinator.locator("#reassign-button").count() == 0, "a done assignment is not reassigned"
    finally:
        mentor_context.close()
        coordinator_context.close()


def test_every_tab_has_content_in_norwegian(browser, server):
    """The second demo mentor reads Norwegian: Home, Assignments, Contacts and Profile say it all in Bokmål."""
    context, page = signed_in(browser, server, "demo-mentor-2")
    try:
        page.goto(server.base_url + "/")
        assert page.inner_text("h1") == "Hjem"
        needs = page.locator("#needs-you-now ~ ul li").all_inner_texts()
        assert "1 oppdrag venter på svaret ditt" in needs, needs
        assert any(line.startswith("Likepersonsertifikat utløper ") for line in needs), needs
        page.goto(server.base_url + "/assignments")
        assert page.locator("h2").all_inner_texts() == ["Venter på svaret ditt (1)", "Bekreftet (0)", "Avslått (0)", "Besøk gjennomført (0)"]
        row = page.locator("section[aria-labelledby=assignments-waitingForAnswer] a").inner_text()
        assert row.startswith("Per Olsen, Fjordveien 3, 0250 Oslo, venter på svaret ditt, "), row
        assert page.get_by_role("button", name="Avslå oppdraget hos Per Olsen").count() == 1
        page.goto(server.base_url + "/contacts")
        assert page.locator("main a").all_inner_texts() == ["Per Olsen, Fjordveien 3, 0250 Oslo"]
        page.goto(server.base_url + "/profile")
        assert page.locator("h2").all_inner_texts() == ["Sertifiseringer", "Pause", "Enheter som får varsler", "Språk", "Bytt passord",
                                                        "Dine data"]
        assert page.locator("#certifications ~ ul li").inner_text().startswith("Likepersonsertifikat: utløper snart, ")
        assert page.inner_text("#pause-state") == "Du har ikke pause."
    finally:
        context.close()
