"""Several Varsel instances on one PostgreSQL database, behind nginx, survive the loss of one.

Started for real: the test PostgreSQL server (VARSEL_TEST_POSTGRES_URL, from ./scripts/test.sh), two `varsel
serve` processes on one new database, and Debian's nginx in front as the load balancer (event streams proxied
unbuffered). Subscribers stream through nginx; a coordinator sends a burst through nginx; one instance is killed
with SIGKILL in the middle. Every notification the service accepted (201) must reach every subscriber exactly once
after it reconnects with Last-Event-ID — whichever instance it lands on.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from cluster import POSTGRES, Nginx, Subscriber, new_database, post
from varsel_server import VarselServer, wait_until

pytestmark = pytest.mark.skipif(not POSTGRES or not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists(),
                                reason="needs VARSEL_TEST_POSTGRES_URL (scripts/test.sh starts PostgreSQL) and nginx")


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
