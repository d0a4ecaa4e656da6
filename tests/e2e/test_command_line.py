"""The operator's command line: every command names its database, none makes one it was not asked to, and each
failure is its own sentence with exit code 1."""
import glob
import os
import re
import subprocess
import time
import urllib.request

import pytest

from test_cli_and_privacy import POSTGRES, assert_one_sentence, run_varsel

ELSEWHERE = "Error: There is no database at {}: check --database or VARSEL_DATABASE; only `varsel serve` and `varsel user add` make a new one."


def shown(path):
    return os.path.abspath(str(path))


def test_help_for_a_command_that_does_not_exist_is_refused():
    for arguments in (["help", "nosuch"], ["help", "user", "nosuch"], ["help", "user", "help", "nosuch"]):
        result = run_varsel(*arguments)
        assert_one_sentence(result)
        assert result.stderr == "Error: There is no command 'nosuch'. See `varsel --help`.\n", result.stderr
        assert result.stdout == ""
    # Options are not help's: the command's own options would be refused as unknown to it.
    for arguments, option, command in ((["help", "serve", "--port", "5"], "--port", "varsel help serve"),
                                       (["help", "user", "add", "-x"], "-x", "varsel help user add"),
                                       (["help", "serve", "--database=postgres://varsel:s3cret@db/varsel"], "--database", "varsel help serve")):
        result = run_varsel(*arguments)
        assert_one_sentence(result)
        assert result.stderr == f"Error: `varsel help` takes command names only, not '{option}'. See `{command}`.\n"
        assert result.stdout == ""
    for arguments in (["help", "user", "add"], ["help", "help"], ["help", "--help"], ["help", "serve", "--help"]):
        known = run_varsel(*arguments)
        assert known.returncode == 0 and known.stdout.startswith("OVERVIEW: "), (arguments, known.stdout, known.stderr)


def test_version_is_printed():
    result = run_varsel("--version")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"varsel \d+\.\d+\.\d+\n", result.stdout), result.stdout


