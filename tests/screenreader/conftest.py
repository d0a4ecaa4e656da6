"""Fixtures for the screen-reader suite: one headless desktop with Orca, one Chromium, one `varsel serve --demo`."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "e2e"))

from desktop import Desktop, DesktopError, chromium_args, free_port, new_workdir, wait_for_devtools  # noqa: E402
from engines import ENGINES, Engine, Probe  # noqa: E402
from mail_server import MailServer  # noqa: E402
from sms_gateway import StandInGateway  # noqa: E402
from varsel_server import DEMO_PASSWORD, VarselServer, wait_until  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--part", default="", metavar="K/N",
                     help="Run only the Kth of N parts of the tests collected (the Kth run of neighbours), so one "
                          "file's tests can run as parallel processes, each with its own desktop.")


def pytest_collection_modifyitems(config, items):
    part = config.getoption("--part")
    if not part:
        return
    match = re.fullmatch(r"([1-9][0-9]*)/([1-9][0-9]*)", part)
    if not match or int(match[1]) > int(match[2]):
        raise pytest.UsageError(f"--part takes K/N with 1 <= K <= N, as 1/2; not {part!r}")
    k, n = int(match[1]), int(match[2])
    # A run of neighbours, in the file's order: a test may find what the one before it left (a passkey it added).
    start, end = len(items) * (k - 1) // n, len(items) * k // n
    config.hook.pytest_deselected(items=items[:start] + items[end:])
    items[:] = items[start:end]


def normalize(text: str) -> str:
    """One utterance without Orca's closing full stop, doubled spaces, or a space before a comma.

    Orca joins a link's or tab's text pieces with spaces ("Notifications , 3 unread"); a speech synthesizer says that
    exactly as "Notifications, 3 unread", so the space is dropped before comparing words.
    """
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r" ([,.;:])", r"\1", text)
    return text.removesuffix(".").strip()


# Each time Orca moved its focus in silence and the focus was heard again by stepping back and forth; listed at the
# end of the run. Within one test this is forgiven once: a page that made Orca fall silent every time (the way it
# closes a dialog, say) fails its tests.
FOCUS_HEARD_AGAIN: list[str] = []
FOCUS_HEARD_AGAIN_IN_TEST: list[str] = []


def pytest_terminal_summary(terminalreporter):
    if FOCUS_HEARD_AGAIN:
        terminalreporter.write_line(f"Orca moved its focus without a word {len(FOCUS_HEARD_AGAIN)} times, and the focus was "
                                    "heard again by stepping back and forth: " + "; ".join(FOCUS_HEARD_AGAIN))


@dataclass
class ScreenReader:
    """Orca reading Chromium on a real `varsel serve`: keys go in through X, speech comes out of Orca's log."""

    desktop: Desktop
    page: object
    server: VarselServer

    def press(self, *keys: str, quiet: float = 0.6, expect_speech: bool = True, _again: int = 0) -> list[str]:
        """Presses keys, waits for Orca's first words and then until it has finished reacting; returns what it said.

        Waiting for the first words (not only for quiet) keeps a slow Orca's speech from landing on the next key.
        When Orca moves its focus in silence because it read the page's events in an unlucky order (desktop.py's
        `UNSPOKEN_FOCUS_MOVES`: a Tab into a text field, focus back from a closed dialog, a new page's first Tab), a
        person who heard nothing steps back and forth to hear where they are, and so does this, once a test: shift+Tab
        then Tab (Tab then shift+Tab after a shift+Tab), returning what Orca said on the last of them, which must name
        the object Orca moved to. Any other silence fails.
        """
        mark, log_start = self.desktop.mark(), self.desktop.log_size()
        self.desktop.key(*keys)
        if expect_speech and (unspoken := self._wait_for_words(keys, mark, log_start)):
            if FOCUS_HEARD_AGAIN_IN_TEST or _again:
                raise DesktopError(f"Orca moved its focus to {unspoken} after {keys} and said nothing, and had already done so "
                                   f"in this test: {FOCUS_HEARD_AGAIN_IN_TEST}")
            FOCUS_HEARD_AGAIN.append(f"{unspoken} after {keys}")
            FOCUS_HEARD_AGAIN_IN_TEST.append(f"{unspoken} after {keys}")
            back, forth = ("Tab", "shift+Tab") if keys == ("shift+Tab",) else ("shift+Tab", "Tab")
            self.press(back, quiet=quiet, _again=1)
            spoken = self.press(forth, quiet=quiet, _again=1)
            name = normalize(unspoken.strip("[]").split(" | ", 1)[-1])
            if name and not any(name in text for text in spoken):
                raise DesktopError(f"Orca moved its focus to {unspoken} after {keys} and said nothing; stepping back and forth "
                                   f"did not come back to it: {spoken}")
            return spoken
        self.desktop.wait_for_quiet(quiet)
        return self.spoken_since(mark)

    def _wait_for_words(self, keys: tuple[str, ...], mark: int, log_start: int, timeout: float = 8) -> str | None:
        """Waits until Orca says a word after `mark`; returns None then, or the object Orca moved its focus to in
        silence (found in its log after `log_start`) once it has handled every event that followed."""
        deadline = time.monotonic() + timeout
        while not any(normalize(text) for text in self.desktop.spoken_since(mark)):
            if unspoken := self.desktop.focus_moved_unspoken(log_start):
                self.desktop.wait_for_orca_idle()
                return None if any(normalize(text) for text in self.desktop.spoken_since(mark)) else unspoken
            if time.monotonic() > deadline:
                spoken = "\n  ".join(self.desktop.spoken_since(mark)[-30:])
                raise DesktopError(f"Orca said nothing after {keys}. Orca said, since the mark:\n  {spoken}")
            self.desktop.check_alive()
            time.sleep(0.05)
        return None

    def spoken_since(self, mark: int) -> list[str]:
        return [normalize(text) for text in self.desktop.spoken_since(mark) if normalize(text)]

    def goto(self, path: str) -> list[str]:
        """Opens a page and returns what Orca said while it loaded (it reads the page from where focus lands)."""
        mark = self.desktop.mark()
        self.page.goto(self.server.base_url + path)
        self.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading"), 20, f"Orca did not finish loading {path}",
                                     since=mark)
        self.desktop.wait_for_quiet(0.8, 20)
        return self.spoken_since(mark)

    def tab_until(self, predicate, limit: int = 40, key: str = "Tab") -> tuple[list[str], list[list[str]]]:
        """Presses Tab until Orca says something that satisfies `predicate`; returns that step's speech and all steps'."""
        steps = []
        for _ in range(limit):
            spoken = self.press(key)
            steps.append(spoken)
            if any(predicate(text) for text in spoken):
                return spoken, steps
        raise DesktopError(f"{limit} presses of {key} and Orca never said it; last: {steps[-3:]}")

    def focused_id(self) -> str:
        return self.page.evaluate("document.activeElement ? document.activeElement.id : ''")


