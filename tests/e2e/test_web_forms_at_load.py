"""Every page as it loads: no field is invalid before anyone has typed, required fields say so, and the live regions
are there, empty, on every reader's defaults.

Firefox and WebKit expose an empty `<input required>` as invalid at once, and Orca and VoiceOver then say "invalid
entry" before a person has typed anything; Chromium does not, so its accessibility tree cannot show it. The DOM can:
`:invalid` is what those engines expose. Required fields carry `aria-required="true"` instead, and the server checks
them on submit (the screen-reader suite hears the result on all three engines).
"""
import pytest

from conftest import sign_in
from test_web_axe import COORDINATOR_PAGES, MENTOR_PAGES

# Each form control the page would expose as invalid, and each required control that does not say it is required.
FORM_STATE = """() => {
  const controls = Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea'));
  const name = (c) => c.id || c.name;
  return {
    invalid: controls.filter((c) => c.matches(':invalid') || c.getAttribute('aria-invalid') === 'true').map(name),
    nativeRequired: controls.filter((c) => c.required).map(name),
    ariaRequired: controls.filter((c) => c.getAttribute('aria-required') === 'true').map(name),
  };
}"""

LIVE_REGIONS = """() => Array.from(document.querySelectorAll('[aria-live], [role=log], [role=status], [role=alert]'))
  .map((r) => ({id: r.id, live: r.getAttribute('aria-live'), relevant: r.getAttribute('aria-relevant'),
                text: r.textContent.trim(), inDialog: Boolean(r.closest('dialog'))}))"""


def check(page, url: str, required: list[str] | None = None) -> None:
    page.goto(url)
    state = page.evaluate(FORM_STATE)
    assert (url, state["invalid"], state["nativeRequired"]) == (url, [], []), state
    if required is not None:
        assert (url, sorted(state["ariaRequired"])) == (url, sorted(required)), state
    regions = {region["id"]: region for region in page.evaluate(LIVE_REGIONS)}
    # No aria-relevant anywhere (NVDA does not announce a polite region with aria-relevant="additions"), and every
    # region empty as the page loads: a region must exist before text arrives in it.
    assert [(url, r) for r in regions.values() if r["relevant"] is not None or r["text"]] == [], regions
    return regions


@pytest.mark.parametrize("path", MENTOR_PAGES)
def test_a_mentor_page_has_no_invalid_field_and_empty_live_regions_as_it_loads(page, server, path):
    required = {"/profile": ["pause-until"], "/pause": ["pause-until"]}.get(path)
    regions = check(page, server.base_url + path, required)
    assert regions["live-polite"]["live"] == "polite" and regions["live-assertive"]["live"] == "assertive", regions


@pytest.mark.parametrize("path", COORDINATOR_PAGES + ["/people", "/people/new", "/people/3"])
def test_a_coordinator_page_has_no_invalid_field_and_empty_live_regions_as_it_loads(browser, server, path):
    context = browser.new_context()
    try:
        page = context.new_page()
        sign_in(page, server, "demo-coordinator")
        regions = check(page, server.base_url + path)
        assert regions["live-polite"]["live"] == "polite" and regions["live-assertive"]["live"] == "assertive", regions
    finally:
        context.close()


def test_the_sign_in_and_set_password_pages_have_no_invalid_field_and_say_which_are_required(browser, server):
    status, _, invited = server.request("POST", "/api/v1/users", server.token("demo-coordinator"), {
        "username": "nina", "displayName": "Nina Berg", "role": "mentor", "locale": "en"})
    assert status == 201, invited
    context = browser.new_context()
    try:
        page = context.new_page()
        check(page, server.base_url + "/signin", required=["username", "password"])
        check(page, server.base_url + "/password")
        check(page, invited["setPasswordLink"]["url"])
    finally:
        context.close()
