"""A coordinator runs the organisation from the browser, and the same through the API.

A real `varsel serve --demo` on an SQLite file; Chromium plays the coordinator and, in a separate browser context,
the new mentor. The mentor's push subscription is made on her own session (a real one, with her page's CSRF token)
and looked up afterwards in the database file itself, since she can no longer ask.
"""
from __future__ import annotations

import os
import re
import sqlite3

import pytest

from conftest import sign_in
from push_service import Device, StandInPushService
from sse_client import EventStream
from varsel_server import VarselServer, wait_until

MENTOR_PASSWORD = "kari sitt lange passord"


@pytest.fixture
def push_service():
    service = StandInPushService()
    yield service
    service.close()


@pytest.fixture
def people_server(tmp_path):
    """A server that may post to the stand-in push service on loopback."""
    instance = VarselServer(database=tmp_path / "varsel.sqlite", extra_args=["--push-allow-http-endpoints"]).start()
    yield instance
    instance.stop()


def push_subscriptions(server: VarselServer, username: str) -> int:
    with sqlite3.connect(server.database) as db:
        return db.execute("SELECT count(*) FROM push_subscription JOIN user ON user.id = push_subscription.user_id "
                          "WHERE user.username = ?", (username,)).fetchone()[0]


def test_a_coordinator_adds_a_mentor_who_sets_a_password_is_renewed_and_later_deactivated(browser, people_server, push_service):
    server = people_server
    coordinator = browser.new_context(bypass_csp=True).new_page()
    sign_in(coordinator, server, "demo-coordinator")

    # The coordinator's own tab bar: People is one of five tabs.
    people_tab = coordinator.locator("#tab-people")
    assert people_tab.get_attribute("aria-posinset") == "2" and people_tab.get_attribute("aria-setsize") == "5"
    people_tab.click()
    coordinator.wait_for_url("**/people")
    coordinator.click("#add-person")
    coordinator.fill("#person-name", "Kari Nordmann")
    coordinator.fill("#person-username", "kari")
    coordinator.select_option("#person-language", "nb")
    coordinator.click("#add-person-submit")
    # The form is answered by a redirect, so a reload does not post it again.
    coordinator.wait_for_url(re.compile(r".*/people/\d+/link\?done=added$"))

    assert coordinator.inner_text("#flash") == "Kari Nordmann added"
    assert coordinator.inner_text("#link-heading") == "Set-password link for Kari Nordmann"
    link = coordinator.get_attribute("#set-password-link", "href")
    code = coordinator.inner_text("#set-password-code")
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}", code)
    assert link == f"{server.base_url}/password/{code}"
    # Passed on, the link is never in a URL of ours: the code reached its page sealed in a cookie for that page.
    assert code not in coordinator.url
    # The code is read aloud from the screen: in the body's size or larger, and on a narrow screen with large text
    # the link and the code wrap between the groups of the code, never inside one.
    coordinator.set_viewport_size({"width": 320, "height": 800})
    coordinator.evaluate("document.documentElement.style.fontSize = '200%'")
    layout = coordinator.evaluate("""() => ({
        body: parseFloat(getComputedStyle(document.body).fontSize),
        code: parseFloat(getComputedStyle(document.getElementById('set-password-code')).fontSize),
        linkLines: new Set(Array.from(document.getElementById('set-password-link').getClientRects()).map(r => Math.round(r.top))).size,
        groups: Array.from(document.querySelectorAll('.code-group')).map(g => g.getClientRects().length),
    })""")
    assert layout["code"] >= layout["body"], layout
    assert layout["linkLines"] > 1 and layout["groups"] == [1] * 6, layout
    coordinator.evaluate("document.documentElement.style.fontSize = ''")
    coordinator.set_viewport_size({"width": 1280, "height": 720})
    # Shown once: a reload finds no code and says so, on the person's page.
    coordinator.reload()
    coordinator.wait_for_url(re.compile(r".*/people/\d+\?done=link-shown$"))
    assert coordinator.inner_text("#flash") == ("The set-password link was shown once and is not shown again. "
                                                "If it was lost, make a new one.")
    assert coordinator.locator("#set-password-code").count() == 0

    # The mentor, on her own device, chooses a password through the link and is signed in.
    mentor_context = browser.new_context(bypass_csp=True)
    mentor = mentor_context.new_page()
    mentor.goto(link)
    assert mentor.inner_text("#password-heading") == "Velg passordet ditt"
    assert mentor.inner_text("#password-for") == "For Kari Nordmann, som logger inn som kari."
    mentor.fill("#new-password", MENTOR_PASSWORD)
    mentor.fill("#repeat-password", MENTOR_PASSWORD + " nei")
    mentor.click("#set-password")
    assert mentor.inner_text("#repeat-password-error") == "De to passordene er ikke like."
    mentor.fill("#new-password", MENTOR_PASSWORD)
    mentor.fill("#repeat-password", MENTOR_PASSWORD)
    mentor.click("#set-password")
    mentor.wait_for_url(re.compile(r".*/\?done=chosen$"))
    assert mentor.inner_text("#flash") == "Passordet er lagret. Du er logget inn."
    # The link worked once.
    used = browser.new_context(locale="nb-NO").new_page()
    used.goto(link)
    assert used.inner_text("#password-error") == "Denne lenken er utløpt eller brukt. Be koordinatoren om en ny."
    used.context.close()
    # Her password signs her in.
    mentor.click("form[action='/signout'] button")
    mentor.wait_for_url("**/signin")
    mentor.goto(server.base_url + "/signin")
    mentor.fill("#username", "kari")
    mentor.fill("#password", MENTOR_PASSWORD)
    mentor.click("button[type=submit]")
    mentor.wait_for_url("**/notifications")

    # Her phone subscribes to Web Push, on her session; her centre holds a live stream open.
    device = Device()
    status = mentor.evaluate("""async (subscription) => {
        const response = await fetch("/api/v1/push-subscriptions", {method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/json", "X-CSRF-Token": document.body.dataset.csrf},
            body: JSON.stringify(subscription)});
        return response.status;
    }""", device.subscription(push_service.endpoint("kari")))
    assert status == 201
    assert push_subscriptions(server, "kari") == 1
    mentor.wait_for_function("window.varselStream && window.varselStream.readyState === 1")
    mentor.evaluate("""window.varselStream.addEventListener("reset", (event) => { window.resetReason = JSON.parse(event.data).reason; })""")

    # The coordinator gives her a certification about to expire, then renews it.
    coordinator.goto(server.base_url + "/people")
    coordinator.click("text=Kari Nordmann, active")
    coordinator.fill("#certification-name", "Førerhundsertifikat")
    coordinator.fill("#certification-expires", "2026-12-05")
    coordinator.click("#add-certification")
    assert coordinator.inner_text("#flash") == "Certifications saved"
    row = coordinator.locator("li[id^=certification-]")
    assert row.locator("p").inner_text() == "Førerhundsertifikat expires on December 5, 2026"
    row.locator("input[type=date]").fill("2027-12-05")
    coordinator.click("button[aria-label='Renew Førerhundsertifikat']")
    assert coordinator.locator("li[id^=certification-] p").inner_text() == "Førerhundsertifikat expires on December 5, 2027"
    log = coordinator.inner_text("#account-log")
    assert "Førerhundsertifikat renewed until December 5, 2027, by Demo Coordinator" in log
    assert "Førerhundsertifikat added, expires December 5, 2026, by Demo Coordinator" in log
    assert "Password chosen with the link, by Kari Nordmann" in log

    # Later she leaves: deactivated, her open stream ends with the reason, her push subscription is gone.
    coordinator.click("#deactivate")
    assert coordinator.inner_text("#flash") == "Deactivated and signed out everywhere"
    assert coordinator.inner_text("#person-summary") == "Kari Nordmann, deactivated, no live assignments"
    mentor.wait_for_function("window.resetReason === 'account-deactivated' && window.varselStream.readyState === 2")
    assert push_subscriptions(server, "kari") == 0
    # Her next sign-in is refused, saying why.
    mentor.goto(server.base_url + "/signin")
    mentor.fill("#username", "kari")
    mentor.fill("#password", MENTOR_PASSWORD)
    mentor.click("button[type=submit]")
    assert mentor.inner_text("#signin-error") == "This account is deactivated. Ask your coordinator."
    # The list files her under deactivated.
    coordinator.goto(server.base_url + "/people?show=deactivated")
    assert coordinator.locator("#people-count").inner_text() == "1 person"
    assert "Kari Nordmann, deactivated" in coordinator.inner_text("main ul")
    # The eye finds her row by a mark beside it; a screen reader hears the row's own words, not the mark again.
    mark = coordinator.locator("li.person-deactivated .state-mark")
    assert mark.count() == 1 and mark.is_visible() and mark.inner_text() == "Deactivated"
    assert mark.get_attribute("aria-hidden") == "true"
    coordinator.goto(server.base_url + "/people?show=active")
    assert coordinator.locator(".state-mark").count() == 0
    mentor_context.close()
    coordinator.context.close()


