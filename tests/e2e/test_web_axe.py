"""axe-core on every page with the WCAG 2.x A/AA and best-practice tags: zero violations."""
import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import sign_in

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
MENTOR_PAGES = ["/", "/assignments", "/contacts", "/profile", "/notifications", "/notifications?filter=assignment",
                "/settings", "/contacts/2?assignment=2&from=notification", "/certifications", "/pause", "/scenarios",
                "/scenarios/1", "/contacts/1?assignment=1"]
# The coordinator's screens: the dashboard (filtered too), an assignment's page with its history and the
# reassignment form, the scenarios with the publish form, one scenario's progress, the Profile.
COORDINATOR_PAGES = ["/coordinator", "/coordinator/assignments", "/coordinator/assignments?show=overdue&mentor=3",
                     "/contacts/3?assignment=3", "/scenarios", "/scenarios/1", "/profile"]


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
    for path in COORDINATOR_PAGES:
        page.goto(server.base_url + path)
        assert (path, violations(page)) == (path, [])
    # A form sent back with its errors: the summary, the invalid fields and their messages.
    page.goto(server.base_url + "/scenarios")
    page.click("#publish-scenario")
    page.wait_for_load_state()
    assert page.locator("#error-summary").count() == 1
    assert violations(page) == []
    context.close()


def test_the_profile_with_errors_has_no_axe_violations(page, server):
    page.goto(server.base_url + "/profile")
    page.fill("#pause-until", "")
    page.click("#request-pause")
    page.wait_for_load_state()
    assert page.get_attribute("#pause-until", "aria-invalid") == "true"
    assert violations(page) == []


def test_the_open_dialog_has_no_axe_violations(page, server):
    page.goto(server.base_url + "/contacts/2?assignment=2")
    page.click("#acknowledge-button")
    assert violations(page) == []
