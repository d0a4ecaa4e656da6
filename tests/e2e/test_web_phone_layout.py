"""The bottom navigation as a phone shows it: one row of five tabs, an icon above each name, the unread count on the
Notifications tab, at the bottom of the screen where the viewport is tall enough, and room between neighbouring
buttons. Checked at 320 and 390 px wide, light and dark, at 100 % and 200 % text; each case is saved as a screenshot
in docs/screenshots."""
import pytest

from conftest import SCREENSHOTS, sign_in

PHONES = {"320": {"width": 320, "height": 568}, "390": {"width": 390, "height": 844}}

# Where each part of the tab bar is, in CSS pixels, measured by the browser.
MEASURE = """() => {
    const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
    const bar = document.querySelector('.tab-bar');
    const tabs = Array.from(bar.querySelectorAll('[role=tab]')).map(tab => ({
        id: tab.id, box: box(tab),
        icon: box(tab.querySelector('.tab-icon')),
        label: box(tab.querySelector('.tab-label')),
        labelSize: parseFloat(getComputedStyle(tab.querySelector('.tab-label')).fontSize),
        clipped: tab.scrollWidth > tab.clientWidth + 1 || tab.querySelector('.tab-label').scrollWidth > tab.clientWidth + 1,
    }));
    const badge = document.getElementById('tab-notifications-badge');
    return {
        bar: box(bar), fixed: getComputedStyle(bar).position === 'fixed', viewport: innerHeight,
        main: box(document.querySelector('main')), tabs, badge: badge && box(badge), badgeText: badge && badge.textContent,
    };
}"""


def open_at_text_size(browser, server, phone, scheme, text_percent, path):
    context = browser.new_context(bypass_csp=True, viewport=PHONES[phone], color_scheme=scheme, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    # The browser's own text-size setting (as a phone's larger text reaches a web page): the default font size, which
    # media queries in em follow too, unlike a style that only enlarges the page's root.
    cdp = context.new_cdp_session(page)
    cdp.send("Page.enable")
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 16 * text_percent // 100, "fixed": 13 * text_percent // 100}})
    sign_in(page, server)
    page.goto(server.base_url + path)
    return context, page


@pytest.mark.parametrize("text_percent", [100, 200])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("phone", list(PHONES))
def test_the_tab_bar_is_one_row_of_five_tabs_with_icons_and_the_badge(browser, server, phone, scheme, text_percent):
    context, page = open_at_text_size(browser, server, phone, scheme, text_percent, "/notifications")
    if text_percent == 200:
        assert page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)") == 32
    m = page.evaluate(MEASURE)
    tabs = m["tabs"]
    case = (phone, scheme, text_percent)
    assert [t["id"] for t in tabs] == ["tab-home", "tab-assignments", "tab-contacts", "tab-profile", "tab-notifications"]
    # One row: every tab starts at the same height, each to the right of the one before, none overlapping.
    assert max(t["box"]["top"] for t in tabs) - min(t["box"]["top"] for t in tabs) < 1, (case, tabs)
    assert all(a["box"]["right"] <= b["box"]["left"] + 0.5 for a, b in zip(tabs, tabs[1:])), (case, tabs)
    assert tabs[0]["box"]["left"] >= -0.5 and tabs[-1]["box"]["right"] <= PHONES[phone]["width"] + 0.5, (case, tabs)
    for tab in tabs:
        # A target a finger can hit (WCAG 2.5.5's 44 px), the icon above the name, and nothing cut off.
        assert tab["box"]["right"] - tab["box"]["left"] >= 44 and tab["box"]["bottom"] - tab["box"]["top"] >= 44, (case, tab)
        assert tab["icon"]["bottom"] <= tab["label"]["top"] + 0.5, (case, tab)
        assert not tab["clipped"], (case, tab)
        # The name is at least 14 px (0.875 rem) and grows with the text size.
        assert tab["labelSize"] >= 14 * text_percent / 100, (case, tab)
    # The count sits on the Notifications tab's icon.
    bell = tabs[-1]
    assert m["badgeText"] == "3"
    badge = m["badge"]
    assert bell["box"]["left"] <= badge["left"] and badge["right"] <= bell["box"]["right"] + 0.5, (case, badge, bell)
    assert badge["bottom"] > bell["icon"]["top"] and badge["top"] < bell["icon"]["bottom"], (case, badge, bell)
    # At the bottom of the screen where the viewport is tall enough for it; otherwise after the content.
    tall_enough = m["viewport"] >= 30 * 16 * text_percent / 100
    assert m["fixed"] == tall_enough, (case, m["viewport"])
    if m["fixed"]:
        assert abs(m["bar"]["bottom"] - m["viewport"]) < 1, (case, m["bar"])
        # The bar keeps to a fifth of the screen.
        assert m["bar"]["bottom"] - m["bar"]["top"] <= m["viewport"] / 5, (case, m["bar"])
    else:
        assert m["bar"]["top"] >= m["main"]["bottom"] - 0.5, (case, m["bar"], m["main"])
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if not m["fixed"]:
        page.evaluate("document.querySelector('.tab-bar').scrollIntoView({block: 'end'})")
    page.screenshot(path=str(SCREENSHOTS / f"phone-{phone}-{scheme}-text-{text_percent}.png"))
    context.close()


@pytest.mark.parametrize("text_percent", [100, 200])
@pytest.mark.parametrize("phone", list(PHONES))
def test_neighbouring_buttons_keep_room_between_them(browser, server, phone, text_percent):
    context, page = open_at_text_size(browser, server, phone, "light", text_percent, "/assignments")
    acknowledge = page.get_by_role("button", name="Acknowledge the assignment with Kari Nordmann").bounding_box()
    decline = page.get_by_role("button", name="Decline the assignment with Kari Nordmann").bounding_box()
    same_row = abs(acknowledge["y"] - decline["y"]) < 1
    if same_row:
        gap = decline["x"] - (acknowledge["x"] + acknowledge["width"])
    else:
        gap = decline["y"] - (acknowledge["y"] + acknowledge["height"])
    assert gap >= 8, (phone, text_percent, acknowledge, decline)
    context.close()