def test_commands_that_read_or_change_people_refuse_a_database_that_does_not_exist(tmp_path):
    typo = tmp_path / "typo.sqlite"
    for arguments in (["user", "list"], ["user", "deactivate", "kari"], ["user", "reactivate", "kari"], ["user", "reset-link", "kari"]):
        result = run_varsel(*arguments, "--database", str(typo))
        assert_one_sentence(result)
        assert result.stderr.strip() == ELSEWHERE.format(shown(typo)), (arguments, result.stderr)
        assert not typo.exists(), f"{arguments} made {typo}"
    # The default, ./varsel.sqlite, is refused the same way and not made in the working directory.
    listing = subprocess.run([*run_varsel_command(), "user", "list"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                             env={key: value for key, value in os.environ.items() if key != "VARSEL_DATABASE"})
    assert_one_sentence(listing)
    assert listing.stderr.strip() == ELSEWHERE.format(shown(tmp_path / "varsel.sqlite"))
    assert list(tmp_path.iterdir()) == []


def run_varsel_command():
    from varsel_server import varsel_binary
    return [str(varsel_binary())]


def test_user_add_says_when_it_made_the_database_and_every_command_names_it(tmp_path):
    database = tmp_path / "people.sqlite"
    first = run_varsel("user", "add", "anne", "--role", "admin", "--display-name", "Anne Admin", "--database", str(database),
                       "--bcrypt-cost", "4", stdin="a long password\n")
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"Added admin anne (id 1) to the new database {shown(database)}.\n"
    second = run_varsel("user", "add", "bo", "--role", "mentor", "--database", str(database), "--bcrypt-cost", "4", stdin="a long password\n")
    assert second.stdout == f"Added mentor bo (id 2) to {shown(database)}.\n", second.stderr

    deactivated = run_varsel("user", "deactivate", "bo", "--database", str(database))
    assert deactivated.returncode == 0, deactivated.stderr
    assert deactivated.stdout == f"Deactivated bo in {shown(database)}: 0 sessions ended, sign-in refused; their data is kept.\n"
    again = run_varsel("user", "deactivate", "bo", "--database", str(database))
    assert again.returncode == 0 and again.stdout == f"bo in {shown(database)} is deactivated already; nothing changed.\n"

    # The table on standard output, with a header and each person's state; the count and the database beside it.
    listing = run_varsel("user", "list", "--database", str(database))
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.splitlines() == ["id\tusername\trole\tstate\tlanguage\tname",
                                           "1\tanne\tadmin\tactive\ten\tAnne Admin",
                                           "2\tbo\tmentor\tdeactivated\ten\tbo"]
    assert listing.stderr == f"2 people in {shown(database)}.\n"

    reactivated = run_varsel("user", "reactivate", "bo", "--database", str(database))
    assert reactivated.stdout == f"Reactivated bo in {shown(database)}: they can sign in again.\n", reactivated.stderr


def test_a_refused_user_add_leaves_no_new_database_behind(tmp_path):
    database = tmp_path / "people.sqlite"
    refused = run_varsel("user", "add", "kim", "--role", "boss", "--database", str(database), "--bcrypt-cost", "4", stdin="a long password\n")
    assert_one_sentence(refused)
    assert "role must be mentor, coordinator or admin" in refused.stderr
    assert list(tmp_path.iterdir()) == []


def test_user_add_with_a_link_reads_no_password_and_says_which_address_the_link_uses(tmp_path):
    database = tmp_path / "people.sqlite"
    environment = {"VARSEL_PUBLIC_URL": ""}
    # No standard input at all: with --link nothing is read from it.
    added = subprocess.run([*run_varsel_command(), "user", "add", "kari", "--role", "mentor", "--link", "--database", str(database)],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, env={**os.environ, **environment})
    assert added.returncode == 0, added.stderr
    lines = added.stdout.splitlines()
    assert lines[0] == f"Added mentor kari (id 1) to the new database {shown(database)}, with no password until they choose one."
    code = re.fullmatch(r"One-time set-password link for kari, valid once until \S+Z: http://localhost:8080/password/(\S+)", lines[1]).group(1)
    assert lines[2] == f"Or at http://localhost:8080/password, the code {code}."
    assert added.stderr == "No public URL is set (--public-url or VARSEL_PUBLIC_URL), so the link starts with http://localhost:8080.\n"

    # With the public URL from the environment, the link uses it and there is nothing to point out.
    reset = run_varsel("user", "reset-link", "kari", "--database", str(database), env={"VARSEL_PUBLIC_URL": "https://varsel.example"})
    assert reset.returncode == 0, reset.stderr
    assert reset.stdout.splitlines()[0] == f"Made a new set-password link for kari in {shown(database)}; their sessions have ended."
    assert "https://varsel.example/password/" in reset.stdout.splitlines()[1] and reset.stderr == ""

    bad = run_varsel("user", "reset-link", "kari", "--public-url", "varsel.example", "--database", str(database))
    assert_one_sentence(bad)
    assert bad.stderr.strip() == "Error: --public-url (or VARSEL_PUBLIC_URL) must be an http or https URL, such as https://varsel.example."
    stray = run_varsel("user", "add", "ola", "--role", "mentor", "--public-url", "https://varsel.example", "--database", str(database),
                       stdin="a long password\n")
    assert_one_sentence(stray)
    assert stray.stderr.strip() == "Error: --public-url goes with --link, which prints a link; without it no link is made."
    assert "ola" not in run_varsel("user", "list", "--database", str(database)).stdout


def test_serve_refuses_a_malformed_host_and_a_misspelt_option_without_making_a_database(tmp_path):
    database = tmp_path / "served.sqlite"
    host = run_varsel("serve", "--host", "0.0.0.0.0", "--port", "0", "--database", str(database))
    assert_one_sentence(host)
    assert host.stderr.strip().splitlines()[-1] == (
        "Error: --host must be an address of this machine or a name it resolves, such as 127.0.0.1, 0.0.0.0, :: or localhost.")
    option = run_varsel("serve", "--prot", "8080", "--database", str(database))
    assert_one_sentence(option)
    assert option.stderr.strip() == "Error: Unknown option '--prot'. Did you mean '--port'? See `varsel --help`."
    assert not database.exists()


def test_serve_says_when_it_made_a_new_database(tmp_path):
    from varsel_server import VarselServer
    server = VarselServer(database=tmp_path / "fresh.sqlite", demo=False).start()
    try:
        assert f"Made the new database {shown(tmp_path / 'fresh.sqlite')}" in "".join(server.output)
    finally:
        server.stop()
    again = VarselServer(database=tmp_path / "fresh.sqlite", demo=False).start()
    try:
        assert "Made the new database" not in "".join(again.output)
    finally:
        again.stop()


def psql(*statements):
    client = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))[-1]
    for statement in statements:
        subprocess.run([client, POSTGRES, "-v", "ON_ERROR_STOP=1", "-q", "-c", statement], check=True, capture_output=True)