@dataclass
class EngineReader(ScreenReader):
    """Orca reading Firefox or WebKitGTK: pages are opened from the address bar, and what the engine reports through
    AT-SPI (focus, states, live-region text) is read from the probe, since no driver is attached to the browser."""

    engine: Engine = None
    probe: Probe = None

    def goto(self, path: str) -> list[str]:
        """Opens a page from the address bar as a person would; returns what Orca said until it finished reading."""
        mark, loads = self.desktop.mark(), self.probe.mark()
        self.desktop.key("ctrl+l")
        self.desktop.wait_for_quiet(0.3, 5)
        subprocess_type(self.desktop, self.server.base_url + path)
        self.desktop.key("Return")
        self.wait_for_load(loads, path)
        self.engine.after_load(self.desktop, self.probe)
        self.desktop.wait_for_quiet(0.8, 20)
        return self.spoken_since(mark)

    def wait_for_load(self, since: int, what: str, title: str = "") -> dict:
        """Waits until the engine reports a Varsel page (with `title`, when given) loaded after `since`."""
        loaded = self.probe.wait_for(lambda r: r["event"] == "load" and r["name"].endswith("Varsel") and
                                     r["name"].startswith(title), 30, f"{self.engine.name} did not load {what}", since=since)
        self.desktop.wait_for_quiet(1.0, 20)
        return loaded

    def activate(self, key: str, title: str) -> list[str]:
        """Presses a key that opens a page (a link, a submit button); returns what Orca said until it finished."""
        mark, loads = self.desktop.mark(), self.probe.mark()
        self.desktop.key(key)
        self.wait_for_load(loads, f"the page after {key}", title)
        self.desktop.wait_for_quiet(1.0, 20)
        return self.spoken_since(mark)

    def focused(self) -> dict:
        return self.probe.focused()

    def focused_id(self) -> str:
        return self.focused().get("id", "")


