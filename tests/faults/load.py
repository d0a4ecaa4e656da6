"""Steady creates through the load balancer while something fails, and the check that the promise held: every create
the service acknowledged is stored once and reaches every stream once, no answer was a 500, and none took too long."""
from __future__ import annotations

import json
import queue
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from cluster import Subscriber
from varsel_server import DEMO_PASSWORD, wait_until

# The client's own limit for one request: a request not answered within it counts as hung.
CLIENT_TIMEOUT = 20.0


def call(port: int, method: str, path: str, token: str | None = None, body: dict | None = None,
         key: str | None = None) -> tuple[int, dict | None, float]:
    """One request; its status (0 when there was no answer), its JSON, and how long it took."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode())
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if key:
        request.add_header("Idempotency-Key", key)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=CLIENT_TIMEOUT) as response:
            raw = response.read()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = {"text": raw.decode()}
            return response.status, parsed, time.monotonic() - started
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = {"text": raw.decode()}
        return error.code, parsed, time.monotonic() - started
    except OSError:
        return 0, None, time.monotonic() - started


def sign_in(port: int, username: str) -> str:
    status, body, _ = call(port, "POST", "/api/v1/session", body={"username": username, "password": DEMO_PASSWORD})
    assert status == 201, body
    return body["token"]


@dataclass
class Answer:
    started: float
    seconds: float
    status: int


@dataclass
class Load:
    """Creates `rate` notifications a second for the demo mentor through `port`, each sent again with its
    Idempotency-Key until it is acknowledged (201, or 200 for one found stored), as a careful client does; every
    answer is kept."""

    port: int
    token: str
    prefix: str
    rate: float = 20.0
    workers: int = 8
    answers: list[Answer] = field(default_factory=list)
    acknowledged: dict[int, int] = field(default_factory=dict)
    issued: int = 0

    def __post_init__(self) -> None:
        self.tickets: queue.Queue[int | None] = queue.Queue()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._send, daemon=True) for _ in range(self.workers)]
        for thread in self.threads:
            thread.start()
        self.issuer = threading.Thread(target=self._issue, daemon=True)
        self.issuer.start()

    def _issue(self) -> None:
        while not self.stopping.is_set():
            self.tickets.put(self.issued)
            self.issued += 1
            time.sleep(1 / self.rate)

    def _send(self) -> None:
        while True:
            n = self.tickets.get()
            if n is None:
                return
            body = {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": f"{self.prefix} {n}", "body": "b"}
            give_up = time.monotonic() + 120
            while time.monotonic() < give_up:
                started = time.monotonic()
                status, answer, seconds = call(self.port, "POST", "/api/v1/notifications", self.token, body, key=f"{self.prefix}-{n}")
                with self.lock:
                    self.answers.append(Answer(started, seconds, status))
                # 201 the first time; 200 when a create sent again finds it stored already (an earlier attempt was
                # stored, though its answer was lost or refused).
                if status in (200, 201):
                    with self.lock:
                        self.acknowledged[n] = answer["items"][0]["id"]
                    break
                time.sleep(0.25)

    def stop(self) -> None:
        """Issues no more, and waits for every issued create to be acknowledged (or given up after two minutes)."""
        self.stopping.set()
        self.issuer.join()
        for _ in self.threads:
            self.tickets.put(None)
        for thread in self.threads:
            thread.join(150)

    def answered_during(self, start: float, end: float) -> list[Answer]:
        return [answer for answer in self.answers if start <= answer.started <= end]

    def report(self, name: str) -> str:
        statuses: dict[int, int] = {}
        for answer in self.answers:
            statuses[answer.status] = statuses.get(answer.status, 0) + 1
        longest = max(answer.seconds for answer in self.answers)
        return (f"{name}: {self.issued} creates issued, {len(self.acknowledged)} acknowledged, {len(self.answers)} answers "
                f"{dict(sorted(statuses.items()))}, longest answer {longest:.2f} s")


def check_promise(load: Load, subscribers: list[Subscriber], stored_titles: list[str], finish) -> None:
    """Every issued create was acknowledged; each acknowledged one is stored once and reached every stream once; no
    answer was a 500 or went unanswered; none took over ten seconds. `finish()` creates one more notification after
    the load and returns its id: a stream delivers in order, so once it has that one, any repeat would have come."""
    assert len(load.acknowledged) == load.issued, f"not acknowledged: {sorted(set(range(load.issued)) - set(load.acknowledged))}"
    wanted = {f"{load.prefix} {n}" for n in range(load.issued)}
    mine = [title for title in stored_titles if title in wanted]
    assert sorted(mine) == sorted(wanted), "an acknowledged create is missing or stored twice"
    bad = [answer for answer in load.answers if answer.status == 0 or answer.status >= 500 and answer.status not in (503, 507)]
    assert not bad, f"answers that were no answer or a server fault: {bad[:5]}"
    assert max(answer.seconds for answer in load.answers) <= 10, "a request took over ten seconds"
    ids = set(load.acknowledged.values())
    marker = finish()
    assert wait_until(lambda: all(marker in s.created for s in subscribers), 90), "a stream never caught up"
    for subscriber in subscribers:
        delivered = [i for i in subscriber.created if i in ids]
        assert sorted(delivered) == sorted(ids), f"a stream missed {len(ids - set(delivered))} or doubled some"
        assert subscriber.event_ids == sorted(set(subscriber.event_ids)), "a stream's events went back or repeated"


class Readers:
    """Mentors' pages asking for their unread count, `rate` times a second through `port`: reads, which a load
    balancer may pass to another instance when one answers 503."""

    def __init__(self, port: int, token: str, rate: float = 10.0) -> None:
        self.port, self.token, self.rate = port, token, rate
        self.answers: list[Answer] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while not self.stopping.is_set():
            started = time.monotonic()
            status, _, seconds = call(self.port, "GET", "/api/v1/notifications/unread-count", self.token)
            self.answers.append(Answer(started, seconds, status))
            time.sleep(max(0.0, 1 / self.rate - seconds))

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(30)
