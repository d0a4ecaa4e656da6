"""Low vision: every theme keeps AA contrast (axe), focus stays visible, nothing hides under the tab bar when zoomed."""
import pytest
from axe_playwright_python.sync_playwright import Axe

from conftest import SCREENSHOTS, sign_in

THEMES = {
    "light": {"color_scheme": "light"},
    "dark": {"color_scheme": "dark"},
    "more-contrast": {"color_scheme": "light", "contrast": "more"},
    "more-contrast-dark": {"color_scheme": "dark", "contrast": "more"},
    "forced-colors": {"color_scheme": "dark", "forced_colors": "active"},
}
PAGES = ["/notifications", "/notifications?filter=assignment", "/settings", "/contacts/2?assignment=2"]


def contrast_and_focus_violations(page):
    results = Axe().run(page, options={"runOnly": {"type": "tag", "values": ["wcag2aa", "wcag21aa"]}})
    return [(v["id"], [n["html"][:100] for n in v["nodes"]]) for v in results.response["violations"]]


@pytest.mark.parametrize("theme", list(THEMES))
def test_every_theme_keeps_aa_contrast_on_every_page(page, server, theme):
    page.emulate_media(**THEMES[theme])
    for path in PAGES:
        page.goto(server.base_url + path)
        assert contrast_and_focus_violations(page) == [], (theme, path)
    page.goto(server.base_url + "/notifications")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"theme-{theme}.png"))


@pytest.mark.parametrize("theme", ["light", "dark", "more-contrast", "forced-colors"])
def test_focus_is_visible_in_every_theme(page, server, theme):
    page.emulate_media(**THEMES[theme])
    page.goto(server.base_url + "/notifications")
    for selector in ["#mark-all-read", "#filter-bar button >> nth=2", "#notification-list a >> nth=0", "#tab-notifications"]:
        page.focus(selector)
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        outline = page.evaluate("""() => {
            const s = getComputedStyle(document.activeElement);
            return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
        }""")
        assert outline["style"] != "none" and outline["width"] >= 2, (theme, selector, outline)


def test_a_heading_focused_after_a_deep_link_shows_a_focus_ring(page, server):
    page.goto(server.base_url + "/contacts/2?assignment=2&from=notification")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'contact-name-heading'")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"


@pytest.mark.parametrize("zoom,viewport", [("200", {"width": 640, "height": 450}), ("400", {"width": 320, "height": 225})])
def test_at_200_and_400_percent_no_focused_control_is_hidden_under_the_tab_bar(browser, server, zoom, viewport):
    # A 1280 x 900 window at 200 % and 400 % zoom has these CSS viewports.
    context = browser.new_context(bypass_csp=True, viewport=viewport)
    page = context.new_page()
    sign_in(page, server)
    for path in ["/notifications", "/settings"]:
        page.goto(server.base_url + path)
        page.evaluate("document.activeElement && document.activeElement.blur()")
        hidden = []
        for _ in range(40):
            page.keyboard.press("Tab")
            covered = page.evaluate("""() => {
                const element = document.activeElement;
                const bar = document.querySelector('.tab-bar');
                if (!element || !bar || bar.contains(element) || element === document.body) return null;
                if (getComputedStyle(bar).position !== 'fixed') return null;
                const a = element.getBoundingClientRect(), b = bar.getBoundingClientRect();
                return a.bottom > b.top && a.top < b.bottom ? element.id || element.textContent.trim().slice(0, 40) : null;
            }""")
            if covered:
                hidden.append(covered)
        assert hidden == [], (zoom, path, hidden)
    page.goto(server.base_url + "/notifications")
    page.screenshot(path=str(SCREENSHOTS / f"zoom-{zoom}.png"), full_page=False)
    context.close()