def create_role(name, options=""):
    psql(f"DO $$ BEGIN CREATE ROLE {name} LOGIN {options}; EXCEPTION WHEN duplicate_object THEN NULL; END $$")


@pytest.fixture(scope="module")
def postgres_roles():
    if not POSTGRES:
        pytest.skip("needs VARSEL_TEST_POSTGRES_URL (scripts/test.sh starts PostgreSQL)")
    # scripts/postgres-for-tests.sh asks varsel_password for its password and never lets varsel_refused in.
    create_role("varsel_password", "PASSWORD 'the right one'")
    create_role("varsel_refused")
    create_role("varsel_plain")
    suffix = os.getpid()
    databases = {"plain": f"varsel_plain_{suffix}", "empty": f"varsel_empty_{suffix}", "own": f"varsel_own_{suffix}",
                 "checked": f"varsel_checked_{suffix}"}
    for key, name in databases.items():
        psql(f"CREATE DATABASE {name}" + (" OWNER varsel_password" if key == "own" else ""))
    server = POSTGRES.split("@", 1)[1].rsplit("/", 1)[0]
    return server, databases


def quickly(*arguments, stdin=""):
    """Runs a command and returns it with how long it took: a refusal is said at once, not after retries."""
    start = time.monotonic()
    result = run_varsel(*arguments, stdin=stdin)
    return result, time.monotonic() - start


def test_each_postgresql_failure_is_its_own_sentence_at_once(postgres_roles):
    server, databases = postgres_roles
    host, port = server.rsplit(":", 1)
    cases = [
        (f"postgres://varsel_password:wrong@{server}/postgres",
         "PostgreSQL refused the password for user varsel_password: check the password in the database URL."),
        (f"postgres://varsel_password@{server}/postgres",
         "PostgreSQL wants a password for user varsel_password, and the database URL has none: write it as "
         "postgres://varsel_password:password@host/database."),
        (f"postgres://nobody_here@{server}/postgres",
         "PostgreSQL has no user nobody_here: create it (createuser nobody_here) or correct the user in the database URL."),
        (f"postgres://varsel_refused@{server}/postgres",
         "PostgreSQL does not let user varsel_refused connect from this machine: allow it in the server's pg_hba.conf, or check the URL."),
        (f"postgres://varsel@{server}/no_such_database",
         "PostgreSQL has no database no_such_database: create it (createdb -O <user> no_such_database) or correct the database in the URL."),
        (f"postgres://varsel@{server}/{databases['empty']}",
         f"postgres://varsel@{server}/{databases['empty']} has no Varsel tables: check --database or VARSEL_DATABASE; only `varsel serve` "
         "and `varsel user add` set up a new database."),
        (f"postgres://varsel@{host}:1/postgres",
         f"Nothing accepts connections at {host}:1: check the host and port in the database URL, and that PostgreSQL is running there."),
        ("postgres://varsel@no-such-host.invalid/postgres",
         "The database host no-such-host.invalid cannot be found: check the host in the database URL."),
        (f"postgres://varsel:p@ss#w/rd@{server}/postgres",
         "The user name or password in the database URL holds @, #, /, ? or :, which must be percent-encoded "
         "(@ as %40, # as %23, / as %2F, ? as %3F, : as %3A)."),
    ]
    for url, sentence in cases:
        result, took = quickly("user", "list", "--database", url)
        assert_one_sentence(result)
        assert result.stderr.strip() == f"Error: {sentence}", (url, result.stderr)
        assert "wrong" not in result.stderr and "ss#w" not in result.stderr
        # The ten-second wait belongs to a server that does not answer; none of these waits for it.
        assert took < 9, (url, took)
    # A user add refused for its password sets nothing up either: the fields are checked before the database is opened.
    short, _ = quickly("user", "add", "anne", "--role", "admin", "--database", f"postgres://varsel@{server}/{databases['empty']}",
                       "--bcrypt-cost", "4", stdin="short\n")
    assert_one_sentence(short)
    # The empty database was refused, not set up.
    listed, _ = quickly("user", "list", "--database", f"postgres://varsel@{server}/{databases['empty']}")
    assert "has no Varsel tables" in listed.stderr

    # A user who may connect but not create tables is told so, where PostgreSQL's own words were only in its log.
    denied, took = quickly("user", "add", "anne", "--role", "admin", "--database", f"postgres://varsel_plain@{server}/{databases['plain']}",
                           "--bcrypt-cost", "4", stdin="a long password\n")
    assert_one_sentence(denied)
    assert denied.stderr.strip() == ("Error: PostgreSQL denied user varsel_plain the right to create or use Varsel's tables: make it the "
                                     "database's owner, or grant it CREATE and USAGE on schema public.")

    # user add sets up an empty database and says so; the next command just names it.
    added, _ = quickly("user", "add", "anne", "--role", "admin", "--database", f"postgres://varsel@{server}/{databases['plain']}",
                       "--bcrypt-cost", "4", stdin="a long password\n")
    assert added.stdout == f"Added admin anne (id 1) to postgres://varsel@{server}/{databases['plain']}, whose Varsel tables were set up now.\n"
    listing, _ = quickly("user", "list", "--database", f"postgres://varsel@{server}/{databases['plain']}")
    assert listing.stderr == f"1 person in postgres://varsel@{server}/{databases['plain']}.\n"


