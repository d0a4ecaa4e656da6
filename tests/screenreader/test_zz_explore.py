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


def submit(reader, label):
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading"), 20, since=mark)
    reader.desktop.wait_for_quiet(1.5, 20)
    show(label, reader.spoken_since(mark))





def test_explore(reader):
    coordinator(reader)
    reader.goto("/people/new")
    reader.tab_until(lambda t: t.startswith("Full name"))
    reader.tab_until(lambda t: t.startswith("Add push button"))
    submit(reader, "after add error")
    tabs(reader, 8)
    show("invalid link", reader.goto("/password/ABCD-EFGH-JKLM"))
    tabs(reader, 3)
