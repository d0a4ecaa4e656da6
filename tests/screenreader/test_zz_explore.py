import time
from conftest import normalize, subprocess_type
from varsel_server import DEMO_PASSWORD


def coordinator(reader):
    reader.page.evaluate("""() => fetch('/signout', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
        body: '_csrf=' + encodeURIComponent(document.body.dataset.csrf)})""")
    reader.page.goto(reader.server.base_url + "/signin")
    reader.page.fill("#username", "demo-coordinator")
    reader.page.fill("#password", DEMO_PASSWORD)
    reader.page.click("button[type=submit]")
    reader.page.wait_for_url("**/notifications")


def show(label, spoken):
    print(f"--- {label}")
    for s in spoken:
        print("   ", repr(s))


def tabs(reader, n=30):
    for i in range(n):
        s = reader.press("Tab")
        show(f"tab {i}", s)
        if any("page tab" in t for t in s):
            return


def test_explore(reader):
    coordinator(reader)
    show("load people", reader.goto("/people"))
    tabs(reader)
    show("load coordinator", reader.goto("/coordinator"))
    show("tabbar", reader.tab_until(lambda t: "page tab" in t, key="shift+Tab")[0])
    for k in ["Left", "Left", "Left", "End", "Home"]:
        show(k, reader.press(k))
    show("load coordinator", reader.goto("/coordinator"))
    tabs(reader)
    show("load new", reader.goto("/people/new"))
    tabs(reader)
