"""Attack probes against a real `varsel serve --demo`: prints each probe as DEFENDED or OPEN and the totals.

Run against any build (VARSEL_BIN=/path/to/varsel) to compare before and after; exits 1 if any probe is open.
"""
from __future__ import annotations

import concurrent.futures
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from sse_client import EventStream  # noqa: E402
from varsel_server import DEMO_PASSWORD, VarselServer, varsel_binary, wait_until  # noqa: E402


def raw(server, method, path, headers=None, body=b""):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=15)
    connection.putrequest(method, path, skip_accept_encoding=True)
    for key, value in (headers or {}).items():
        connection.putheader(key, value)
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


def json_call(server, method, path, token=None, body=None, content_type="application/json"):
    headers = {"Content-Type": content_type}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return raw(server, method, path, headers, json.dumps(body).encode() if body is not None else b"")


def sign_in(server, username, password=DEMO_PASSWORD, headers=None):
    return json_call_with(server, "POST", "/api/v1/session", {"username": username, "password": password}, headers or {})


def json_call_with(server, method, path, body, headers):
    return raw(server, method, path, {"Content-Type": "application/json", **headers}, json.dumps(body).encode())


def probes(server: VarselServer, new_server) -> dict[str, bool]:
    results: dict[str, bool] = {}
    coordinator = server.token("demo-coordinator")
    mentor = server.token("demo-mentor")
    unread = lambda: json.loads(json_call(server, "GET", "/api/v1/notifications/unread-count", mentor)[2])["count"]  # noqa: E731
    forged = b'{"recipients":["demo-mentor"],"kind":"scenarioPrompt","title":"Forged","body":"b"}'
    for name, path in [("csrf //api", "//api/v1/notifications"), ("csrf /./api", "/./api/v1/notifications"),
                       ("csrf %2F", "/api%2Fv1/notifications"), ("csrf trailing slash", "/api/v1/notifications/")]:
        before = unread()
        status, _, _ = raw(server, "POST", path, {"Cookie": f"varsel_session={coordinator}", "Content-Type": "text/plain"}, forged)
        results[name] = not (200 <= status < 300) and unread() == before
    status, _, _ = json_call(server, "POST", "/api/v1/notifications", coordinator, json.loads(forged), content_type="text/plain")
    results["json body as text/plain is 415"] = status == 415
    status, headers, _ = raw(server, "POST", "/signin", {"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"},
                             f"username=demo-mentor&password={DEMO_PASSWORD}".encode())
    results["login CSRF (cross-site sign-in form)"] = "set-cookie" not in headers
    for label, target in [("%5C", "/%5Cevil.example/"), ("tab", "/%09/evil.example"), ("/\\", "/%5C/evil.example")]:
        status, headers, _ = raw(server, "POST", "/signin", {"Content-Type": "application/x-www-form-urlencoded"},
                                 f"username=demo-mentor&password={DEMO_PASSWORD}&next={target}".encode())
        results[f"open redirect next={label}"] = headers.get("location") == "/notifications"
    # The open route, without following its redirect.
    listing = json.loads(json_call(server, "GET", "/api/v1/notifications?filter=unread", mentor)[2])
    target = listing["items"][0]["id"]
    raw(server, "GET", f"/notifications/{target}/open", {"Cookie": f"varsel_session={mentor}"})
    results["GET /open has no side effect"] = json.loads(json_call(server, "GET", f"/api/v1/notifications/{target}", mentor)[2])["isUnread"]
    status, _, _ = json_call(server, "POST", "/api/v1/pause", mentor, {"until": "2031-13-01"})
    results["impossible date 2031-13-01 refused"] = status == 422
    status, _, _ = json_call(server, "POST", "/api/v1/notifications", coordinator,
                             {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "a" + "\u0301" * 3000, "body": "b"})
    results["length in scalars (1 letter + 3000 marks)"] = status == 422
    status, _, _ = json_call(server, "PUT", "/api/v1/preferences", mentor,
                             {"enabledKinds": ["assignment", "assignment"], "sound": True, "vibration": True, "systemNotifications": False,
                              "speakPersonalDetails": False})
    results["uniqueItems enabledKinds"] = status == 422
    status, headers, _ = json_call(server, "PATCH", "/api/v1/preferences", mentor, {})
    results["405 + Allow"] = status == 405 and "allow" in headers
    status, _, data = json_call(server, "POST", "/api/v1/notifications", coordinator,
                                {"recipients": ["demo-mentor"], "kind": "Kari Secretname", "title": "t", "body": "b"})
    results["errors do not echo input"] = b"Secretname" not in data
    # The coordinator's page form, with its CSRF token from the API sign-in.
    session = json.loads(sign_in(server, "demo-coordinator")[2])
    before = unread()
    status, _, _ = raw(server, "POST", "/coordinator/notifications",
                       {"Cookie": f"varsel_session={session['token']}", "Content-Type": "application/x-www-form-urlencoded"},
                       f"_csrf={session['csrfToken']}&recipient=1&kind=scenarioPrompt&title=Bell%07Esc%1B&body=b".encode())
    results["page form refuses control characters"] = status == 422 and unread() == before
    for label, path, token in [("JSON", "/api/v1/me", mentor), ("problem+json", "/api/v1/nowhere", mentor), ("static", "/static/varsel.css", None)]:
        _, headers, _ = raw(server, "GET", path, {"Authorization": f"Bearer {token}"} if token else {})
        results[f"nosniff on {label}"] = headers.get("x-content-type-options") == "nosniff"
    assignment = json.loads(json_call(server, "POST", "/api/v1/assignments", coordinator,
                                      {"mentor": "demo-mentor", "contact": {"name": "Per Olsen", "phone": "", "address": "Torggata 3", "notes": ""}})[2])
    _, headers, _ = raw(server, "GET", f"/api/v1/contacts/{assignment['assignment']['contactId']}", {"Authorization": f"Bearer {mentor}"})
    results["no-store on contact API"] = "no-store" in headers.get("cache-control", "")
    status, _, _ = raw(server, "GET", "/metrics")
    results["/metrics not anonymous"] = status != 200
    status, _, problem = json_call(server, "POST", "/api/v1/notifications", coordinator,
                                   {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "Visit Ola Privatnavn today",
                                    "body": "b", "personalDetails": ["Ola Privatnavn"]})
    results["a title naming a listed person is refused, not echoed"] = status == 422 and "Privatnavn" not in str(problem)
    # Streams: sign-out ends them; a cap on one user's streams.
    token = server.token("demo-mentor")
    stream = EventStream("127.0.0.1", server.port, token)
    wait_until(lambda: "connected" in stream.comments, 5)
    json_call(server, "DELETE", "/api/v1/session", token)
    server.create(coordinator, "After sign-out", ["demo-mentor"])
    time.sleep(1)
    results["sign-out ends the stream"] = "After sign-out" not in stream.created_titles()
    stream.close()
    streams = [EventStream("127.0.0.1", server.port, mentor) for _ in range(12)]
    wait_until(lambda: all("connected" in s.comments for s in streams), 10)
    time.sleep(0.5)
    results["per-user stream cap (12 opened)"] = not streams[0].thread.is_alive()
    for s in streams:
        s.close()
    # Sign-in throttle last: it locks sign-in from this client for a while.
    with concurrent.futures.ThreadPoolExecutor(40) as pool:
        statuses = list(pool.map(lambda _: sign_in(server, "demo-mentor", "wrong password")[0], range(40)))
    results["40 parallel wrong sign-ins: at most 5 checked"] = statuses.count(401) <= 5
    limited = sum(sign_in(server, f"user{n}", "Spring2026!")[0] == 429 for n in range(30))
    results["spraying 30 usernames from one client throttled"] = limited > 0
    return results


