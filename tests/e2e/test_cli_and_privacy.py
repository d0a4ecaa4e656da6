"""The user command next to a running server, the page language, and logs free of personal details."""
import subprocess

from ax_tree import find
from varsel_server import varsel_binary


def add_user(server, name, role, locale, password="a long password"):
    return subprocess.run(
        [str(varsel_binary()), "user", "add", name, "--role", role, "--locale", locale, "--database", str(server.database),
         "--bcrypt-cost", "4"],
        input=password + "\n", capture_output=True, text=True, timeout=60)


def test_user_add_works_while_the_server_runs_on_the_same_database(server):
    result = add_user(server, "nora", "mentor", "nb")
    assert result.returncode == 0, result.stderr
    assert "Added mentor nora" in result.stdout
    assert server.token("nora", "a long password")
    listing = subprocess.run([str(varsel_binary()), "user", "list", "--database", str(server.database)],
                             capture_output=True, text=True, timeout=60)
    assert "nora\tmentor\tnb" in listing.stdout
    duplicate = add_user(server, "nora", "mentor", "nb")
    assert duplicate.returncode != 0 and "username is taken" in duplicate.stderr
    bad = add_user(server, "x", "boss", "de", password="short")
    assert bad.returncode != 0 and "role must be mentor, coordinator or admin" in bad.stderr


def test_a_norwegian_mentor_gets_norwegian_pages_with_a_matching_lang(browser, server):
    assert add_user(server, "nora", "mentor", "nb").returncode == 0
    coordinator = server.token("demo-coordinator")
    server.create(coordinator, "Ny øvelse", ["nora"])
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.goto(server.base_url + "/signin")
    page.fill("#username", "nora")
    page.fill("#password", "a long password")
    page.click("button[type=submit]")
    page.wait_for_url("**/notifications")
    assert page.evaluate("document.documentElement.lang") == "nb"
    assert find(page, "tab", "Varsler, 1 ulest")
    assert find(page, "group", "Filter: Alle")
    assert find(page, "link", "Scenariooppgave: Ny øvelse, Body of Ny øvelse, akkurat nå, ulest")
    context.close()


def test_logs_never_carry_the_personal_details_of_visited_people(server):
    coordinator = server.token("demo-coordinator")
    status, _, body = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "contact": {"name": "Per Olsen", "phone": "+47 400 00 000", "address": "Torggata 3", "notes": "Ring twice"}})
    assert status == 201
    mentor = server.token("demo-mentor")
    server.request("GET", f"/api/v1/contacts/{body['assignment']['contactId']}", mentor)
    server.request("POST", f"/api/v1/assignments/{body['assignment']['id']}/acknowledge", mentor)
    # Errors about contacts do not repeat what was sent either.
    status, _, problem = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "nobody", "contact": {"name": "Per Olsen", "phone": "", "address": "Torggata 3", "notes": ""}})
    assert status == 422 and "Per Olsen" not in problem["detail"]
    server.stop()
    log = "".join(server.output)
    assert "assignment created" in log
    for secret in ["Per Olsen", "Torggata", "+47 400", "Ring twice", "Kari Nordmann", "Storgata"]:
        assert secret not in log
