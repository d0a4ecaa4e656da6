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
    token = reader.server.token("demo-coordinator")
    status, _, body = reader.server.request("POST", "/api/v1/users", token, {"username": "nils.dahl", "displayName": "Nils Dahl", "role": "mentor", "locale": "en"})
    print(status, body)
    st, _, person = reader.server.request("GET", "/api/v1/users/3", token)
    print(person)
    link = body["setPasswordLink"]["url"]
    browser = reader.page.context.browser
    context = browser.new_context()
    page = context.new_page()
    mark = reader.desktop.mark()
    page.goto(link)
    reader.desktop.focus_window("Choose your password")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Address and search bar"), 20, since=mark)
    reader.desktop.wait_for_quiet(1.0, 20)
    show("window", reader.spoken_since(mark))
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading Choose"), 20, since=mark)
    reader.desktop.wait_for_quiet(1.5, 20)
    show("password load", reader.spoken_since(mark))
    old = reader.page
    reader.page = page
    show("tab", reader.press("Tab"))
    subprocess_type(reader.desktop, "correct horse battery")
    show("tab", reader.press("Tab"))
    subprocess_type(reader.desktop, "correct horse battery staple")
    show("tab", reader.press("Tab"))
    mark = reader.desktop.mark()
    reader.desktop.key("Return")
    reader.desktop.wait_for_speech(lambda u: u.text.startswith("Finished loading"), 20, since=mark)
    reader.desktop.wait_for_quiet(1.5, 20)
    show("after error", reader.spoken_since(mark))
    for i in range(4):
        show(f"tab {i}", reader.press("Tab"))
    reader.page = old
    context.close()
    reader.desktop.focus_window(old.title())
    show("back", reader.goto("/people"))