def lockout_probe(trusted: bool) -> bool:
    """An attacker's wrong passwords (from another client) must not lock the mentor out."""
    with tempfile.TemporaryDirectory() as directory:
        extra = ["--trusted-proxy", "127.0.0.1/32"] if trusted else []
        server = VarselServer(database=Path(directory) / "v.sqlite", extra_args=extra).start()
        try:
            for _ in range(6):
                sign_in(server, "demo-mentor", "wrong password", {"X-Forwarded-For": "203.0.113.9"})
            return sign_in(server, "demo-mentor", headers={"X-Forwarded-For": "198.51.100.7"})[0] == 201
        finally:
            server.stop()


def main() -> int:
    help_text = subprocess.run([str(varsel_binary()), "serve", "--help"], capture_output=True, text=True).stdout
    has_trusted_proxy = "--trusted-proxy" in help_text
    with tempfile.TemporaryDirectory() as directory:
        server = VarselServer(database=Path(directory) / "varsel.sqlite").start()
        try:
            results = probes(server, has_trusted_proxy)
        finally:
            server.stop()
    results["attacker cannot lock a mentor out"] = lockout_probe(has_trusted_proxy)
    for name, defended in results.items():
        print(f"{'DEFENDED' if defended else 'OPEN    '}  {name}")
    open_count = sum(not value for value in results.values())
    print(f"{len(results)} probes: {len(results) - open_count} defended, {open_count} open ({varsel_binary()})")
    return 1 if open_count else 0


if __name__ == "__main__":
    sys.exit(main())
