"""Web Push in Debian's Chromium: the installable app, its service worker and the "Notifications on this device" switch.

A push is delivered to the service worker with the DevTools protocol (`ServiceWorker.deliverPushMessage`), carrying
what the stand-in push service received from Varsel, decrypted with `http_ece`; the test then reads what the worker
shows (`registration.getNotifications()`). Playwright cannot tap a system notification, so the tap is the worker's
own click handler called with the notification it shows. The expected words are the core's (Strings+Push.swift).
"""
from __future__ import annotations

import json
import time
import weakref
from contextlib import contextmanager

import pytest

from conftest import sign_in
from push_service import Device, StandInPushService
from test_web_push import assign, push_server, push_service  # noqa: F401 (fixtures)
from varsel_server import wait_until


@pytest.fixture
def browser(notifying_browser):
    """Every test here shows notifications or receives pushes, so each runs in the whole of Chromium."""
    return notifying_browser


def signed_in_context(browser, server, grant: bool):
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 900})
    if grant:
        context.grant_permissions(["notifications"], origin=server.base_url)
    page = context.new_page()
    sign_in(page, server)
    return context, page


def controlled(page, server) -> None:
    """Waits for the service worker push.js registers to control the page."""
    page.goto(server.base_url + "/settings")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")


@contextmanager
def subscribed_page(browser, server, service):
    """A signed-in page that may show notifications, controlled by Varsel's service worker and subscribed with the
    test device's keys at the stand-in push service's `chromium` endpoint; yields the page and the device."""
    context, page = signed_in_context(browser, server, grant=True)
    try:
        controlled(page, server)
        device = Device()
        subscribe_this_browser(page, device, service.endpoint("chromium"))
        yield page, device
    finally:
        context.close()


class PushDevTools:
    """One page's DevTools session for push: its service worker registrations, and Chromium's own log of the push
    events it dispatched and completed (the BackgroundService domain), recorded from before the first delivery."""

    def __init__(self, page, server) -> None:
        self.page, self.server = page, server
        self.cdp = page.context.new_cdp_session(page)
        self.log: list[dict] = []
        self.registrations: list[dict] = []
        self.cdp.on("BackgroundService.backgroundServiceEventReceived", lambda event: self.log.append(event["backgroundServiceEvent"]))
        self.cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: self.registrations.extend(event["registrations"]))
        self.cdp.send("BackgroundService.setRecording", {"shouldRecord": True, "service": "pushMessaging"})
        self.cdp.send("BackgroundService.startObserving", {"service": "pushMessaging"})
        self.cdp.send("ServiceWorker.enable")

    def registration_id(self) -> str:
        """This server's live registration: the browser may also report others (deleted, or another origin's)."""
        def own() -> list[dict]:
            return [r for r in self.registrations if r["scopeURL"].startswith(self.server.base_url + "/") and not r.get("isDeleted")]
        deadline = time.monotonic() + 10
        while not own() and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)
        assert own(), f"no live service worker registration for {self.server.base_url}; the browser reported {self.registrations}"
        return own()[-1]["registrationId"]

    def events(self, name: str, after: int) -> list[dict]:
        return [event for event in self.log[after:] if event["eventName"] == name and event["origin"] == self.server.base_url + "/"]


_push_dev_tools: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # one session a page


def deliver(page, server, plaintext: bytes) -> None:
    """Hands a push message to the page's service worker through the DevTools protocol, and waits until Chromium
    reports that the worker's push event completed, with success.

    DevTools answers before the delivery happens and reports its outcome only in Chromium's log of push events. A
    delivery Chromium never dispatched (it logs nothing when it could not find or start the worker) is handed over
    once more: that is the stand-in push service's part. Should the first come after all, the same message twice
    shows one notification (the same tag). What the worker did wrong (an event that did not complete, or not with
    success) fails here, with Chromium's log."""
    devtools = _push_dev_tools.get(page)
    if devtools is None:
        devtools = _push_dev_tools[page] = PushDevTools(page, server)
    first_start = len(devtools.log)
    for _ in range(2):
        start = len(devtools.log)
        devtools.cdp.send("ServiceWorker.deliverPushMessage", {"origin": server.base_url, "registrationId": devtools.registration_id(),
                                                               "data": plaintext.decode()})
        deadline = time.monotonic() + 10
        while not devtools.events("Push event completed", start) and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        if devtools.events("Push event dispatched", start) or devtools.events("Push event completed", start):
            break
    assert devtools.events("Push event completed", start), \
        f"the service worker's push event did not complete; Chromium's push log: {devtools.log}"
    for completed in devtools.events("Push event completed", first_start):
        assert completed["eventMetadata"] == [{"key": "Status", "value": "Success"}], f"Chromium's push log: {devtools.log}"


