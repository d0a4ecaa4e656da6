"""The live event stream over a real socket: every notification arrives exactly once, in order, across a
dropped connection and across a server restart on the same SQLite file (issue: service, section 6)."""
from sse_client import EventStream
from varsel_server import wait_until


def open_stream(server, token, last_event_id=None):
    stream = EventStream("127.0.0.1", server.port, token, last_event_id)
    assert wait_until(lambda: stream.status is not None and stream.retry is not None)
    assert stream.status == 200
    return stream


def last_id(stream):
    return stream.snapshot()[-1].id


def test_every_notification_arrives_exactly_once_in_order_across_a_dropped_connection(server):
    mentor = server.token("demo-mentor")
    coordinator = server.token("demo-coordinator")

    first = open_stream(server, mentor)
    for n in range(1, 4):
        server.create(coordinator, f"Live {n}", ["demo-mentor"])
    assert wait_until(lambda: len(first.created_titles()) == 3)
    # The unread count follows each creation; hang up only after the last one, or it may arrive after the id to
    # resume from was taken and be sent again on the next stream, as a resuming client rightly asks.
    assert wait_until(lambda: [e.json["count"] for e in first.snapshot() if e.name == "unread-count"][-1:] == [6])
    resume_from = last_id(first)
    first.close()

    # Created while nobody is listening.
    for n in range(4, 7):
        server.create(coordinator, f"Live {n}", ["demo-mentor"])

    second = open_stream(server, mentor, last_event_id=resume_from)
    for n in range(7, 9):
        server.create(coordinator, f"Live {n}", ["demo-mentor"])
    assert wait_until(lambda: len(second.created_titles()) == 5)
    # The unread count follows each creation in the same transaction; wait for the last one before hanging up.
    assert wait_until(lambda: [e.json["count"] for e in second.snapshot() if e.name == "unread-count"][-1:] == [11])
    second.close()

    titles = first.created_titles() + second.created_titles()
    assert titles == [f"Live {n}" for n in range(1, 9)]
    ids = [int(e.id) for e in first.snapshot() + second.snapshot()]
    assert ids == sorted(ids) and len(ids) == len(set(ids)), "event ids must be increasing without duplicates"
    # Each arrival carries 003's announcement, polite.
    created = [e.json["notification"] for e in second.snapshot() if e.name == "notification.created"]
    assert created[0]["accessibility"]["announcement"] == {"text": "New notification: Live 4", "politeness": "polite"}
    counts = [e.json for e in second.snapshot() if e.name == "unread-count"]
    assert counts[-1]["count"] == 3 + 8
    assert counts[-1]["badge"]["phrase"] == "Notifications, 11 unread, tab, 5 of 5"


def test_resume_across_a_server_restart_on_the_same_sqlite_file(server):
    mentor = server.token("demo-mentor")
    coordinator = server.token("demo-coordinator")
    stream = open_stream(server, mentor)
    server.create(coordinator, "Before restart", ["demo-mentor"])
    assert wait_until(lambda: stream.created_titles() == ["Before restart"])
    resume_from = last_id(stream)
    stream.close()

    server.restart()
    coordinator = server.token("demo-coordinator")
    server.create(coordinator, "While restarted 1", ["demo-mentor"])
    server.create(coordinator, "While restarted 2", ["demo-mentor"])
    mentor = server.token("demo-mentor")
    resumed = open_stream(server, mentor, last_event_id=resume_from)
    server.create(coordinator, "After reconnect", ["demo-mentor"])
    assert wait_until(lambda: len(resumed.created_titles()) == 3)
    resumed.close()
    assert resumed.created_titles() == ["While restarted 1", "While restarted 2", "After reconnect"]


def test_a_resume_point_the_server_never_gave_out_gets_a_reset_event(server):
    mentor = server.token("demo-mentor")
    stream = open_stream(server, mentor, last_event_id="999999")
    assert wait_until(lambda: len(stream.snapshot()) >= 1)
    stream.close()
    reset = stream.snapshot()[0]
    assert reset.name == "reset"
    assert reset.json["reason"] == "unknown-event-id"


def test_another_mentor_never_sees_the_notification(server):
    coordinator = server.token("demo-coordinator")
    # Coordinators add mentors, never an admin.
    status, _, _ = server.request("POST", "/api/v1/users", coordinator, {"username": "x", "role": "admin"})
    assert status == 403
    mentor = server.token("demo-mentor")
    stream = open_stream(server, mentor)
    # A notification to the coordinator itself must not reach the mentor's stream.
    server.create(coordinator, "For the coordinator", ["demo-coordinator"])
    server.create(coordinator, "For the mentor", ["demo-mentor"])
    assert wait_until(lambda: stream.created_titles() == ["For the mentor"])
    stream.close()
    assert stream.created_titles() == ["For the mentor"]


def test_graceful_shutdown_ends_open_streams_cleanly_and_loses_nothing(server):
    mentor = server.token("demo-mentor")
    coordinator = server.token("demo-coordinator")
    stream = open_stream(server, mentor)
    note_id = server.create(coordinator, "Accepted before shutdown", ["demo-mentor"])
    assert wait_until(lambda: stream.created_titles() == ["Accepted before shutdown"])
    server.stop()
    stream.thread.join(10)
    assert not stream.thread.is_alive(), "the stream should end when the server shuts down"
    server.start()
    status, _, body = server.request("GET", f"/api/v1/notifications/{note_id}", server.token("demo-mentor"))
    assert status == 200 and body["title"] == "Accepted before shutdown"


def test_changing_the_privacy_preference_takes_effect_on_an_open_stream(server):
    mentor = server.token("demo-mentor")
    coordinator = server.token("demo-coordinator")
    stream = EventStream("127.0.0.1", server.port, mentor, player=True)
    assert wait_until(lambda: stream.status == 200 and stream.retry is not None)

    def send():
        status, _, body = server.request("POST", "/api/v1/notifications", coordinator, {
            "recipients": ["demo-mentor"], "kind": "scenarioPrompt", "title": "Call a new contact", "body": "Per Olsen waits",
            "personalDetails": ["Per Olsen"]})
        assert status == 201, body

    def notices():
        return [[e.json["systemNotification"]["title"], e.json["systemNotification"]["body"]]
                for e in stream.snapshot() if e.name == "cue"]

    def set_details_on_lock_screen(on):
        _, _, prefs = server.request("GET", "/api/v1/preferences", mentor)
        prefs["lockScreenDetails"] = on
        assert server.request("PUT", "/api/v1/preferences", mentor, prefs)[0] == 200

    send()
    assert wait_until(lambda: len(notices()) == 1)
    set_details_on_lock_screen(True)
    send()
    assert wait_until(lambda: len(notices()) == 2)
    set_details_on_lock_screen(False)
    send()
    assert wait_until(lambda: len(notices()) == 3)
    stream.close()
    # The title is public by contract and always shown; the body's listed details only while allowed.
    assert notices() == [["Scenario prompt: Call a new contact", "Open Varsel to read it."],
                         ["Scenario prompt: Call a new contact", "Per Olsen waits"],
                         ["Scenario prompt: Call a new contact", "Open Varsel to read it."]]