def sign_in_by_keyboard(reader: ScreenReader, username: str) -> list[str]:
    """On the sign-in page: Tab to the username, type it, Tab, type the password, Enter; returns the sign-in page's
    speech up to the username field (what a person hears before typing anything)."""
    if getattr(reader, "probe", None) is not None and reader.focused_id() == "username":
        # WebKit has been seen to put focus in the field as the page loaded, with Orca saying nothing, so the first
        # Tab left it unheard: step back out of it, and the Tab into it is what a person hears.
        reader.press("shift+Tab")
    heard, _ = reader.tab_until(lambda text: text.startswith("Username"), limit=8)
    wait_for_focus_in(reader, "username")
    reader.desktop.key("ctrl+a")
    subprocess_type(reader.desktop, username)
    reader.press("Tab")
    wait_for_focus_in(reader, "password")
    subprocess_type(reader.desktop, DEMO_PASSWORD)
    return heard


def wait_for_focus_in(reader: ScreenReader, field_id: str, timeout: float = 10) -> None:
    """Waits until the page's focus is in the field `field_id`, so what is typed next lands in it: on a loaded machine
    Orca has been heard naming a field before the engine moved focus there, and the typing went to the field before."""
    deadline = time.monotonic() + timeout
    while (focused := reader.focused_id()) != field_id:
        if time.monotonic() > deadline:
            raise DesktopError(f"Focus did not come to the field {field_id!r}; it is on {focused!r}")
        time.sleep(0.05)


METRICS_TOKEN = "screen-reader-suite-metrics"


def stream_metric(server: VarselServer, name: str) -> int:
    """One of the server's live-stream metrics: `open` (streams open now) or `opened_total` (streams ever opened)."""
    import urllib.request
    request = urllib.request.Request(server.base_url + "/metrics", headers={"Authorization": "Bearer " + METRICS_TOKEN})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    return int(re.search(rf"^varsel_event_streams_{name} (\d+)$", text, re.M).group(1))


SMS_TOKEN = "screen-reader-suite-sms"


def demo_server(directory: Path) -> VarselServer:
    """`varsel serve --demo` on a new SQLite file, reached as http://localhost:PORT, its public URL, so passkeys work
    (WebAuthn refuses IP-address origins). It may push to a stand-in push service on loopback, and a device whose
    push went unshown for two seconds counts as not showing notifications (the device list's tests). It sends text
    messages to a stand-in gateway (`server.gateway`) and email through a real SMTP server (`server.mail`), so the
    Profile and the settings offer both."""
    port = free_port()
    gateway = StandInGateway(SMS_TOKEN)
    mail = MailServer()
    token_file = directory / "sms-token"
    token_file.write_text(SMS_TOKEN + "\n")
    server = VarselServer(database=directory / "varsel.sqlite", port=port, host_name="localhost",
                          extra_args=["--public-url", f"http://localhost:{port}", "--push-allow-http-endpoints",
                                      "--push-stale-after", "2s", "--metrics-token", METRICS_TOKEN,
                                      "--sms-gateway-url", gateway.url, "--sms-gateway-token-file", str(token_file), *mail.serve_args()])
    server.gateway, server.mail = gateway, mail
    try:
        return server.start()
    except Exception:
        gateway.close()
        mail.close()
        raise


