"""The user command next to a running server, the page language, and logs free of personal details."""
import glob
import os
import subprocess

import pytest

from ax_tree import find
from varsel_server import VarselServer, varsel_binary

POSTGRES = os.environ.get("VARSEL_TEST_POSTGRES_URL")


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
    assert "nora\tmentor\tactive\tnb" in listing.stdout
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
    assert status == 404 and "Per Olsen" not in problem["detail"]
    server.stop()
    log = "".join(server.output)
    assert "assignment created" in log
    for secret in ["Per Olsen", "Torggata", "+47 400", "Ring twice", "Kari Nordmann", "Storgata"]:
        assert secret not in log


def run_varsel(*arguments, stdin="", env=None, timeout=60):
    return subprocess.run([str(varsel_binary()), *arguments], input=stdin, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def assert_one_sentence(result):
    """A command-line refusal: exit code 1, one sentence (after any log lines), no Swift type name or dump."""
    assert result.returncode == 1, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0] and errors[0].endswith("."), result.stderr
    for swift_words in ("InvalidInput", "Validation.Issue", "StoreError", "Error(", "issues: ["):
        assert swift_words not in result.stderr, result.stderr


def test_the_command_line_answers_in_one_sentence_with_exit_code_1(tmp_path):
    short = run_varsel("serve", "--demo", "--port", "0", "--database", str(tmp_path / "demo.sqlite"),
                       env={"VARSEL_DEMO_PASSWORD": "short"})
    assert_one_sentence(short)
    assert "VARSEL_DEMO_PASSWORD must be 8 to 72 characters" in short.stderr and "short" not in short.stderr
    bad_role = run_varsel("user", "add", "kim", "--role", "boss", "--database", str(tmp_path / "users.sqlite"), "--bcrypt-cost", "4",
                          stdin="a long password\n")
    assert_one_sentence(bad_role)
    assert "role must be mentor, coordinator or admin" in bad_role.stderr
    assert_one_sentence(run_varsel("serve", "--commit-interval=-1", "--database", str(tmp_path / "x.sqlite")))
    unreachable = run_varsel("user", "list", "--database", "postgres://varsel:secret-word@127.0.0.1:1/varsel")
    assert_one_sentence(unreachable)
    assert "PostgreSQL" in unreachable.stderr and "secret-word" not in unreachable.stderr
    # Mistakes in the arguments themselves: one sentence pointing at --help, not the usage dump.
    missing = run_varsel("user", "deactivate")
    assert_one_sentence(missing)
    assert missing.stderr.strip() == "Error: Missing expected argument '<name>'. See `varsel --help`."
    assert_one_sentence(run_varsel("user", "reset-link", "nobody", "--database", str(tmp_path / "users.sqlite")))
    assert_one_sentence(run_varsel("user", "frobnicate"))


@pytest.mark.skipif(not POSTGRES, reason="needs VARSEL_TEST_POSTGRES_URL (scripts/test.sh starts PostgreSQL)")
def test_the_first_admin_of_a_fresh_postgresql_database_is_added_from_the_command_line(tmp_path):
    # A database of its own, made with PostgreSQL's own client: nothing in it yet, not even Varsel's tables.
    name = f"varsel_first_admin_{os.getpid()}"
    psql = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))[-1]
    subprocess.run([psql, POSTGRES, "-v", "ON_ERROR_STOP=1", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    fresh = POSTGRES.rsplit("/", 1)[0] + "/" + name
    added = run_varsel("user", "add", "first-admin", "--role", "admin", "--database", fresh, "--bcrypt-cost", "4",
                       stdin="a long password\n")
    assert added.returncode == 0, added.stderr
    assert "Added admin first-admin" in added.stdout
    # The URL from the environment keeps its password out of the process list.
    listing = run_varsel("user", "list", env={"VARSEL_DATABASE": fresh})
    assert listing.returncode == 0 and "first-admin\tadmin\tactive\ten" in listing.stdout, listing.stderr
    # The server on that database lets the new admin sign in.
    server = VarselServer(database=fresh, demo=False).start()
    try:
        admin = server.token("first-admin", "a long password")
        # The admin adds a coordinator, who gets a one-time link; the command line can make a new one and deactivate.
        status, _, invited = server.request("POST", "/api/v1/users", admin, {"username": "coord", "role": "coordinator"})
        assert status == 201, invited
        reset = run_varsel("user", "reset-link", "coord", "--public-url", "https://varsel.example", env={"VARSEL_DATABASE": fresh})
        assert reset.returncode == 0, reset.stderr
        code = reset.stdout.split("/password/")[1].split()[0]
        assert code != invited["setPasswordLink"]["code"]
        status, _, _ = server.request("POST", "/api/v1/password", None, {"code": invited["setPasswordLink"]["code"], "password": "coordinator pw"})
        assert status == 404, "the newer link replaced the first"
        status, _, _ = server.request("POST", "/api/v1/password", None, {"code": code, "password": "coordinator pw"})
        assert status == 204
        assert server.token("coord", "coordinator pw")
        deactivated = run_varsel("user", "deactivate", "coord", env={"VARSEL_DATABASE": fresh})
        assert deactivated.returncode == 0 and deactivated.stdout.startswith("Deactivated coord in postgres://varsel@") and ": 1 session ended" in deactivated.stdout, deactivated.stderr
        status, _, refused = server.request("POST", "/api/v1/session", None, {"username": "coord", "password": "coordinator pw"})
        assert status == 403, refused
    finally:
        server.stop()
