"""What the tests of several instances share: a new database on the test PostgreSQL server, Debian's nginx as the
load balancer, event-stream subscribers that resume with Last-Event-ID, and a JSON POST that never raises."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from sse_client import EventStream
from varsel_server import wait_until

POSTGRES = os.environ.get("VARSEL_TEST_POSTGRES_URL")


def new_database(server: str | None = None) -> str:
    """A new, empty database on `server` (the test PostgreSQL server by default); its URL."""
    server = server or POSTGRES
    name = "varsel_ha_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", server, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    return server.rsplit("/", 1)[0] + "/" + name


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Nginx:
    """Debian's nginx as the load balancer in front of the instances, event streams unbuffered."""

    def __init__(self, upstream_ports: list[int], next_upstream: str = "error timeout", fail_timeout: str = "30s") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="varsel-nginx-"))
        self.port = free_port()
        servers = "\n".join(f"    server 127.0.0.1:{port} max_fails=1 fail_timeout={fail_timeout};" for port in upstream_ports)
        user = "user root;" if os.geteuid() == 0 else ""
        (self.dir / "nginx.conf").write_text(f"""
{user}
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {self.dir}/body;
  proxy_temp_path {self.dir}/proxy;
  fastcgi_temp_path {self.dir}/fastcgi;
  uwsgi_temp_path {self.dir}/uwsgi;
  scgi_temp_path {self.dir}/scgi;
  upstream varsel {{
{servers}
  }}
  server {{
    listen 127.0.0.1:{self.port};
    location / {{
      proxy_pass http://varsel;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      # Server-Sent Events: pass each event on at once, and keep quiet streams open.
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_next_upstream {next_upstream};
    }}
  }}
}}
""")
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([binary, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"), "-g", "daemon off;"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert wait_until(lambda: socket.socket().connect_ex(("127.0.0.1", self.port)) == 0, 10), "nginx did not start"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class Subscriber:
    """An event stream through nginx that reconnects with Last-Event-ID whenever its connection drops."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.created: list[int] = []
        self.event_ids: list[int] = []
        self.reconnects = 0
        self.stopped = False
        self.stream = self._open(None)
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _open(self, last_event_id: str | None) -> EventStream:
        return EventStream("127.0.0.1", self.port, self.token, last_event_id)

    def _collect(self, stream: EventStream, seen: int) -> int:
        events = stream.snapshot()
        for event in events[seen:]:
            if event.id is not None:
                self.event_ids.append(int(event.id))
            if event.name == "notification.created":
                self.created.append(event.json["notification"]["id"])
        return len(events)

    def _watch(self) -> None:
        seen = 0
        while not self.stopped:
            seen = self._collect(self.stream, seen)
            if not self.stream.thread.is_alive():  # the connection dropped: resume where it stopped
                seen = self._collect(self.stream, seen)
                last = str(self.event_ids[-1]) if self.event_ids else None
                time.sleep(0.2)
                try:
                    self.stream = self._open(last)
                    seen = 0
                    self.reconnects += 1
                except OSError:
                    continue
            time.sleep(0.05)

    def close(self) -> None:
        self.stopped = True
        self.thread.join(5)
        self.stream.close()


def post(port: int, path: str, token: str | None, body: dict, key: str | None = None) -> tuple[int, dict | None]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if key:
        request.add_header("Idempotency-Key", key)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None
    except OSError:
        return 0, None
