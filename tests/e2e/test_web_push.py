"""Web Push reaches a mentor whose page is closed, encrypted for the device, safe on a lock screen.

A real `varsel serve` (with `--push-allow-http-endpoints`, so it may post to loopback) sends to a stand-in push
service; `http_ece` decrypts and `py_vapid` verifies what arrives, independently of Varsel's Swift code. The
expected lock-screen words are the core's (Strings+Push.swift), quoted here.
"""
from __future__ import annotations

import json
import re
import urllib.request

import pytest

from push_service import Device, StandInPushService, verify_vapid
from varsel_server import VarselServer, wait_until

METRICS_TOKEN = "push-test-metrics"


@pytest.fixture
def push_service():
    service = StandInPushService()
    yield service
    service.close()


@pytest.fixture
def push_server(tmp_path):
    """A server that may post to the stand-in push service on loopback."""
    instance = VarselServer(database=tmp_path / "varsel.sqlite",
                            extra_args=["--push-allow-http-endpoints", "--metrics-token", METRICS_TOKEN]).start()
    yield instance
    instance.stop()


def subscribe(server: VarselServer, token: str, device: Device, endpoint: str) -> dict:
    status, _, body = server.request("POST", "/api/v1/push-subscriptions", token, device.subscription(endpoint))
    assert status == 201, body
    return body


def assign(server: VarselServer, coordinator: str, urgency: str = "normal") -> dict:
    """A coordinator assigns Kari Nordmann, of Storgata 1, to the demo mentor."""
    status, _, body = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "urgency": urgency,
        "contact": {"name": "Kari Nordmann", "phone": "+47 912 34 567", "address": "Storgata 1", "notes": "Prefers mornings"},
    })
    assert status == 201, body
    return body


def assign_and_wait_for_push(server: VarselServer, coordinator: str, service: StandInPushService, name: str) -> dict:
    """Assigns, and waits until the push service has the new assignment's push at the endpoint `name`.

    The worker queues a round's notifications, then sends every push that round claimed before it starts the next:
    called twice, the second push arrives only after every push of the first notification was sent. That is what
    proves, in order, that a push which was not sent will not be."""
    count = len(service.pushes(name))
    created = assign(server, coordinator)
    pushes = service.wait_for(name, count + 1)
    assert pushes[count].headers["Topic"] == f"varsel-{created['notificationId']}"
    return created