def stop_demo_server(server: VarselServer) -> None:
    """Stops the server, then its gateway and SMTP server."""
    server.stop()
    server.gateway.close()
    server.mail.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    instance = demo_server(tmp_path_factory.mktemp("orca"))
    yield instance
    stop_demo_server(instance)


@pytest.fixture(scope="module")
def reader(request, server):
    """Signs in as the demo mentor by keyboard, with Orca listening, and leaves Chromium on the centre."""
    from playwright.sync_api import sync_playwright

    workdir = new_workdir()
    desktop = Desktop(workdir)
    playwright = None
    try:
        desktop.start()
        profile = workdir / "chromium-profile"
        (profile / "Default").mkdir(parents=True)
        # No password-saving bubble: it would take the keyboard after sign-in.
        (profile / "Default" / "Preferences").write_text(json.dumps(
            {"credentials_enable_service": False, "profile": {"password_manager_enabled": False}}))
        port = free_port()
        desktop._spawn(chromium_args(profile, port) + ["about:blank"], "chromium")
        wait_for_devtools(port)
        playwright = sync_playwright().start()
        browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        page = browser.contexts[0].pages[0]
        desktop.focus_window("Chromium")
        session = ScreenReader(desktop, page, server)
        with orca_log_kept_on_failure(desktop, request.node.nodeid + " signing in"):
            sign_in_chromium(session)
        yield session
    finally:
        if playwright:
            playwright.stop()
        desktop.stop()
        remove_workdir(workdir)


def sign_in_chromium(session: ScreenReader) -> None:
    """Signs in as the demo mentor by keyboard on Chromium, with Orca listening, and waits for the centre's reading."""
    desktop = session.desktop
    FOCUS_HEARD_AGAIN_IN_TEST.clear()
    session.goto("/signin")
    # The sign-in form, by keyboard: Tab to the user name, type, Tab, type, Enter. On a loaded machine the first
    # Tab after start-up sometimes goes unspoken (the window not yet Orca's), which failed every test of the
    # module; then the window is activated again and the page reloaded. (Putting focus in the field from the
    # DevTools protocol instead was not spoken at all: Orca follows the keyboard, not a script's focus.)
    for attempt in range(3):
        try:
            session.tab_until(lambda text: text.startswith("Username"), limit=5)
            break
        except DesktopError:
            if attempt == 2:
                raise
            desktop.focus_window("Chromium")
            session.goto("/signin")
    desktop.key("ctrl+a")
    subprocess_type(desktop, "demo-mentor")
    session.press("Tab")
    subprocess_type(desktop, DEMO_PASSWORD)
    mark = desktop.mark()
    desktop.key("Return")
    desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Notifications"), 20,
                            "signing in did not open the notification centre", since=mark)
    desktop.wait_for_quiet(0.8, 20)


@pytest.fixture(scope="module", params=sorted(ENGINES))
def engine_reader(request, tmp_path_factory):
    """Orca with Firefox ESR or WebKitGTK on its own desktop and its own demo server, the demo mentor signed in."""
    workdir = new_workdir()
    desktop = Desktop(workdir)
    server = demo_server(tmp_path_factory.mktemp("orca-" + request.param))
    try:
        desktop.start()
        probe = Probe(desktop, workdir / "atspi-probe.jsonl").start()
        engine = ENGINES[request.param]()
        engine.start(desktop, workdir)
        desktop.focus_window_class(engine.window_class)
        desktop.wait_for_quiet(1.0, 20)
        session = EngineReader(desktop, None, server, engine=engine, probe=probe)
        # Signed in by keyboard as the demo mentor, so each test can run alone (a rerun of the failed ones).
        with orca_log_kept_on_failure(desktop, f"{request.node.nodeid} {request.param} signing in"):
            FOCUS_HEARD_AGAIN_IN_TEST.clear()
            session.goto("/signin")
            try:
                sign_in_by_keyboard(session, "demo-mentor")
            except DesktopError:
                # A new MiniBrowser's first page has been seen to pass Tab on to the browser's own toolbar although
                # the page had focus (Orca then reads "Find push button", "Menu toggle button"); the same page loaded
                # again takes Tab. Only the setup loads it again: a test that fails this way still fails.
                session.goto("/signin")
                sign_in_by_keyboard(session, "demo-mentor")
            session.activate("Return", "Notifications")
        yield session
    finally:
        desktop.stop()
        stop_demo_server(server)
        remove_workdir(workdir)


