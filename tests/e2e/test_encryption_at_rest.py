"""The details of the people mentors visit, encrypted in the database file by a real server, its key rotated while it runs."""
import os
import stat
import subprocess

from conftest import sign_in
from sse_client import EventStream
from varsel_server import VarselServer, varsel_binary, wait_until

DETAILS = ["Ragnhild Aasen-Vik", "Kirkeveien 77", "+47 455 12 999", "Bruker hund, ring hardt"]


def run_varsel(*arguments, timeout=60):
    return subprocess.run([str(varsel_binary()), *arguments], capture_output=True, text=True, timeout=timeout)


def file_bytes(database):
    return b"".join(open(str(database) + suffix, "rb").read() for suffix in ("", "-wal", "-shm")
                    if os.path.exists(str(database) + suffix))


def found(database):
    data = file_bytes(database)
    return [detail for detail in DETAILS if detail.encode() in data]


def assign(server):
    coordinator = server.token("demo-coordinator")
    status, _, body = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "contact": {"name": DETAILS[0], "address": DETAILS[1], "phone": DETAILS[2], "notes": DETAILS[3]}})
    assert status == 201, body
    return body["assignment"]


def contact_as_mentor(server, contact_id):
    status, _, body = server.request("GET", f"/api/v1/contacts/{contact_id}", server.token("demo-mentor"))
    assert status == 200, body
    return body


def test_the_demo_keeps_visited_peoples_details_out_of_its_file_and_shows_them_on_the_page(server, page):
    key_file = str(server.database) + ".key"
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assignment = assign(server)
    assert found(server.database) == []
    contact = contact_as_mentor(server, assignment["contactId"])
    assert [contact["name"], contact["address"], contact["phone"], contact["notes"]] == DETAILS
    # The page the mentor opens reads as it always did.
    page.goto(server.base_url + f"/contacts/{assignment['contactId']}?assignment={assignment['id']}")
    text = page.inner_text("main")
    assert all(detail in text for detail in DETAILS), text
    # The notification list names the person in the notification's text.
    page.goto(server.base_url + "/notifications")
    assert DETAILS[0] in page.inner_text("main")


def test_without_its_key_the_server_refuses_to_start_in_one_sentence(server):
    assign(server)
    server.stop()
    os.rename(str(server.database) + ".key", str(server.database) + ".key.away")
    refused = run_varsel("serve", "--port", "0", "--database", str(server.database))
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines()[-1] == (
        f"Error: The personal details in {os.path.abspath(server.database)} are encrypted; "
        "start Varsel with --data-key-file naming the file that holds its key.")
    missing = run_varsel("serve", "--port", "0", "--database", str(server.database), "--data-key-file", str(server.database) + ".key")
    assert missing.returncode == 1
    assert "does not exist; make one with `varsel keys create" in missing.stderr.strip().splitlines()[-1]
    other = str(server.database) + ".other.key"
    assert run_varsel("keys", "create", "--data-key-file", other).returncode == 0
    wrong = run_varsel("serve", "--port", "0", "--database", str(server.database), "--data-key-file", other)
    assert wrong.returncode == 1
    assert wrong.stderr.strip().splitlines()[-1].startswith(f"Error: The data key file {os.path.abspath(other)} does not hold the key ")
    assert wrong.stderr.strip().splitlines()[-1].endswith(f" the details in {os.path.abspath(server.database)} are encrypted with; give the key file that holds it.")
    for result in (refused, missing, wrong):
        assert all(detail not in result.stderr + result.stdout for detail in DETAILS)


def test_a_key_rotation_while_the_server_runs_loses_nothing(server):
    key_file = str(server.database) + ".key"
    before = assign(server)
    old_key = open(key_file).read().split()[-2]
    rotated = run_varsel("keys", "rotate", "--data-key-file", key_file, "--database", str(server.database))
    assert rotated.returncode == 0, rotated.stderr
    assert f"values in {os.path.abspath(server.database)} were re-encrypted" in rotated.stdout
    # The running server meets values under the new key and reads the file again.
    assert contact_as_mentor(server, before["contactId"])["name"] == DETAILS[0]
    after = assign(server)
    retired = run_varsel("keys", "retire", "--data-key-file", key_file, "--database", str(server.database))
    assert retired.returncode == 0, retired.stderr
    assert f"Retired {old_key}" in retired.stdout
    assert old_key not in open(key_file).read()
    for assignment in (before, after):
        assert contact_as_mentor(server, assignment["contactId"])["address"] == DETAILS[1]
    # A restart with the rotated file reads everything too.
    server.restart()
    assert contact_as_mentor(server, after["contactId"])["phone"] == DETAILS[2]
    assert found(server.database) == []


