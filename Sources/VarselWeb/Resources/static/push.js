// Varsel as an installed app: registers the service worker on every page, keeps this device's push subscription
// the one the server holds, and on the settings page runs the "Notifications on this device" switch: it asks the
// browser's permission only from that switch, subscribes this device, and says what came of it. Every sentence
// comes from the page (the core's words).
(() => {
  "use strict";
  if (!("serviceWorker" in navigator)) return;
  const register = () => navigator.serviceWorker.register("/sw.js", { scope: "/" });
  register().catch(() => undefined);

  // The active service worker, registering it again if it could not install (the network failed while it fetched
  // the offline page); after ten seconds without one, an error, so the switch never waits in silence.
  function activeWorker() {
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error("no active service worker")), 10000));
    const ready = register().then(() => navigator.serviceWorker.ready);
    return Promise.race([ready, late]);
  }

  const csrf = document.body && document.body.dataset.csrf;
  const isSupported = "PushManager" in window && "Notification" in window;

  // The VAPID public key as PushManager takes it (base64url in the page or from the API).
  function applicationServerKey(publicKey) {
    const base64 = publicKey.replace(/-/g, "+").replace(/_/g, "/");
    const raw = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
    return Uint8Array.from(raw, (character) => character.charCodeAt(0));
  }

  async function send(method, path, body) {
    const response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error("HTTP " + response.status);
    return response.status === 204 ? null : response.json();
  }

  // Re-sync on every open: a phone can lose or replace its subscription without the server hearing of it (iOS
  // revokes one after pushes it did not show; the service worker re-subscribes on pushsubscriptionchange but has no
  // session to tell the server). When this browser's subscription is not the one the server holds, or the server's
  // is revoked or no longer confirmed, it is registered again. A browser that never turned notifications on here
  // is left alone.
  async function resync() {
    if (!csrf || !isSupported || Notification.permission !== "granted") return;
    const registration = await navigator.serviceWorker.ready;
    let subscription = await registration.pushManager.getSubscription();
    const mine = await send("GET", "/api/v1/push-subscriptions");
    const saved = subscription ? mine.find((device) => device.endpoint === subscription.endpoint) : null;
    if (!subscription && !mine.some((device) => device.isThisSession)) return;
    if (saved && saved.health !== "revoked" && saved.health !== "notConfirmed") {
      // In step; an older record of this browser (one session is one browser) goes.
      for (const device of mine) {
        if (device.isThisSession && device.id !== saved.id) await send("DELETE", "/api/v1/push-subscriptions/" + device.id);
      }
      return;
    }
    if (subscription && saved) {
      // Revoked or stale at the push service: a fresh subscription wakes the device up.
      await subscription.unsubscribe();
      subscription = null;
    }
    if (!subscription) {
      const key = await send("GET", "/api/v1/push/public-key");
      subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: applicationServerKey(key.publicKey) });
    }
    const registered = await send("POST", "/api/v1/push-subscriptions", subscription.toJSON());
    // The server's earlier record of this browser goes once the new one is saved.
    for (const device of mine) {
      if (device.id !== registered.id && (device.isThisSession || (saved && device.id === saved.id))) {
        await send("DELETE", "/api/v1/push-subscriptions/" + device.id);
      }
    }
  }
  resync().catch(() => undefined);

  const section = document.getElementById("this-device");
  const toggle = document.getElementById("setting-device-notifications");
  if (!section || !toggle) return;
  const texts = section.dataset;
  section.hidden = false;

  function say(text) {
    if (window.Varsel) window.Varsel.speak(text, "polite");
  }

  async function turnOn() {
    if (!isSupported) {
      toggle.checked = false;
      say(texts.unsupported);
      return;
    }
    // Asked here, in the switch's own click, and nowhere else.
    const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    if (permission !== "granted") {
      toggle.checked = false;
      say(texts.blocked);
      return;
    }
    try {
      const registration = await activeWorker();
      const subscription = (await registration.pushManager.getSubscription())
        || (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: applicationServerKey(texts.publicKey) }));
      await send("POST", "/api/v1/push-subscriptions", subscription.toJSON());
      say(texts.on);
    } catch (error) {
      toggle.checked = false;
      say(texts.failed);
    }
  }

  async function turnOff() {
    try {
      const registration = await activeWorker();
      const subscription = await registration.pushManager.getSubscription();
      const mine = await send("GET", "/api/v1/push-subscriptions");
      for (const saved of mine) {
        if (subscription ? saved.endpoint === subscription.endpoint : saved.isThisSession) {
          await send("DELETE", "/api/v1/push-subscriptions/" + saved.id);
        }
      }
      if (subscription) await subscription.unsubscribe();
    } catch (error) {
      // Off on this device is what matters; the server drops a subscription the push service reports gone.
    }
    say(texts.off);
  }

  toggle.addEventListener("change", () => {
    if (toggle.checked) turnOn();
    else turnOff();
  });

  // The switch shows whether this browser is subscribed now.
  if (isSupported && Notification.permission === "granted") {
    navigator.serviceWorker.ready
      .then((registration) => registration.pushManager.getSubscription())
      .then((subscription) => { toggle.checked = Boolean(subscription); })
      .catch(() => undefined);
  }
})();