# What Orca saw when a test failed ------------------------------------------------------------------------------

ORCA_FAILURE_LOGS = Path(os.environ.get("VARSEL_ORCA_FAILURE_LOGS", tempfile.gettempdir())) / "varsel-orca-failures"


@pytest.fixture(autouse=True)
def orca_log_mark(request):
    """Where Orca's debug log stood when the test began, so a failure can keep what Orca saw during the test alone.

    After a failed test on Firefox or WebKit, whose session the module's tests share, a session the test left signed
    out is signed in again as the demo mentor, so one failure does not fail every test after it."""
    reader = next((request.getfixturevalue(name) for name in ("reader", "engine_reader") if name in request.fixturenames), None)
    FOCUS_HEARD_AGAIN_IN_TEST.clear()
    request.node.orca_reader = reader
    request.node.orca_log_start = reader.desktop.log_size() if reader else 0
    yield
    if getattr(request.node, "orca_test_failed", False) and isinstance(reader, EngineReader):
        try:
            loads = reader.probe.mark()
            reader.goto("/")
            if any(r["name"].startswith("Sign in") for r in reader.probe.since(loads, "load")):
                sign_in_by_keyboard(reader, "demo-mentor")
                reader.activate("Return", "Notifications")
        except DesktopError:
            pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps Orca's debug log of a failed test (its workdir is removed with the desktop): the whole log from the
    test's start in a file, and the events and speech of its last seconds in the report."""
    outcome = yield
    report = outcome.get_result()
    reader = getattr(item, "orca_reader", None)
    if report.when != "call" or not report.failed or reader is None:
        return
    item.orca_test_failed = True
    report.sections.append(("Orca's debug log", kept_orca_log(reader.desktop, item.nodeid, getattr(item, "orca_log_start", 0))))


@contextmanager
def orca_log_kept_on_failure(desktop: Desktop, name: str):
    """Keeps Orca's debug log when the block fails (a fixture's set-up, which a test's report does not cover), and
    says where in the error."""
    start = desktop.log_size()
    try:
        yield
    except Exception as error:
        error.add_note(f"Orca's debug log {kept_orca_log(desktop, name, start)}")
        raise


def kept_orca_log(desktop: Desktop, name: str, start: int = 0) -> str:
    """Keeps Orca's debug log from byte `start` in a file named after `name`; returns where, with the events and speech
    of its last seconds."""
    text = desktop.log_text(start)
    ORCA_FAILURE_LOGS.mkdir(parents=True, exist_ok=True)
    kept = ORCA_FAILURE_LOGS / (re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[-150:] + ".log")
    kept.write_text(text)
    lines = [line for line in text.splitlines() if any(word in line for word in ("Dequeued", "locusOfFocus:", "SPEECH OUTPUT"))]
    return f"kept whole in {kept}; its last events and speech:\n" + "\n".join(lines[-60:])


def remove_workdir(workdir: Path) -> None:
    """Removes a desktop's working directory. The document portal's FUSE mount in its runtime directory can go away
    while it is being read (ECONNABORTED from the directory listing, which `ignore_errors` does not cover); what is
    left then stays in /tmp."""
    try:
        shutil.rmtree(workdir, ignore_errors=True)
    except OSError:
        pass


def subprocess_type(desktop: Desktop, text: str) -> None:
    """Types `text` through the X server, then waits until Orca has handled what the typing set off."""
    import subprocess

    subprocess.run(["xdotool", "type", "--delay", "20", text], env=desktop.env, check=True, timeout=30)
    desktop.wait_for_orca_idle()


# Signing in as someone else, and reading what a form post brings back -------------------------------------------