def shown(page, count: int = 1) -> list[dict]:
    """The notifications the service worker shows now (waits for `count`)."""
    script = """navigator.serviceWorker.ready.then(r => r.getNotifications()).then(list => list.map(n => ({
        title: n.title, body: n.body, tag: n.tag, lang: n.lang, requireInteraction: n.requireInteraction,
        silent: n.silent, vibrate: Array.from(n.vibrate), actions: n.actions.map(a => a.title), data: n.data})))"""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        notifications = page.evaluate(script)
        if len(notifications) >= count:
            return notifications
        page.wait_for_timeout(100)
    raise AssertionError(f"the service worker shows {len(page.evaluate(script))} notifications, expected {count}")


def tap(page, action: str) -> None:
    """Taps the first shown notification (its body, or a button) through the worker's own click handler."""
    worker = page.context.service_workers[0] if page.context.service_workers else page.context.wait_for_event("serviceworker")
    worker.evaluate(f"self.registration.getNotifications().then(list => handleNotificationClick(list[0], {json.dumps(action)})).then(() => true)")


def subscribe_this_browser(page, device: Device, endpoint: str) -> None:
    """Subscribes as the page's own script does (session cookie and CSRF token), with the test device's keys:
    headless Chromium has no push service of its own to make them."""
    status = page.evaluate("""(subscription) => fetch('/api/v1/push-subscriptions', {method: 'POST',
        headers: {'Content-Type': 'application/json', 'X-CSRF-Token': document.body.dataset.csrf},
        body: JSON.stringify(subscription)}).then(r => r.status)""", device.subscription(endpoint))
    assert status == 201


def test_a_push_shows_without_personal_details_and_opens_its_screen_with_focus_on_the_heading(browser, push_server, push_service):
    with subscribed_page(browser, push_server, push_service) as (page, device):
        created = assign(push_server, push_server.token("demo-coordinator"), urgency="urgent")
        deliver(page, push_server, device.decrypt(push_service.wait_for("chromium", 1)[0]))
        notification = shown(page)[0]
        assert notification["title"] == "Assignment (urgent): New assignment"
        assert notification["body"] == "Open Varsel to read it."
        assert "Kari" not in json.dumps(notification) and "Storgata" not in json.dumps(notification)
        assert notification["actions"] == ["Open", "Acknowledge"]
        assert notification["requireInteraction"] is True
        assert notification["lang"] == "en"
        assert notification["tag"] == f"varsel-notification-{created['notificationId']}"
        # Shown: the worker's receipt reaches the server, which now counts the device as showing notifications.
        mentor = push_server.token("demo-mentor")
        assert wait_until(lambda: push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2][0]["health"] == "shows")
        tap(page, "")
        page.wait_for_url("**/contacts/**from=notification**")
        page.wait_for_function("document.activeElement && document.activeElement.id === 'contact-name-heading'")
        assert page.evaluate("document.activeElement.tagName") == "H1"


def test_acknowledge_on_the_notification_answers_the_assignment_and_says_so(browser, push_server, push_service):
    with subscribed_page(browser, push_server, push_service) as (page, device):
        mentor = push_server.token("demo-mentor")
        created = assign(push_server, push_server.token("demo-coordinator"))
        deliver(page, push_server, device.decrypt(push_service.wait_for("chromium", 1)[0]))
        shown(page)
        tap(page, "acknowledge")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and shown(page)[0]["title"] != "Assignment acknowledged":
            page.wait_for_timeout(100)
        after = shown(page)
        assert [n["title"] for n in after] == ["Assignment acknowledged"]  # replaced, same tag: not stacked
        assert after[0]["tag"] == f"varsel-notification-{created['notificationId']}"
        status, _, assignment = push_server.request("GET", f"/api/v1/assignments/{created['assignment']['id']}", mentor)
        assert status == 200 and assignment["status"] == "acknowledged"