def test_the_same_through_the_api(people_server, push_service):
    server = people_server
    coordinator = server.token("demo-coordinator")
    status, headers, invited = server.request("POST", "/api/v1/users", coordinator,
                                              {"username": "kari", "displayName": "Kari Nordmann", "role": "mentor", "locale": "nb"})
    assert status == 201, invited
    assert headers.get("Cache-Control") == "no-store"
    kari_id = invited["user"]["id"]
    code = invited["setPasswordLink"]["code"]
    assert invited["setPasswordLink"]["url"].endswith("/password/" + code)
    status, _, _ = server.request("POST", "/api/v1/password", None, {"code": code, "password": MENTOR_PASSWORD})
    assert status == 204
    status, _, again = server.request("POST", "/api/v1/password", None, {"code": code, "password": MENTOR_PASSWORD})
    assert status == 404 and code not in again["detail"]
    kari = server.token("kari", MENTOR_PASSWORD)

    status, _, _ = server.request("POST", "/api/v1/push-subscriptions", kari, Device().subscription(push_service.endpoint("kari")))
    assert status == 201
    stream = EventStream("127.0.0.1", server.port, kari)
    assert wait_until(lambda: stream.status == 200 and stream.comments)

    status, _, stored = server.request("PUT", f"/api/v1/mentors/{kari_id}/certifications", coordinator,
                                       [{"name": "Førerhundsertifikat", "expiresOn": "2026-12-05"}])
    assert status == 200, stored
    status, _, stored = server.request("PUT", f"/api/v1/mentors/{kari_id}/certifications", coordinator,
                                       [{"name": "Førerhundsertifikat", "expiresOn": "2027-12-05"}])
    assert status == 200 and stored[0]["expiresAt"].startswith("2027-12-04T23:00:00")
    status, _, person = server.request("GET", f"/api/v1/users/{kari_id}", coordinator)
    # Her phone was subscribed a moment ago and has not missed a push: no warning.
    assert person["summary"] == "Kari Nordmann, active, Førerhundsertifikat valid until December 5, 2027, no live assignments"

    status, _, user = server.request("POST", f"/api/v1/users/{kari_id}/deactivate", coordinator)
    assert status == 200 and user["active"] is False
    assert wait_until(lambda: any(event.name == "reset" and event.json["reason"] == "account-deactivated" for event in stream.events))
    assert push_subscriptions(server, "kari") == 0
    status, _, refused = server.request("POST", "/api/v1/session", None, {"username": "kari", "password": MENTOR_PASSWORD})
    assert status == 403 and refused["detail"] == "This account is deactivated. Ask your coordinator."
    status, _, changes = server.request("GET", f"/api/v1/users/{kari_id}/changes", coordinator)
    assert [change["action"] for change in changes] == [
        "created", "password-set", "certification-added", "certification-renewed", "deactivated"]
    stream.close()


