"""The details of the people mentors visit, encrypted in the database file by a real server, its key rotated while it runs."""
import os
import stat
import subprocess

from varsel_server import VarselServer, varsel_binary

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
