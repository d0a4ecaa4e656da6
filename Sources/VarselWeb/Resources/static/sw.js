// Varsel's service worker: shows each push as the server decided it (a declarative push message: the core's
// lock-screen text, language, urgency, vibration and buttons), reports that it showed it, sets the app's badge,
// opens its screen when tapped, answers "Acknowledge" without opening Varsel, and keeps one offline page. It caches
// nothing else: no page with personal data is ever stored.
"use strict";

const OFFLINE_CACHE = "varsel-offline-v1";
const OFFLINE_URL = "/offline";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(OFFLINE_CACHE)
    .then((cache) => cache.addAll([OFFLINE_URL, "/static/varsel.css"]))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((key) => key !== OFFLINE_CACHE).map((key) => caches.delete(key))))
    .then(() => self.clients.claim()));
});

// Only a page load that fails for want of a network gets the offline page; everything else goes to the network.
self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate") return;
  event.respondWith(fetch(event.request).catch(() => caches.match(OFFLINE_URL)));
});

self.addEventListener("push", (event) => {
  let message = null;
  try {
    message = event.data ? event.data.json() : null;
  } catch (error) {
    message = null;
  }
  event.waitUntil(Promise.all([showMessage(message), setBadge(message)]));
});

// Shows a declarative push message (`web_push: 8030`) as Safari shows it by itself: the members are the
// Notifications API's own, so nothing is decided here. Opening it goes to `navigate`'s path on this worker's origin.
function showMessage(message) {
  const notification = message && message.web_push === 8030 ? message.notification : null;
  if (!notification || typeof notification.title !== "string" || typeof notification.navigate !== "string") {
    // A push must show something (userVisibleOnly); without a readable message, say only the app's name.
    return self.registration.showNotification("Varsel", { tag: "varsel-unreadable" });
  }
  const data = notification.data || {};
  const options = {
    body: notification.body,
    tag: notification.tag,
    lang: notification.lang,
    dir: notification.dir || "auto",
    requireInteraction: Boolean(notification.require_interaction),
    silent: Boolean(notification.silent),
    actions: (notification.actions || []).map((action) => ({ action: action.action, title: action.title })),
    icon: "/static/icon-192.png",
    data: { url: samePath(notification.navigate), acknowledge: data.acknowledge || null },
  };
  // A silent notification with a vibration pattern, even an empty one, is refused and never shown.
  if (!options.silent && Array.isArray(notification.vibrate) && notification.vibrate.length) options.vibrate = notification.vibrate;
  return self.registration.showNotification(notification.title, options).then(() => sendReceipt(data.receipt));
}

// Tells the server this device showed the push: the push's id and the token it carried for that, no content and
// no cookie, so a coordinator can see that the phone still shows notifications. A failed report is not retried.
function sendReceipt(receipt) {
  if (!receipt || typeof receipt.url !== "string") return Promise.resolve();
  return fetch(new URL(receipt.url, self.location.origin).href, {
    method: "POST",
    credentials: "omit",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ notificationID: receipt.notificationID, token: receipt.token }),
  }).catch(() => undefined);
}

// The installed app's badge: the unread count the push carried (`app_badge`), cleared at zero.
function setBadge(message) {
  const count = message && Number.isInteger(message.app_badge) ? message.app_badge : null;
  if (count === null || !("setAppBadge" in self.navigator)) return Promise.resolve();
  return (count > 0 ? self.navigator.setAppBadge(count) : self.navigator.clearAppBadge()).catch(() => undefined);
}

// `navigate`'s path and query, so a tap never leaves this worker's origin.
function samePath(url) {
  try {
    const parsed = new URL(url, self.location.origin);
    return parsed.pathname + parsed.search;
  } catch (error) {
    return "/notifications";
  }
}

// The push service replaced or ended this browser's subscription: subscribe again with the same server key, so
// pushes keep coming; the page tells the server about the new one the next time Varsel is opened (the worker has
// no session to do it with).
self.addEventListener("pushsubscriptionchange", (event) => {
  const options = event.oldSubscription && event.oldSubscription.options;
  if (!options || !options.applicationServerKey) return;
  event.waitUntil(self.registration.pushManager
    .subscribe({ userVisibleOnly: true, applicationServerKey: options.applicationServerKey })
    .catch(() => undefined));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(handleNotificationClick(event.notification, event.action));
});

// "Acknowledge" answers the assignment; the body or "Open" opens the notification's screen.
function handleNotificationClick(notification, action) {
  const data = notification.data || {};
  if (action === "acknowledge" && data.acknowledge) return acknowledge(notification, data.acknowledge);
  return openScreen(data.url || "/notifications");
}

// Posts the acknowledgement with the token the push carried (no cookie: the token is the credential), then
// replaces the notification with what came of it.
async function acknowledge(notification, details) {
  let succeeded = false;
  try {
    const response = await fetch(details.url, {
      method: "POST",
      credentials: "omit",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ assignmentID: details.assignmentID, token: details.token }),
    });
    succeeded = response.ok;
  } catch (error) {
    succeeded = false;
  }
  return self.registration.showNotification(succeeded ? details.confirmation : details.failure, {
    tag: notification.tag,
    lang: notification.lang,
    data: { url: (notification.data || {}).url, acknowledge: null, outcome: succeeded ? "acknowledged" : "failed" },
  });
}

// Opens `url` in a Varsel window already open, or a new one. The URL goes through the notification centre's own
// link, so the screen's heading takes focus as it does from the list.
async function openScreen(url) {
  const target = new URL(url, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  for (const client of windows) {
    if (new URL(client.url).origin !== self.location.origin || !("navigate" in client)) continue;
    try {
      // Brought forward at once, not after the page has loaded: a browser lets a notification's tap focus a window
      // only for a moment (Firefox, one second), and the screen's answer may take longer.
      const focusing = "focus" in client ? client.focus().catch(() => undefined) : Promise.resolve();
      const navigated = await client.navigate(target);
      await focusing;
      if (navigated) return navigated;
    } catch (error) {
      // Not controlled by this worker yet: open a new window instead.
    }
  }
  return self.clients.openWindow(target);
}