def metric(server: VarselServer, name: str) -> float:
    request = urllib.request.Request(server.base_url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise AssertionError(f"{name} is not in /metrics")


def test_a_notification_created_while_no_page_is_open_reaches_the_device_encrypted_without_personal_details(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    device = Device()
    subscription = subscribe(push_server, mentor, device, push_service.endpoint("phone"))
    created = assign(push_server, coordinator, urgency="urgent")

    push = push_service.wait_for("phone", 1)[0]
    # RFC 8030 headers: urgent becomes high; the topic collapses repeats; the TTL counts from creation.
    assert push.headers["Urgency"] == "high"
    assert push.headers["Topic"] == f"varsel-{created['notificationId']}"
    assert 0 < int(push.headers["TTL"]) <= 24 * 3600
    assert push.headers["Content-Encoding"] == "aes128gcm"
    claims = verify_vapid(push, audience=f"http://127.0.0.1:{push_service.port}")
    assert claims["sub"].startswith("mailto:")
    status, _, key = push_server.request("GET", "/api/v1/push/public-key")
    assert status == 200 and push.headers["Authorization"].endswith("k=" + key["publicKey"])

    plaintext = device.decrypt(push)
    assert b"Kari" not in plaintext and b"Storgata" not in plaintext and b"mornings" not in plaintext
    declarative = json.loads(plaintext)
    # A Declarative Web Push message (Safari 18.4+ shows it by itself; the service worker shows the same elsewhere):
    # the marker, the notification, the unread count after it for the app's badge, and nothing else at the top.
    assert sorted(declarative) == ["app_badge", "mutable", "notification", "web_push"]
    assert declarative["web_push"] == 8030 and declarative["mutable"] is True
    _, _, unread = push_server.request("GET", "/api/v1/notifications/unread-count", mentor)
    assert declarative["app_badge"] == unread["count"] and unread["count"] >= 1, unread
    message = declarative["notification"]
    # The core's lock-screen text (Strings.lockScreenTitle, lockScreenHiddenBody): kind and title, no body details.
    assert message["title"] == "Assignment (urgent): New assignment"
    assert message["body"] == "Open Varsel to read it."
    assert message["lang"] == "en" and message["dir"] == "auto"
    assert message["require_interaction"] is True and message["silent"] is False
    assert message["vibrate"] == [200, 100, 200, 100, 200]  # the core's urgent CuePlan pattern
    # Where a tap goes: absolute, on Varsel's own origin.
    assert message["navigate"] == f"{push_server.base_url}/notifications/{created['notificationId']}/open"
    assert [(action["title"], action["navigate"]) for action in message["actions"]] == [
        ("Open", message["navigate"]), ("Acknowledge", message["navigate"])]
    assert message["data"]["acknowledge"]["url"] == f"/api/v1/push-subscriptions/{subscription['id']}/acknowledge"
    assert wait_until(lambda: metric(push_server, "varsel_push_sent_total") == 1)


def test_details_show_on_the_lock_screen_only_when_the_mentor_turned_that_on(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    device = Device()
    subscribe(push_server, mentor, device, push_service.endpoint("phone"))
    status, _, preferences = push_server.request("GET", "/api/v1/preferences", mentor)
    assert status == 200 and preferences["lockScreenDetails"] is False
    preferences["lockScreenDetails"] = True
    assert push_server.request("PUT", "/api/v1/preferences", mentor, preferences)[0] == 200
    assign(push_server, coordinator)
    message = json.loads(device.decrypt(push_service.wait_for("phone", 1)[0]))["notification"]
    assert message["title"] == "Assignment: New assignment"
    assert message["body"] == "Visit Kari Nordmann at Storgata 1"
    assert message["require_interaction"] is False


def test_the_acknowledge_button_answers_the_assignment_with_the_token_the_push_carried(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    device = Device()
    subscribe(push_server, mentor, device, push_service.endpoint("phone"))
    created = assign(push_server, coordinator)
    acknowledge = json.loads(device.decrypt(push_service.wait_for("phone", 1)[0]))["notification"]["data"]["acknowledge"]
    body = {"assignmentID": acknowledge["assignmentID"], "token": acknowledge["token"]}
    # A wrong token, or the right token for another assignment, does nothing.
    forged = dict(body, token=acknowledge["token"][:-2] + ("AA" if not acknowledge["token"].endswith("AA") else "BB"))
    assert push_server.request("POST", acknowledge["url"], None, forged)[0] == 404
    assert push_server.request("POST", acknowledge["url"], None, dict(body, assignmentID=body["assignmentID"] + 1))[0] == 404
    # No session, no CSRF token: the token is the credential.
    status, _, answered = push_server.request("POST", acknowledge["url"], None, body)
    assert status == 200, answered
    assert answered["status"] == "acknowledged"
    assert push_server.request("GET", f"/api/v1/assignments/{created['assignment']['id']}", mentor)[2]["status"] == "acknowledged"
    assert push_server.request("POST", acknowledge["url"], None, body)[0] == 409


def test_410_marks_the_device_revoked_with_when_and_nothing_more_is_sent_to_it(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    subscribe(push_server, mentor, Device(), push_service.endpoint("gone"))
    push_service.answer("gone", (410, {}))
    assign(push_server, coordinator)
    push_service.wait_for("gone", 1)

    def devices():
        return push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2]
    assert wait_until(lambda: [device["health"] for device in devices()] == ["revoked"])
    [device] = devices()
    assert device["revokedAt"] and device["description"].endswith(": turn notifications on again on this phone"), device
    assert metric(push_server, "varsel_push_subscriptions_removed_total") == 1
    # Another device of the mentor's witnesses that two later notifications' pushes were all sent.
    subscribe(push_server, mentor, Device(), push_service.endpoint("witness"))
    assign_and_wait_for_push(push_server, coordinator, push_service, "witness")
    assign_and_wait_for_push(push_server, coordinator, push_service, "witness")
    assert len(push_service.pushes("gone")) == 1


def test_a_shown_receipt_is_taken_once_with_the_token_the_push_carried_and_the_device_then_shows(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    device = Device()
    subscription = subscribe(push_server, mentor, device, push_service.endpoint("receipts"))
    # Subscribed with a phone's browser: named by it; nothing pushed yet.
    assert subscription["health"] == "waiting"
    other = subscribe(push_server, push_server.token("demo-mentor-2"), Device(), push_service.endpoint("other"))
    created = assign(push_server, coordinator)
    receipt = json.loads(device.decrypt(push_service.wait_for("receipts", 1)[0]))["notification"]["data"]["receipt"]
    assert receipt["url"] == f"/api/v1/push-subscriptions/{subscription['id']}/receipts"
    assert receipt["notificationID"] == created["notificationId"]
    body = {"notificationID": receipt["notificationID"], "token": receipt["token"]}

    def device_state():
        return push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2][0]
    # Accepted, not yet confirmed; refusals change nothing: a forged token, another push, another person's device.
    assert wait_until(lambda: "lastAcceptedAt" in device_state())
    before = device_state()
    forged = dict(body, token=receipt["token"][:-2] + ("AA" if not receipt["token"].endswith("AA") else "BB"))
    assert push_server.request("POST", receipt["url"], None, forged)[0] == 404
    assert push_server.request("POST", receipt["url"], None, dict(body, notificationID=body["notificationID"] + 1))[0] == 404
    status, _, problem = push_server.request("POST", f"/api/v1/push-subscriptions/{other['id']}/receipts", None, body)
    assert status == 404 and receipt["token"] not in json.dumps(problem), problem
    assert device_state() == before and before["health"] == "waiting" and "lastShownAt" not in before
    # The service worker's report, with no session: taken once; the same again is a repeat and changes nothing.
    assert push_server.request("POST", receipt["url"], None, body)[0] == 204
    shown = device_state()
    assert shown["health"] == "shows" and shown["lastShownAt"], shown
    assert re.fullmatch(r".+, last notification shown today at \d{1,2}:\d{2}\s[AP]M", shown["description"]), shown
    assert push_server.request("POST", receipt["url"], None, body)[0] == 409
    assert device_state() == shown


def test_a_reassignment_withdraws_the_first_mentors_notification_without_naming_anyone(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    device = Device()
    subscribe(push_server, mentor, device, push_service.endpoint("first"))
    created = assign(push_server, coordinator)
    shown = json.loads(device.decrypt(push_service.wait_for("first", 1)[0]))["notification"]
    # Accepted by the push service before the coordinator changes their mind.
    assert wait_until(lambda: "lastAcceptedAt" in push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2][0])
    status, _, reassigned = push_server.request("POST", f"/api/v1/assignments/{created['assignment']['id']}/reassign", coordinator,
                                                {"mentor": "demo-mentor-2"})
    assert status == 201, reassigned
    push = push_service.wait_for("first", 2)[1]
    # It replaces the first push wherever that still waits (same topic) and on the lock screen (same tag).
    assert push.headers["Topic"] == f"varsel-{created['notificationId']}"
    plaintext = device.decrypt(push)
    assert b"Kari" not in plaintext and b"Storgata" not in plaintext and b"912" not in plaintext and b"mornings" not in plaintext
    withdrawal = json.loads(plaintext)
    notification = withdrawal["notification"]
    assert notification["tag"] == shown["tag"]
    assert notification["title"] == "Notification withdrawn" and notification["silent"] is True
    assert notification["navigate"] == f"{push_server.base_url}/notifications"
    assert "receipt" not in notification["data"] and "acknowledge" not in notification["data"]
    _, _, unread = push_server.request("GET", "/api/v1/notifications/unread-count", mentor)
    assert withdrawal["app_badge"] == unread["count"]


def test_three_pushes_not_shown_make_the_device_not_confirmed(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    subscribe(push_server, mentor, Device(), push_service.endpoint("silent"))
    for _ in range(3):
        assign_and_wait_for_push(push_server, coordinator, push_service, "silent")
    assert wait_until(lambda: push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2][0]["health"] == "notConfirmed")
    [device] = push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2]
    assert device["description"].endswith(": open Varsel on this phone to wake it up"), device
    # The coordinator sees it: the mentor's page and row say no device shows notifications.
    _, _, people = push_server.request("GET", "/api/v1/users", coordinator)
    mentor_id = next(person["id"] for person in people if person["username"] == "demo-mentor")
    _, _, person = push_server.request("GET", f"/api/v1/users/{mentor_id}", coordinator)
    assert person["summary"].endswith(", no device shows notifications"), person


def test_429_is_retried_after_retry_after_and_arrives_once(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    device = Device()
    subscribe(push_server, mentor, device, push_service.endpoint("busy"))
    push_service.answer("busy", (429, {"Retry-After": "2"}))
    assign(push_server, coordinator)
    first, second = push_service.wait_for("busy", 2)
    assert first.status == 429 and second.status == 201
    # Retry-After's 2 s, not the worker's own backoff (5 s ± 20 %) and not sooner; the worker looks twice a second.
    assert 1.9 <= second.at - first.at < 3.9, f"retried after {second.at - first.at:.2f} s; Retry-After said 2 s"
    assert json.loads(device.decrypt(second))["notification"]["title"] == "Assignment: New assignment"
    # The accepted push is recorded as sent (its delivery finished), after the one retry.
    assert wait_until(lambda: metric(push_server, "varsel_push_sent_total") == 1)
    assert metric(push_server, "varsel_push_retries_total") == 1
    # Two later assignments' pushes arrive after it, and nothing more of the first came in between.
    first_topic = first.headers["Topic"]
    assign_and_wait_for_push(push_server, coordinator, push_service, "busy")
    assign_and_wait_for_push(push_server, coordinator, push_service, "busy")
    topics = [push.headers["Topic"] for push in push_service.pushes("busy")]
    assert topics[:2] == [first_topic, first_topic] and first_topic not in topics[2:], topics
    assert metric(push_server, "varsel_push_retries_total") == 1


def test_a_restart_in_the_middle_of_a_retry_loses_nothing(push_server, push_service):
    mentor = push_server.token("demo-mentor")
    coordinator = push_server.token("demo-coordinator")
    device = Device()
    subscribe(push_server, mentor, device, push_service.endpoint("flaky"))
    push_service.answer("flaky", (503, {"Retry-After": "3"}))
    created = assign(push_server, coordinator)
    push_service.wait_for("flaky", 1)
    # The retry is in the outbox once the worker counted it (before that, the push is still leased to this instance).
    assert wait_until(lambda: metric(push_server, "varsel_push_retries_total") >= 1)
    # Killed outright, not stopped: the retry lives only in the database's push outbox.
    push_server.process.kill()
    push_server.process.wait()
    push_server.process = None
    push_server.start()
    pushes = push_service.wait_for("flaky", 2, timeout=30)
    assert pushes[1].status == 201
    assert pushes[1].headers["Topic"] == f"varsel-{created['notificationId']}"
    assert json.loads(device.decrypt(pushes[1]))["notification"]["navigate"] == (
        f"{push_server.base_url}/notifications/{created['notificationId']}/open")


def test_a_subscription_ends_with_the_session_that_made_it(push_server, push_service):
    phone = push_server.token("demo-mentor")
    laptop = push_server.token("demo-mentor")
    subscribe(push_server, phone, Device(), push_service.endpoint("phone"))
    subscribe(push_server, laptop, Device(), push_service.endpoint("laptop"))
    listed = push_server.request("GET", "/api/v1/push-subscriptions", laptop)[2]
    assert [(entry["endpoint"].rsplit("/", 1)[1], entry["isThisSession"]) for entry in listed] == [("phone", False), ("laptop", True)]
    assert "keys" not in listed[0] and "p256dh" not in json.dumps(listed)
    assert push_server.request("DELETE", "/api/v1/session", phone)[0] == 204
    listed = push_server.request("GET", "/api/v1/push-subscriptions", laptop)[2]
    assert [entry["endpoint"].rsplit("/", 1)[1] for entry in listed] == ["laptop"]
    coordinator = push_server.token("demo-coordinator")
    assign_and_wait_for_push(push_server, coordinator, push_service, "laptop")
    assign_and_wait_for_push(push_server, coordinator, push_service, "laptop")
    assert push_service.pushes("phone") == []


def test_by_default_only_https_public_endpoints_are_accepted_and_the_refusal_does_not_echo_them(server):
    mentor = server.token("demo-mentor")
    device = Device()
    for endpoint in ["http://127.0.0.1:9/push/secret-device-id", "https://10.0.0.7/push/secret-device-id",
                     "https://169.254.169.254/latest/secret-device-id", "https://localhost/push/secret-device-id"]:
        status, headers, body = server.request("POST", "/api/v1/push-subscriptions", mentor, device.subscription(endpoint))
        assert status == 422, (endpoint, body)
        assert headers["Content-Type"] == "application/problem+json"
        assert "secret-device-id" not in json.dumps(body)
    bad_keys = device.subscription("https://push.example.net/x")
    bad_keys["keys"]["p256dh"] = "BAAA"
    status, _, body = server.request("POST", "/api/v1/push-subscriptions", mentor, bad_keys)
    assert status == 422 and body["errors"][0]["field"] == "keys.p256dh"
    status, _, body = server.request("POST", "/api/v1/push-subscriptions", mentor, device.subscription("https://push.example.net/wpush/1"))
    assert status == 201, body