SECOND = ["Halvor Brekke-Moen", "Strandveien 12", "+47 466 98 765", "Trapp uten rekkverk"]


def assign_someone(server, details):
    coordinator = server.token("demo-coordinator")
    status, _, body = server.request("POST", "/api/v1/assignments", coordinator, {
        "mentor": "demo-mentor", "contact": {"name": details[0], "address": details[1], "phone": details[2], "notes": details[3]}})
    assert status == 201, body
    return body["assignment"]


def replayed(server, token, notification_ids, after):
    """The live stream's replay of what followed event `after`, once it has played the creation of each of
    `notification_ids`: their notifications, by id."""
    stream = EventStream("127.0.0.1", server.port, token, str(after))
    try:
        def created():
            return {e.json["notification"]["id"]: e.json["notification"] for e in stream.snapshot() if e.name == "notification.created"}
        assert wait_until(lambda: set(notification_ids) <= set(created())), stream.snapshot()
        return created()
    finally:
        stream.close()


def test_a_backup_taken_before_an_erasure_is_served_with_the_person_forgotten(server, page):
    database = str(server.database)
    admin = subprocess.run([str(varsel_binary()), "user", "add", "anne", "--role", "admin", "--database", database, "--bcrypt-cost", "4"],
                           input="a long password\n", capture_output=True, text=True, timeout=60)
    assert admin.returncode == 0, admin.stderr
    live = EventStream("127.0.0.1", server.port, server.token("demo-mentor"))
    first, second = assign(server), assign_someone(server, SECOND)
    assert wait_until(lambda: first["notificationId"] in [e.json["notification"]["id"] for e in live.snapshot() if e.name == "notification.created"])
    before_first = int(next(e.id for e in live.snapshot() if e.name == "notification.created"
                            and e.json["notification"]["id"] == first["notificationId"])) - 1
    live.close()
    server.stop()
    for suffix in ("", "-wal"):
        if os.path.exists(database + suffix):
            with open(database + suffix, "rb") as source, open(database + ".backup" + suffix, "wb") as copy:
                copy.write(source.read())
    server.start()
    status, _, erased = server.request("POST", f"/api/v1/contacts/{first['contactId']}/erase", server.token("demo-coordinator"))
    assert status == 200 and erased["erasedAt"], erased
    server.stop()
    key_store = database + ".key.people"
    assert stat.S_IMODE(os.stat(key_store).st_mode) == 0o600
    with open(key_store, "rb") as keys:
        assert all(detail.encode() not in keys.read() for detail in DETAILS + SECOND)

    # The backup is restored, and served with today's key store.
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(database + suffix):
            os.remove(database + suffix)
        if os.path.exists(database + ".backup" + suffix):
            os.rename(database + ".backup" + suffix, database + suffix)
    server.start()
    assert any("Erased again the details of people erased after this database's backup was taken" in line for line in server.output)
    mentor, admin_token = server.token("demo-mentor"), server.token("anne", "a long password")

    forgotten = contact_as_mentor(server, first["contactId"])
    assert [forgotten["name"], forgotten["address"], forgotten["phone"], forgotten["notes"]] == ["", "", "", ""] and forgotten["erasedAt"]
    kept = contact_as_mentor(server, second["contactId"])
    assert [kept["name"], kept["address"], kept["phone"], kept["notes"]] == SECOND
    status, _, listed = server.request("GET", "/api/v1/notifications?limit=100", mentor)
    assert status == 200
    said = repr(listed)
    assert [d for d in DETAILS if d in said] == [] and SECOND[0] in said
    titles = {item["id"]: item["title"] for item in listed["items"]}
    assert titles[first["notificationId"]] == "Details removed" and titles[second["notificationId"]] == "New assignment"
    stream = replayed(server, mentor, [first["notificationId"], second["notificationId"]], before_first)
    assert stream[first["notificationId"]]["title"] == "Details removed"
    assert [d for d in DETAILS if d in repr(stream)] == [] and SECOND[0] in repr(stream)
    status, _, exported = server.request("GET", f"/api/v1/contacts/{first['contactId']}/export", admin_token)
    assert status == 200 and [d for d in DETAILS if d in repr(exported)] == [], exported
    sign_in(page, server)
    page.goto(server.base_url + f"/contacts/{first['contactId']}?assignment={first['id']}")
    assert page.inner_text("h1") == "Details removed"
    assert found(server.database) == [] and all(detail.encode() not in file_bytes(server.database) for detail in SECOND)


