"""A stand-in push service on loopback, and a device's push keys, for testing Web Push without the internet.

The service records every push it is sent and answers 201, or what a test queued for that endpoint
(404, 410, 429 with Retry-After, 500 …). The device decrypts pushes with `http_ece` and checks VAPID with
`py_vapid`: independent implementations of RFC 8291 and RFC 8292, not Varsel's.
"""
from __future__ import annotations

import base64
import os
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import py_vapid
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Push:
    """One push as the push service received it."""

    path: str
    headers: dict[str, str]
    body: bytes
    at: float
    status: int


class StandInPushService:
    """An HTTP server on 127.0.0.1 that plays a push service (RFC 8030 §5)."""

    def __init__(self) -> None:
        self.received: list[Push] = []
        self._answers: dict[str, list[tuple[int, dict[str, str]]]] = {}
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with service._lock:
                    queued = service._answers.get(self.path, [])
                    status, headers = queued.pop(0) if queued else (201, {})
                    service.received.append(Push(self.path, {k: v for k, v in self.headers.items()}, body, time.monotonic(), status))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def endpoint(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/push/{name}"

    def answer(self, name: str, *responses: tuple[int, dict[str, str]]) -> None:
        """Queues answers for the endpoint `name`, used in order; 201 after them."""
        with self._lock:
            self._answers.setdefault(f"/push/{name}", []).extend(responses)

    def pushes(self, name: str) -> list[Push]:
        with self._lock:
            return [push for push in self.received if push.path == f"/push/{name}"]

    def wait_for(self, name: str, count: int, timeout: float = 20.0) -> list[Push]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pushes = self.pushes(name)
            if len(pushes) >= count:
                return pushes
            time.sleep(0.05)
        raise AssertionError(f"the push service got {len(self.pushes(name))} pushes for {name}, expected {count}")

    def close(self) -> None:
        self._server.shutdown()


class Device:
    """A browser's push keys: a P-256 key pair and an auth secret, as PushManager.subscribe makes them."""

    def __init__(self) -> None:
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth_secret = os.urandom(16)

    @property
    def p256dh(self) -> str:
        return b64url(self.private_key.public_key().public_bytes(serialization.Encoding.X962,
                                                                  serialization.PublicFormat.UncompressedPoint))

    def subscription(self, endpoint: str) -> dict:
        """The body `PushSubscription.toJSON()` gives."""
        return {"endpoint": endpoint, "expirationTime": None, "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth_secret)}}

    def decrypt(self, push: Push) -> bytes:
        """Decrypts with http_ece, as the browser would (RFC 8291, aes128gcm)."""
        return http_ece.decrypt(push.body, private_key=self.private_key, auth_secret=self.auth_secret, version="aes128gcm")


def verify_vapid(push: Push, audience: str) -> dict:
    """Checks the push's VAPID header with py_vapid (RFC 8292) and returns the JWT's claims."""
    authorization = push.headers["Authorization"]
    assert py_vapid.Vapid02.verify(authorization), "py_vapid rejected the VAPID signature"
    fields = dict(part.split("=", 1) for part in authorization.split(" ", 1)[1].split(","))
    claims = py_vapid.jwt.decode(fields["t"], fields["k"])
    assert claims["aud"] == audience
    assert claims["exp"] > time.time()
    return claims
