// Varsel's page script: live updates, announcements and cues on top of pages that work without it.
// The server's stream decides (VarselCore's Announcer and CuePlan): what is said, when, how politely, which sound
// and vibration. This file plays what it is told, and keeps only what only the browser knows: which dialog is
// open, where focus is, whether the page is hidden.
(() => {
  "use strict";
  const body = document.body;
  if (!body || !body.dataset.csrf) return;
  const csrf = body.dataset.csrf;

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
    setTimeout(() => node.remove(), Number(document.body.dataset.announcementLingerMs));
  }
  // push.js says what came of the device switch through the same live regions.
  window.Varsel = Object.freeze({ speak });

  // Feedback for the user's own action waits, so the screen reader's echo of the control is not cut off.
  function announceFeedback(outcome) {
    setTimeout(() => speak(outcome.announcement.text, outcome.announcement.politeness), outcome.feedbackDelayMs);
  }

  // ---- Cues: heard and felt, as the server's cue says (seed 000) ------------------------------
  // Plays the earcon the cue describes: its tones, lengths and spacing are the core's (CuePlan.Earcon).
  // The page's audio runs only while earcons sound: each earcon wakes it and the last to end suspends it, so no
  // audio device is kept busy between arrivals. Waking at each earcon also means that once the person has pressed a
  // key or touched the page, earcons are heard, even if the audio was made before that, when browsers keep it
  // suspended.
  let audio = null;
  let sounding = 0;
  function audioContext() {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    return audio;
  }
  // Suspends the audio when no earcon is sounding.
  function rest() {
    if (sounding === 0) return audio.suspend().catch(() => undefined);
  }
  // iOS lets a page's audio start only from inside a tap, however much the person has used the page before: there the
  // first tap or click (VoiceOver's double-tap is a click) makes and wakes it, once, and it rests suspended until an
  // earcon sounds. Only there (iPadOS says it is a Mac with a touch screen): with a click listener on the window,
  // Chromium exposes every element as clickable, and Orca says "clickable" after each heading.
  const unlockEvents = ["click", "touchend"];
  function unlockAudio() {
    unlockEvents.forEach((type) => window.removeEventListener(type, unlockAudio, true));
    try {
      audioContext().resume().then(rest).catch(() => undefined);
    } catch (error) { /* no audio device */ }
  }
  const startsAudioOnlyFromATap = /iPhone|iPad|iPod/.test(navigator.userAgent)
    || (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1);
  if (startsAudioOnlyFromATap) {
    unlockEvents.forEach((type) => window.addEventListener(type, unlockAudio, { capture: true, passive: true }));
  }
  function earcon(cue) {
    if (!cue.tones || !cue.tones.length) return;
    try {
      // Also when it seems to run: a suspension asked for by the earcon before may not have taken effect yet.
      audioContext().resume().catch(() => undefined);
      let last = null;
      cue.tones.forEach((frequency, index) => {
        const oscillator = audio.createOscillator();
        const gain = audio.createGain();
        oscillator.frequency.value = frequency;
        gain.gain.value = 0.08;
        oscillator.connect(gain).connect(audio.destination);
        const start = audio.currentTime + (index * cue.spacingMs) / 1000;
        oscillator.start(start);
        oscillator.stop(start + cue.toneMs / 1000);
        last = oscillator;
      });
      sounding += 1;
      last.onended = () => {
        sounding -= 1;
        rest();
      };
    } catch (error) { /* no audio device */ }
  }

  function vibrate(pattern) {
    if (pattern && navigator.vibrate) navigator.vibrate(pattern);
  }

  // Shown only while the page is hidden: that, only the browser knows. The same title, body and tag a Web Push
  // shows (the core's lock-screen decision), so the two are one notification: shown through the service worker's
  // registration, since Chromium keeps a page's own notifications apart from a worker's whatever their tag, and
  // Chrome on Android refuses them. Without a worker, the page shows its own. Tapped, it opens the list.
  function systemNotification(notice) {
    if (!notice || !document.hidden) return;
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    const options = { body: notice.body, tag: notice.tag, lang: notice.lang };
    const fromPage = () => {
      try {
        new Notification(notice.title, options);
      } catch (error) { /* this browser shows notifications only from a service worker */ }
    };
    if (!("serviceWorker" in navigator)) return fromPage();
    navigator.serviceWorker.getRegistration()
      .then((registration) => (registration && registration.active
        ? registration.showNotification(notice.title, options) : fromPage()))
      .catch(fromPage);
  }

  // ---- The list --------------------------------------------------------------------------------
  const list = document.getElementById("notification-list");

  function matchesFilter(notification) {
    const filter = list ? list.dataset.filter : "all";
    if (filter === "all") return true;
    if (filter === "unread") return notification.isUnread;
    return notification.kind === filter;
  }

  // A live row is the page's own row partial (the <template> the server renders), filled in.
  const rowTemplate = document.getElementById("notification-row-template");
  function row(notification) {
    const item = rowTemplate.content.firstElementChild.cloneNode(true);
    item.id = "notification-" + notification.id;
    item.dataset.id = notification.id;
    item.querySelector(".notification-link").href = "/notifications/" + notification.id + "/open";
    const box = item.querySelector(".select input");
    box.value = notification.id;
    box.id = "select-" + notification.id;
    item.querySelector(".select label").htmlFor = box.id;
    update(item, notification);
    return item;
  }

  function update(item, notification) {
    const link = item.querySelector(".notification-link");
    link.setAttribute("aria-label", notification.accessibility.label);
    item.querySelector(".kind").textContent = notification.accessibility.kindName + ":";
    const urgency = item.querySelector(".urgency");
    if (urgency) {
      urgency.textContent = notification.accessibility.urgencyText || "";
      urgency.hidden = !notification.accessibility.urgencyText;
    }
    const label = item.querySelector(".select label");
    if (label) label.textContent = notification.accessibility.selectLabel;
    item.querySelector(".title").textContent = notification.title;
    item.querySelector(".body").textContent = notification.body;
    item.querySelector(".time").textContent = notification.accessibility.timeAgo;
    item.querySelector(".state").textContent = notification.accessibility.readState;
    item.classList.toggle("unread", notification.isUnread);
    item.classList.toggle("urgent", notification.urgency === "urgent");
  }

  function insert(notification) {
    // A later page of the list (data-cursor) holds older notifications: a new one belongs on the first page.
    if (!list || list.dataset.cursor || !rowTemplate || !matchesFilter(notification) || document.getElementById("notification-" + notification.id)) return;
    // Inserted at the top without touching focus: the user keeps their place.
    list.insertBefore(row(notification), list.firstChild);
    const empty = document.getElementById("empty-list");
    if (empty) empty.remove();
  }

  function refreshTimes() {
    if (!list) return;
    const filter = list.dataset.filter || "all";
    const cursor = list.dataset.cursor ? "&cursor=" + encodeURIComponent(list.dataset.cursor) : "";
    fetch("/api/v1/notifications?limit=100&filter=" + encodeURIComponent(filter) + cursor, { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((page) => {
        if (!page) return;
        page.items.forEach((notification) => {
          const item = document.getElementById("notification-" + notification.id);
          // The row in focus keeps its name until the next tick after focus leaves it: screen readers read a change
          // to the focused control's name aloud, and "6 minutes ago" is not worth interrupting the person for.
          if (item && !item.contains(document.activeElement)) update(item, notification);
        });
      })
      .catch(() => {});
  }
  setInterval(refreshTimes, Number(document.body.dataset.timesRefreshMs));

  // ---- The badge -----------------------------------------------------------------------------
  // The count is part of the tab's name, "Notifications, 3 unread", as the server renders it: screen readers read a
  // description after the role or (Orca in browse mode) not at all. The visible badge is hidden from them, so
  // reading the page does not say the count twice.
  function updateBadge(count) {
    const tab = document.getElementById("tab-notifications");
    if (!tab) return;
    let badge = document.getElementById("tab-notifications-badge");
    if (!count.badge.value) {
      if (badge) badge.remove();
      tab.removeAttribute("aria-label");
    } else {
      if (!badge) {
        badge = document.createElement("span");
        badge.className = "badge";
        badge.id = "tab-notifications-badge";
        tab.querySelector(".tab-icon").append(badge);
      }
      badge.textContent = String(count.count);
      tab.setAttribute("aria-label", count.badge.name);
    }
    const summary = document.getElementById("unread-summary");
    if (summary && count.summary) summary.textContent = count.summary;
    appBadge(count.count);
  }

  // The installed app's badge on the Home Screen follows the unread count as items are read or arrive.
  function appBadge(count) {
    if (!("setAppBadge" in navigator)) return;
    (count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge()).catch(() => {});
  }
  if (document.getElementById("tab-notifications")) {
    const shownBadge = document.getElementById("tab-notifications-badge");
    appBadge(shownBadge ? Number(shownBadge.textContent) || 0 : 0);
  }

  // ---- The tab bar: a tablist with one Tab stop; arrow keys move, Enter or Space follows (003) ----------
  // Without script every tab is an ordinary link in the Tab order, the current one marked aria-current="page".
  const tablist = document.querySelector(".tab-bar [role=tablist]");
  if (tablist) {
    const tabs = Array.from(tablist.querySelectorAll("[role=tab]"));
    const rove = (target) => tabs.forEach((tab) => tab.setAttribute("tabindex", tab === target ? "0" : "-1"));
    const selected = tabs.find((tab) => tab.dataset.selected === "true");
    rove(selected || tabs[0]);
    // Which tab is selected (the server's data-selected) becomes aria-selected once the page has loaded, not in the
    // markup. Chromium reports a selected tab that arrives with the page as a selection change of the tab bar, and
    // Orca 43 sometimes handles that before it learns that the new page has focus: it then moves to the tab, in
    // focus mode, and never says the page finished loading (after a form post, a person heard
    // "Notifications, 3 unread page tab." and nothing of the page; measured in the screen-reader suite). After the
    // load, Orca is on the new page and lets the change pass unspoken.
    const markSelected = () => tabs.forEach((tab) => tab.setAttribute("aria-selected", tab === selected ? "true" : "false"));
    if (document.readyState === "complete") markSelected();
    else window.addEventListener("load", markSelected, { once: true });
    tablist.addEventListener("keydown", (event) => {
      const index = tabs.indexOf(event.target);
      if (index < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
      const moves = {
        ArrowRight: index + 1, ArrowDown: index + 1, ArrowLeft: index - 1, ArrowUp: index - 1,
        Home: 0, End: tabs.length - 1,
      };
      if (event.key === " ") {
        event.preventDefault();
        event.target.click();
      } else if (event.key in moves) {
        event.preventDefault();
        const next = tabs[(moves[event.key] + tabs.length) % tabs.length];
        rove(next);
        next.focus();
      }
    });
  }

  // ---- The live stream -----------------------------------------------------------------------
  // The browser reconnects by itself after a dropped connection, but gives up for good on an answer that is not a
  // stream (a proxy's 502 while the server restarts). Then the page connects again from the last event it had,
  // waiting a second, then twice as long each time, at most a minute, so live news never stops without a reload.
  if (window.EventSource) {
    let lastEventId = body.dataset.lastEventId || "0";
    let retryMs = 1000;
    let stopped = false;
    const connect = () => {
      const stream = new EventSource("/api/v1/events?player=web&since=" + encodeURIComponent(lastEventId));
      const on = (type, handle) => stream.addEventListener(type, (event) => {
        if (event.lastEventId) lastEventId = event.lastEventId;
        handle(JSON.parse(event.data));
      });
      stream.addEventListener("open", () => { retryMs = 1000; });
      stream.addEventListener("error", () => {
        if (stopped || stream.readyState !== EventSource.CLOSED) return;
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 60000);
      });
      on("notification.created", (data) => insert(data.notification));
      on("announcement", (announcement) => speak(announcement.text, announcement.politeness));
      on("cue", (cue) => {
        earcon(cue);
        vibrate(cue.vibration);
        systemNotification(cue.systemNotification);
      });
      on("notification.updated", (data) => {
        const item = document.getElementById("notification-" + data.notification.id);
        if (item) update(item, data.notification);
      });
      on("notification.deleted", (data) => {
        const item = document.getElementById("notification-" + data.id);
        if (item && !item.contains(document.activeElement)) item.remove();
      });
      on("unread-count", updateBadge);
      // Signed out, or replaced by a newer stream: stop, rather than reconnect. Too old to resume: reload the list.
      on("reset", (data) => {
        if (data.reason === "signed-out" || data.reason === "account-deactivated" || data.reason === "too-many-streams") {
          stopped = true;
          stream.close();
        } else {
          refreshTimes();
        }
      });
      window.varselStream = stream;
    };
    connect();
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
        .then(announceFeedback)
        .catch(() => readAll.submit());
    });
  }

  const bulk = document.getElementById("bulk-form");
  if (bulk) {
    bulk.addEventListener("submit", (event) => {
      const action = event.submitter ? event.submitter.value : "read";
      const ids = Array.from(bulk.querySelectorAll("input[name='ids[]']:checked")).map((box) => Number(box.value));
      event.preventDefault();
      post("/api/v1/notifications/bulk", { action, ids })
        .then((outcome) => {
          bulk.querySelectorAll("input[name='ids[]']:checked").forEach((box) => { box.checked = false; });
          announceFeedback(outcome);
        })
        .catch(() => bulk.submit());
    });
  }

  // Settings save as they are toggled; the switch's new state is spoken by the screen reader itself.
  const settings = document.getElementById("settings-form");
  if (settings) {
    // The browser's permission prompt takes focus and is spoken, so it is asked for only from the click that
    // turns "System notifications" on: never from another switch, never on load.
    const systemSwitch = settings.querySelector('[data-setting="system-notifications"]');
    if (systemSwitch) {
      systemSwitch.addEventListener("click", () => {
        if (systemSwitch.checked && "Notification" in window && Notification.permission === "default") {
          Notification.requestPermission();
        }
      });
    }
    // Only the switches save at once; the quiet hours' times are saved with the form's button.
    settings.addEventListener("change", (event) => {
      if (!event.target.matches("[data-setting]")) return;
      const on = (name) => {
        const box = settings.querySelector('[data-setting="' + name + '"]');
        return Boolean(box && box.checked);
      };
      // The kinds are the page's own kind switches (`kind-<name>`), as the server rendered them.
      const kinds = Array.from(settings.querySelectorAll('[data-setting^="kind-"]'))
        .filter((box) => box.checked).map((box) => box.dataset.setting.slice("kind-".length));
      const kindsOf = (prefix) => Array.from(settings.querySelectorAll('[data-setting^="' + prefix + '"]'))
        .filter((box) => box.checked).map((box) => box.dataset.setting.slice(prefix.length));
      const next = {
        enabledKinds: kinds, sound: on("sound"), vibration: on("vibration"),
        systemNotifications: on("system-notifications"), speakPersonalDetails: on("speak-personal-details"),
        lockScreenDetails: on("lock-screen-details"),
      };
      // A channel this Varsel does not send through has no switches on the page: its choices are left as they are.
      if (settings.querySelector('[data-setting^="sms-"]')) next.textMessageKinds = kindsOf("sms-");
      if (settings.querySelector('[data-setting^="email-"]')) next.emailKinds = kindsOf("email-");
      // The summary's switches, and a coordinator's daily email where the page offers it; its time is saved with
      // the form's button.
      if (settings.querySelector('[data-setting^="summary-"]')) next.summaryKinds = kindsOf("summary-");
      if (settings.querySelector('[data-setting="assignment-digest"]')) next.assignmentDigest = on("assignment-digest");
      fetch("/api/v1/preferences", {
        method: "PUT", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(next),
      });
    });
  }

  // ---- The dialog (seed 001) ------------------------------------------------------------------
  // Focus goes to the dialog itself (tabindex=-1), not to its first button: a screen reader then says the dialog's
  // name and reads its text. Measured with Orca 43 + Chromium: with focus on the first button, Orca said nothing at
  // all (the launcher's accessible object dies when the page turns inert, and Orca then moves its focus silently);
  // with focus on the dialog it speaks the title and the text every time. The dialog carries no aria-describedby:
  // its text is read as its content, and a description would be read a second time.
  function openModal(dialog) {
    if (dialog.open) dialog.close();
    dialog.showModal();
    dialog.focus();
  }

  // Closing moves focus to the dialog itself first, then back to the launcher. Measured the same way: closed from
  // a focused button, Orca said nothing about the launcher (0 of 5; the button's object dies with the dialog);
  // closed from the dialog, it said "Acknowledge assignment push button" every time.
  function closeModal(dialog) {
    if (!dialog.open) return;
    const launcher = dialog.launcher && document.contains(dialog.launcher) ? dialog.launcher : null;
    if (!launcher || !dialog.matches(":modal")) {
      dialog.close();
      return;
    }
    // The page stops being inert, the dialog stays on screen a moment longer, focus returns while the dialog's
    // objects still live; then the dialog goes.
    dialog.close();
    dialog.show();
    launcher.focus();
    setTimeout(() => dialog.close(), 150);
  }
  document.querySelectorAll("[data-opens-dialog]").forEach((launcher) => {
    launcher.addEventListener("click", (event) => {
      const dialog = document.getElementById(launcher.dataset.opensDialog);
      if (!dialog || !dialog.showModal) return;
      event.preventDefault();
      // Remember the launcher from the event: Safari does not focus buttons on click.
      dialog.launcher = event.currentTarget;
      openModal(dialog);
    });
  });
  const focusable = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select, textarea, [tabindex]:not([tabindex='-1'])";
  document.querySelectorAll("dialog").forEach((dialog) => {
    // Tab and Shift+Tab wrap inside the open modal (seed 001: focus is confined within the dialog).
    // WebKitGTK names Shift+Tab's key (ISO_Left_Tab) "Unidentified"; its key code is still the Tab key's.
    dialog.addEventListener("keydown", (event) => {
      if ((event.key !== "Tab" && event.keyCode !== 9) || !dialog.matches(":modal")) return;
      const items = Array.from(dialog.querySelectorAll(focusable));
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (event.shiftKey && (document.activeElement === first || document.activeElement === dialog)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    });
    // Escape and Cancel close through closeModal, so the return to the launcher is spoken.
    dialog.addEventListener("cancel", (event) => {
      if (dialog.getAttribute("role") === "alertdialog") return;
      event.preventDefault();
      closeModal(dialog);
    });
    dialog.querySelectorAll("[data-closes-dialog]").forEach((button) => {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        closeModal(dialog);
      });
    });
    dialog.addEventListener("close", () => {
      const launcher = dialog.launcher && document.contains(dialog.launcher)
        ? dialog.launcher
        : document.querySelector("main h1");
      const active = document.activeElement;
      if (!launcher || !(!active || active === document.body || active === launcher || dialog.contains(active))) return;
      launcher.focus();
    });
    if (dialog.hasAttribute("data-inline")) {
      // Opened by the no-script link: show it as a real modal now that script runs.
      dialog.launcher = document.querySelector('[data-opens-dialog="' + dialog.id + '"]');
      openModal(dialog);
    }
  });

  // ---- Focus on load -----------------------------------------------------------------------------
  // The confirmation of the last form post (#flash) is not announced from here: the page reads it (header.mustache).
  window.addEventListener("load", () => {
    const target = document.querySelector("[data-focus-on-load]");
    if (target) requestAnimationFrame(() => target.focus());
  });
})();