LEGACY_PASSWORD = "a long password"


def test_people_stored_before_they_had_keys_move_to_keys_of_their_own_while_the_server_runs_across_a_kill(tmp_path):
    import random
    import signal
    import sqlite3

    database = tmp_path / "legacy.sqlite"
    for username, role in (("carla", "coordinator"), ("mona", "mentor")):
        added = subprocess.run([str(varsel_binary()), "user", "add", username, "--role", role, "--database", str(database), "--bcrypt-cost", "4"],
                               input=LEGACY_PASSWORD + "\n", capture_output=True, text=True, timeout=60)
        assert added.returncode == 0, added.stderr
    # A server without a data key stores the people's details as they are, as a database from before keys.
    plain = VarselServer(database=database, demo=False).start()
    people = {}
    try:
        coordinator = plain.token("carla", LEGACY_PASSWORD)
        for n in range(200):
            details = [f"Eldre Person {n:03d}", f"Gamleveien {n:03d}", f"+47 400 00 {n:03d}", f"Merknad nummer {n:03d}"]
            status, _, body = plain.request("POST", "/api/v1/assignments", coordinator, {
                "mentor": "mona", "contact": {"name": details[0], "address": details[1], "phone": details[2], "notes": details[3]}})
            assert status == 201, body
            people[body["assignment"]["contactId"]] = details
    finally:
        plain.stop()
    assert b"Eldre Person 199" in file_bytes(database)

    key_file = str(tmp_path / "data.key")
    assert run_varsel("keys", "create", "--data-key-file", key_file).returncode == 0
    key_store = key_file + ".people"

    def keys_made():
        try:
            # Read-write, so a transaction a kill left unfinished is rolled back as SQLite does on opening.
            connection = sqlite3.connect(f"file:{key_store}?mode=rw", uri=True, timeout=0.05)
            try:
                return connection.execute("SELECT count(*) FROM person_key").fetchone()[0]
            finally:
                connection.close()
        except sqlite3.Error:
            return 0

    def reads_as_before(server, token, ids):
        for contact_id in ids:
            status, _, contact = server.request("GET", f"/api/v1/contacts/{contact_id}", token)
            assert status == 200, contact
            assert [contact["name"], contact["address"], contact["phone"], contact["notes"]] == people[contact_id]

    server = VarselServer(database=database, demo=False, extra_args=["--data-key-file", key_file]).start()
    try:
        token = server.token("carla", LEGACY_PASSWORD)
        # The upkeep's first round moves the people while the server answers.
        assert wait_until(lambda: keys_made() >= 20, timeout=60, interval=0.005), "the move did not begin"
        reads_as_before(server, token, random.sample(sorted(people), 5))
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        server.process = None
        made = keys_made()
        assert 20 <= made < len(people), f"the kill came after the move had ended ({made} keys): nothing was interrupted"
        print(f"people's keys made before the kill: {made} of {len(people)}")

        server.start()
        token = server.token("carla", LEGACY_PASSWORD)
        assert wait_until(lambda: all(detail.encode() not in file_bytes(database) for details in people.values() for detail in details),
                          timeout=60), "some details are still as they were stored"
        reads_as_before(server, token, sorted(people))
        # Every person has a key of their own, and what the kill left half made (a key never used) harms nothing.
        assert keys_made() >= len(people)
        checked = run_varsel("check", "--database", str(database), "--data-key-file", key_file, "--public-url", "https://varsel.example")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "still under the data key" not in checked.stdout and f"OK: The people's key store {key_store} holds " in checked.stdout
    finally:
        server.stop()