def test_a_withdrawal_takes_the_pushs_place_silently_naming_no_one(browser, push_server, push_service):
    with subscribed_page(browser, push_server, push_service) as (page, device):
        created = assign(push_server, push_server.token("demo-coordinator"))
        deliver(page, push_server, device.decrypt(push_service.wait_for("chromium", 1)[0]))
        [first] = shown(page)
        assert first["title"] == "Assignment: New assignment" and first["silent"] is False
        # The coordinator gives the assignment to another mentor: the device gets the withdrawal, with the same tag.
        status, _, _ = push_server.request("POST", f"/api/v1/assignments/{created['assignment']['id']}/reassign",
                                           push_server.token("demo-coordinator"), {"mentor": "demo-mentor-2"})
        assert status == 201
        deliver(page, push_server, device.decrypt(push_service.wait_for("chromium", 2)[1]))
        assert wait_until(lambda: shown(page)[0]["title"] == "Notification withdrawn")
        [withdrawn] = shown(page)  # in the first one's place, not beside it
        assert withdrawn["tag"] == first["tag"]
        assert withdrawn["silent"] is True and withdrawn["vibrate"] == []
        assert withdrawn["actions"] == [] and "Kari" not in json.dumps(withdrawn)


@pytest.mark.parametrize("sound, vibration, silent, vibrate", [
    (False, True, False, [120]),  # the core's standard pattern (CuePlan.Haptic.standard)
    (True, False, False, []),
    (False, False, True, []),
])
def test_sound_and_vibration_switches_decide_how_a_push_comes_and_it_always_shows(browser, push_server, push_service,
                                                                                   sound, vibration, silent, vibrate):
    mentor = push_server.token("demo-mentor")
    _, _, preferences = push_server.request("GET", "/api/v1/preferences", mentor)
    preferences.update(sound=sound, vibration=vibration)
    assert push_server.request("PUT", "/api/v1/preferences", mentor, preferences)[0] == 200
    with subscribed_page(browser, push_server, push_service) as (page, device):
        assign(push_server, push_server.token("demo-coordinator"))
        deliver(page, push_server, device.decrypt(push_service.wait_for("chromium", 1)[0]))
        [notification] = shown(page)
        assert notification["title"] == "Assignment: New assignment"
        assert (notification["silent"], notification["vibrate"]) == (silent, vibrate)


def test_a_hidden_page_and_the_push_for_the_same_notification_show_it_once(browser, push_server, push_service):
    with subscribed_page(browser, push_server, push_service) as (page, device):
        page.evaluate("Object.defineProperty(document, 'hidden', { get: () => true })")  # the mentor switched away
        created = assign(push_server, push_server.token("demo-coordinator"))
        tag = f"varsel-notification-{created['notificationId']}"
        # The page hears of it first, on its live stream, and shows it through the service worker.
        [from_page] = shown(page)
        assert (from_page["title"], from_page["tag"]) == ("Assignment: New assignment", tag)
        # Then the push for the same notification comes, and takes the place of the one the page showed.
        deliver(page, push_server, device.decrypt(push_service.wait_for("chromium", 1)[0]))
        assert wait_until(lambda: shown(page)[0]["actions"] == ["Open", "Acknowledge"])
        assert [n["tag"] for n in shown(page)] == [tag]


def test_the_app_installs_and_the_offline_page_is_all_the_worker_keeps(browser, push_server):
    context, page = signed_in_context(browser, push_server, grant=False)
    try:
        manifest_href = page.get_attribute("link[rel=manifest]", "href")
        manifest = page.evaluate("href => fetch(href).then(r => r.json())", manifest_href)
        assert manifest["name"] == "Varsel" and manifest["display"] == "standalone" and manifest["start_url"] == "/notifications"
        for icon in manifest["icons"]:
            status, kind = page.evaluate("src => fetch(src).then(r => [r.status, r.headers.get('content-type')])", icon["src"])
            assert (status, kind) == (200, "image/png"), icon
        assert {icon["purpose"] for icon in manifest["icons"]} == {"any", "maskable"}
        controlled(page, push_server)
        cached = page.evaluate("caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys()))))"
                               ".then(lists => lists.flat().map(r => new URL(r.url).pathname).sort())")
        assert cached == ["/offline", "/static/varsel.css"]  # nothing with personal data
        # The server goes out of reach, so the worker's own fetch really fails. Playwright's offline emulation does not
        # always reach a service worker's fetches: under load, a run once got the live page through it.
        push_server.stop()
        page.goto(push_server.base_url + "/notifications")
        assert page.inner_text("h1") == "Du er frakoblet"
        assert page.get_attribute("html", "lang") == "nb"
        assert page.inner_text("section[lang=en] h2") == "You are offline"
    finally:
        context.close()


