"""axe-core on every page with the WCAG 2.x A/AA and best-practice tags: zero violations."""
import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import sign_in

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
MENTOR_PAGES = ["/", "/assignments", "/contacts", "/profile", "/notifications", "/notifications?filter=assignment",
                "/settings", "/contacts/2?assignment=2&from=notification", "/certifications", "/pause", "/scenarios"]


def violations(page):
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": TAGS}})
    return [(v["id"], [n["html"][:120] for n in v["nodes"]]) for v in results.response["violations"]]


@pytest.mark.parametrize("path", MENTOR_PAGES)
def test_mentor_pages_have_no_axe_violations(page, server, path):
    page.goto(server.base_url + path)
    assert violations(page) == []


def test_sign_in_coordinator_and_dialog_have_no_axe_violations(browser, server):
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.goto(server.base_url + "/signin")
    assert violations(page) == []
    sign_in(page, server, "demo-coordinator")
    page.goto(server.base_url + "/coordinator")
    assert violations(page) == []
    context.close()


def test_the_open_dialog_has_no_axe_violations(page, server):
    page.goto(server.base_url + "/contacts/2?assignment=2")
    page.click("#acknowledge-button")
    assert violations(page) == []
