"""A stand-in text-message gateway on loopback, for testing text messages without a provider.

It takes what a provider's HTTP API takes (a JSON object with a bearer token, or a form with basic authentication),
refuses a wrong token with 401, and records each message after checking it independently of Varsel: the number is
E.164 and the text encodes in the GSM 03.38 alphabet (the `gsm0338` codec) in at most 160 septets, one message.
It can be told to answer 503 for a while, as a gateway that is down.
"""
from __future__ import annotations

import base64
import json
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import gsm0338  # noqa: F401 (registers the "gsm03.38" codec)


@dataclass
class TextMessage:
    """One message as the gateway took it."""

    sender: str
    to: str
    text: str
    at: float


def septets(text: str) -> int:
    """How many GSM 03.38 septets `text` takes (an escaped character takes two); raises for a character outside it."""
    return len(text.encode("gsm03.38"))


class StandInGateway:
    """An HTTP server on 127.0.0.1 that plays an SMS gateway."""

    def __init__(self, token: str, form: bool = False) -> None:
        self.token = token
        self.form = form
        self.received: list[TextMessage] = []
        self.refusals: list[str] = []
        self._down = 0
        self._lock = threading.Lock()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status, why = gateway._take(self.headers, body)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps({"status": status, "detail": why}).encode())

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _take(self, headers, body: bytes) -> tuple[int, str]:
        with self._lock:
            if self._down > 0:
                self._down -= 1
                return 503, "down"
        authorization = headers.get("Authorization", "")
        if self.form:
            expected = "Basic " + base64.b64encode(self.token.encode()).decode()
            fields = {key: values[0] for key, values in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items()}
            sender, to, text = fields.get("from", ""), fields.get("to", ""), fields.get("message", "")
        else:
            expected = "Bearer " + self.token
            fields = json.loads(body)
            sender, to, text = fields.get("from", ""), fields.get("to", ""), fields.get("text", "")
        problem = None
        if authorization != expected:
            return 401, "wrong token"
        if not re.fullmatch(r"\+[1-9]\d{7,14}", to):
            problem = "not E.164: " + to
        else:
            try:
                if septets(text) > 160:
                    problem = f"over 160 septets: {septets(text)}"
            except (UnicodeEncodeError, ValueError):
                problem = "not GSM 03.38: " + text
        with self._lock:
            if problem:
                self.refusals.append(problem)
                return 400, problem
            self.received.append(TextMessage(sender, to, text, time.monotonic()))
        return 202, "queued"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/sms"

    def go_down(self, requests: int) -> None:
        """The next `requests` requests get 503."""
        with self._lock:
            self._down = requests

    def messages(self, to: str | None = None) -> list[TextMessage]:
        with self._lock:
            return [m for m in self.received if to is None or m.to == to]

    def close(self) -> None:
        self.server.shutdown()