def signed_in_as_coordinator(reader) -> None:
    """Signs the session in as the demo coordinator unless it already is (through the page: the keyboard's sign-in
    is the fixture's), and waits until Orca has finished reading the notification centre it lands on."""
    signed_in_as(reader, "demo-coordinator", "Demo Coordinator")


def signed_in_as(reader, username: str, display_name: str) -> None:
    """Signs the session in as `username` through the page unless the top bar already names them (`display_name`),
    and waits until Orca has finished reading the notification centre it lands on."""
    if reader.page.evaluate("document.querySelector('.top-bar .user')?.textContent.trim() ?? ''") == display_name:
        return
    reader.page.evaluate("""() => fetch('/signout', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: '_csrf=' + encodeURIComponent(document.body.dataset.csrf)})""")
    mark = reader.desktop.mark()
    reader.page.goto(reader.server.base_url + "/signin")
    reader.page.fill("#username", username)
    reader.page.fill("#password", DEMO_PASSWORD)
    reader.page.click("button[type=submit]")
    reader.page.wait_for_url("**/notifications")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Notifications"), 20,
                                   f"signing in as {username} did not open the notification centre", since=mark)
    reader.desktop.wait_for_quiet(0.8, 20)


def submitted(reader, loaded_title: str, first_words: str | None = None) -> list[str]:
    """Presses Enter on the focused button; returns what Orca said until it finished reading the page that came back."""
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading " + loaded_title), 20,
                                   f"Orca did not finish loading {loaded_title!r}", since=mark)
    if first_words:
        reader.desktop.wait_for_speech(lambda u: normalize(u.text) == first_words, 20, f"Orca never said {first_words!r}", since=mark)
    reader.desktop.wait_for_quiet(1.5, 20)
    return reader.spoken_since(mark)


def run_at(spoken: list[str], run: list[str]) -> int:
    """Where `run` is said word for word, one utterance after another; -1 when it never is."""
    return next((index for index in range(len(spoken)) if spoken[index:index + len(run)] == run), -1)


def signed_in_as_admin(reader) -> None:
    """Signs the session in as an administrator, added once to the demo's database by the command line (the demo has
    none), and waits until Orca has finished reading the notification centre."""
    status, _, _ = reader.server.request("POST", "/api/v1/session", body={"username": "orca-admin", "password": DEMO_PASSWORD})
    if status != 201:
        from test_cli_and_privacy import run_varsel
        added = run_varsel("user", "add", "orca-admin", "--role", "admin", "--display-name", "Orca Admin", "--database",
                           str(reader.server.database), "--bcrypt-cost", "4", stdin=DEMO_PASSWORD + "\n")
        assert added.returncode == 0, added.stderr
    signed_in_as(reader, "orca-admin", "Orca Admin")


SEND_LATER_HINT = "Leave empty to send now. Norway's time, such as 08:00; with no day, the next time the clock shows it"