def test_serve_stops_at_once_with_the_same_sentence_on_a_refused_password(postgres_roles, tmp_path):
    server, databases = postgres_roles
    result, took = quickly("serve", "--port", "0", "--database", f"postgres://varsel_password:wrong@{server}/postgres")
    assert_one_sentence(result)
    assert result.stderr.strip().splitlines()[-1] == (
        "Error: PostgreSQL refused the password for user varsel_password: check the password in the database URL.")
    assert took < 9, took
    # The right password, percent-encoded, opens its own database, which serve sets up and says so.
    from varsel_server import VarselServer
    url = f"postgres://varsel_password:the%20right%20one@{server}/{databases['own']}"
    served = VarselServer(database=url, demo=False).start()
    try:
        with urllib.request.urlopen(f"{served.base_url}/healthz", timeout=30) as response:
            assert response.status == 200
        assert f"Set up Varsel's tables in postgres://varsel_password@{server}/{databases['own']}" in "".join(served.output)
        assert "the right one" not in "".join(served.output) and "the%20right%20one" not in "".join(served.output)
    finally:
        served.stop()


def test_check_says_what_serve_would_find_wrong_and_changes_nothing(tmp_path):
    database = tmp_path / "varsel.sqlite"
    unset = {"VARSEL_PUBLIC_URL": "", "VARSEL_DATA_KEY_FILE": "", "VARSEL_DATABASE": ""}
    missing = run_varsel("check", "--database", str(database), env=unset)
    assert_one_sentence(missing)
    assert missing.stdout.splitlines() == [
        f"Problem: There is no database at {shown(database)}: check --database or VARSEL_DATABASE; only `varsel serve` and "
        "`varsel user add` make a new one.",
        "Problem: No data key file is given (--data-key-file or VARSEL_DATA_KEY_FILE): personal details would be stored unencrypted; "
        "make one with `varsel keys create`.",
        "Problem: No public URL is set (--public-url or VARSEL_PUBLIC_URL): links in messages would start with the address the server "
        "listens on, and passkeys are off.",
        "OK: No VAPID key file is given: the server makes a VAPID key on its first start and keeps it in the database.",
        "Problem: No VAPID subject is set (--vapid-subject), and no https public URL stands in for it: push services may refuse pushes.",
    ]
    assert missing.stderr.strip() == "Error: 4 problems found: see the lines that start with Problem."
    assert not database.exists()

    # The demo encrypts the visited people's details under a key file beside its database.
    from varsel_server import VarselServer
    VarselServer(database=database).start().stop()
    key_file = str(database) + ".key"
    fine = run_varsel("check", "--database", str(database), "--data-key-file", key_file, "--public-url", "https://varsel.example", env=unset)
    assert fine.returncode == 0, fine.stdout + fine.stderr
    assert all(line.startswith("OK: ") for line in fine.stdout.splitlines()), fine.stdout
    assert f"OK: The data key file {key_file} opens everything encrypted in {shown(database)}" in fine.stdout
    # The demo's people each have a key of their own, in the key store beside the data key file.
    assert re.search(rf"^OK: The people's key store {re.escape(key_file)}\.people holds [1-9][0-9]* keys \(0 destroyed by erasure\); back it up "
                     r"apart from the database and keep those backups at most 7 days", fine.stdout, re.M), fine.stdout

    without = run_varsel("check", "--database", str(database), "--public-url", "https://varsel.example", env=unset)
    assert_one_sentence(without)
    assert (f"Problem: {shown(database)} holds encrypted personal details, and no data key file is given: name it with "
            "--data-key-file or VARSEL_DATA_KEY_FILE.") in without.stdout.splitlines()
    assert without.stderr.strip() == "Error: 1 problem found: see the line that starts with Problem."

    other = str(tmp_path / "other.key")
    assert run_varsel("keys", "create", "--data-key-file", other).returncode == 0
    wrong = run_varsel("check", "--database", str(database), "--data-key-file", other, "--public-url", "https://varsel.example", env=unset)
    assert_one_sentence(wrong)
    [line] = [line for line in wrong.stdout.splitlines() if "data key file" in line]
    assert re.fullmatch(rf"Problem: The data key file {re.escape(other)} lacks [0-9a-f]+, under which details in {re.escape(shown(database))} "
                        r"are encrypted: use the file the server used\.", line), line
    # Nothing was written: the same check passes with the right file, and the other file was not recorded anywhere.
    assert run_varsel("check", "--database", str(database), "--data-key-file", key_file, "--public-url", "https://varsel.example",
                      env=unset).returncode == 0


