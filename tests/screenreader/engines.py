"""Firefox ESR and WebKitGTK (MiniBrowser) on the screen-reader desktop, driven only by the keyboard.

No WebDriver: a person's keys go in through X (Ctrl+L, the address, Return), Orca reads the page, and what the engine
itself reports (the focused object, a finished load, a live region's text) comes from `atspi_probe.py` listening on
the same AT-SPI bus. The Chromium suite keeps Playwright for reading page state; these engines are read the way an
assistive technology reads them.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from desktop import Desktop, DesktopError

HERE = Path(__file__).parent
MINIBROWSER = Path("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")

# A fresh Firefox profile that opens straight onto the page: no first-run or welcome pages, no default-browser
# question, no telemetry, no session restore, no password-saving prompt (it would take the keyboard after sign-in),
# nothing fetched from the network.
FIREFOX_USER_JS = """\
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("startup.homepage_welcome_url", "");
user_pref("startup.homepage_welcome_url.additional", "");
user_pref("browser.startup.page", 0);
user_pref("browser.sessionstore.resume_from_crash", false);
user_pref("toolkit.startup.max_resumed_crashes", -1);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("app.update.enabled", false);
user_pref("app.normandy.enabled", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.translations.enable", false);
user_pref("browser.uitour.enabled", false);
user_pref("browser.discovery.enabled", false);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("signon.rememberSignons", false);
user_pref("signon.autofillForms", false);
user_pref("browser.formfill.enable", false);
user_pref("browser.tabs.warnOnClose", false);
user_pref("dom.disable_beforeunload", true);
user_pref("browser.urlbar.suggest.searches", false);
user_pref("browser.urlbar.suggest.topsites", false);
user_pref("browser.urlbar.autoFill", false);
user_pref("accessibility.force_disabled", 0);
user_pref("intl.accept_languages", "en-US, en");
"""


@dataclass
class Probe:
    """`atspi_probe.py` running on the desktop's accessibility bus; its JSON lines are read from a file."""

    desktop: Desktop
    path: Path
    _records: list = field(default_factory=list)
    _read: int = 0

    def start(self) -> "Probe":
        self.path.write_text("")
        self.desktop._spawn(["/usr/bin/python3", str(HERE / "atspi_probe.py"), str(self.path)], "atspi-probe")
        self.wait_for(lambda r: r["event"] == "ready", 30, "the AT-SPI probe did not start")
        return self

    def records(self) -> list[dict]:
        with open(self.path) as handle:
            handle.seek(self._read)
            chunk = handle.read()
        complete, _, rest = chunk.rpartition("\n")
        if complete:
            self._read += len((complete + "\n").encode())
            self._records += [json.loads(line) for line in complete.splitlines() if line.strip()]
        return self._records

    def mark(self) -> int:
        return len(self.records())

    def since(self, mark: int, event: str | None = None) -> list[dict]:
        return [r for r in self.records()[mark:] if event is None or r["event"] == event]

    def wait_for(self, predicate, timeout: float, message: str, since: int = 0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for record in self.records()[since:]:
                if predicate(record):
                    return record
            if time.monotonic() > deadline:
                raise DesktopError(f"{message}; the engine reported: {self.records()[since:][-10:]}")
            time.sleep(0.05)

    def focused(self) -> dict:
        """The object the engine last reported as focused in a page."""
        focus = [r for r in self.records() if r["event"] == "focus"]
        return focus[-1] if focus else {}


@dataclass
class Engine:
    """One browser engine: how it starts, what its window is called, and how a page is brought into focus."""

    name: str
    window_class: str

    def start(self, desktop: Desktop, workdir: Path) -> None:
        raise NotImplementedError

    def after_load(self, desktop: Desktop, probe: Probe) -> None:
        """Puts keyboard focus in the page once it has loaded (where a person's next Tab starts)."""


class Firefox(Engine):
    def __init__(self) -> None:
        super().__init__("firefox", "firefox-esr")

    def start(self, desktop: Desktop, workdir: Path) -> None:
        profile = workdir / "firefox-profile"
        profile.mkdir()
        (profile / "user.js").write_text(FIREFOX_USER_JS)
        binary = shutil.which("firefox-esr") or shutil.which("firefox")
        if not binary:
            raise DesktopError("firefox-esr is not installed (apt-get install firefox-esr)")
        desktop.env.update({"GNOME_ACCESSIBILITY": "1", "MOZ_ENABLE_WAYLAND": "0", "MOZ_CRASHREPORTER_DISABLE": "1"})
        desktop._spawn([binary, "--no-remote", "--profile", str(profile), "--width", "1280", "--height", "1000",
                        "about:blank"], "firefox")


class WebKit(Engine):
    def __init__(self) -> None:
        super().__init__("webkit", "MiniBrowser")

    def start(self, desktop: Desktop, workdir: Path) -> None:
        if not MINIBROWSER.exists():
            raise DesktopError("WebKitGTK's MiniBrowser is not installed (apt-get install libwebkit2gtk-4.1-0)")
        desktop.env.update({"WEBKIT_DISABLE_COMPOSITING_MODE": "1"})
        if os.geteuid() == 0:
            # WebKit's bubblewrap sandbox cannot set up its namespaces for root in a container.
            desktop.env["WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS"] = "1"
        desktop._spawn([str(MINIBROWSER), "about:blank"], "webkit")

    def after_load(self, desktop: Desktop, probe: Probe) -> None:
        # MiniBrowser keeps focus in its address bar after a load; a click on the page (its top-left corner, where
        # no control is) moves it into the document, as a person's click would. On a busy machine a click can come
        # before the window takes it, so the click is repeated until the engine reports focus outside the browser's
        # own controls (GTK's address bar and toolbar).
        window = desktop.window_geometry(self.window_class)
        for _ in range(3):
            subprocess.run(["xdotool", "mousemove", str(window[0] + 8), str(window[1] + 130), "click", "1"],
                           env=desktop.env, check=True, timeout=10)
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                if not in_browser_chrome(probe.focused()):
                    return
                time.sleep(0.05)
        raise DesktopError(f"three clicks on the page and focus stayed in MiniBrowser's controls: {probe.focused()}")


def in_browser_chrome(focus: dict) -> bool:
    """Whether a probe's focus record is one of the browser's own GTK controls rather than the page."""
    return focus.get("attributes", {}).get("toolkit") == "gtk"


ENGINES = {"firefox": Firefox, "webkit": WebKit}
