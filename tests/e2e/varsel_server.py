"""Start and stop a real `varsel serve` process on a temporary SQLite file, for end-to-end tests."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO_PASSWORD = "demo-password-for-tests"


def varsel_binary() -> Path:
    """The varsel executable built by `swift build` (override with VARSEL_BIN)."""
    configured = os.environ.get("VARSEL_BIN")
    path = Path(configured) if configured else ROOT / ".build" / "debug" / "varsel"
    if not path.exists():
        raise RuntimeError(f"{path} does not exist: run `swift build` first")
    return path


@dataclass
class VarselServer:
    """One server process; `restart()` stops it gracefully and starts it again on the same database."""

    # A SQLite file, or a PostgreSQL URL (postgres://…) for several instances on one database.
    database: Path | str
    demo: bool = True
    port: int = 0
    extra_args: list[str] = field(default_factory=list)
    # The name clients reach it by: `localhost` where WebAuthn needs a name (it refuses IP-address origins).
    host_name: str = "127.0.0.1"
    process: subprocess.Popen | None = None
    output: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://{self.host_name}:{self.port}"

    def start(self) -> "VarselServer":
        args = [str(varsel_binary()), "serve", "--port", str(self.port), "--database", str(self.database), "--bcrypt-cost", "4"]
        if self.demo:
            args.append("--demo")
        args += self.extra_args
        env = dict(os.environ, VARSEL_DEMO_PASSWORD=DEMO_PASSWORD)
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        ready = threading.Event()

        def pump() -> None:
            assert self.process and self.process.stdout
            for line in self.process.stdout:
                self.output.append(line)
                match = re.search(r"listening on http://[\d.]+:(\d+)", line)
                if match:
                    self.port = int(match.group(1))
                    ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(60):
            self.stop()
            raise RuntimeError("varsel did not start:\n" + "".join(self.output))
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def restart(self) -> None:
        """Graceful stop, then start on the same port and file (the demo is loaded only once)."""
        self.stop()
        self.start()

    # JSON API helpers -------------------------------------------------------------------------

    def request(self, method: str, path: str, token: str | None = None, body: object | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict, object]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
                return response.status, dict(response.headers), json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, dict(error.headers), json.loads(raw) if raw else None

    def token(self, username: str, password: str = DEMO_PASSWORD) -> str:
        status, _, body = self.request("POST", "/api/v1/session", body={"username": username, "password": password})
        assert status == 201, body
        return body["token"]

    def create(self, token: str, title: str, recipients: list, kind: str = "scenarioPrompt") -> int:
        status, _, body = self.request("POST", "/api/v1/notifications", token,
                                       {"recipients": recipients, "kind": kind, "title": title, "body": "Body of " + title})
        assert status == 201, body
        return body["items"][0]["id"]


def wait_until(predicate, timeout: float = 20.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