LAST_CHANGE = "v16: scheduled sends"


def applied_changes(database):
    import sqlite3
    with sqlite3.connect(database) as connection:
        return {row[0] for row in connection.execute("SELECT identifier FROM grdb_migrations")}


def contents(database):
    """Every table's definition and rows, as SQL: what a command must leave as it was (opening a database in WAL mode
    may still touch its header)."""
    import sqlite3
    connection = sqlite3.connect(database)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def database_changed_by(tmp_path, *statements):
    """A Varsel database with one admin, then changed by `statements` (SQL) as another version would have left it."""
    import sqlite3
    database = tmp_path / "varsel.sqlite"
    assert run_varsel("user", "add", "anne", "--role", "admin", "--database", str(database), "--bcrypt-cost", "4",
                      stdin="a long password\n").returncode == 0
    connection = sqlite3.connect(database)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()
    return database


def varsel_version():
    return run_varsel("--version").stdout.split()[-1]


def test_an_earlier_layout_is_only_said_by_check_and_brought_up_to_date_by_serve(tmp_path):
    from varsel_server import VarselServer
    # The file as the version before the last change left it.
    database = database_changed_by(tmp_path, "DROP TABLE scheduled_send",
                                   f"DELETE FROM grdb_migrations WHERE identifier = '{LAST_CHANGE}'")
    before = contents(database)

    checked = run_varsel("check", "--database", str(database), "--public-url", "https://varsel.example", env={"VARSEL_DATA_KEY_FILE": ""})
    assert checked.stdout.splitlines()[0] == (
        f"OK: The database {shown(database)} opens and has Varsel's tables from an earlier version: `varsel serve` brings them up to "
        "date (1 change); back the database up first."), checked.stdout
    assert contents(database) == before, "check changed the database"

    served = VarselServer(database=database, demo=False).start()
    served.stop()
    assert f"Brought the tables in {shown(database)} up to date for Varsel {varsel_version()} (1 change)" in "".join(served.output)
    assert LAST_CHANGE in applied_changes(database)
    again = run_varsel("check", "--database", str(database), "--public-url", "https://varsel.example", env={"VARSEL_DATA_KEY_FILE": ""})
    assert again.stdout.splitlines()[0] == f"OK: The database {shown(database)} opens and has Varsel's tables.", again.stdout


