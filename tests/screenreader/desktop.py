"""A headless desktop with a real screen reader: Xvfb, a D-Bus session, the AT-SPI bus, openbox, Orca and Chromium.

Orca speaks through no audio device here: its speech server is turned off in its preferences, and every utterance
it would speak is still written to its debug log as `SPEECH OUTPUT: '…'`. `Desktop.utterances` reads those lines,
so a test asserts on what Orca says, not on what the browser's accessibility tree claims.

Keys go through the X server with xdotool, so Orca sees them exactly as it would see a person's keyboard (browse
mode, focus mode, Orca's own commands). Playwright is attached to the same Chromium over the DevTools protocol only to
read the page's state (the focused element, a live region) and to sign in quickly; it never types for the test.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# Starts Orca as `/usr/bin/orca` does, except that another desktop's Orca does not stop it (see the launcher).
ORCA_LAUNCHER = Path(__file__).with_name("orca_launcher.py")

ORCA_CUSTOMIZATIONS = """\
import orca.debug
import orca.settings
# Orca writes its debug log block-buffered; line buffering lets a test see each utterance as it is spoken.
if orca.debug.debugFile:
    orca.debug.debugFile.reconfigure(line_buffering=True)
# `--debug-file` logs at Orca's finest level, describing every object of every event. What the tests read (SPEECH
# OUTPUT, and the events and focus a failure's report lists) is logged at the info level; the rest costs Orca time.
orca.debug.debugLevel = orca.debug.LEVEL_INFO
# No audio device: without a speech server Orca still logs every utterance as SPEECH OUTPUT.
orca.settings.speechServerFactory = "none"
orca.settings.speechFactoryModules = []
# The mentor's Orca speaks an object's position ("5 of 5"): Preferences > Speech > Speak object position.
orca.settings.enablePositionSpeaking = True
orca.settings.enableTutorialMessages = False
# Keys are not echoed, so what Orca says after a key is what the page made it say.
orca.settings.enableKeyEcho = False
orca.settings.enableEchoByCharacter = False
orca.settings.enableEchoByWord = False
orca.settings.enableSound = False
# Orca takes letters as structural navigation commands ("h" the next heading, "k" the next link) until it has handled
# the focus event of the text field Tab moved to. Under load it handles events late, and a username typed just then
# moved Orca around the page instead (it said "No more tables", "No more radio buttons") and the Enter after it
# followed a link. The tests type into fields, so it is off: letters go to the page. The one test that reads by it
# (WebKit, where Orca does not read on by arrowing) turns it on with Orca+Z and off again.
orca.settings.structuralNavigationEnabled = False
"""

# `SPEECH OUTPUT: 'text'` then, in the debug log, an optional voice name and the voice's settings: a dict, a list of
# them (Orca's WebKit script reading a line's contents) or None (the role it says after a heading's text there).
SPEECH_LINE = re.compile(r"SPEECH OUTPUT: '(.*?)'(?: voice=\w+)?\s*(?:\{.*\}|\[\{.*\}\]|None)?\s*$", re.MULTILINE)
# Orca's web script (Chromium and Firefox) logs these when it begins and ends reading a document aloud (say all); it
# ends at once when focus has left the document meanwhile.
SAY_ALL_BEGINS = "WEB: SayAll called for document content"
SAY_ALL_ENDS = ("WEB: textLines complete", "WEB: textLines called for non-document content")
# Orca 43's web script moving its focus without a word, in two ways that depend only on when Orca handles an event
# (`scripts/web/script.py`); in both, the focus event then finds the object already Orca's focus and says nothing:
# - A Tab into a text field: Chromium sends the field's caret event before its focus event, and when Orca handles the
#   caret event before the focus event has reached it, the field is not yet focused, so Orca takes it for a caret move
#   (`onCaretMoved` notifies only for a focused text field).
# - Focus coming back from a closed dialog to the button that opened it: when Orca handles the focus event after the
#   dialog has left the page, its last place (a button of the dialog) is gone, and `onFocusedChanged` moves to the new
#   focus without notifying.
UNSPOKEN_FOCUS_MOVES = (
    re.compile(
        r"Dequeued object:text-caret-moved (\[[^\n]*?\]) \(0,0,0\)[^\n]*\n"
        r"(?:(?![^\n]*EVENT MANAGER: Dequeued)[^\n]*\n)*?"
        r"[^\n]*ORCA: Changing locusOfFocus from \[[^\n]*?\] to \1\. Notify: False\n"
        r"(?:(?![^\n]*SPEECH OUTPUT)[^\n]*\n)*?"
        r"[^\n]*EVENT MANAGER: Dequeued object:state-changed:focused \1 \(1,0,0\)[^\n]*\n"
        r"(?:(?![^\n]*(?:EVENT MANAGER: Dequeued|SPEECH OUTPUT))[^\n]*\n)*?"
        r"[^\n]*ORCA: Setting locusOfFocus to existing locusOfFocus\n"),
    re.compile(
        r"Dequeued object:state-changed:focused (\[[^\n]*?\]) \(1,0,0\)[^\n]*\n"
        r"(?:(?![^\n]*(?:EVENT MANAGER: Dequeued|SPEECH OUTPUT))[^\n]*\n)*?"
        r"[^\n]*WEB: Clearing context - obj [^\n]* is null or zombie or document changed\n"
        r"(?:(?![^\n]*(?:EVENT MANAGER: Dequeued|SPEECH OUTPUT))[^\n]*\n)*?"
        r"[^\n]*ORCA: Changing locusOfFocus from \[[^\n]*?\] to \1\. Notify: False\n"
        r"(?:(?![^\n]*(?:EVENT MANAGER: Dequeued|SPEECH OUTPUT))[^\n]*\n)*?"
        r"[^\n]*ORCA: Setting locusOfFocus to existing locusOfFocus\n"),
)


class DesktopError(RuntimeError):
    """Something the desktop needs did not start or did not happen in time."""


@dataclass
class Utterance:
    """One string Orca spoke, with its position in the log (for 'spoken after this point')."""

    index: int
    text: str


@dataclass
class Desktop:
    """The whole desktop; `start()` brings it up, `stop()` ends every process it started, in reverse order."""

    workdir: Path
    display: str = ""
    env: dict = field(default_factory=dict)
    processes: list = field(default_factory=list)
    orca_log: Path | None = None
    # What has been read of Orca's log so far: its length in bytes, the utterances found in its complete lines, and
    # whether Orca is reading a page aloud on its own (say all, as it does when a page loads) as of the last line read.
    _log_read: int = 0
    _spoken: list = field(default_factory=list)
    _reading_page_since: float | None = None

    # -- Life cycle -----------------------------------------------------------------------------------------

    def start(self) -> "Desktop":
        try:
            self._start_x()
            self._start_session_bus()
            self._start_accessibility_bus()
            self._spawn(["openbox", "--sm-disable"], "openbox")
            self._start_orca()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for name, process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        self.processes.clear()
        bus_pid = self.env.get("DBUS_SESSION_BUS_PID")
        if bus_pid:
            try:
                os.kill(int(bus_pid), signal.SIGTERM)
            except (ProcessLookupError, ValueError):
                pass
            self.env.pop("DBUS_SESSION_BUS_PID", None)

    def _spawn(self, args: list[str], name: str, log: Path | None = None) -> subprocess.Popen:
        output = open(log or self.workdir / f"{name}.log", "w")
        process = subprocess.Popen(args, env=self.env, stdout=output, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes.append((name, process))
        return process

    def _start_x(self) -> None:
        read_end, write_end = os.pipe()
        process = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                   pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        os.close(write_end)
        self.processes.append(("Xvfb", process))
        with os.fdopen(read_end) as pipe:
            number = pipe.readline().strip()
        if not number:
            raise DesktopError("Xvfb did not report a display number")
        self.display = ":" + number
        home = self.workdir / "home"
        home.mkdir(exist_ok=True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "DISPLAY": self.display,
            "XDG_RUNTIME_DIR": str(self._runtime_dir()),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "LANG": "en_US.UTF-8" if _has_locale("en_US.utf8") else "C.UTF-8",
            "GTK_MODULES": "gail:atk-bridge",
            "ACCESSIBILITY_ENABLED": "1",
            "NO_AT_BRIDGE": "0",
        }

    def _runtime_dir(self) -> Path:
        path = self.workdir / "runtime"
        path.mkdir(mode=0o700, exist_ok=True)
        return path

    def _start_session_bus(self) -> None:
        result = subprocess.run(["dbus-launch", "--sh-syntax"], env=self.env, capture_output=True, text=True, timeout=20)
        if result.returncode != 0:
            raise DesktopError("dbus-launch failed: " + result.stderr)
        for key in ("DBUS_SESSION_BUS_ADDRESS", "DBUS_SESSION_BUS_PID"):
            match = re.search(key + r"='?([^';\n]+)'?;", result.stdout)
            if not match:
                raise DesktopError("dbus-launch gave no " + key)
            self.env[key] = match.group(1)

    def _start_accessibility_bus(self) -> None:
        launcher = next((p for p in ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")
                         if Path(p).exists()), None)
        if not launcher:
            raise DesktopError("at-spi-bus-launcher is not installed (apt-get install at-spi2-core)")
        self._spawn([launcher, "--launch-immediately"], "at-spi-bus")
        # The accessibility bus is ready when the session bus can tell its address.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            probe = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.a11y.Bus", "/org/a11y/bus",
                                    "org.a11y.Bus.GetAddress"], env=self.env, capture_output=True, text=True)
            if probe.returncode == 0 and "unix:" in probe.stdout:
                return
            time.sleep(0.1)
        raise DesktopError("the AT-SPI bus did not come up")

    def _start_orca(self) -> None:
        prefs = self.workdir / "orca-prefs"
        prefs.mkdir(exist_ok=True)
        (prefs / "orca-customizations.py").write_text(ORCA_CUSTOMIZATIONS)
        self.orca_log = self.workdir / "orca-debug.out"
        self._spawn(["/usr/bin/python3", str(ORCA_LAUNCHER), "-u", str(prefs), "--debug-file", str(self.orca_log)], "orca")
        self.wait_for_log(lambda text: "SPEECH: Initialized" in text or "ORCA: Loading scripts" in text, 60,
                          "Orca did not start")
        # Orca greets with "Screen reader on." once it listens for events.
        self.wait_for_speech(lambda u: "Screen reader on" in u.text, 60, "Orca did not say it is on")

    # -- Reading the log ------------------------------------------------------------------------------------

    def log_text(self, start: int = 0) -> str:
        """Orca's debug log from byte `start` on (the whole log by default)."""
        if not self.orca_log or not self.orca_log.exists():
            return ""
        with open(self.orca_log, "rb") as handle:
            handle.seek(start)
            return handle.read().decode(errors="replace")

    def log_size(self) -> int:
        """How many bytes Orca's debug log holds now: a point to read it from with `log_text(start)`."""
        return self.orca_log.stat().st_size if self.orca_log and self.orca_log.exists() else 0

    def wait_for_log(self, predicate, timeout: float, message: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.log_text()):
                return
            self.check_alive()
            time.sleep(0.1)
        raise DesktopError(message + self._tail())

    def _read_log(self) -> None:
        """Reads the complete lines Orca added to its log since the last call: its speech, and its reading aloud.

        The log grows to tens of megabytes over a module's tests and is polled every 50 ms, so only what is new is
        read (a line still being written is read once it ends).
        """
        if not self.orca_log or not self.orca_log.exists():
            return
        with open(self.orca_log, "rb") as handle:
            handle.seek(self._log_read)
            chunk = handle.read()
        complete = chunk[:chunk.rfind(b"\n") + 1]
        self._log_read += len(complete)
        for line in complete.decode(errors="replace").split("\n"):
            if match := SPEECH_LINE.search(line):
                self._spoken.append(match.group(1))
            elif SAY_ALL_BEGINS in line:
                self._reading_page_since = time.monotonic()
            elif any(end in line for end in SAY_ALL_ENDS):
                self._reading_page_since = None

    def focus_moved_unspoken(self, since: int) -> str | None:
        """The object Orca moved its focus to in silence after byte `since` of its log (see UNSPOKEN_FOCUS_MOVES), once
        it has handled that object's focus event too and so will not speak of it; None when there is none."""
        text = self.log_text(since)
        match = next((found for pattern in UNSPOKEN_FOCUS_MOVES if (found := pattern.search(text))), None)
        return match.group(1) if match else None

    def utterances(self, since: int = 0) -> list[Utterance]:
        """Everything Orca has spoken since it started (or since the mark `since`), in order."""
        self._read_log()
        return [Utterance(index, self._spoken[index]) for index in range(since, len(self._spoken))]

    def reading_page(self) -> bool:
        """Whether Orca is still reading a page aloud on its own: it began a say all and has not logged its end.

        A reading takes seconds; one whose end was never logged (an error inside Orca) stops counting after 15 s, so
        it cannot hold up every later wait.
        """
        self._read_log()
        return self._reading_page_since is not None and time.monotonic() - self._reading_page_since < 15

    def mark(self) -> int:
        """A point in the speech log: `spoken_since(mark)` returns what came after it."""
        self._read_log()
        return len(self._spoken)

    def spoken_since(self, mark: int) -> list[str]:
        self._read_log()
        return self._spoken[mark:]

    def wait_for_speech(self, predicate, timeout: float = 10, message: str = "Orca did not say it",
                        since: int = 0) -> Utterance:
        """Waits until Orca speaks an utterance (after `since`) that satisfies `predicate`; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            for utterance in self.utterances(since):
                if predicate(utterance):
                    return utterance
            if time.monotonic() > deadline:
                break
            self.check_alive()
            time.sleep(0.05)
        spoken = "\n  ".join(self.spoken_since(since)[-30:])
        raise DesktopError(f"{message}. Orca said, since the mark:\n  {spoken}")

    def wait_for_quiet(self, quiet: float = 0.8, timeout: float = 10) -> None:
        """Waits until Orca has said nothing new for `quiet` seconds (it finished reacting to the last event).

        A page read aloud on load can pause for longer than `quiet` on a busy machine, and a key pressed in that pause
        would be taken for the reading's next words; so quiet also means the reading has ended.
        """
        self._wait_until_steady(self.mark, quiet, timeout, also=lambda: not self.reading_page())

    def wait_for_orca_idle(self, quiet: float = 0.4, timeout: float = 10) -> None:
        """Waits until Orca's debug log has not grown for `quiet` seconds: Orca has handled every event so far.

        Orca logs each event it handles, spoken or not. Typing sends one text insertion per character, and on a busy
        machine Orca can still be handling them after the keys were sent; one it takes for inserted text is spoken
        late, into whatever the next key makes it say.
        """
        self._wait_until_steady(self.log_size, quiet, timeout)

    @staticmethod
    def _wait_until_steady(measure, quiet: float, timeout: float, also=lambda: True) -> None:
        """Waits until `measure()` has not changed for `quiet` seconds and `also()` holds; gives up after `timeout`."""
        deadline = time.monotonic() + timeout
        last_value, last_change = measure(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            value = measure()
            if value != last_value:
                last_value, last_change = value, time.monotonic()
            elif time.monotonic() - last_change >= quiet and also():
                return

    def check_alive(self) -> None:
        for name, process in self.processes:
            if process.poll() is not None and name in ("Xvfb", "orca"):
                raise DesktopError(f"{name} exited with {process.returncode}" + self._tail())

    def _tail(self) -> str:
        logs = []
        for name in ("orca", "at-spi-bus", "chromium"):
            path = self.workdir / f"{name}.log"
            if path.exists():
                logs.append(f"\n--- {name}.log ---\n" + path.read_text(errors="replace")[-2000:])
        return "".join(logs)

    # -- The keyboard -----------------------------------------------------------------------------------------

    def key(self, *keys: str, delay_ms: int = 60) -> None:
        """Presses keys through the X server (xdotool names: Tab, shift+Tab, Down, Return, space, Escape, h)."""
        subprocess.run(["xdotool", "key", "--delay", str(delay_ms), *keys], env=self.env, check=True, timeout=20)

    def focus_window(self, name_pattern: str) -> None:
        """Raises and focuses the first window whose title matches (so keys reach it)."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", name_pattern], env=self.env,
                                   capture_output=True, text=True)
            ids = found.stdout.split()
            if ids:
                subprocess.run(["xdotool", "windowactivate", "--sync", ids[-1]], env=self.env, capture_output=True, timeout=10)
                subprocess.run(["xdotool", "windowfocus", "--sync", ids[-1]], env=self.env, capture_output=True, timeout=10)
                return
            time.sleep(0.2)
        raise DesktopError(f"no window named like {name_pattern!r}")

    def window_ids(self, class_pattern: str) -> list[str]:
        """The visible windows whose class matches (a browser's main window is its last)."""
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--class", class_pattern], env=self.env,
                               capture_output=True, text=True)
        return found.stdout.split()

    def focus_window_class(self, class_pattern: str) -> None:
        """Raises and focuses the last visible window of a class (a browser whose title changes with the page)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ids = self.window_ids(class_pattern)
            if ids:
                subprocess.run(["xdotool", "windowactivate", "--sync", ids[-1]], env=self.env, capture_output=True, timeout=10)
                subprocess.run(["xdotool", "windowfocus", "--sync", ids[-1]], env=self.env, capture_output=True, timeout=10)
                return
            time.sleep(0.2)
        raise DesktopError(f"no window of class {class_pattern!r}")

    def window_geometry(self, class_pattern: str) -> tuple[int, int, int, int]:
        """x, y, width and height of the last visible window of a class."""
        ids = self.window_ids(class_pattern)
        if not ids:
            raise DesktopError(f"no window of class {class_pattern!r}")
        shell = subprocess.run(["xdotool", "getwindowgeometry", "--shell", ids[-1]], env=self.env, capture_output=True,
                               text=True, check=True).stdout
        values = dict(line.split("=", 1) for line in shell.split())
        return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])


def _has_locale(name: str) -> bool:
    try:
        result = subprocess.run(["locale", "-a"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return name in result.stdout.lower()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def chromium_args(profile: Path, port: int) -> list[str]:
    """Debian's Chromium in a real (Xvfb) window, exposing its accessibility tree to AT-SPI."""
    binary = shutil.which("chromium") or "/usr/bin/chromium"
    args = [binary, "--force-renderer-accessibility", f"--user-data-dir={profile}", f"--remote-debugging-port={port}",
            "--remote-debugging-address=127.0.0.1", "--no-first-run", "--no-default-browser-check",
            "--disable-dev-shm-usage", "--disable-gpu", "--password-store=basic", "--disable-features=Translate",
            "--window-position=0,0", "--window-size=1280,1000", "--lang=en-US"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


def wait_for_devtools(port: int, timeout: float = 30) -> str:
    """The browser's DevTools websocket URL, once Chromium listens."""
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2) as response:
                return json.load(response)["webSocketDebuggerUrl"]
        except OSError:
            time.sleep(0.1)
    raise DesktopError("Chromium's DevTools endpoint did not answer")


def new_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="varsel-orca-"))