def next_oslo_days(hour: int) -> set[str]:
    """The day (`November 30, 2026`) of the next time Oslo's clocks show `hour`:00, now and a minute on: a test that
    runs across that hour accepts either."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    days = set()
    for ahead in (0, 60):
        now = datetime.now(ZoneInfo("Europe/Oslo")) + timedelta(seconds=ahead)
        moment = now.replace(hour=hour, minute=0, second=0, microsecond=0)
        if moment <= now:
            moment += timedelta(days=1)
        days.add(f"{moment:%B} {moment.day}, {moment.year}")
    return days


def schedule_and_cancel_by_keys(reader, title: str, loaded_title: str) -> tuple[list[str], list[str], list[str]]:
    """On the coordinator's page, whose recipient is already chosen: types `title` and a time of 8 into the send form,
    sends it, and Tabs to its row's Change link and then its Do-not-send button, which it presses.

    Returns what Orca said on the send-later field, on the Change link and its button, and after the cancel."""
    reader.tab_until(lambda text: text.startswith("Title entry"))
    subprocess_type(reader.desktop, title)
    field_spoken, _ = reader.tab_until(lambda text: text.startswith("Send later at entry"))
    subprocess_type(reader.desktop, "8")
    reader.tab_until(lambda text: text == "Send push button")
    submit_and_hear(reader, loaded_title, "Scheduled: it is listed under Scheduled sends until it goes")
    row_spoken, _ = reader.tab_until(lambda text: text.startswith(f"Change {title}"))
    row_spoken = row_spoken + reader.press("Tab")
    spoken = submit_and_hear(reader, loaded_title, "Cancelled: it will not be sent")
    return field_spoken, row_spoken, spoken


def submit_and_hear(reader, loaded_title: str, confirmation: str) -> list[str]:
    """Presses Enter on the focused submit button; the page that comes back says `confirmation` once (except in WebKit,
    where Orca 43's script says at most the new page's title: the page's load is awaited, and what follows on the page
    is the proof)."""
    if isinstance(reader, EngineReader):
        spoken = reader.activate("Return", loaded_title)
        if reader.engine.name == "webkit":
            return spoken
    else:
        spoken = submitted(reader, loaded_title, first_words=confirmation)
    assert spoken.count(confirmation) == 1, spoken
    return spoken


def check_scheduled_row(title: str, row_spoken: list[str]) -> None:
    """The row's link is named for the send and described by what, to whom and when; its button says which send."""
    link = row_spoken.index(f"Change {title} link")
    description = row_spoken[link + 1]
    match = re.fullmatch(rf"{re.escape(title)}: certification expiry to Demo Mentor, (\w+ \d+, \d{{4}}) at 8:00 AM", description)
    assert match and match.group(1) in next_oslo_days(8), row_spoken
    assert f"Do not send {title} push button" in row_spoken[link + 2:], row_spoken


# Summaries ------------------------------------------------------------------------------------------------------

SUMMARY_ANNOUNCED = "New notification: Summary: 2 certification warnings, 1 scenario prompt"
ASSIGNMENT_ANNOUNCED = "New notification: New assignment"
GATHERED_TITLES = ("First aid expires in 30 days", "Guiding expires in 14 days", "Scenario: the first phone call")


