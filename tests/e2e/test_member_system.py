"""A member system's own case system assigns mentors through a Swift client generated from the served OpenAPI document.

The client is `tests/member-system`, built apart from Varsel with `swift build --package-path tests/member-system`.
Its generated code is checked in; `scripts/generate-member-system-client.sh` makes it again when the document changes.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from test_cli_and_privacy import run_varsel
from varsel_server import ROOT, VarselServer

MEMBER_SYSTEM_PACKAGE = ROOT / "tests" / "member-system"
MEMBER_SYSTEM_BINARY = MEMBER_SYSTEM_PACKAGE / ".build" / "debug" / "member-system"
# The document the package's generator reads: a symbolic link to the resource the server serves.
GENERATOR_INPUT = MEMBER_SYSTEM_PACKAGE / "Sources" / "member-system" / "openapi.yaml"
SERVED_RESOURCE = ROOT / "Sources" / "VarselWeb" / "Resources" / "openapi.yaml"


_tokens: dict[str, str] = {}


def member_system_token(server: VarselServer) -> str:
    """The member system's integration token, made once per server as an operator would: `varsel token create`."""
    database = str(server.database)
    if database not in _tokens:
        made = run_varsel("token", "create", "Member system", "--role", "coordinator", "--database", database)
        assert made.returncode == 0, made.stderr
        _tokens[database] = made.stdout.strip()
    return _tokens[database]


def member_system_binary() -> Path:
    """The built client; a missing one fails the test, since skipping would hide that it was never built."""
    if not MEMBER_SYSTEM_BINARY.exists():
        pytest.fail(f"{MEMBER_SYSTEM_BINARY} does not exist: build it with `swift build --package-path tests/member-system`")
    return MEMBER_SYSTEM_BINARY


def run_member_system(server: VarselServer, token: str, *arguments: str) -> subprocess.CompletedProcess:
    """Runs the client against `server` with `token`, capturing its output."""
    environment = dict(os.environ, VARSEL_URL=server.base_url, VARSEL_TOKEN=token)
    return subprocess.run([str(member_system_binary()), *arguments], capture_output=True, env=environment,
                          timeout=60, cwd=ROOT)


def reported_state(result: subprocess.CompletedProcess) -> dict:
    """The one JSON line a successful run prints."""
    assert result.returncode == 0, result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1, lines
    return json.loads(lines[0])


def assert_one_sentence_error(result: subprocess.CompletedProcess) -> str:
    """A failed run: exit status 1, nothing on standard output, and one sentence on standard error."""
    message = result.stderr.decode()
    assert result.returncode == 1, (result.returncode, message)
    assert result.stdout == b""
    lines = message.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("member-system: ") and lines[0].endswith("."), lines[0]
    return lines[0]


def served_document(server: VarselServer) -> bytes:
    """The OpenAPI document as the running server serves it, byte for byte."""
    with urllib.request.urlopen(server.base_url + "/api/v1/openapi.yaml", timeout=30) as response:
        assert response.status == 200
        return response.read()


def assignment_ids(server: VarselServer, token: str) -> set[int]:
    """The ids of the assignments the token's user sees, read with plain HTTP."""
    status, _, body = server.request("GET", "/api/v1/assignments", token)
    assert status == 200, body
    return {summary["id"] for summary in body}


def user_id(server: VarselServer, coordinator_token: str, username: str) -> int:
    """A person's user id, read with plain HTTP."""
    status, _, body = server.request("GET", "/api/v1/users", coordinator_token)
    assert status == 200, body
    ids = [user["id"] for user in body if user["username"] == username]
    assert len(ids) == 1, (username, body)
    return ids[0]


def test_the_client_was_generated_from_the_served_document(server):
    served = served_document(server)
    assert GENERATOR_INPUT.is_symlink() and GENERATOR_INPUT.resolve() == SERVED_RESOURCE.resolve()
    assert GENERATOR_INPUT.read_bytes() == served
    # The digest recorded beside the generated client when it was generated, as compiled into the binary.
    result = subprocess.run([str(member_system_binary()), "generated-from"], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode() == hashlib.sha256(served).hexdigest() + "\n", (
        "the member system's client was generated from another document: generate it again with "
        "`scripts/generate-member-system-client.sh` and build it with `swift build --package-path tests/member-system`")


def test_the_member_system_assigns_a_mentor_and_follows_the_state(server):
    token = member_system_token(server)
    coordinator = server.token("demo-coordinator")
    mentor = server.token("demo-mentor")
    mentor_id = user_id(server, coordinator, "demo-mentor")
    before = assignment_ids(server, mentor)

    created = reported_state(run_member_system(server, token, "assign", "demo-mentor", "--name", "Kari Nordmann",
                                               "--address", "Storgata 1, 0155 Oslo", "--notes", "Ring the bell twice."))
    assert set(created) == {"id", "mentorId", "state"}
    assert created["mentorId"] == mentor_id
    assert created["state"] == "pending"
    assert created["id"] not in before

    # What the API says for that id, asked with plain HTTP by the system that made it and by the mentor. A coordinator
    # sees the assignments they made themselves: this one is the member system's, not the demo coordinator's.
    status, _, as_system = server.request("GET", f"/api/v1/assignments/{created['id']}", token)
    assert status == 200, as_system
    assert (as_system["mentorId"], as_system["status"]) == (mentor_id, created["state"])
    assert server.request("GET", f"/api/v1/assignments/{created['id']}", coordinator)[0] == 404
    assert {key: as_system["contact"][key] for key in ("name", "address", "notes")} == {
        "name": "Kari Nordmann", "address": "Storgata 1, 0155 Oslo", "notes": "Ring the bell twice."}
    status, _, as_mentor = server.request("GET", f"/api/v1/assignments/{created['id']}", mentor)
    assert status == 200, as_mentor
    assert as_mentor["status"] == created["state"]
    assert assignment_ids(server, mentor) == before | {created["id"]}

    status, _, acknowledged = server.request("POST", f"/api/v1/assignments/{created['id']}/acknowledge", mentor)
    assert status == 200, acknowledged
    after = reported_state(run_member_system(server, token, "state", str(created["id"])))
    assert after == {"id": created["id"], "mentorId": mentor_id, "state": "acknowledged"}
    status, _, as_system = server.request("GET", f"/api/v1/assignments/{created['id']}", token)
    assert status == 200 and as_system["status"] == after["state"], as_system


def test_the_member_system_refuses_an_unknown_mentor_and_a_bad_token(server):
    token = member_system_token(server)
    before = assignment_ids(server, token)

    unknown = assert_one_sentence_error(run_member_system(server, token, "assign", "no-such-mentor",
                                                          "--name", "Kari Nordmann", "--address", "Storgata 1"))
    assert "no-such-mentor" in unknown and "Kari" not in unknown

    refused = assert_one_sentence_error(run_member_system(server, token + "x", "assign", "demo-mentor",
                                                          "--name", "Kari Nordmann", "--address", "Storgata 1"))
    assert "(401)" in refused and "Kari" not in refused and token not in refused

    assert assignment_ids(server, token) == before