COUNT_PERMISSION_REQUESTS = """
window.__permissionRequests = 0;
if (window.Notification) {
  const original = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__permissionRequests += 1; return original(...args); };
}
"""


def live_text(page) -> str:
    return page.inner_text("#live-polite")


def test_the_device_switch_asks_permission_only_from_its_own_click_and_says_when_notifications_are_blocked(browser, push_server):
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 900})
    context.add_init_script(COUNT_PERMISSION_REQUESTS)
    page = context.new_page()
    try:
        open_settings(page, push_server)
        assert page.get_attribute("#setting-device-notifications", "role") == "switch"
        assert page.inner_text("label[for=setting-device-notifications]") == "Notifications on this device"
        page.click("#setting-sound")
        page.click("#setting-system-notifications")
        assert page.evaluate("window.__permissionRequests") == 0
        assert page.evaluate("Notification.permission") == "default"
        page.click("#setting-device-notifications")
        page.wait_for_function("document.getElementById('live-polite').textContent.length > 0")
        assert page.evaluate("window.__permissionRequests") == 1
        # Headless Chromium refuses the prompt: the mentor hears that it is blocked and what to do.
        assert live_text(page).startswith("Notifications are blocked for Varsel in this browser. To allow them,")
        assert not page.is_checked("#setting-device-notifications")
    finally:
        context.close()


FAKE_PUSH_MANAGER = """
window.__subscription = null;
PushManager.prototype.getSubscription = function () { return Promise.resolve(window.__subscription); };
PushManager.prototype.subscribe = function (options) {
  window.__subscribeOptions = { userVisibleOnly: options.userVisibleOnly, keyLength: options.applicationServerKey.byteLength };
  window.__subscription = { endpoint: window.__testSubscription.endpoint, toJSON: () => window.__testSubscription,
                            unsubscribe: () => { window.__subscription = null; return Promise.resolve(true); } };
  return Promise.resolve(window.__subscription);
};
"""


def open_settings(page, server) -> None:
    """Signs in and opens the settings page, where the script shows the "Notifications on this device" switch."""
    sign_in(page, server)
    page.goto(server.base_url + "/settings")
    page.wait_for_selector("#this-device:not([hidden])")


def switch_context(browser, server, service):
    """A browser context that may show notifications, whose PushManager hands back the test device's subscription
    (headless Chromium has no push service) at the stand-in's `switch` endpoint; returns it and the device."""
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 900})
    context.grant_permissions(["notifications"], origin=server.base_url)
    device = Device()
    context.add_init_script(f"window.__testSubscription = {json.dumps(device.subscription(service.endpoint('switch')))};"
                            + FAKE_PUSH_MANAGER)
    return context, device


def test_the_device_switch_says_when_the_service_worker_could_not_install_and_works_once_it_can(browser, push_server, push_service):
    context, _ = switch_context(browser, push_server, push_service)
    # The network fails while the worker installs: it cannot keep the offline page, so it never becomes active.
    context.route("**/offline", lambda route: route.fulfill(status=503, body="Service unavailable"))
    page = context.new_page()
    try:
        open_settings(page, push_server)
        page.click("#setting-device-notifications")
        page.wait_for_function("document.getElementById('live-polite').textContent.includes('Could not turn on notifications')",
                               timeout=20000)
        assert live_text(page) == "Could not turn on notifications on this device. Check the connection and try again."
        assert not page.is_checked("#setting-device-notifications")
        assert push_server.request("GET", "/api/v1/push-subscriptions", push_server.token("demo-mentor"))[2] == []
        # The network is back: the switch installs the worker again and subscribes.
        context.unroute("**/offline")
        page.click("#setting-device-notifications")
        page.wait_for_function("document.getElementById('live-polite').textContent.includes('Notifications on this device are on')",
                               timeout=20000)
        listed = push_server.request("GET", "/api/v1/push-subscriptions", push_server.token("demo-mentor"))[2]
        assert [entry["endpoint"] for entry in listed] == [push_service.endpoint("switch")]
    finally:
        context.close()


