"""A minimal Server-Sent Events client over a raw socket, so a test can drop the connection at will."""
from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field


@dataclass
class Event:
    id: str | None
    name: str
    data: str

    @property
    def json(self):
        return json.loads(self.data)


@dataclass
class EventStream:
    """Reads `/api/v1/events` on a background thread into `events`; `close()` drops the connection. With `player`,
    it asks for what the web page plays too (`?player=web`: announcements and cues)."""

    host: str
    port: int
    token: str
    last_event_id: str | None = None
    events: list[Event] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    retry: int | None = None
    status: int | None = None
    player: bool = False

    def __post_init__(self) -> None:
        self.sock = socket.create_connection((self.host, self.port), timeout=30)
        lines = [f"GET /api/v1/events{'?player=web' if self.player else ''} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Authorization: Bearer {self.token}",
                 "Accept: text/event-stream"]
        if self.last_event_id is not None:
            lines.append(f"Last-Event-ID: {self.last_event_id}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        buffer = b""
        headers_done = False
        chunked = False
        body = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                if not headers_done:
                    if b"\r\n\r\n" not in buffer:
                        continue
                    head, buffer = buffer.split(b"\r\n\r\n", 1)
                    self.status = int(head.split(b" ")[1])
                    chunked = b"transfer-encoding: chunked" in head.lower()
                    headers_done = True
                if chunked:
                    while True:
                        if b"\r\n" not in buffer:
                            break
                        size_line, rest = buffer.split(b"\r\n", 1)
                        size = int(size_line.split(b";")[0], 16)
                        if size == 0:
                            # The last events may share a read with the end of the stream.
                            self._parse(body)
                            return
                        if len(rest) < size + 2:
                            break
                        body += rest[:size]
                        buffer = rest[size + 2:]
                else:
                    body += buffer
                    buffer = b""
                body = self._parse(body)
        except OSError:
            pass

    def _parse(self, body: bytes) -> bytes:
        while b"\n\n" in body:
            block, body = body.split(b"\n\n", 1)
            event_id, name, data = None, "message", []
            for line in block.decode().split("\n"):
                if line.startswith(":"):
                    with self.lock:
                        self.comments.append(line[1:].strip())
                elif line.startswith("id:"):
                    event_id = line[3:].strip()
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif line.startswith("retry:"):
                    self.retry = int(line[6:].strip())
            if data:
                with self.lock:
                    self.events.append(Event(event_id, name, "\n".join(data)))
        return body

    def snapshot(self) -> list[Event]:
        with self.lock:
            return list(self.events)

    def created_titles(self) -> list[str]:
        return [e.json["notification"]["title"] for e in self.snapshot() if e.name == "notification.created"]

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(5)
