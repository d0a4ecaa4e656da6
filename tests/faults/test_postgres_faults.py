"""PostgreSQL restarting, hanging, failing over, and one instance cut off from it: two `varsel serve` instances behind
nginx (configured as docs/deploy.md says), steady creates through nginx, four live streams, each fault made for real.

Each test prints what it measured: the answers by status, the longest request, and how long the instances took to be
ready again. The promise must hold every time: every create acknowledged (201) is stored once and reaches every
stream once; no answer is a 500 or missing; no request takes over ten seconds.
"""
from __future__ import annotations

import time

import pytest

import json

from cluster import Nginx, Subscriber, new_database
from push_service import Device, StandInPushService
from infrastructure import HAProxy, PostgresServer, Relay
from load import Load, Readers, call, check_promise, sign_in
from varsel_server import VarselServer, wait_until

# The guide's nginx settings: a 502, 503 or 504 or a failed connection counts against an instance, which then gets
# nothing for ten seconds; an idempotent request (a GET) is passed to the other instance at once.
NEXT_UPSTREAM = "error timeout http_502 http_503 http_504"


class Deployment:
    """Two instances on `database` (the first through `first_url` when given), nginx in front, four mentor streams,
    and the mentor's phone subscribed to pushes through a stand-in push service."""

    def __init__(self, database: str, first_url: str | None = None) -> None:
        self.database = database
        self.push_service = StandInPushService()
        self.first = VarselServer(database=first_url or database, extra_args=["--push-allow-http-endpoints"]).start()
        self.second = VarselServer(database=database, extra_args=["--push-allow-http-endpoints"]).start()
        self.nginx = Nginx([self.first.port, self.second.port], next_upstream=NEXT_UPSTREAM, fail_timeout="10s")
        self.mentor = sign_in(self.nginx.port, "demo-mentor")
        self.coordinator = sign_in(self.nginx.port, "demo-coordinator")
        self.subscribers = [Subscriber(self.nginx.port, self.mentor) for _ in range(4)]
        assert wait_until(lambda: all(s.stream.status == 200 for s in self.subscribers))
        self.phone = Device()
        status, body, _ = call(self.nginx.port, "POST", "/api/v1/push-subscriptions", self.mentor,
                               self.phone.subscription(self.push_service.endpoint("phone")))
        assert status == 201, body

    def pushed_titles(self) -> list[str]:
        """The titles of every push the phone was sent, decrypted as the phone would."""
        return [json.loads(self.phone.decrypt(push))["notification"]["title"] for push in self.push_service.pushes("phone")]

    def check_pushes(self, load: Load) -> None:
        """Each acknowledged create reached the phone as one push: the push outbox resumed after the fault and sent
        each item once, whichever instance sent it."""
        wanted = {f"{load.prefix} {n}" for n in range(load.issued)}

        def pushed() -> list[str]:
            return [title.split(": ", 1)[-1] for title in self.pushed_titles() if title.split(": ", 1)[-1] in wanted]
        assert wait_until(lambda: set(pushed()) == wanted, 90, 0.5), f"{len(wanted - set(pushed()))} acknowledged creates never pushed"
        # A push sent twice would have been sent with the rest: the marker's push comes after them.
        assert wait_until(lambda: any(title.endswith("After the fault") for title in self.pushed_titles()), 60, 0.5)
        assert sorted(pushed()) == sorted(wanted), "a push was sent twice"

    def readiness(self, server: VarselServer) -> int:
        return call(server.port, "GET", "/readyz")[0]

    def seconds_until(self, predicate, limit: float) -> float:
        started = time.monotonic()
        assert wait_until(predicate, limit, 0.1), f"not within {limit} s"
        return time.monotonic() - started

    def both(self, status: int) -> bool:
        return self.readiness(self.first) == status and self.readiness(self.second) == status

    def finish(self) -> int:
        """One more create after the load, sent until acknowledged; its id."""
        for _ in range(100):
            status, body, _ = call(self.nginx.port, "POST", "/api/v1/notifications", self.coordinator,
                                   {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "After the fault", "body": "b"},
                                   key="after-the-fault")
            if status in (200, 201):
                return body["items"][0]["id"]
            time.sleep(0.5)
        raise AssertionError("the marker was never acknowledged")

    def log_lines(self, text: str) -> int:
        return sum(self.log_lines_of(server, text) for server in (self.first, self.second))

    @staticmethod
    def log_lines_of(server: VarselServer, text: str) -> int:
        return sum(text in line for line in server.output)

    def stop(self) -> None:
        for subscriber in self.subscribers:
            subscriber.close()
        self.nginx.stop()
        self.first.stop()
        self.second.stop()
        self.push_service.close()


