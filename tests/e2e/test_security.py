"""The hardened HTTP layer against a real `varsel serve`: what only real sockets and a real browser show."""
from __future__ import annotations

import http.client
import io
import json
import re
import socket
import time

import pytest

from sse_client import EventStream
from varsel_server import DEMO_PASSWORD, VarselServer, wait_until


@pytest.fixture
def tuned(tmp_path):
    """A server with short timeouts, a low stream cap and a metrics token, for the tests that wait on them."""
    instance = VarselServer(database=tmp_path / "varsel.sqlite",
                            extra_args=["--idle-timeout", "1", "--stream-write-timeout", "1", "--streams-per-user", "2",
                                        "--metrics-token", "scrape"]).start()
    yield instance
    instance.stop()


def raw(server: VarselServer, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    """One request with the path sent exactly as written (no client-side normalization)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.putrequest(method, path, skip_accept_encoding=True)
    for key, value in headers.items():
        connection.putheader(key, value)
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def test_no_spelling_of_a_path_bypasses_csrf_on_a_real_socket(server):
    """Guards against this: `POST //api/v1/users` with an admin's cookie, text/plain and no CSRF header created an admin.

    The same attack on the route a coordinator may use: with the coordinator's cookie, no spelling of
    `/api/v1/notifications` creates a notification without the CSRF token."""
    coordinator = server.token("demo-coordinator")
    mentor = server.token("demo-mentor")
    before = server.request("GET", "/api/v1/notifications/unread-count", mentor)[2]["count"]
    body = b'{"recipients":["demo-mentor"],"kind":"scenarioPrompt","title":"Forged","body":"b"}'
    for path in ["//api/v1/notifications", "/api//v1/notifications", "/./api/v1/notifications", "/api/v1/../v1/notifications",
                 "/api%2Fv1/notifications", "/api/v1/notifications/", "/api/v1/notifications"]:
        for content_type in ["text/plain", "application/json"]:
            status, data = raw(server, "POST", path, {"Cookie": f"varsel_session={coordinator}", "Content-Type": content_type,
                                                      "Host": f"127.0.0.1:{server.port}"}, body)
            assert 400 <= status < 500, (path, status, data)
    assert server.request("GET", "/api/v1/notifications/unread-count", mentor)[2]["count"] == before


def test_signing_out_ends_the_live_stream_with_a_reason(server):
    """Guards against this: a notification created after sign-out still arrived on the stream."""
    mentor = server.token("demo-mentor")
    stream = EventStream("127.0.0.1", server.port, mentor)
    assert wait_until(lambda: "connected" in stream.comments)
    assert server.request("DELETE", "/api/v1/session", mentor)[0] == 204
    stream.thread.join(10)
    assert not stream.thread.is_alive(), "the stream must end when its session signs out"
    resets = [event.json for event in stream.snapshot() if event.name == "reset"]
    assert resets and resets[-1]["reason"] == "signed-out"
    stream.close()
    # The ended stream can hear nothing more; what could is a new one on the signed-out token, and that is refused.
    again = EventStream("127.0.0.1", server.port, mentor)
    assert wait_until(lambda: again.status is not None)
    assert again.status == 401
    again.close()


def test_opening_more_streams_than_allowed_closes_the_oldest_saying_why(tuned):
    """Guards against this: one mentor opened 2,000 streams; now a third stream (cap 2) closes the first."""
    mentor = tuned.token("demo-mentor")
    # One at a time: the server sends "connected" once it has counted a stream, so each is known to be older than the next.
    streams = []
    for _ in range(3):
        streams.append(EventStream("127.0.0.1", tuned.port, mentor))
        assert wait_until(lambda: "connected" in streams[-1].comments)
    streams[0].thread.join(10)
    assert not streams[0].thread.is_alive()
    assert [event.json["reason"] for event in streams[0].snapshot() if event.name == "reset"] == ["too-many-streams"]
    tuned.create(tuned.token("demo-coordinator"), "Still live", ["demo-mentor"])
    assert wait_until(lambda: "Still live" in streams[1].created_titles() and "Still live" in streams[2].created_titles())
    for stream in streams:
        stream.close()


def test_a_half_sent_request_is_closed_by_the_idle_timeout(tuned):
    """Guards against this: 300 half-sent requests stayed open."""
    sock = socket.create_connection(("127.0.0.1", tuned.port), timeout=10)
    sock.sendall(b"GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    started = time.monotonic()
    assert sock.recv(1024) == b""
    assert time.monotonic() - started < 8
    sock.close()


def open_streams(server: VarselServer) -> int:
    _, data = raw(server, "GET", "/metrics", {"Authorization": "Bearer scrape"})
    return int(re.search(rb"^varsel_event_streams_open (\d+)$", data, re.M).group(1))


def test_a_client_that_stops_reading_has_its_socket_closed(tuned):
    """Guards against this: slow stream clients were counted as closed but their sockets stayed open."""
    mentor = tuned.token("demo-mentor")
    coordinator = tuned.token("demo-coordinator")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", tuned.port))
    sock.sendall(f"GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {mentor}\r\n\r\n".encode())
    assert wait_until(lambda: open_streams(tuned) == 1)
    # The client reads nothing while large notifications pile up, until the server gives up on it.
    body = "x" * 3900
    sent = 0
    while open_streams(tuned) == 1 and sent < 3000:
        for _ in range(25):
            status, _, _ = tuned.request("POST", "/api/v1/notifications", coordinator,
                                         {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": f"Flood {sent}", "body": body})
            assert status == 201
            sent += 1
    assert wait_until(lambda: open_streams(tuned) == 0, timeout=10), f"still open after {sent} notifications"
    # The socket is really closed: once the client drains what was sent, it reads the end of the stream.
    sock.settimeout(10)
    try:
        while sock.recv(1 << 20):
            pass
    except ConnectionResetError:
        pass
    sock.close()


def test_a_title_naming_a_listed_person_is_refused_and_a_body_naming_them_is_never_announced(page, server):
    coordinator = server.token("demo-coordinator")
    status, _, problem = server.request("POST", "/api/v1/notifications", coordinator, {
        "recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "Visit Ola Privatnavn today", "body": "b",
        "personalDetails": ["Ola Privatnavn"]})
    assert status == 422 and "title" in problem["detail"] and "Privatnavn" not in str(problem)
    status, _, _ = server.request("POST", "/api/v1/notifications", coordinator, {
        "recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "A visit today", "body": "Ola Privatnavn, Storgata 1",
        "personalDetails": ["Ola Privatnavn", "Storgata 1"]})
    assert status == 201
    assert wait_until(lambda: "New notification: A visit today" in page.inner_text("#live-polite"))
    assert wait_until(lambda: "Ola Privatnavn" in page.locator("#notification-list li").first.inner_text())
    assert "Privatnavn" not in page.inner_text("#live-polite")


def test_following_a_notification_without_javascript_lands_on_the_heading_and_reads_it(browser, server):
    """GET …/open does not mark read; showing the target screen to its owner does."""
    mentor = server.token("demo-mentor")
    status, _, listing = server.request("GET", "/api/v1/notifications?filter=unread", mentor)
    item = next(entry for entry in listing["items"] if entry["kind"] == "assignment")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.base_url + "/signin")
    page.fill("#username", "demo-mentor")
    page.fill("#password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/notifications")
    page.click(f'a[href="/notifications/{item["id"]}/open"]')
    page.wait_for_url(re.compile(r".*/contacts/\d+\?.*from=notification.*"))
    # The browser runs `autofocus` when it next renders, which can be just after the load event on a busy machine.
    page.wait_for_function("document.activeElement && document.activeElement.tagName === 'H1'", timeout=5000)
    assert page.evaluate("document.activeElement.id") == "contact-name-heading"
    status, _, after = server.request("GET", f"/api/v1/notifications/{item['id']}", mentor)
    assert status == 200 and after["isUnread"] is False
    context.close()


def test_head_answers_as_get_would_without_a_body_on_one_kept_alive_connection(server):
    """HEAD on a real socket: the GET's status and framing headers, no body bytes (the next response on the same
    connection parses), and a HEAD of the event stream returns at once without opening a stream."""
    mentor = server.token("demo-mentor")
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for path, auth in (("/healthz", None), ("/api/v1/preferences", mentor), ("/signin", None), ("/api/v1/events", mentor),
                           ("/api/v1/nowhere", mentor), ("/api/v1/session", mentor)):
            headers = {"Authorization": f"Bearer {auth}"} if auth else {}
            connection.request("GET", path, headers=headers)
            got = connection.getresponse()
            if path == "/api/v1/events":
                # The stream never ends: its status and type are enough, on a connection of its own.
                got_status, got_type, got_length = got.status, got.getheader("Content-Type"), None
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            else:
                got_status, got_type, got_length = got.status, got.getheader("Content-Type"), len(got.read())
            connection.request("HEAD", path, headers=headers)
            head = connection.getresponse()
            assert head.read() == b"", path
            assert (head.status, head.getheader("Content-Type")) == (got_status, got_type), path
            if got_length is not None and head.status == 200:
                assert head.getheader("Content-Length") == str(got_length), path
        assert head.status == 405 and head.getheader("Allow") == "DELETE, POST"
        # The connection is still in step: a GET after all those HEADs reads its own answer.
        connection.request("GET", "/healthz")
        after = connection.getresponse()
        assert after.status == 200 and after.read()
    finally:
        connection.close()


# Requests that are not HTTP/1.1: what is wrong with each, its bytes, the status it gets and the header it names.
NOT_HTTP = [
    ("a header line without a colon", b"GET /healthz HTTP/1.1\r\nHost: x\r\nKari Nordmann\r\n\r\n", 400, None),
    ("a Content-Length that is not a number",
     b"POST /api/v1/session HTTP/1.1\r\nHost: x\r\nContent-Length: Storgata\r\n\r\n", 400, "Content-Length"),
    ("two Content-Lengths", b"POST /api/v1/session HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
     400, "Content-Length"),
    ("a chunk size that is not hexadecimal",
     b"POST /api/v1/session HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nKari\r\n", 400, "Transfer-Encoding"),
    ("header fields over 80 KiB", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Kari: " + b"a" * 90_000 + b"\r\n\r\n", 431, None),
    ("another protocol's bytes (a TLS hello)", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(20), 400, None),
    ("a request line ending in a bare LF", b"GET /healthz HTTP/1.1\nHost: x\n\n", 400, None),
]


class _Received(io.BytesIO):
    """What a connection received, read one response after another (http.client closes a response's file)."""

    def close(self) -> None:
        pass

    def makefile(self, mode: str) -> "_Received":
        return self


def read_to_end(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection; one it leaves open fails with the socket's timeout."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def answer_to_raw_bytes(server: VarselServer, data: bytes) -> tuple[list[http.client.HTTPResponse], list[bytes]]:
    """Sends `data` as it is on one connection, reads until the server closes it (a connection left open fails with a
    timeout), and returns the answers in order with their bodies."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(data)
        received = read_to_end(sock)
    stream = _Received(received)
    responses, bodies = [], []
    while stream.tell() < len(received):
        response = http.client.HTTPResponse(stream)  # type: ignore[arg-type]
        response.begin()
        responses.append(response)
        bodies.append(response.read())
    return responses, bodies


@pytest.mark.parametrize("wrong, data, status, field", NOT_HTTP, ids=[case[0] for case in NOT_HTTP])
def test_a_request_that_is_not_http_gets_a_problem_saying_what_is_wrong_and_the_connection_closes(server, wrong, data, status, field):
    [response], [body] = answer_to_raw_bytes(server, data)
    assert response.status == status
    assert response.getheader("Content-Type") == "application/problem+json"
    assert (response.getheader("X-Content-Type-Options"), response.getheader("Cache-Control")) == ("nosniff", "no-store")
    assert response.getheader("Connection") == "close" and response.getheader("Content-Length") == str(len(body))
    assert response.getheader("Server") == "Varsel" and re.fullmatch(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT",
                                                                      response.getheader("Date") or ""), response.getheader("Date")
    problem = json.loads(body)
    assert problem["status"] == status and problem["detail"].startswith("The request")
    assert [error["field"] for error in problem.get("errors", [])] == ([field] if field else [])
    assert b"Kari" not in body and b"Storgata" not in body  # what was sent is never repeated
    # The server goes on serving.
    assert raw(server, "GET", "/healthz", {})[0] == 200


def test_a_malformed_request_after_a_good_one_on_the_same_connection_is_answered_after_it(server):
    [first, second], [first_body, second_body] = answer_to_raw_bytes(
        server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nKari Nordmann\r\n\r\n")
    assert (first.status, first_body) == (200, b"ok\n")
    assert second.status == 400 and json.loads(second_body)["title"] == "Bad Request"


def test_a_request_already_answered_is_not_answered_again_when_the_rest_of_its_bytes_are_not_http(server):
    # A chunked body over 64 KiB is refused (413) before it has all come; what follows it is broken, and is not
    # answered a second time: the connection closes with nothing more.
    chunk = b"a" * 70_000
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"POST /api/v1/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n" + f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n1\r\na\r\n")
        refused = http.client.HTTPResponse(sock)
        refused.begin()
        assert refused.status == 413 and json.loads(refused.read())["status"] == 413
        sock.sendall(b"zz\r\n")
        assert read_to_end(sock) == b""


def test_connection_close_in_any_case_closes_the_connection_after_the_answer(server):
    # Left open, the connection would wait for the idle timeout (30 s), past the reading's own (10 s).
    [answered], [body] = answer_to_raw_bytes(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n")
    assert (answered.status, body) == (200, b"ok\n")


def test_an_http_1_0_request_has_its_connection_closed_after_the_answer_unless_it_asks_to_keep_it(server):
    # Left open, the connection would wait for the idle timeout (30 s), past the reading's own (10 s).
    [answered], [body] = answer_to_raw_bytes(server, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert (answered.status, body) == (200, b"ok\n")
    # One that asks to keep it gets a second request answered on it; the second, without keep-alive, closes it.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        kept = http.client.HTTPResponse(sock)
        kept.begin()
        assert (kept.status, kept.read()) == (200, b"ok\n")
        sock.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        received = read_to_end(sock)
    assert received.startswith(b"HTTP/1.1 200 OK\r\n") and received.endswith(b"\r\n\r\nok\n")
