"""Fuzz the served OpenAPI document with schemathesis, as a mentor, a coordinator and an admin.

Adds an admin with `varsel user add` to a new temporary database, starts `varsel serve --demo` on it (the binary of
`swift build`), signs in, and runs `schemathesis run` with every check for each role within a time budget
(FUZZ_SECONDS per role, default 30). Fails on any check's failure: a 5xx, a valid request refused or an invalid one
accepted, a status, header, content type or body the document does not state, a wrong answer to an undeclared
method, or an error that is not problem+json. Prints the number of cases and failures per role.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from varsel_server import DEMO_PASSWORD, VarselServer, varsel_binary  # noqa: E402

# Every check schemathesis has, and ours (errors_are_problem_json, registered by hooks.py).
CHECKS = "all"
ADMIN = "fuzz-admin"
# Where a check expects other answers than by default, and why.
CONFIG = Path(__file__).parent / "schemathesis.toml"
# Two operations are not sent at all, for what they do rather than what they check:
# - GET /api/v1/events is a Server-Sent Events stream that never ends by design (heartbeats keep it open), so every
#   request would wait for the request timeout and the response could never be read whole to check;
# - signOut (DELETE /api/v1/session) ends the session whose bearer token the fuzzer sends with every request, so every
#   operation after the first sign-out would be answered 401 and the rest of the run would test nothing.
# Both are tested elsewhere, in tests/e2e and Tests/VarselWebTests.
EXCLUDE = ["--exclude-path", "/api/v1/events", "--exclude-operation-id", "signOut"]
# One worker: CPython 3.11 keeps the AST constructor's recursion depth per interpreter, not per thread, so
# schemathesis's worker threads parsing lambdas at once fail with "SystemError: AST constructor recursion depth
# mismatch" (python/cpython#106905) — a tool error that failed CI, not a finding about Varsel.
WORKERS = os.environ.get("FUZZ_WORKERS", "1")


def fuzz(server: VarselServer, role: str, username: str, token: str, seconds: int) -> tuple[int, int, str]:
    command = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run", server.base_url + "/api/v1/openapi.yaml",
               "--url", server.base_url, "--header", f"Authorization: Bearer {token}", "--checks", CHECKS,
               "--max-time", str(seconds), "--workers", WORKERS, "--seed", os.environ.get("FUZZ_SEED", "8"),
               "--no-color", "--suppress-health-check", "all", "--request-timeout", "10", *EXCLUDE]
    env = dict(os.environ, SCHEMATHESIS_HOOKS="hooks", PYTHONPATH=str(Path(__file__).parent))
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=Path(__file__).parent)
    output = result.stdout + result.stderr
    cases = sum(int(n) for n in re.findall(r"(\d+) generated", output)) or sum(int(n) for n in re.findall(r"Test cases:\s*(\d+)", output))
    print(f"--- schemathesis as {role} ({username}): exit {result.returncode}, {cases} cases")
    return result.returncode, cases, output


def add_admin(database: Path) -> None:
    """Adds the admin the fuzzer signs in as, with the command line, before the server starts on the database."""
    subprocess.run([str(varsel_binary()), "user", "add", ADMIN, "--role", "admin", "--database", str(database),
                    "--bcrypt-cost", "4"], input=DEMO_PASSWORD + "\n", capture_output=True, text=True, check=True)


def main() -> int:
    seconds = int(os.environ.get("FUZZ_SECONDS", "30"))
    failed = False
    with tempfile.TemporaryDirectory() as directory:
        database = Path(directory) / "varsel.sqlite"
        add_admin(database)
        server = VarselServer(database=database).start()
        try:
            # Every session first: fuzzing the sign-in operation as one role trips the sign-in throttle, which
            # would then refuse the next role's own sign-in.
            roles = [(role, username, server.token(username))
                     for role, username in (("mentor", "demo-mentor"), ("coordinator", "demo-coordinator"), ("admin", ADMIN))]
            for role, username, token in roles:
                code, _, output = fuzz(server, role, username, token, seconds)
                if code != 0:
                    failed = True
                    print(output[-12000:])
                else:
                    print("\n".join(line for line in output.splitlines()[-12:]))
            log = "".join(server.output)
            if "request failed" in log:
                failed = True
                print("the server logged a failed request (a 5xx):\n" + log[-4000:])
        finally:
            server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