def test_deactivating_at_the_command_line_ends_the_stream_on_the_running_server(people_server):
    """Another process writes the deactivation: the server learns of it from the event log and ends her stream."""
    import subprocess

    from varsel_server import varsel_binary

    server = people_server
    mentor = server.token("demo-mentor")
    stream = EventStream("127.0.0.1", server.port, mentor)
    assert wait_until(lambda: stream.status == 200 and stream.comments)
    done = subprocess.run([str(varsel_binary()), "user", "deactivate", "demo-mentor", "--database", str(server.database)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Deactivated demo-mentor in {os.path.abspath(server.database)}: 1 session ended, sign-in refused; their data is kept."
    assert wait_until(lambda: any(event.name == "reset" and event.json["reason"] == "account-deactivated" for event in stream.events))
    # A session read from the file is trusted for at most two seconds when another process changed it.
    assert wait_until(lambda: server.request("GET", "/api/v1/me", mentor)[0] == 401, timeout=10)
    stream.close()


def test_without_script_the_erasure_dialog_is_part_of_the_page_and_its_erase_button_can_be_pressed(browser, people_server):
    """Opened by its no-script link, the dialog sits in the page's flow, so the fixed tab bar never covers its buttons."""
    server = people_server
    coordinator = server.token("demo-coordinator")
    status, _, created = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "contact": {"name": "Eva Strand", "phone": "", "address": "Parkveien 2", "notes": ""}})
    assert status == 201, created
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1024, "height": 900})
    page = context.new_page()
    sign_in(page, server, "demo-coordinator")
    assignment = created["assignment"]
    page.goto(f"{server.base_url}/contacts/{assignment['contactId']}?assignment={assignment['id']}&confirm=erase")
    assert page.inner_text("#erase-dialog-title") == "Erase the details of Eva Strand?"
    erase = page.locator("#confirm-erase")
    erase.scroll_into_view_if_needed()
    box = erase.bounding_box()
    bar = page.locator("nav.tab-bar").bounding_box()
    assert box["y"] + box["height"] <= bar["y"], (box, bar)
    erase.click()
    assert page.inner_text("h1") == "Details removed"
    assert page.inner_text("#flash") == "Details erased"
    context.close()
