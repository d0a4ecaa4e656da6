"""A full disk under SQLite: `varsel serve` with its database on an 8 MiB tmpfs, filled by creates until it refuses.

Refusals are 507 problem+json at once, reads go on, `/readyz` says the disk is full, the log says so once, nothing
acknowledged is lost, `PRAGMA integrity_check` is ok, and writes resume without a restart once the disk has room.
"""
from __future__ import annotations

import os
import sqlite3
import time

import pytest

from infrastructure import SmallDisk
from load import call, sign_in
from sse_client import EventStream
from varsel_server import VarselServer, wait_until

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


def test_a_full_disk_refuses_creates_with_507_at_once_loses_nothing_and_writes_resume_when_there_is_room():
    disk = SmallDisk("8m")
    server = VarselServer(database=disk.dir / "varsel.sqlite").start()
    stream = None
    try:
        coordinator = sign_in(server.port, "demo-coordinator")
        mentor = sign_in(server.port, "demo-mentor")
        stream = EventStream("127.0.0.1", server.port, mentor)
        assert wait_until(lambda: stream.status == 200)
        acknowledged: dict[str, int] = {}
        refusals: list[tuple[int, float, dict]] = []
        body = "b" * 3000

        def create(title: str) -> tuple[int, dict | None, float]:
            status, answer, seconds = call(server.port, "POST", "/api/v1/notifications", coordinator,
                                           {"recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": title, "body": body},
                                           key=title)
            if status == 201:
                acknowledged[title] = answer["items"][0]["id"]
            return status, answer, seconds

        n = 0
        while len(refusals) < 20 and n < 20_000:
            status, answer, seconds = create(f"Fill {n}")
            if status != 201:
                refusals.append((status, seconds, answer))
            n += 1
        assert refusals, "the disk never filled"
        assert {status for status, _, _ in refusals} == {507}, refusals[:3]
        assert all(answer["detail"].startswith("The disk the database writes to is full.") for _, _, answer in refusals)
        assert max(seconds for _, seconds, _ in refusals) < 2, "a refusal was not answered at once"
        status, page, _ = call(server.port, "GET", "/api/v1/notifications?limit=5", mentor)
        assert status == 200 and page["items"], "reads go on"
        assert wait_until(lambda: call(server.port, "GET", "/readyz")[0] == 503, 5)
        assert call(server.port, "GET", "/readyz")[1]["text"] == "not ready: The disk the database writes to is full.\n"
        # Said once per outage, not once per refusal. A small write of the server's own (upkeep, a session) may still
        # fit now and then while the disk is nearly full, which ends that outage and is said too: one outage is going on.
        outages = said_outages(server.output)
        assert outages.count("unavailable") == outages.count("available again") + 1, outages
        assert outages.count("unavailable") < len(refusals), f"said once per refusal: {outages}"

        disk.resize("64m")
        room = time.monotonic()
        assert wait_until(lambda: create(f"After {time.monotonic()}")[0] == 201, 10), "writes did not resume"
        print(f"full disk: {len(acknowledged)} creates acknowledged, {len(refusals)} refused with 507 "
              f"(longest {max(s for _, s, _ in refusals) * 1000:.0f} ms); writes resumed {time.monotonic() - room:.2f} s after room returned")
        assert wait_until(lambda: call(server.port, "GET", "/readyz")[0] == 200, 5)
        outages = said_outages(server.output)
        assert outages.count("available again") == outages.count("unavailable"), outages

        ids = set(acknowledged.values())
        assert wait_until(lambda: ids <= {event.json["notification"]["id"] for event in stream.snapshot()
                                          if event.name == "notification.created"}, 30), "the stream missed an acknowledged create"
        delivered = [event.json["notification"]["id"] for event in stream.snapshot() if event.name == "notification.created"]
        assert len(delivered) == len(set(delivered)), "the stream doubled a notification"
        server.stop()
        database = sqlite3.connect(disk.dir / "varsel.sqlite")
        assert database.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = [row[0] for row in database.execute("SELECT title FROM notification WHERE title LIKE 'Fill %' OR title LIKE 'After %'")]
        database.close()
        assert sorted(stored) == sorted(acknowledged), "an acknowledged create was lost or stored twice"
    finally:
        if stream:
            stream.close()
        server.stop()
        disk.remove()


def said_outages(output: list[str]) -> list[str]:
    """What the server said of the store's outages, in order: "unavailable" and "available again"."""
    return ["unavailable" if "the store is unavailable" in line else "available again"
            for line in output if "the store is unavailable" in line or "the store is available again" in line]
