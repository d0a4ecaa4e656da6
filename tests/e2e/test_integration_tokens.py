"""Integration tokens from the command line: made with a role and shown once, listed with their last use, revoked
for good; a member system acts through one on a real server, as itself."""
import os
import re
import sqlite3

from test_cli_and_privacy import assert_one_sentence, run_varsel
from varsel_server import VarselServer

ELSEWHERE = "Error: There is no database at {}: check --database or VARSEL_DATABASE; only `varsel serve` and `varsel user add` make a new one."


def shown(path):
    return os.path.abspath(str(path))


def test_a_token_is_made_listed_used_and_revoked_from_the_command_line(tmp_path):
    database = tmp_path / "varsel.sqlite"
    server = VarselServer(database=database).start()
    try:
        made = run_varsel("token", "create", "Member system", "--role", "coordinator", "--database", str(database))
        assert made.returncode == 0, made.stderr
        token = made.stdout.strip()
        # Standard output holds the token alone, so `TOKEN=$(varsel token create …)` works; the sentence is beside it.
        assert re.fullmatch(r"varsel_it_[A-Za-z0-9_-]{43}", token), made.stdout
        sentence = made.stderr.strip()
        match = re.fullmatch(r'Made integration token (\d+) for "Member system" \(coordinator\) in (.+); it is shown this once: '
                             r"keep it in that system's secrets\.", sentence)
        assert match and match.group(2) == shown(database), sentence
        token_id = match.group(1)
        # Only the token's hash is kept.
        with sqlite3.connect(database) as db:
            stored = [value for row in db.execute("SELECT * FROM integration") for value in row]
        assert token not in [str(value) for value in stored] and stored

        listing = run_varsel("token", "list", "--database", str(database))
        assert listing.returncode == 0, listing.stderr
        header, row = listing.stdout.splitlines()
        assert header == "id\trole\tstate\tmade\tlast used\tname"
        assert re.fullmatch(rf"{token_id}\tcoordinator\tactive\t\d{{4}}-\d\d-\d\dT\d\d:\d\dZ\tnever\tMember system", row), row
        assert listing.stderr == f"1 integration token in {shown(database)}.\n"
        assert token not in listing.stdout

        # The member system creates an assignment for the demo mentor and reads its state.
        status, _, created = server.request("POST", "/api/v1/assignments", token, {
            "mentor": "demo-mentor", "contact": {"name": "Per Olsen", "phone": "900 00 000", "address": "Torggata 3", "notes": ""}})
        assert status == 201, created
        assignment_id = created["assignment"]["id"]
        status, _, read = server.request("GET", f"/api/v1/assignments/{assignment_id}", token)
        assert status == 200 and read["status"] == "pending", read
        used = run_varsel("token", "list", "--database", str(database)).stdout.splitlines()[1]
        assert "\tnever\t" not in used, used

        revoked = run_varsel("token", "revoke", token_id, "--database", str(database))
        assert revoked.returncode == 0, revoked.stderr
        assert revoked.stdout == (f'Revoked integration token {token_id} ("Member system") in {shown(database)}: it no longer works, '
                                  "and cannot be turned on again.\n")
        status, _, problem = server.request("GET", f"/api/v1/assignments/{assignment_id}", token)
        assert status == 401, problem
        again = run_varsel("token", "revoke", token_id, "--database", str(database))
        assert again.returncode == 0 and again.stdout == f"Integration token {token_id} in {shown(database)} is revoked already; nothing changed.\n"
        assert "\trevoked\t" in run_varsel("token", "list", "--database", str(database)).stdout
        # The token's account is nobody's person: not in the people list, not reactivated there.
        assert "Member system" not in run_varsel("user", "list", "--database", str(database)).stdout
    finally:
        server.stop()


def test_token_commands_refuse_in_one_sentence_and_make_no_database(tmp_path):
    typo = tmp_path / "typo.sqlite"
    for arguments in (["token", "create", "Member system", "--role", "coordinator"], ["token", "list"], ["token", "revoke", "3"]):
        result = run_varsel(*arguments, "--database", str(typo))
        assert_one_sentence(result)
        assert result.stderr.strip() == ELSEWHERE.format(shown(typo)), (arguments, result.stderr)
        assert not typo.exists(), f"{arguments} made {typo}"

    database = tmp_path / "varsel.sqlite"
    added = run_varsel("user", "add", "anne", "--role", "admin", "--database", str(database), "--bcrypt-cost", "4", stdin="a long password\n")
    assert added.returncode == 0, added.stderr
    mentor_role = run_varsel("token", "create", "Member system", "--role", "mentor", "--database", str(database))
    assert_one_sentence(mentor_role)
    assert "role must be coordinator or admin" in mentor_role.stderr
    blank = run_varsel("token", "create", "  ", "--role", "coordinator", "--database", str(database))
    assert_one_sentence(blank)
    assert "name" in blank.stderr
    unknown = run_varsel("token", "revoke", "1", "--database", str(database))
    assert_one_sentence(unknown)
    # Person 1 is anne: an id that is not a token's is no token, whoever it names.
    assert unknown.stderr.strip() == f"Error: There is no integration token 1 in {shown(database)}: see `varsel token list`."
    assert run_varsel("token", "list", "--database", str(database)).stderr == f"0 integration tokens in {shown(database)}.\n"