def stored_titles(server: PostgresServer, database_url: str) -> list[str]:
    return server.sql("SELECT title FROM notification", database=database_url.rsplit("/", 1)[1]).splitlines()


@pytest.mark.parametrize("down_for", [0, 4])
def test_a_postgres_restart_under_load_loses_and_doubles_nothing_and_no_answer_is_a_500(postgres, down_for):
    database = new_database(postgres.url())
    deployment = Deployment(database)
    try:
        load = Load(deployment.nginx.port, deployment.coordinator, "Restart")
        assert wait_until(lambda: len(load.acknowledged) >= 40, 30)
        started = time.monotonic()
        postgres.restart(down_for)
        back = time.monotonic()
        ready = deployment.seconds_until(lambda: deployment.both(200), 30)
        acknowledged = len(load.acknowledged)
        assert wait_until(lambda: len(load.acknowledged) >= acknowledged + 40, 30), "creates did not resume"
        load.stop()
        during = load.answered_during(started - 1, back + ready)
        print(load.report(f"PostgreSQL restart, down {down_for} s"))
        print(f"  PostgreSQL down {back - started:.2f} s; both instances ready {ready:.2f} s after it was back; "
              f"{len(during)} answers during the restart, longest {max(a.seconds for a in during):.2f} s")
        assert back - started + ready <= 30
        check_promise(load, deployment.subscribers, stored_titles(postgres, database), deployment.finish)
        deployment.check_pushes(load)
    finally:
        deployment.stop()


def test_a_postgres_that_stops_answering_for_30_seconds_gets_every_request_answered_and_loses_nothing(postgres):
    database = new_database(postgres.url())
    deployment = Deployment(database)
    try:
        load = Load(deployment.nginx.port, deployment.coordinator, "Hang")
        assert wait_until(lambda: len(load.acknowledged) >= 40, 30)
        reconnects = sum(s.reconnects for s in deployment.subscribers)
        postgres.pause()
        paused = time.monotonic()
        not_ready = deployment.seconds_until(lambda: deployment.both(503), 10)
        assert wait_until(lambda: time.monotonic() - paused >= 30, 40)
        postgres.resume()
        resumed = time.monotonic()
        ready = deployment.seconds_until(lambda: deployment.both(200), 30)
        acknowledged = len(load.acknowledged)
        assert wait_until(lambda: len(load.acknowledged) >= acknowledged + 40, 30), "creates did not resume"
        load.stop()
        during = load.answered_during(paused, resumed)
        print(load.report("PostgreSQL stopped (SIGSTOP) for 30 s"))
        print(f"  not ready {not_ready:.2f} s after the hang began, ready {ready:.2f} s after it ended; {len(during)} answers "
              f"during the hang ({sum(a.status == 503 for a in during)} were 503), longest {max(a.seconds for a in during):.2f} s")
        assert not_ready <= 5 and ready <= 5
        assert sum(s.reconnects for s in deployment.subscribers) == reconnects, "a stream was dropped during the hang"
        assert any(s.stream.comments for s in deployment.subscribers), "no heartbeat reached a stream"
        check_promise(load, deployment.subscribers, stored_titles(postgres, database), deployment.finish)
        deployment.check_pushes(load)
        # The log says an outage when it begins and when it ends, not per refused request (some 140 here). An instance
        # may meet a second, short outage right after the hang (seen in CI, cause not yet found), said as such.
        for server in (deployment.first, deployment.second):
            began = deployment.log_lines_of(server, "the store is unavailable")
            ended = deployment.log_lines_of(server, "the store is available again")
            print(f"  an instance said the store was unavailable {began} time(s) and available again {ended} time(s):")
            for line in server.output:
                if "the store is" in line:
                    print("    " + line.strip())
            assert 1 <= began <= 2 and began == ended, "each outage is said once when it begins and once when it ends"
    finally:
        deployment.stop()