def test_the_device_switch_subscribes_this_browser_and_says_so(browser, push_server, push_service):
    context, device = switch_context(browser, push_server, push_service)
    page = context.new_page()
    try:
        open_settings(page, push_server)
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.click("#setting-device-notifications")
        page.wait_for_function("document.getElementById('live-polite').textContent.includes('Notifications on this device are on')")
        assert page.evaluate("window.__subscribeOptions") == {"userVisibleOnly": True, "keyLength": 65}
        mentor = push_server.token("demo-mentor")
        listed = push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2]
        assert [entry["endpoint"] for entry in listed] == [push_service.endpoint("switch")]
        assign(push_server, push_server.token("demo-coordinator"))
        assert json.loads(device.decrypt(push_service.wait_for("switch", 1)[0]))["notification"]["title"] == "Assignment: New assignment"
        page.click("#setting-device-notifications")
        page.wait_for_function("document.getElementById('live-polite').textContent.includes('Notifications on this device are off')")
        assert push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2] == []
    finally:
        context.close()


# A stand-in PushManager whose subscription outlives page loads: `window.__current` is what the browser holds as the
# page opens (null: none), `window.__next` what a new subscribe() gives.
RESYNC_PUSH_MANAGER = """
const fake = (json) => json && ({ endpoint: json.endpoint, toJSON: () => json,
  unsubscribe: () => { window.__unsubscribed = true; window.__subscription = null; return Promise.resolve(true); } });
window.__subscription = fake(window.__current);
PushManager.prototype.getSubscription = function () { return Promise.resolve(window.__subscription); };
PushManager.prototype.subscribe = function () { window.__subscription = fake(window.__next); return Promise.resolve(window.__subscription); };
"""


def page_with_subscriptions(browser, server, current: dict | None, next_: dict):
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 900})
    context.grant_permissions(["notifications"], origin=server.base_url)
    context.add_init_script(f"window.__current = {json.dumps(current)}; window.__next = {json.dumps(next_)};" + RESYNC_PUSH_MANAGER)
    page = context.new_page()
    sign_in(page, server)
    return context, page


def subscribe_from(page, subscription: dict) -> int:
    """Saves `subscription` for the page's own session, as the device switch does."""
    status, saved = page.evaluate("""(subscription) => fetch('/api/v1/push-subscriptions', {method: 'POST',
        headers: {'Content-Type': 'application/json', 'X-CSRF-Token': document.body.dataset.csrf},
        body: JSON.stringify(subscription)}).then(async r => [r.status, await r.json()])""", subscription)
    assert status == 201, saved
    return saved["id"]


def test_opening_varsel_registers_the_subscription_the_browser_holds_and_drops_the_one_it_replaced(browser, push_server, push_service):
    # The browser holds a subscription the server does not know (lost, or the push service replaced it).
    old, new = Device().subscription(push_service.endpoint("old")), Device().subscription(push_service.endpoint("new"))
    mentor = push_server.token("demo-mentor")

    def endpoints():
        return [device["endpoint"] for device in push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2]]
    context, page = page_with_subscriptions(browser, push_server, current=new, next_=new)
    try:
        # Signing in opened the notification centre, which registered it.
        assert wait_until(lambda: endpoints() == [new["endpoint"]]), endpoints()
        # An older record of this browser is dropped the next time Varsel opens.
        subscribe_from(page, old)
        assert endpoints() == [new["endpoint"], old["endpoint"]]
        page.goto(push_server.base_url + "/")
        assert wait_until(lambda: endpoints() == [new["endpoint"]]), endpoints()
    finally:
        context.close()


def test_opening_varsel_subscribes_again_when_the_server_found_the_device_revoked(browser, push_server, push_service):
    revoked, fresh = Device().subscription(push_service.endpoint("revoked")), Device().subscription(push_service.endpoint("fresh"))
    mentor = push_server.token("demo-mentor")

    def devices():
        return [(device["endpoint"], device["health"]) for device in push_server.request("GET", "/api/v1/push-subscriptions", mentor)[2]]
    context, page = page_with_subscriptions(browser, push_server, current=revoked, next_=fresh)
    try:
        assert wait_until(lambda: devices() == [(revoked["endpoint"], "waiting")]), devices()
        push_service.answer("revoked", (410, {}))
        assign(push_server, push_server.token("demo-coordinator"))
        assert wait_until(lambda: devices() == [(revoked["endpoint"], "revoked")]), devices()
        page.goto(push_server.base_url + "/")
        assert wait_until(lambda: devices() == [(fresh["endpoint"], "waiting")]), devices()
        assert page.evaluate("window.__unsubscribed") is True
    finally:
        context.close()
