"""Seed 000: every notification is visible and audible, and felt where the device can — per preferences."""
from conftest import sign_in
from varsel_server import wait_until

# Records earcons (Web Audio oscillators started), vibrations and system notifications instead of playing them.
RECORDER = """
window.__cues = { tones: [], vibrations: [], notices: [] };
const RealContext = window.AudioContext;
window.AudioContext = class extends RealContext {
  createOscillator() {
    const oscillator = super.createOscillator();
    const start = oscillator.start.bind(oscillator);
    oscillator.start = (when) => { window.__cues.tones.push(oscillator.frequency.value); start(when); };
    return oscillator;
  }
};
navigator.vibrate = (pattern) => { window.__cues.vibrations.push(pattern); return true; };
window.Notification = class { constructor(title, options) { window.__cues.notices.push([title, options.body, options.tag]); } };
window.Notification.permission = "granted";
"""


def cues(page):
    return page.evaluate("window.__cues")


def open_centre(browser, server, hidden=False):
    context = browser.new_context(bypass_csp=True)
    if hidden:
        context.grant_permissions(["notifications"], origin=server.base_url)
    context.add_init_script(RECORDER)
    if hidden:
        context.add_init_script("Object.defineProperty(document, 'hidden', { get: () => true });")
    page = context.new_page()
    sign_in(page, server)
    # No wait: the server's stream knows the preferences, and replays from the page's resume point anything sent
    # before the script connects.
    return context, page


def test_an_arrival_is_seen_heard_and_felt(browser, server):
    context, page = open_centre(browser, server)
    server.create(server.token("demo-coordinator"), "Audible", ["demo-mentor"])
    # The core's standard earcon (CuePlan.Earcon.standard: one 660 Hz tone) and vibration, as the stream's cue says.
    assert wait_until(lambda: cues(page)["tones"] == [660] and cues(page)["vibrations"] == [[120]])
    assert page.locator("#notification-list li").first.locator(".title").inner_text() == "Audible"
    assert cues(page)["notices"] == [], "no system notification while the page is visible"
    context.close()


def test_urgent_arrivals_sound_and_vibrate_differently(browser, server):
    context, page = open_centre(browser, server)
    status, _, _ = server.request("POST", "/api/v1/notifications", server.token("demo-coordinator"), {
        "recipients": ["demo-mentor"], "kind": "certificationExpiry", "title": "Expires today", "body": "", "urgency": "urgent"})
    assert status == 201
    assert wait_until(lambda: cues(page)["tones"] == [880, 660, 880])  # the core's urgent earcon
    assert cues(page)["vibrations"] == [[200, 100, 200, 100, 200]]
    context.close()


def test_with_sound_and_vibration_off_it_is_still_shown_and_announced(browser, server):
    mentor = server.token("demo-mentor")
    _, _, prefs = server.request("GET", "/api/v1/preferences", mentor)
    prefs.update(sound=False, vibration=False)
    assert server.request("PUT", "/api/v1/preferences", mentor, prefs)[0] == 200
    context, page = open_centre(browser, server)
    server.create(server.token("demo-coordinator"), "Quiet", ["demo-mentor"])
    assert wait_until(lambda: "New notification: Quiet" in page.locator("#live-polite").inner_text())
    assert cues(page)["tones"] == [] and cues(page)["vibrations"] == []
    assert page.locator("#notification-list li").first.locator(".title").inner_text() == "Quiet"
    context.close()


def test_a_hidden_page_shows_a_system_notification_without_personal_details(browser, server):
    context, page = open_centre(browser, server, hidden=True)
    # Once Varsel's service worker is active, the page shows its notifications through it.
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    status, _, created = server.request("POST", "/api/v1/notifications", server.token("demo-coordinator"), {
        "recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "Call a new contact", "body": "Per Olsen, at Storgata 1",
        "personalDetails": ["Per Olsen", "Storgata 1"]})
    assert status == 201
    # The same words and tag a Web Push shows (the core's lock-screen text, Strings+Push.swift), so never both.
    tag = f"varsel-notification-{created['items'][0]['id']}"
    shown = """navigator.serviceWorker.ready.then(r => r.getNotifications())
        .then(list => list.map(n => [n.title, n.body, n.tag]))"""
    assert wait_until(lambda: page.evaluate(shown) == [["Scenario prompt: Call a new contact", "Open Varsel to read it.", tag]])
    assert cues(page)["notices"] == [], "the page did not show one of its own as well"
    context.close()