@contextmanager
def demo_mentor_gathering_a_summary(server):
    """The demo mentor gathers certification warnings and scenario prompts into a summary at the next whole minute
    at least 20 seconds away, in Oslo's time, set through the API; yields that moment (seconds since 1970). Their
    preferences are as before afterwards, so the next test hears each notification at once again."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    token = server.token("demo-mentor")
    _, _, before = server.request("GET", "/api/v1/preferences", token)
    now = time.time()
    moment = (int(now) // 60 + 1) * 60
    if moment - now < 20:
        moment += 60
    at = datetime.fromtimestamp(moment, ZoneInfo("Europe/Oslo")).strftime("%H:%M")
    status, _, body = server.request("PUT", "/api/v1/preferences", token,
                                     {**before, "summaryKinds": ["certificationExpiry", "scenarioPrompt"], "summaryTime": at})
    assert status == 200 and body["summaryTime"] == at, body
    try:
        yield moment
    finally:
        server.request("PUT", "/api/v1/preferences", token, before)


def send_gathered_and_an_assignment(server) -> None:
    """Two certification warnings and a scenario prompt, which the summary gathers, and an assignment, which comes
    at once, from the demo coordinator to the demo mentor."""
    coordinator = server.token("demo-coordinator")
    for title, kind in zip(GATHERED_TITLES, ("certificationExpiry", "certificationExpiry", "scenarioPrompt")):
        server.create(coordinator, title, ["demo-mentor"], kind=kind)
    status, _, body = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "contact": {"name": "Per Olsen", "phone": "", "address": "Torggata 3", "notes": ""}})
    assert status == 201, body


def check_one_summary(server) -> None:
    """The demo mentor has one summary, listing what it gathered."""
    _, _, listed = server.request("GET", "/api/v1/notifications?filter=summary", server.token("demo-mentor"))
    assert [item["title"] for item in listed["items"]] == ["2 certification warnings, 1 scenario prompt"], listed
    assert listed["items"][0]["body"].splitlines() == list(GATHERED_TITLES), listed


# Webhook deliveries -----------------------------------------------------------------------------------------------

# An address whose host name never resolves (`.invalid` is reserved for that, RFC 6761), so Varsel's attempt to call
# it fails, and the words the row gives that failure.
UNREACHABLE_WEBHOOK = "https://hooks.invalid/varsel-events"
REFUSED_ADDRESS = "The endpoint's address is refused: it must be public."


@contextmanager
def a_failed_webhook_delivery(server, integration_name: str):
    """Adds an address told of new assignments to the integration called `integration_name` (by the command line, on
    the server's database), has the demo coordinator make an assignment for the second demo mentor, and waits until
    Varsel's attempt to deliver it has failed. Yields the integration's id; removes the address afterwards, unless the
    test did."""
    from test_cli_and_privacy import run_varsel
    database = str(server.database)
    listed = run_varsel("token", "list", "--database", database)
    assert listed.returncode == 0, listed.stderr
    [integration] = [line.split("\t")[0] for line in listed.stdout.splitlines()[1:] if line.split("\t")[-1] == integration_name]
    added = run_varsel("webhook", "add", integration, "--url", UNREACHABLE_WEBHOOK, "--events", "assignment.created",
                       "--database", database)
    assert added.returncode == 0, added.stderr
    endpoint = re.search(r"Added webhook endpoint (\d+)", added.stderr).group(1)
    try:
        status, _, body = server.request("POST", "/api/v1/assignments", server.token("demo-coordinator"), {
            "mentor": "demo-mentor-2", "contact": {"name": "Kari Lund", "phone": "", "address": "Storgata 9", "notes": ""}})
        assert status == 201, body

        def failing() -> bool:
            states = run_varsel("webhook", "list", "--database", database).stdout.splitlines()[1:]
            return any(line.split("\t")[:3] == [endpoint, integration, "failing"] for line in states)
        assert wait_until(failing, timeout=30, interval=0.2), "the delivery was never tried"
        yield integration
    finally:
        listed = run_varsel("webhook", "list", "--database", database).stdout.splitlines()[1:]
        if any(line.split("\t")[0] == endpoint for line in listed):
            removed = run_varsel("webhook", "remove", endpoint, "--database", database)
            assert removed.returncode == 0, removed.stderr


def read_down_until(reader, predicate, limit: int = 10) -> list[str]:
    """Reads on line by line in browse mode, as arrowing down does, until Orca says something that satisfies
    `predicate`; returns all it said on the way."""
    spoken: list[str] = []
    for _ in range(limit):
        line = reader.press("Down")
        spoken += line
        if any(predicate(text) for text in line):
            return spoken
    raise AssertionError(f"{limit} presses of Down and Orca never said it: {spoken}")


# A failed delivery's row, as arrowing reads it: the event, the attempts so far (a second comes five seconds after the
# first), and the reason.
FAILED_DELIVERY_ROW = re.compile(r"Assignment created, failing after (1 attempt|[2-9] attempts): "
                                 + re.escape(REFUSED_ADDRESS.removesuffix(".")))


def delivery_row_heard(spoken: list[str]) -> str:
    """The failed delivery's row from what Orca said reading down line by line: from its event to the end of the
    list, joined where the page wrapped it, without Orca's position in the list ("1 of 1") said between its lines."""
    start = next(index for index, text in enumerate(spoken) if text.startswith("Assignment created, "))
    end = next(index for index in range(start, len(spoken)) if spoken[index].startswith("Leaving"))
    return normalize(" ".join(text for text in spoken[start:end] if not re.fullmatch(r"\d+ of \d+", text)))


def delivery_row_by_arrowing(reader) -> str:
    """Reads down from an address's Remove button in browse mode, as Chromium and Firefox do: the deliveries' heading,
    then their list and its one row; returns the row as heard."""
    spoken = read_down_until(reader, lambda text: text.startswith("Leaving"))
    # The heading wraps where the page is narrow, and arrowing says it in two lines.
    assert any(text.startswith("Recent deliveries to https://hooks.invalid/varsel") and text.endswith("heading level 2")
               for text in spoken), spoken
    assert "List with 1 item" in spoken, spoken
    return delivery_row_heard(spoken)
