"""Webhooks: an integration's system is told of an assignment's life at an endpoint of its own, each request signed by
the Standard Webhooks specification (checked with the `standardwebhooks` library), in order, once per `webhook-id`
after de-duplication, through an endpoint that fails for a while and a kill -9 of the sending server; nothing
personal is sent, and a private address is refused unless the operator allows it."""
import json
import os
import re
import signal
import sqlite3
import threading
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema
import yaml
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from test_cli_and_privacy import assert_one_sentence, run_varsel
from varsel_server import DEMO_PASSWORD, VarselServer, wait_until

OPENAPI = Path(__file__).resolve().parents[2] / "Sources" / "VarselWeb" / "Resources" / "openapi.yaml"
CONTACT = {"name": "Per Olsen", "phone": "900 11 222", "address": "Torggata 3, 0181 Oslo", "notes": "Lost his sight this spring"}
EVENTS = "assignment.created,assignment.acknowledged,assignment.done,notification.read,assignment.reassigned"


class Receiver:
    """An integration's endpoint on loopback: records every request; answers 500 while `failing` is set."""

    def __init__(self):
        self.requests = []
        self.failing = threading.Event()
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.requests.append((dict(self.headers), body, receiver.failing.is_set()))
                self.send_response(500 if receiver.failing.is_set() else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/varsel-events"

    def taken(self, secret):
        """The events the receiver took (answered 2xx), each verified, de-duplicated by `webhook-id`, in arrival order."""
        verifier = Webhook(secret)
        seen, events = set(), []
        with self.lock:
            requests = list(self.requests)
        for headers, body, refused in requests:
            lowered = {key.lower(): value for key, value in headers.items()}
            verifier.verify(body, lowered)
            if refused or lowered["webhook-id"] in seen:
                continue
            seen.add(lowered["webhook-id"])
            events.append(json.loads(body))
        return events

    def stop(self):
        self.server.shutdown()


def add_token_and_webhook(database, url, *extra):
    made = run_varsel("token", "create", "Case system", "--role", "coordinator", "--database", str(database))
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    token_id = re.search(r"Made integration token (\d+)", made.stderr).group(1)
    added = run_varsel("webhook", "add", token_id, "--url", url, "--events", EVENTS, "--database", str(database), *extra)
    assert added.returncode == 0, added.stderr
    secret = added.stdout.strip()
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{43}=", secret), added.stdout
    assert re.fullmatch(r"Added webhook endpoint \d+ for integration token \d+ \(5 events\) in .+; its signing secret is shown this "
                        r"once: keep it in that system's secrets\.", added.stderr.strip()), added.stderr
    return token, token_id, secret


def test_an_assignments_life_arrives_signed_in_order_once_through_failures_and_a_kill(tmp_path, browser):
    database = tmp_path / "varsel.sqlite"
    receiver = Receiver()
    server = VarselServer(database=database, extra_args=["--webhook-allow-private-endpoints"]).start()
    try:
        token, token_id, secret = add_token_and_webhook(database, receiver.url, "--allow-private-endpoint", "--data-key-file", f"{database}.key")
        mentor = server.token("demo-mentor")

        # The endpoint fails at first: the created event is tried, refused, and tried again later with the same id.
        receiver.failing.set()
        status, _, created = server.request("POST", "/api/v1/assignments", token, {"mentor": "demo-mentor", "contact": CONTACT})
        assert status == 201, created
        assignment = created["assignment"]["id"]
        assert wait_until(lambda: len(receiver.requests) >= 1, timeout=30), server.output[-20:]
        status, _, body = server.request("POST", f"/api/v1/assignments/{assignment}/acknowledge", mentor)
        assert status == 200, body
        status, _, body = server.request("POST", f"/api/v1/notifications/{created['notificationId']}/read", mentor)
        assert status == 200, body

        # The sending server dies between two attempts; a new one on the same database sends what was queued.
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        server.process = None
        receiver.failing.clear()
        server.start()
        mentor = server.token("demo-mentor")
        status, _, body = server.request("POST", f"/api/v1/assignments/{assignment}/done", mentor, {"note": "Talked for an hour"})
        assert status == 200, body

        wanted = ["assignment.created", "assignment.acknowledged", "notification.read", "assignment.done"]
        # A delivery the killed server had claimed waits out its lease (a minute) before another takes it.
        assert wait_until(lambda: [event["type"] for event in receiver.taken(secret)] == wanted, timeout=150), \
            ([event["type"] for event in receiver.taken(secret)], server.output[-20:])
        events = receiver.taken(secret)
        # Each body is what the API document's `webhooks` section says it is.
        document = yaml.safe_load(OPENAPI.read_text())
        schema = document["components"]["schemas"]["WebhookEvent"]
        assert set(document["webhooks"]) >= {event["type"] for event in events}
        for event in events:
            jsonschema.validate(event, schema)
        assert {event["data"].get("assignmentId") for event in events} == {assignment}
        assert [event["data"].get("status") for event in events if event["type"].startswith("assignment.")] == \
            ["pending", "acknowledged", "done"]
        # The failed attempt was retried with the same webhook-id, and the retry was signed anew.
        ids = [{k.lower(): v for k, v in headers.items()}["webhook-id"] for headers, _, _ in receiver.requests]
        refused = [{k.lower(): v for k, v in headers.items()}["webhook-id"] for headers, _, failed in receiver.requests if failed]
        assert refused and all(ids.count(identifier) >= 2 for identifier in refused), receiver.requests
        # Nothing personal: ids, kinds, states and times only.
        for _, body, _ in receiver.requests:
            text = body.decode()
            for detail in ("Per Olsen", "Olsen", "900 11 222", "Torggata", "sight", "Talked"):
                assert detail not in text, text
        # A signature made with another secret, or over another body, is refused by the receiver's library.
        headers, body, _ = receiver.requests[-1]
        lowered = {key.lower(): value for key, value in headers.items()}
        for wrong in ((Webhook("whsec_" + "A" * 43 + "="), body), (Webhook(secret), body + b" ")):
            try:
                wrong[0].verify(wrong[1], lowered)
            except WebhookVerificationError:
                pass
            else:
                raise AssertionError("a wrong secret or body was accepted")

        listing = run_varsel("webhook", "list", "--database", str(database))
        assert listing.returncode == 0, listing.stderr
        header, row = listing.stdout.splitlines()
        assert header == "id\tintegration\tstate\tmade\tevents\turl"
        assert row.endswith("\t" + receiver.url) and "\ton\t" in row, row
        assert secret not in listing.stdout
        # The secret is kept encrypted under the data key, like the personal details.
        with sqlite3.connect(database) as db:
            stored = db.execute("SELECT secret FROM webhook_endpoint").fetchone()[0]
        assert stored.startswith("\x01") and secret.removeprefix("whsec_") not in stored

        # An administrator sees each delivery in words on the integration's webhooks page; never the secret.
        added = run_varsel("user", "add", "anne", "--role", "admin", "--database", str(database), "--bcrypt-cost", "4",
                           stdin=DEMO_PASSWORD + "\n")
        assert added.returncode == 0, added.stderr
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(server.base_url + "/signin")
            page.fill("#username", "anne")
            page.fill("#password", DEMO_PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url("**/notifications")
            page.goto(server.base_url + f"/integrations/{token_id}/webhooks")
            rows = page.locator("ul[aria-labelledby$='-deliveries'] li").all_inner_texts()
            assert rows[0] == "Visit done, delivered after 1 attempt", rows
            # Refused at least once while the endpoint failed, then taken.
            assert re.fullmatch(r"Assignment created, delivered after [2-9] attempts", rows[-1]), rows
            assert secret not in page.content()
        finally:
            context.close()
    finally:
        server.stop()
        receiver.stop()


def test_a_private_or_plain_http_endpoint_is_refused_unless_allowed(tmp_path):
    database = tmp_path / "varsel.sqlite"
    added = run_varsel("user", "add", "anne", "--role", "admin", "--database", str(database), "--bcrypt-cost", "4", stdin="a long password\n")
    assert added.returncode == 0, added.stderr
    made = run_varsel("token", "create", "Case system", "--role", "coordinator", "--database", str(database))
    token_id = re.search(r"Made integration token (\d+)", made.stderr).group(1)
    for url in ("http://127.0.0.1:9/hooks", "https://10.1.2.3/hooks", "https://localhost/hooks", "https://user:pw@example.org/x"):
        refused = run_varsel("webhook", "add", token_id, "--url", url, "--events", "assignment.created", "--database", str(database))
        assert_one_sentence(refused)
        assert "url must be an https URL on a public host" in refused.stderr, refused.stderr
        # The refusal never repeats what was typed.
        assert url not in refused.stderr
    unknown_event = run_varsel("webhook", "add", token_id, "--url", "https://hooks.example.org/varsel", "--events", "assignment.eaten",
                               "--database", str(database))
    assert_one_sentence(unknown_event)
    assert "events must name only the events Varsel sends" in unknown_event.stderr
    assert "assignment.eaten" not in unknown_event.stderr
    no_token = run_varsel("webhook", "add", "1", "--url", "https://hooks.example.org/varsel", "--events", "assignment.created",
                          "--database", str(database))
    assert_one_sentence(no_token)
    assert "There is no active integration token 1" in no_token.stderr
    assert run_varsel("webhook", "list", "--database", str(database)).stderr == f"0 webhook endpoints in {os.path.abspath(database)}.\n"

    public = run_varsel("webhook", "add", token_id, "--url", "https://hooks.example.org/varsel", "--events", "assignment.created",
                        "--database", str(database))
    assert public.returncode == 0, public.stderr
    endpoint_id = re.search(r"Added webhook endpoint (\d+)", public.stderr).group(1)
    removed = run_varsel("webhook", "remove", endpoint_id, "--database", str(database))
    assert removed.returncode == 0 and removed.stdout == \
        f"Removed webhook endpoint {endpoint_id} from {os.path.abspath(database)}, with what was still queued for it.\n"
    again = run_varsel("webhook", "remove", endpoint_id, "--database", str(database))
    assert_one_sentence(again)
    assert again.stderr.strip() == f"Error: There is no webhook endpoint {endpoint_id} in {os.path.abspath(database)}: see `varsel webhook list`."
