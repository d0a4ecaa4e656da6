// Varsel's page script: live updates, announcements and cues on top of pages that work without it.
// Every phrase comes from the server (and so from VarselCore); this file only times and places them.
(() => {
  "use strict";
  const body = document.body;
  if (!body || !body.dataset.csrf) return;
  const csrf = body.dataset.csrf;
  const config = {
    windowMs: Number(body.dataset.coalescingWindowMs || 1000),
    delayMs: Number(body.dataset.userActionDelayMs || 1000),
    burstTemplate: body.dataset.burstTemplate || "{count} new notifications",
  };
  let preferences = null;
  fetch("/api/v1/preferences", { credentials: "same-origin" })
    .then((r) => (r.ok ? r.json() : null))
    .then((p) => { preferences = p; })
    .catch(() => {});

  // ---- Announcements -------------------------------------------------------------------------
  // The region is chosen when the sentence is spoken: inside an open modal dialog if there is one,
  // because VoiceOver ignores live regions outside it.
  function region(politeness) {
    const dialog = document.querySelector("dialog[open]");
    if (dialog && dialog.matches(":modal")) {
      const inside = dialog.querySelector("[aria-live]");
      if (inside) return inside;
    }
    return document.getElementById(politeness === "assertive" ? "live-assertive" : "live-polite");
  }

  // Each message is a new node, so an identical repeat is read again; it is removed after 7 s.
  function speak(text, politeness) {
    const target = region(politeness);
    if (!target || !text) return;
    const node = document.createElement("p");
    node.textContent = text;
    target.appendChild(node);
    setTimeout(() => node.remove(), 7000);
  }

  const announced = new Set();
  let burst = [];
  let burstTimer = null;

  function isKindEnabled(kind) {
    return !preferences || preferences.enabledKinds.includes(kind);
  }

  // Arrivals within the window become one sentence; urgent ones are said at once, assertively.
  function announceArrival(notification) {
    if (announced.has(notification.id) || !isKindEnabled(notification.kind)) return;
    announced.add(notification.id);
    const announcement = notification.accessibility.announcement;
    if (announcement.politeness === "assertive") {
      speak(announcement.text, "assertive");
      return;
    }
    burst.push(announcement.text);
    if (burstTimer) return;
    burstTimer = setTimeout(() => {
      const text = burst.length === 1 ? burst[0] : config.burstTemplate.replace("{count}", String(burst.length));
      burst = [];
      burstTimer = null;
      speak(text, "polite");
    }, config.windowMs);
  }

  // Feedback for the user's own action waits, so the screen reader's echo of the control is not cut off.
  function announceFeedback(text) {
    setTimeout(() => speak(text, "polite"), config.delayMs);
  }

  // ---- Cues: heard and felt, as the mentor allows (seed 000) ---------------------------------
  let audio = null;
  function earcon(urgent) {
    if (!preferences || !preferences.sound) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const tones = urgent ? [880, 660, 880] : [660];
      tones.forEach((frequency, index) => {
        const oscillator = audio.createOscillator();
        const gain = audio.createGain();
        oscillator.frequency.value = frequency;
        gain.gain.value = 0.08;
        oscillator.connect(gain).connect(audio.destination);
        const start = audio.currentTime + index * 0.15;
        oscillator.start(start);
        oscillator.stop(start + 0.12);
      });
    } catch (error) { /* no audio device */ }
  }

  function vibrate(urgent) {
    if (!preferences || !preferences.vibration || !navigator.vibrate) return;
    navigator.vibrate(urgent ? [200, 100, 200, 100, 200] : [120]);
  }

  function systemNotification(notification) {
    if (!preferences || !preferences.systemNotifications || !document.hidden) return;
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    // The announcement text already leaves out personal details unless the mentor allowed them.
    new Notification("Varsel", { body: notification.accessibility.announcement.text, tag: "varsel-" + notification.id });
  }

  // ---- The list --------------------------------------------------------------------------------
  const list = document.getElementById("notification-list");

  function matchesFilter(notification) {
    const filter = list ? list.dataset.filter : "all";
    if (filter === "all") return true;
    if (filter === "unread") return notification.isUnread;
    return notification.kind === filter;
  }

  function row(notification) {
    const item = document.createElement("li");
    item.id = "notification-" + notification.id;
    item.dataset.id = notification.id;
    const link = document.createElement("a");
    link.className = "notification-link";
    link.href = "/notifications/" + notification.id + "/open";
    const kind = document.createElement("span");
    kind.className = "kind";
    const title = document.createElement("strong");
    title.className = "title";
    const text = document.createElement("span");
    text.className = "body";
    const meta = document.createElement("span");
    meta.className = "meta";
    const time = document.createElement("span");
    time.className = "time";
    const state = document.createElement("span");
    state.className = "state";
    meta.append(time, " · ", state);
    link.append(kind, " ", title, " ", text, " ", meta);
    const select = document.createElement("span");
    select.className = "select";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = "ids";
    box.value = notification.id;
    box.id = "select-" + notification.id;
    const label = document.createElement("label");
    label.htmlFor = box.id;
    label.textContent = (list.dataset.selectLabel || "{title}").replace("{title}", notification.title);
    select.append(box, " ", label);
    item.append(link, select);
    update(item, notification);
    return item;
  }

  function update(item, notification) {
    const link = item.querySelector(".notification-link");
    link.setAttribute("aria-label", notification.accessibility.label);
    item.querySelector(".kind").textContent = notification.accessibility.kindName + ":";
    item.querySelector(".title").textContent = notification.title;
    item.querySelector(".body").textContent = notification.body;
    item.querySelector(".time").textContent = notification.accessibility.timeAgo;
    item.querySelector(".state").textContent = notification.accessibility.readState;
    item.classList.toggle("unread", notification.isUnread);
    item.classList.toggle("urgent", notification.urgency === "urgent");
  }

  function insert(notification) {
    if (!list || !matchesFilter(notification) || document.getElementById("notification-" + notification.id)) return;
    // Inserted at the top without touching focus: the user keeps their place.
    list.insertBefore(row(notification), list.firstChild);
    const empty = document.getElementById("empty-list");
    if (empty) empty.remove();
  }

  function refreshTimes() {
    if (!list) return;
    const filter = list.dataset.filter || "all";
    fetch("/api/v1/notifications?limit=100&filter=" + encodeURIComponent(filter), { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((page) => {
        if (!page) return;
        page.items.forEach((notification) => {
          const item = document.getElementById("notification-" + notification.id);
          if (item) update(item, notification);
        });
      })
      .catch(() => {});
  }
  setInterval(refreshTimes, 60000);

  // ---- The badge -----------------------------------------------------------------------------
  function updateBadge(count) {
    const tab = document.getElementById("tab-notifications");
    if (!tab) return;
    let badge = document.getElementById("tab-notifications-badge");
    if (!count.badge.value) {
      if (badge) badge.remove();
      tab.removeAttribute("aria-describedby");
      tab.removeAttribute("aria-label");
    } else {
      if (!badge) {
        badge = document.createElement("span");
        badge.className = "badge";
        badge.id = "tab-notifications-badge";
        tab.append(" ", badge);
      }
      badge.textContent = count.badge.value;
      tab.setAttribute("aria-label", count.badge.label);
      tab.setAttribute("aria-describedby", badge.id);
    }
    const summary = document.getElementById("unread-summary");
    if (summary && count.summary) summary.textContent = count.summary;
  }

  // ---- The live stream -----------------------------------------------------------------------
  if (window.EventSource) {
    const stream = new EventSource("/api/v1/events?since=" + encodeURIComponent(body.dataset.lastEventId || "0"));
    stream.addEventListener("notification.created", (event) => {
      const notification = JSON.parse(event.data).notification;
      insert(notification);
      if (isKindEnabled(notification.kind)) {
        announceArrival(notification);
        earcon(notification.urgency === "urgent");
        vibrate(notification.urgency === "urgent");
        systemNotification(notification);
      }
    });
    stream.addEventListener("notification.updated", (event) => {
      const notification = JSON.parse(event.data).notification;
      const item = document.getElementById("notification-" + notification.id);
      if (item) update(item, notification);
    });
    stream.addEventListener("notification.deleted", (event) => {
      const item = document.getElementById("notification-" + JSON.parse(event.data).id);
      if (item && !item.contains(document.activeElement)) item.remove();
    });
    stream.addEventListener("unread-count", (event) => updateBadge(JSON.parse(event.data)));
    stream.addEventListener("reset", refreshTimes);
    window.varselStream = stream;
  }

  // ---- Actions through the API, announced after a second --------------------------------------
  function post(path, payload) {
    return fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: payload ? JSON.stringify(payload) : undefined,
    }).then((r) => {
      if (!r.ok) throw new Error("request failed");
      return r.json();
    });
  }

  const readAll = document.getElementById("read-all-form");
  if (readAll) {
    readAll.addEventListener("submit", (event) => {
      event.preventDefault();
      post("/api/v1/notifications/read-all")
        .then((outcome) => announceFeedback(outcome.announcement.text))
        .catch(() => readAll.submit());
    });
  }

  const bulk = document.getElementById("bulk-form");
  if (bulk) {
    bulk.addEventListener("submit", (event) => {
      const action = event.submitter ? event.submitter.value : "read";
      const ids = Array.from(bulk.querySelectorAll("input[name=ids]:checked")).map((box) => Number(box.value));
      event.preventDefault();
      post("/api/v1/notifications/bulk", { action, ids })
        .then((outcome) => {
          bulk.querySelectorAll("input[name=ids]:checked").forEach((box) => { box.checked = false; });
          announceFeedback(outcome.announcement.text);
        })
        .catch(() => bulk.submit());
    });
  }

  // Settings save as they are toggled; the switch's new state is spoken by the screen reader itself.
  const settings = document.getElementById("settings-form");
  if (settings) {
    settings.addEventListener("change", () => {
      const on = (name) => {
        const box = settings.querySelector('[data-setting="' + name + '"]');
        return Boolean(box && box.checked);
      };
      const kinds = ["assignment", "certificationExpiry", "pauseConfirmation", "scenarioPrompt"].filter((k) => on("kind-" + k));
      const next = {
        enabledKinds: kinds, sound: on("sound"), vibration: on("vibration"),
        systemNotifications: on("system-notifications"), speakPersonalDetails: on("speak-personal-details"),
      };
      fetch("/api/v1/preferences", {
        method: "PUT", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(next),
      }).then((r) => {
        if (r.ok) preferences = next;
        if (next.systemNotifications && "Notification" in window && Notification.permission === "default") {
          Notification.requestPermission();
        }
      });
    });
  }

  // ---- The dialog (seed 001) ------------------------------------------------------------------
  document.querySelectorAll("[data-opens-dialog]").forEach((launcher) => {
    launcher.addEventListener("click", (event) => {
      const dialog = document.getElementById(launcher.dataset.opensDialog);
      if (!dialog || !dialog.showModal) return;
      event.preventDefault();
      // Remember the launcher from the event: Safari does not focus buttons on click.
      dialog.launcher = event.currentTarget;
      if (dialog.open) dialog.close();
      dialog.showModal();
    });
  });
  const focusable = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select, textarea, [tabindex]:not([tabindex='-1'])";
  document.querySelectorAll("dialog").forEach((dialog) => {
    // Tab and Shift+Tab wrap inside the open modal (seed 001: focus is confined within the dialog).
    dialog.addEventListener("keydown", (event) => {
      if (event.key !== "Tab" || !dialog.matches(":modal")) return;
      const items = Array.from(dialog.querySelectorAll(focusable));
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    });
    dialog.addEventListener("close", () => {
      const launcher = dialog.launcher && document.contains(dialog.launcher)
        ? dialog.launcher
        : document.querySelector("main h1");
      const active = document.activeElement;
      if (launcher && (!active || active === document.body || dialog.contains(active))) launcher.focus();
    });
    if (dialog.hasAttribute("data-inline")) {
      // Opened by the no-script link: show it as a real modal now that script runs.
      dialog.close();
      dialog.launcher = document.querySelector('[data-opens-dialog="' + dialog.id + '"]');
      dialog.showModal();
    }
  });

  // ---- Focus and pending messages on load ------------------------------------------------------
  window.addEventListener("load", () => {
    const heading = document.querySelector("[data-focus-on-load]");
    if (heading) requestAnimationFrame(() => heading.focus());
    const flash = document.getElementById("flash");
    if (flash) setTimeout(() => speak(flash.textContent, "polite"), 500);
  });
})();
