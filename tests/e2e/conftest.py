import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from varsel_server import VarselServer  # noqa: E402


@pytest.fixture
def server(tmp_path):
    """A real `varsel serve --demo` on a temporary SQLite file."""
    instance = VarselServer(database=tmp_path / "varsel.sqlite").start()
    yield instance
    instance.stop()


import os  # noqa: E402
import shutil  # noqa: E402

from varsel_server import DEMO_PASSWORD  # noqa: E402

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def chromium_path() -> str:
    """Debian's Chromium: the whole browser, which shows notifications and runs Web Push's service worker events."""
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    raise RuntimeError("Debian's chromium is not installed (apt-get install chromium)")


def headless_shell_path() -> str:
    """Debian's Chromium headless shell where installed (the same engine without the browser around it, at about
    half the CPU per test), otherwise the whole browser. The shell shows no notifications."""
    for candidate in (os.environ.get("CHROMIUM_HEADLESS_SHELL"), shutil.which("chromium-headless-shell")):
        if candidate and Path(candidate).exists():
            return candidate
    return chromium_path()


def launch(playwright, executable: str):
    return playwright.chromium.launch(executable_path=executable, headless=True,
                                      args=["--no-sandbox", "--disable-dev-shm-usage"])


@pytest.fixture(scope="session")
def playwright_session():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_session):
    """Chromium's engine for pages, forms, axe, passkeys and screenshots: the headless shell where installed."""
    instance = launch(playwright_session, headless_shell_path())
    yield instance
    instance.close()


@pytest.fixture(scope="session")
def notifying_browser(playwright_session):
    """The whole of Chromium, for what shows a system notification or receives a push."""
    instance = launch(playwright_session, chromium_path())
    yield instance
    instance.close()


def sign_in(page, server, username="demo-mentor"):
    page.goto(server.base_url + "/signin")
    page.fill("#username", username)
    page.fill("#password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/notifications")


@pytest.fixture
def page(browser, server):
    """A Chromium page signed in as the demo mentor, on the notification centre."""
    context = browser.new_context(bypass_csp=True, viewport={"width": 1024, "height": 900})
    tab = context.new_page()
    sign_in(tab, server)
    yield tab
    context.close()
