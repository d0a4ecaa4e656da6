"""Text messages and email, end to end: a real SMTP server (aiosmtpd, STARTTLS and AUTH) and a stand-in text-message
gateway, with `varsel serve` as operators run it.

An unanswered assignment reaches the mentor by text message and by email after `--message-after`, each once, across
a restart; an acknowledged one sends nothing; quiet hours hold a normal assignment's messages and let an urgent one
through; no message carries the visited person's details; the assignment's history lists each step; and the
verification codes appear in no log. "Nothing more came" is proven by a later assignment's messages arriving first
in line after it: messages are sent in the order they come due.
"""
from __future__ import annotations

import re
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from mail_server import MailServer
from sms_gateway import StandInGateway
from varsel_server import VarselServer, wait_until

CONTACT = {"name": "Per Olsen", "phone": "+47 400 00 000", "address": "Torggata 3", "notes": "Ring twice, blind since 2019"}
DETAILS = ["Per Olsen", "400 00 000", "Torggata", "Ring twice", "blind since"]
NUMBER = "+4791234567"
ADDRESS = "demo.mentor@example.org"
TOKEN = "gateway-token-for-tests"


@pytest.fixture
def world():
    mail = MailServer()
    gateway = StandInGateway(TOKEN)
    directory = Path(tempfile.mkdtemp(prefix="varsel-channels-"))
    token_file = directory / "sms-token"
    token_file.write_text(TOKEN + "\n")
    server = VarselServer(directory / "varsel.sqlite", extra_args=[
        *mail.serve_args(), "--sms-gateway-url", gateway.url, "--sms-gateway-token-file", str(token_file), "--message-after", "3s",
        "--public-url", "https://varsel.example.org"]).start()
    yield server, mail, gateway
    server.stop()
    gateway.close()
    mail.close()


def code_in(text: str) -> str:
    match = re.search(r"(\d{3}) (\d{3})", text)
    assert match, text
    return match.group(1) + match.group(2)


def verify_channels(server: VarselServer, mail: MailServer, gateway: StandInGateway) -> str:
    """The demo mentor verifies a mobile number and an email address with the codes sent there; returns their token."""
    mentor = server.token("demo-mentor")
    status, _, body = server.request("PUT", "/api/v1/me/channels/sms", mentor, {"address": "912 34 567"})
    assert status == 202 and body["address"] == NUMBER and body["verified"] is False, body
    assert wait_until(lambda: gateway.messages(NUMBER))
    sms_code = code_in(gateway.messages(NUMBER)[-1].text)
    status, _, body = server.request("PUT", "/api/v1/me/channels/email", mentor, {"address": ADDRESS})
    assert status == 202, body
    assert wait_until(lambda: mail.messages(ADDRESS))
    code_mail = mail.messages(ADDRESS)[-1]
    assert code_mail["tls"] is True and code_mail["auth_login"] == MailServer.user
    assert code_mail["decoded"]["subject"] == "Your code for Varsel"
    email_code = code_in(code_mail["decoded"]["plain"])
    for channel, code in (("sms", sms_code), ("email", email_code)):
        status, _, body = server.request("POST", f"/api/v1/me/channels/{channel}/verification", mentor, {"code": code})
        assert status == 200 and body["verified"] is True, body
    for code in (sms_code, email_code):
        assert code not in "".join(server.output), "a code reached the log"
    return mentor


def assign(server: VarselServer, urgency: str = "normal") -> dict:
    status, _, body = server.request("POST", "/api/v1/assignments", server.token("demo-coordinator"),
                                     {"mentor": "demo-mentor", "contact": CONTACT, "urgency": urgency})
    assert status == 201, body
    return body["assignment"]


def link(assignment: dict) -> str:
    return f"https://varsel.example.org/contacts/{assignment['contactId']}?assignment={assignment['id']}"