def test_nginx_stops_sending_to_an_instance_cut_off_from_postgres_and_the_other_takes_every_create(postgres):
    relay = Relay(postgres.port)
    database = new_database(postgres.url())
    deployment = Deployment(database, first_url=database.replace(f":{postgres.port}/", f":{relay.port}/"))
    try:
        load = Load(deployment.nginx.port, deployment.coordinator, "Partition")
        # Mentors' pages read too: nginx counts a 503 against an instance only for a request it may send elsewhere
        # (a GET), never for a POST.
        readers = Readers(deployment.nginx.port, deployment.mentor)
        assert wait_until(lambda: len(load.acknowledged) >= 40, 30)
        relay.frozen.set()
        cut = time.monotonic()
        not_ready = deployment.seconds_until(lambda: deployment.readiness(deployment.first) == 503, 10)
        assert deployment.readiness(deployment.second) == 200
        # nginx has seen the instance fail by now; for the next ten seconds it sends it nothing.
        settled = cut + 7
        assert wait_until(lambda: time.monotonic() - cut >= 17, 20)
        relay.frozen.clear()
        ready = deployment.seconds_until(lambda: deployment.readiness(deployment.first) == 200, 30)
        load.stop()
        readers.stop()
        settled_answers = load.answered_during(settled, cut + 17)
        created = sum(answer.status in (200, 201) for answer in settled_answers)
        print(load.report("One instance cut off from PostgreSQL"))
        print(f"  not ready {not_ready:.2f} s after the cut, ready {ready:.2f} s after it healed; once nginx had seen it fail, "
              f"{created} of {len(settled_answers)} creates were acknowledged at once")
        assert not_ready <= 5 and ready <= 5
        assert created >= 0.95 * len(settled_answers) and len(settled_answers) > 50
        assert all(answer.status == 200 for answer in readers.answers), "a read was not passed on to the other instance"
        check_promise(load, deployment.subscribers, stored_titles(postgres, database), deployment.finish)
        deployment.check_pushes(load)
    finally:
        deployment.stop()
        relay.close()


def test_a_failover_to_the_synchronous_standby_loses_nothing_acknowledged_and_the_instances_follow_within_30_seconds():
    primary = PostgresServer(synchronous=True)
    standby = PostgresServer(primary=primary)
    haproxy = HAProxy(primary.port, standby.port)
    deployment = None
    try:
        assert wait_until(lambda: primary.sql("SELECT sync_state FROM pg_stat_replication") == "sync", 30), "the standby is not synchronous"
        database = new_database(primary.url(port=haproxy.port))
        deployment = Deployment(database)
        load = Load(deployment.nginx.port, deployment.coordinator, "Failover")
        assert wait_until(lambda: len(load.acknowledged) >= 40, 30)
        primary.kill()
        killed = time.monotonic()
        standby.promote()
        promoted = time.monotonic()
        acknowledged = len(load.acknowledged)
        resumed = deployment.seconds_until(lambda: len(load.acknowledged) >= acknowledged + 20, 60)
        ready = deployment.seconds_until(lambda: deployment.both(200), 30)
        load.stop()
        print(load.report("Failover to the standby"))
        print(f"  standby promoted {promoted - killed:.2f} s after the primary was killed; creates acknowledged again "
              f"{promoted - killed + resumed:.2f} s after the kill")
        assert promoted - killed + resumed <= 30
        check_promise(load, deployment.subscribers, stored_titles(standby, database), deployment.finish)
        deployment.check_pushes(load)
    finally:
        if deployment:
            deployment.stop()
        haproxy.stop()
        standby.stop()
        primary.stop()