def test_a_database_a_later_version_changed_is_refused_by_every_command_and_left_as_it_is(tmp_path):
    database = database_changed_by(tmp_path, "INSERT INTO grdb_migrations (identifier) VALUES ('v99: a change of a later version')")
    before = contents(database)
    refusal = (f"{shown(database)} holds tables changed by a later version of Varsel than {varsel_version()}: run that later version; "
               "Varsel never takes a database back to an earlier layout.")
    for arguments in (["user", "list"], ["user", "add", "bo", "--role", "mentor", "--bcrypt-cost", "4"], ["token", "list"],
                      ["serve", "--port", "0"]):
        result = run_varsel(*arguments, "--database", str(database), stdin="a long password\n")
        assert_one_sentence(result)
        assert result.stderr.strip().splitlines()[-1] == f"Error: {refusal}", (arguments, result.stderr)
    checked = run_varsel("check", "--database", str(database), "--public-url", "https://varsel.example", env={"VARSEL_DATA_KEY_FILE": ""})
    assert checked.returncode == 1
    assert checked.stdout.splitlines()[0] == f"Problem: {refusal}", checked.stdout
    assert contents(database) == before, "a refused database was changed"
    assert sorted(item.name for item in tmp_path.iterdir()) == ["varsel.sqlite"]


def test_check_names_the_postgresql_version(postgres_roles):
    server, databases = postgres_roles
    url = f"postgres://varsel@{server}/{databases['checked']}"
    assert run_varsel("user", "add", "ola", "--role", "admin", "--database", url, "--bcrypt-cost", "4", stdin="a long password\n").returncode == 0
    result = run_varsel("check", "--database", url, "--public-url", "https://varsel.example", env={"VARSEL_DATA_KEY_FILE": ""})
    first = result.stdout.splitlines()[0]
    assert re.fullmatch(rf"OK: The database {re.escape(url)} opens and has Varsel's tables, "
                        r"on PostgreSQL \d+(\.\d+)?( \(.*\))?\.", first), first


def test_no_command_sets_up_varsel_in_a_file_that_is_not_a_varsel_database(tmp_path):
    import sqlite3
    empty, other, text = tmp_path / "empty.sqlite", tmp_path / "other.sqlite", tmp_path / "notes.sqlite"
    empty.write_bytes(b"")
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE mine (x)")
    text.write_text("not a database\n")
    before = {path: path.read_bytes() for path in (empty, other, text)}
    for path, said in ((empty, "is an SQLite database without Varsel's tables"), (other, "is an SQLite database without Varsel's tables"),
                       (text, "is not an SQLite database, or cannot be read")):
        for arguments in (["user", "list"], ["token", "list"], ["user", "add", "anne", "--role", "admin", "--bcrypt-cost", "4"],
                          ["serve", "--port", "0"]):
            result = run_varsel(*arguments, "--database", str(path), stdin="a long password\n")
            assert_one_sentence(result)
            assert result.stderr.strip().splitlines()[-1].startswith(f"Error: {shown(path)} {said}"), (arguments, result.stderr)
        checked = run_varsel("check", "--database", str(path), "--public-url", "https://varsel.example")
        assert checked.returncode == 1 and f"Problem: {shown(path)} {said}" in checked.stdout, checked.stdout
    assert {path: path.read_bytes() for path in before} == before, "a refused file was changed"
    assert sorted(item.name for item in tmp_path.iterdir()) == ["empty.sqlite", "notes.sqlite", "other.sqlite"]