def texts_for(gateway: StandInGateway, assignment: dict) -> list[str]:
    return [m.text for m in gateway.messages(NUMBER) if m.text.endswith(link(assignment))]


def mails_for(mail: MailServer, assignment: dict) -> list[dict]:
    return [m for m in mail.messages(ADDRESS) if link(assignment) in (m["decoded"]["plain"] or "")]


def test_an_unanswered_assignment_reaches_the_mentor_by_text_and_email_once_across_a_restart(world):
    server, mail, gateway = world
    verify_channels(server, mail, gateway)
    first = assign(server)
    server.restart()
    assert wait_until(lambda: texts_for(gateway, first) and mails_for(mail, first), timeout=30), server.output[-20:]
    sentinel = assign(server)
    assert wait_until(lambda: texts_for(gateway, sentinel) and mails_for(mail, sentinel), timeout=30)
    assert texts_for(gateway, first) == [f"Varsel: New assignment. Open: {link(first)}"]
    [message] = mails_for(mail, first)
    decoded = message["decoded"]
    assert decoded["subject"] == "New assignment in Varsel"
    assert decoded["from_name"] == "Varsel" and decoded["from_address"] == "varsel@example.org"
    assert message["tls"] is True and message["auth_login"] == MailServer.user
    assert decoded["html"] and link(first) in decoded["html"]
    assert gateway.refusals == []
    for text in [m.text for m in gateway.messages()] + [str(m["decoded"]) for m in mail.messages()]:
        for detail in DETAILS:
            assert detail not in text, f"a message carried {detail!r}"
    status, _, assignments = server.request("GET", "/api/v1/assignments", server.token("demo-coordinator"))
    assert status == 200
    [summary] = [a for a in assignments if a["id"] == first["id"]]
    steps = [step["step"] for step in summary["trail"]]
    assert "textMessageSent" in steps and "emailSent" in steps, steps


def test_an_acknowledged_assignment_sends_nothing(world):
    server, mail, gateway = world
    mentor = verify_channels(server, mail, gateway)
    answered = assign(server)
    status, _, _ = server.request("POST", f"/api/v1/assignments/{answered['id']}/acknowledge", mentor)
    assert status == 200
    sentinel = assign(server)
    assert wait_until(lambda: texts_for(gateway, sentinel) and mails_for(mail, sentinel), timeout=30)
    assert texts_for(gateway, answered) == [] and mails_for(mail, answered) == []


def test_quiet_hours_hold_a_normal_assignment_and_let_an_urgent_one_through(world):
    server, mail, gateway = world
    mentor = verify_channels(server, mail, gateway)
    now = datetime.now(ZoneInfo("Europe/Oslo"))
    start, end = (now - timedelta(hours=1)).strftime("%H:%M"), (now + timedelta(hours=1)).strftime("%H:%M")
    status, _, preferences = server.request("GET", "/api/v1/preferences", mentor)
    preferences["quietHours"] = {"start": start, "end": end, "timeZone": "Europe/Oslo"}
    status, _, saved = server.request("PUT", "/api/v1/preferences", mentor, preferences)
    assert status == 200 and saved["quietHours"]["start"] == start, saved
    held = assign(server)
    urgent = assign(server, urgency="urgent")
    assert wait_until(lambda: texts_for(gateway, urgent) and mails_for(mail, urgent), timeout=30)
    sentinel = assign(server, urgency="urgent")
    assert wait_until(lambda: texts_for(gateway, sentinel), timeout=30)
    assert texts_for(gateway, held) == [] and mails_for(mail, held) == []


def test_a_gateway_that_is_down_gets_the_message_when_it_is_back(world):
    server, mail, gateway = world
    verify_channels(server, mail, gateway)
    gateway.go_down(1)
    first = assign(server)
    # The first attempt meets the 503; the retry comes after the worker's backoff.
    assert wait_until(lambda: texts_for(gateway, first), timeout=60)
    assert len(texts_for(gateway, first)) == 1
