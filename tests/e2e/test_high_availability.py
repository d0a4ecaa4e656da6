"""Several Varsel instances on one PostgreSQL database, behind nginx, survive the loss of one.

Started for real: the test PostgreSQL server (VARSEL_TEST_POSTGRES_URL, from ./scripts/test.sh), two `varsel
serve` processes on one new database, and Debian's nginx in front as the load balancer (event streams proxied
unbuffered). Subscribers stream through nginx; a coordinator sends a burst through nginx; one instance is killed
with SIGKILL in the middle. Every notification the service accepted (201) must reach every subscriber exactly once
after it reconnects with Last-Event-ID — whichever instance it lands on.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import json
from pathlib import Path

import pytest

from sse_client import EventStream
from varsel_server import VarselServer, wait_until

POSTGRES = os.environ.get("VARSEL_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(not POSTGRES or not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists(),
                                reason="needs VARSEL_TEST_POSTGRES_URL (scripts/test.sh starts PostgreSQL) and nginx")


def new_database() -> str:
    name = "varsel_ha_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", POSTGRES, "-q", "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    return POSTGRES.rsplit("/", 1)[0] + "/" + name


def free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Nginx:
    """Debian's nginx as the load balancer in front of the instances, event streams unbuffered."""

    def __init__(self, upstream_ports: list[int]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="varsel-nginx-"))
        self.port = free_port()
        servers = "\n".join(f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=30s;" for port in upstream_ports)
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
      proxy_next_upstream error timeout;
    }}
  }}
}}
""")
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([binary, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"), "-g", "daemon off;"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        import socket
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


def test_two_instances_behind_nginx_lose_and_double_nothing_when_one_is_killed(tmp_path):
    database = new_database()
    first = VarselServer(database=database).start()
    second = VarselServer(database=database).start()  # the demo is loaded once, by the first
    nginx = Nginx([first.port, second.port])
    subscribers: list[Subscriber] = []
    try:
        status, body = post(nginx.port, "/api/v1/session", None, {"username": "demo-mentor", "password": "demo-password-for-tests"})
        assert status == 201
        mentor = body["token"]
        status, body = post(nginx.port, "/api/v1/session", None, {"username": "demo-coordinator", "password": "demo-password-for-tests"})
        coordinator = body["token"]
        subscribers = [Subscriber(nginx.port, mentor) for _ in range(4)]
        assert wait_until(lambda: all(s.stream.status == 200 for s in subscribers))

        accepted: list[int] = []
        refused = 0
        for n in range(160):
            if n == 60:
                first.process.kill()  # SIGKILL: no goodbye to its streams or its clients
                first.process.wait()
            key = f"burst-{n}"
            for _ in range(20):  # a request the dead instance dropped is sent again, with the same key
                status, body = post(nginx.port, "/api/v1/notifications", coordinator,
                                    {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": f"Burst {n}", "body": "b"}, key)
                if status == 201:
                    accepted.append(body["items"][0]["id"])
                    break
                refused += 1
                time.sleep(0.1)
        assert len(accepted) == 160 and len(set(accepted)) == 160

        def complete() -> bool:
            return all(set(accepted) <= set(s.created) for s in subscribers)
        assert wait_until(complete, 60), [len(set(accepted) - set(s.created)) for s in subscribers]
        # One more notification, after the burst: a stream delivers in id order, so once each subscriber has it,
        # any repeat of the burst would already have arrived.
        status, body = post(nginx.port, "/api/v1/notifications", coordinator,
                            {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "After the burst", "body": "b"})
        assert status == 201
        last = body["items"][0]["id"]
        assert wait_until(lambda: all(last in s.created for s in subscribers), 60)
        for subscriber in subscribers:
            burst = [i for i in subscriber.created if i in set(accepted)]
            assert len(burst) == len(set(burst)) == 160, "a notification arrived twice"
            assert subscriber.event_ids == sorted(subscriber.event_ids) and len(subscriber.event_ids) == len(set(subscriber.event_ids))
        # The streams that were on the killed instance reconnected through nginx to the other one.
        assert sum(s.reconnects for s in subscribers) >= 1
        print(f"accepted 160, retried {refused} requests, {sum(s.reconnects for s in subscribers)} reconnections")
    finally:
        for subscriber in subscribers:
            subscriber.close()
        nginx.stop()
        first.stop()
        second.stop()