def test_numbers_out_of_range_are_refused_by_name_before_anything_is_made(tmp_path):
    database = tmp_path / "never.sqlite"
    for arguments, said in (
            (["user", "add", "anne", "--role", "admin", "--bcrypt-cost", "2"], "--bcrypt-cost is a number from 4 to 31, such as 12."),
            (["serve", "--port", "0", "--bcrypt-cost", "40"], "--bcrypt-cost is a number from 4 to 31, such as 12."),
            (["serve", "--port", "70000"], "--port is a number from 1 to 65535, or 0 to pick a free one."),
            (["serve", "--port", "0", "--idle-timeout", "inf"], "--idle-timeout is a number of seconds above 0 and at most 86400, such as 30."),
            (["serve", "--port", "0", "--stream-write-timeout", "1e300"],
             "--stream-write-timeout is a number of seconds above 0 and at most 86400, such as 30."),
            # A negative number is a value, not an option the parser then misses a value for.
            (["serve", "--port", "-5"], "--port is a number from 1 to 65535, or 0 to pick a free one."),
            (["user", "add", "anne", "--role", "admin", "--bcrypt-cost", "-3"], "--bcrypt-cost is a number from 4 to 31, such as 12."),
            (["serve", "--port", "0", "--idle-timeout", "-1"], "--idle-timeout is a number of seconds above 0 and at most 86400, such as 30."),
            (["serve", "--port", "0", "--streams-per-user", "-2"], "--streams-per-user must be positive."),
            (["serve", "--port", "0", "--commit-interval", "-1"], "--commit-interval is a number of milliseconds from 0 to 1000, such as 3.")):
        result = run_varsel(*arguments, "--database", str(database), stdin="a long password\n")
        assert_one_sentence(result)
        assert result.stderr.strip().splitlines()[-1] == f"Error: {said}", (arguments, result.stderr)
    # Run where it would have left its temporary key file.
    empty_key = subprocess.run([*run_varsel_command(), "keys", "create", "--data-key-file", ""], cwd=tmp_path, capture_output=True,
                               text=True, timeout=60, env={key: value for key, value in os.environ.items() if key != "VARSEL_DATA_KEY_FILE"})
    assert_one_sentence(empty_key)
    assert list(tmp_path.iterdir()) == []


def test_a_start_that_fails_removes_the_database_and_the_key_it_made_and_says_so(tmp_path):
    import socket
    bad_key = tmp_path / "vapid.pem"
    bad_key.write_text("not a key\n")
    # A wrong VAPID key file is read before the database is opened: nothing is made.
    refused = run_varsel("serve", "--port", "0", "--database", str(tmp_path / "a.sqlite"), "--vapid-key-file", str(bad_key))
    assert_one_sentence(refused)
    assert sorted(item.name for item in tmp_path.iterdir()) == ["vapid.pem"]
    # A port in use is found only when the server listens: the new database and the demo's key file go again.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        database = tmp_path / "demo.sqlite"
        failed = run_varsel("serve", "--demo", "--port", str(port), "--database", str(database))
    finally:
        taken.close()
    assert_one_sentence(failed)
    assert f"Made the data key file {shown(database)}.key for the demo's personal details" in failed.stderr + failed.stdout
    assert failed.stderr.strip().splitlines()[-1] == (
        f"Error: Port {port} on 127.0.0.1 is in use by another program: choose another with --port, or stop the other program; "
        f"Varsel did not start, so it removed {shown(database)}, {shown(database)}.key and {shown(database)}.key.people, made for this start.")
    assert sorted(item.name for item in tmp_path.iterdir()) == ["vapid.pem"]


def test_refusals_about_a_person_name_the_database(tmp_path):
    database = tmp_path / "people.sqlite"
    assert run_varsel("user", "add", "anne", "--role", "admin", "--database", str(database), "--bcrypt-cost", "4",
                      stdin="a long password\n").returncode == 0
    taken = run_varsel("user", "add", "anne", "--role", "mentor", "--database", str(database), "--bcrypt-cost", "4", stdin="a long password\n")
    assert_one_sentence(taken)
    assert taken.stderr.strip() == f"Error: That username is taken in {shown(database)}: choose another, or see `varsel user list`."
    unknown = run_varsel("user", "deactivate", "nobody", "--database", str(database))
    assert_one_sentence(unknown)
    assert unknown.stderr.strip() == f"Error: There is no user with that username in {shown(database)}: see `varsel user list`."


def test_ready_waits_for_a_running_instance_and_says_in_one_sentence_when_nothing_answers(server):
    result = run_varsel("ready", "--port", str(server.port), "--wait", "10")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"The instance at 127.0.0.1:{server.port} is ready.\n"
    import socket
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    refused = run_varsel("ready", "--port", str(port), "--wait", "1")
    assert_one_sentence(refused)
    assert f"Nothing answered at 127.0.0.1:{port} within 1 second:" in refused.stderr
    assert_one_sentence(run_varsel("ready", "--port", "0"))
