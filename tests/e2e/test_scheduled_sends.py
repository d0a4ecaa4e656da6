"""Scheduled sends end to end: a scenario scheduled for later goes once at its time, also when its time passed while
the server was stopped, and across a restart; a cancelled one never goes. The proof that the rounds after a start
have run is a later send arriving, never a wait."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from varsel_server import VarselServer, wait_until


def at(seconds: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=seconds)).isoformat(timespec="seconds")


def schedule(server: VarselServer, token: str, title: str, send_at: str) -> dict:
    status, _, body = server.request("POST", "/api/v1/notifications", token, {
        "recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": title, "body": "Work through it.", "sendAt": send_at})
    assert status == 202, body
    assert body["state"] == "waiting", body
    return body


def titles(server: VarselServer) -> list[str]:
    status, _, body = server.request("GET", "/api/v1/notifications?limit=100", server.token("demo-mentor"))
    assert status == 200, body
    return [item["title"] for item in body["items"]]


def test_a_scheduled_scenario_goes_once_at_its_time_across_a_stop_and_a_restart_and_a_cancelled_one_never(tmp_path):
    server = VarselServer(database=tmp_path / "varsel.sqlite").start()
    try:
        coordinator = server.token("demo-coordinator")
        missed = schedule(server, coordinator, "Scenario while stopped", at(4))
        cancelled = schedule(server, coordinator, "Scenario cancelled", at(4))
        status, _, body = server.request("DELETE", f"/api/v1/scheduled-sends/{cancelled['id']}", coordinator)
        assert status == 200 and body["state"] == "cancelled", body
        status, _, body = server.request("GET", "/api/v1/scheduled-sends", coordinator)
        assert [send["id"] for send in body["items"]] == [missed["id"]], body

        # Stopped before its time, started after it: it goes at the start, and the log says how late.
        server.stop()
        due = datetime.fromisoformat(missed["sendAt"].replace("Z", "+00:00"))
        while datetime.now(timezone.utc) < due + timedelta(seconds=1):
            time.sleep(0.2)
        server.start()
        assert wait_until(lambda: "Scenario while stopped" in titles(server), timeout=30), server.output[-20:]
        went = [line for line in server.output if "scheduled send went" in line and f"scheduled_send.id={missed['id']}" in line]
        assert len(went) == 1, server.output[-20:]
        late = int(went[0].split("scheduled_send.late_seconds=")[1].split()[0])
        assert late >= 1, went

        # Restarted: a later send arriving proves the new process's rounds ran; the first went once, the cancelled never.
        server.restart()
        coordinator = server.token("demo-coordinator")
        schedule(server, coordinator, "Scenario after the restart", at(2))
        assert wait_until(lambda: "Scenario after the restart" in titles(server), timeout=30), server.output[-20:]
        heard = titles(server)
        assert heard.count("Scenario while stopped") == 1, heard
        assert heard.count("Scenario after the restart") == 1, heard
        assert "Scenario cancelled" not in heard, heard
        status, _, body = server.request("GET", f"/api/v1/scheduled-sends/{missed['id']}", coordinator)
        assert body["state"] == "sent", body
        status, _, body = server.request("GET", f"/api/v1/scheduled-sends/{cancelled['id']}", coordinator)
        assert body["state"] == "cancelled", body
        status, _, body = server.request("PATCH", f"/api/v1/scheduled-sends/{missed['id']}", coordinator, {"title": "Too late"})
        assert status == 409, body
    finally:
        server.stop()


def test_a_training_scenario_scheduled_on_the_api_is_published_once_across_a_stop_and_a_cancelled_one_never(tmp_path):
    server = VarselServer(database=tmp_path / "varsel.sqlite").start()
    try:
        coordinator = server.token("demo-coordinator")

        def publish(title: str, send_at: str) -> dict:
            status, _, body = server.request("POST", "/api/v1/scenarios", coordinator, {
                "title": title, "body": "Guide a visitor down the stairs.", "mentors": ["demo-mentor"], "sendAt": send_at})
            assert status == 202 and body["publishesScenario"] is True, body
            return body

        def scenarios() -> list[str]:
            status, _, body = server.request("GET", "/api/v1/scenarios", server.token("demo-mentor"))
            assert status == 200, body
            return [scenario["title"] for scenario in body]

        before = scenarios()
        missed = publish("Stairs while stopped", at(4))
        cancelled = publish("Stairs cancelled", at(4))
        status, _, _ = server.request("DELETE", f"/api/v1/scheduled-sends/{cancelled['id']}", coordinator)
        assert status == 200
        server.stop()
        due = datetime.fromisoformat(missed["sendAt"].replace("Z", "+00:00"))
        while datetime.now(timezone.utc) < due + timedelta(seconds=1):
            time.sleep(0.2)
        server.start()
        coordinator = server.token("demo-coordinator")
        assert wait_until(lambda: "Stairs while stopped" in scenarios(), timeout=30), server.output[-20:]
        # Restarted: a later one published proves the new process's rounds ran; the first was published once.
        server.restart()
        coordinator = server.token("demo-coordinator")
        publish("Stairs after the restart", at(2))
        assert wait_until(lambda: "Stairs after the restart" in scenarios(), timeout=30), server.output[-20:]
        published = scenarios()
        assert published.count("Stairs while stopped") == 1 and "Stairs cancelled" not in published, published
        assert len(published) == len(before) + 2, published
        # The mentor was told by a scenario prompt that names it.
        assert sum("Stairs while stopped" in title for title in titles(server)) == 1, titles(server)
    finally:
        server.stop()
