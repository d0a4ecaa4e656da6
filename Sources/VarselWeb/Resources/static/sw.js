// Varsel's service worker: shows each push as the server decided it (the core's lock-screen text, language,
// urgency, vibration and buttons), opens its screen when tapped, answers "Acknowledge" without opening Varsel,
// and keeps one offline page. It caches nothing else: no page with personal data is ever stored.
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
  event.waitUntil(showMessage(message));
});

// Shows a push message; the fields are the Notifications API's own, so nothing is decided here.
function showMessage(message) {
  if (!message || typeof message.title !== "string") {
    // A push must show something (userVisibleOnly); without a readable message, say only the app's name.
    return self.registration.showNotification("Varsel", { tag: "varsel-unreadable" });
  }
  return self.registration.showNotification(message.title, {
    body: message.body,
    tag: message.tag,
    lang: message.lang,
    requireInteraction: Boolean(message.requireInteraction),
    vibrate: message.vibrate || [],
    silent: Boolean(message.silent),
    actions: message.actions || [],
    icon: "/static/icon-192.png",
    data: { url: message.url, acknowledge: message.acknowledge || null },
  });
}

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
      const navigated = await client.navigate(target);
      if (navigated) {
        if ("focus" in navigated) await navigated.focus().catch(() => undefined);
        return navigated;
      }
    } catch (error) {
      // Not controlled by this worker yet: open a new window instead.
    }
  }
  return self.clients.openWindow(target);
}
