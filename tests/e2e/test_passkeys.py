"""Passkeys through the real pages, in Chromium with DevTools' virtual authenticator, and each ceremony checked again
by independent WebAuthn libraries (py_webauthn verifies what the browser made; python-fido2 builds assertions Varsel
must accept, and the ones it must refuse)."""
import base64
import hashlib
import json
import os
import re
import socket
import struct
import urllib.request

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.webauthn import AttestedCredentialData, AuthenticatorData, CollectedClientData
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import base64url_to_bytes

from varsel_server import DEMO_PASSWORD, VarselServer


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def passkey_server(tmp_path):
    """A demo server whose public URL is http://localhost:PORT: WebAuthn refuses IP-address origins."""
    port = free_port()
    server = VarselServer(database=tmp_path / "passkeys.sqlite", port=port, host_name="localhost",
                          extra_args=["--public-url", f"http://localhost:{port}"]).start()
    server.origin = server.base_url
    yield server
    server.stop()


@pytest.fixture
def tab(browser, passkey_server):
    context = browser.new_context()
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    authenticator = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]
    page.cdp, page.authenticator = cdp, authenticator
    yield page
    context.close()


def record(page):
    """The ceremonies' JSON as the browser sent and received it, by path: read in the route, so a navigation that
    follows cannot lose a body."""
    seen = {}

    def through(route):
        request = route.request
        response = route.fetch()
        path = request.url.split("/api/v1/", 1)[1]
        body = request.post_data
        seen.setdefault(path, []).append((json.loads(body) if body else None, response.status, response.json()))
        route.fulfill(response=response)
    page.route("**/api/v1/me/passkeys**", through)
    page.route("**/api/v1/session/passkey**", through)
    return seen


def sign_in_with_password(page, server, username="demo-mentor"):
    page.goto(server.origin + "/signin")
    page.fill("#username", username)
    page.fill("#password", DEMO_PASSWORD)
    page.click("form[action='/signin'] button[type=submit]")
    page.wait_for_url("**/notifications")


def without_autofill(page):
    """The virtual authenticator answers a passkey autofill request at once, as no real one does before the user picks
    the passkey: without it, the button is what signs in."""
    page.add_init_script("if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = async () => false;")


def test_a_mentor_adds_a_passkey_signs_in_with_it_in_one_keypress_and_removes_it(tab, passkey_server):
    without_autofill(tab)
    seen = record(tab)
    sign_in_with_password(tab, passkey_server)
    tab.goto(passkey_server.origin + "/profile")
    assert not tab.is_visible("#passkey-needs-script"), "with the script, the form instead of the sentence"
    assert tab.is_visible("#add-passkey-form")
    tab.fill("#new-passkey-name", "Kari's phone")
    tab.click("#add-passkey")
    tab.wait_for_url("**/profile?done=passkey-added")
    assert tab.inner_text("#flash") == "Passkey added."
    assert tab.inner_text("#passkey-list h3") == "Kari's phone"
    assert "never used" in tab.inner_text("#passkey-list")
    credentials = tab.cdp.send("WebAuthn.getCredentials", {"authenticatorId": tab.authenticator})["credentials"]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"]

    tab.click("header form[action='/signout'] button")
    tab.wait_for_url("**/signin")
    tab.focus("#sign-in-passkey")
    tab.keyboard.press("Enter")
    tab.wait_for_url("**/notifications")
    tab.goto(passkey_server.origin + "/profile")
    assert "last used" in tab.inner_text("#passkey-list")

    # The same two ceremonies, verified by py_webauthn from the bytes the browser sent.
    options = seen["me/passkeys/options"][0][2]
    registration = seen["me/passkeys"][0][0]["credential"]
    verified = verify_registration_response(
        credential={**registration, "rawId": registration["id"]}, expected_challenge=base64url_to_bytes(options["challenge"]),
        expected_origin=passkey_server.origin, expected_rp_id="localhost", require_user_verification=True)
    sign_in_options = seen["session/passkey/options"][-1][2]
    assertion = seen["session/passkey"][-1][0]["credential"]
    assert seen["session/passkey"][-1][1] == 201
    checked = verify_authentication_response(
        credential={**assertion, "rawId": assertion["id"]}, expected_challenge=base64url_to_bytes(sign_in_options["challenge"]),
        expected_origin=passkey_server.origin, expected_rp_id="localhost", credential_public_key=verified.credential_public_key,
        credential_current_sign_count=verified.sign_count, require_user_verification=True)
    assert checked.new_sign_count > verified.sign_count or checked.new_sign_count == 0
    assert [entry[1] for entry in seen["session/passkey"]] == [201], "one sign-in, by the button"

    tab.click("[id^=remove-passkey-]")
    tab.wait_for_url("**/profile?done=passkey-removed")
    assert tab.inner_text("#flash") == "Passkey removed."
    assert tab.inner_text("#no-passkeys") == "You have no passkeys."


def test_the_username_fields_passkey_autofill_signs_in(tab, passkey_server):
    sign_in_with_password(tab, passkey_server)
    tab.goto(passkey_server.origin + "/profile")
    tab.click("#add-passkey")
    tab.wait_for_url("**/profile?done=passkey-added")
    tab.click("header form[action='/signout'] button")
    tab.wait_for_url("**/signin")
    # The page asks for a passkey with conditional mediation as it loads; the virtual authenticator answers at once,
    # so the page may be gone before its field could be read: the field is read as served, without a session.
    with urllib.request.urlopen(passkey_server.origin + "/signin") as response:
        served = response.read().decode()
    field = re.search(r'<input[^>]*\bid="username"[^>]*>', served)
    assert field and 'autocomplete="username webauthn"' in field.group(0)
    tab.wait_for_url("**/notifications")


def test_a_passkey_is_renamed_and_a_bad_name_is_said_by_field(tab, passkey_server):
    sign_in_with_password(tab, passkey_server)
    tab.goto(passkey_server.origin + "/profile")
    tab.click("#add-passkey")
    tab.wait_for_url("**/profile?done=passkey-added")
    field = tab.locator("[id^=passkey-name-]").first
    field.fill("   ")
    tab.click("[id^=rename-passkey-]")
    assert field.get_attribute("aria-invalid") == "true"
    assert "1 to 60 characters" in tab.inner_text(".field-error")
    # The summary names the field as its label does, by the passkey's name as it still is.
    assert tab.inner_text("#error-summary a") == "New name for My phone: Give the passkey a name of 1 to 60 characters."
    tab.locator("[id^=passkey-name-]").first.fill("Work laptop")
    tab.click("[id^=rename-passkey-]")
    tab.wait_for_url("**/profile?done=passkey-renamed")
    assert tab.inner_text("#passkey-list h3") == "Work laptop"


# A software authenticator built from python-fido2's structures and `cryptography`'s keys -----------------------

def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Fido2Authenticator:
    def __init__(self, rp_id="localhost"):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.rp_id_hash = hashlib.sha256(rp_id.encode()).digest()
        self.counter = 0

    def registration(self, challenge: bytes, origin: str):
        cose = ES256.from_cryptography_key(self.key.public_key())
        attested = AttestedCredentialData.create(b"\0" * 16, self.credential_id, cose)
        auth_data = AuthenticatorData.create(self.rp_id_hash, AuthenticatorData.FLAG.UP | AuthenticatorData.FLAG.UV | AuthenticatorData.FLAG.AT,
                                             self.counter, attested)
        client_data = CollectedClientData.create(CollectedClientData.TYPE.CREATE, challenge, origin)
        from fido2.webauthn import AttestationObject
        attestation = AttestationObject.create("none", auth_data, {})
        return {"id": b64(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64(bytes(client_data)), "attestationObject": b64(bytes(attestation))}}

    def assertion(self, challenge: bytes, origin: str, flags=None, counter=None, type_=CollectedClientData.TYPE.GET, rp_id=None):
        self.counter = self.counter + 1 if counter is None else counter
        flags = AuthenticatorData.FLAG.UP | AuthenticatorData.FLAG.UV if flags is None else flags
        rp_id_hash = hashlib.sha256(rp_id.encode()).digest() if rp_id else self.rp_id_hash
        auth_data = AuthenticatorData.create(rp_id_hash, flags, self.counter)
        client_data = CollectedClientData.create(type_, challenge, origin)
        signature = self.key.sign(bytes(auth_data) + client_data.hash, ec.ECDSA(hashes.SHA256()))
        return {"id": b64(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64(bytes(client_data)), "authenticatorData": b64(bytes(auth_data)),
                             "signature": b64(signature), "userHandle": None}}


class Client:
    """Speaks the JSON API like a browser on the server's localhost origin: cookies kept, Origin sent."""

    def __init__(self, server):
        import http.cookiejar
        import urllib.request
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def post(self, path, body, token=None):
        import urllib.error
        import urllib.request
        request = urllib.request.Request(self.server.base_url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "Origin": self.server.base_url})
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


def registered(passkey_server):
    """A demo mentor with a passkey from the python-fido2 authenticator, added through the API."""
    token = passkey_server.token("demo-mentor")
    client = Client(passkey_server)
    authenticator = Fido2Authenticator()
    status, options = client.post("/api/v1/me/passkeys/options", {}, token)
    assert status == 200, options
    credential = authenticator.registration(base64url_to_bytes(options["challenge"]), passkey_server.origin)
    status, body = client.post("/api/v1/me/passkeys", {"name": "fido2", "credential": credential}, token)
    assert status == 201, body
    return authenticator


def sign_in(passkey_server, authenticator, client=None, **changes):
    client = client or Client(passkey_server)
    status, options = client.post("/api/v1/session/passkey/options", {})
    assert status == 200, options
    challenge = changes.pop("challenge", base64url_to_bytes(options["challenge"]))
    origin = changes.pop("origin", passkey_server.origin)
    return client.post("/api/v1/session/passkey", {"credential": authenticator.assertion(challenge, origin, **changes)})


def test_varsel_accepts_a_python_fido2_authenticator_and_refuses_each_broken_ceremony(passkey_server):
    authenticator = registered(passkey_server)
    status, body = sign_in(passkey_server, authenticator)
    assert status == 201 and body["user"]["username"] == "demo-mentor"

    # Each refusal by a passkey of its own: five failures of one passkey from one address start the sign-in throttle.
    refused = {
        "another origin": sign_in(passkey_server, registered(passkey_server), origin="http://localhost:1"),
        "user verification missing": sign_in(passkey_server, registered(passkey_server), flags=AuthenticatorData.FLAG.UP),
        "a counter that went back": sign_in(passkey_server, authenticator, counter=1),
        "the other ceremony's type": sign_in(passkey_server, registered(passkey_server), type_=CollectedClientData.TYPE.CREATE),
        "a challenge Varsel never issued": sign_in(passkey_server, registered(passkey_server), challenge=os.urandom(32)),
        "another RP id": sign_in(passkey_server, registered(passkey_server), rp_id="evil.example"),
        "an unknown credential": sign_in(passkey_server, Fido2Authenticator()),
    }
    for why, (status, problem) in refused.items():
        assert status == 401 and problem["detail"] == "The passkey was not accepted.", why

    # A replayed assertion: its challenge was used by the first sign-in.
    authenticator = registered(passkey_server)
    client = Client(passkey_server)
    status, options = client.post("/api/v1/session/passkey/options", {})
    assertion = authenticator.assertion(base64url_to_bytes(options["challenge"]), passkey_server.origin)
    attempt = [cookie for cookie in client.jar if cookie.name == "varsel_passkey_attempt"]
    assert client.post("/api/v1/session/passkey", {"credential": assertion})[0] == 201
    # The same bytes again, from the same attempt (its cookie), without the session the first one started.
    replay = Client(passkey_server)
    replay.jar.set_cookie(attempt[0])
    assert replay.post("/api/v1/session/passkey", {"credential": assertion})[0] == 401

    # Bound to the attempt: another browser (no attempt cookie) cannot answer this one's challenge.
    status, options = Client(passkey_server).post("/api/v1/session/passkey/options", {})
    stolen = authenticator.assertion(base64url_to_bytes(options["challenge"]), passkey_server.origin)
    assert Client(passkey_server).post("/api/v1/session/passkey", {"credential": stolen})[0] == 401

    # A malformed CBOR map in the registration: refused with a clear problem, nothing stored.
    token = passkey_server.token("demo-mentor")
    client = Client(passkey_server)
    status, options = client.post("/api/v1/me/passkeys/options", {}, token)
    broken = Fido2Authenticator().registration(base64url_to_bytes(options["challenge"]), passkey_server.origin)
    raw = bytearray(base64url_to_bytes(broken["response"]["attestationObject"]))
    raw[0] = 0xA4  # a map that says four pairs and holds three
    broken["response"]["attestationObject"] = b64(bytes(raw))
    status, problem = client.post("/api/v1/me/passkeys", {"name": "broken", "credential": broken}, token)
    assert status == 422 and problem["detail"] == "The passkey was not added."
    status, _, listed = passkey_server.request("GET", "/api/v1/me/passkeys", token)
    assert "broken" not in [item["name"] for item in listed["items"]]
    # Five failures of one passkey from one address, and the next attempt waits.
    stranger = Fido2Authenticator()
    answers = [sign_in(passkey_server, stranger)[0] for _ in range(6)]
    assert answers == [401] * 5 + [429]
    # Why it failed is in the log, never a challenge or a key.
    log = "".join(passkey_server.output)
    assert "passkey not accepted" in log and options["challenge"] not in log


def test_a_new_person_adds_a_passkey_on_the_set_password_page_instead_of_a_password_and_signs_in_with_it(tab, passkey_server):
    without_autofill(tab)
    status, _, invited = passkey_server.request("POST", "/api/v1/users", passkey_server.token("demo-coordinator"), {
        "username": "nina", "displayName": "Nina Berg", "role": "mentor", "locale": "en"})
    assert status == 201, invited
    tab.goto(passkey_server.origin + "/password/" + invited["setPasswordLink"]["code"])
    assert tab.inner_text("#passkey-instead") == "Or add a passkey instead"
    assert not tab.is_visible("#passkey-needs-script")
    tab.fill("#new-passkey-name", "Nina's phone")
    tab.click("#add-passkey")
    tab.wait_for_url("**/?done=passkey-added")
    assert tab.inner_text("#flash") == "Passkey added."
    assert tab.inner_text(".top-bar .user") == "Nina Berg"
    # The link is used up, and Nina has no password: her one passkey cannot be removed.
    assert passkey_server.request("POST", "/api/v1/password", None, {
        "code": invited["setPasswordLink"]["code"], "password": "a long password"})[0] == 404
    tab.goto(passkey_server.origin + "/profile")
    tab.click("[id^=remove-passkey-]")
    assert tab.inner_text("#passkeys-error") == "This passkey is your only way to sign in: choose a password first."
    assert tab.inner_text("#passkey-list h3") == "Nina's phone"
    tab.click("header form[action='/signout'] button")
    tab.wait_for_url("**/signin")
    tab.focus("#sign-in-passkey")
    tab.keyboard.press("Enter")
    tab.wait_for_url("**/notifications")
    assert tab.inner_text(".top-bar .user") == "Nina Berg"


def test_without_javascript_the_passkey_controls_give_way_to_a_sentence(browser, passkey_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(passkey_server.origin + "/signin")
    assert not page.is_visible("#sign-in-passkey"), "no button that could not work"
    sign_in_with_password(page, passkey_server)
    page.goto(passkey_server.origin + "/profile")
    assert page.is_visible("#passkey-needs-script")
    assert page.inner_text("#passkey-needs-script") == "Adding a passkey needs JavaScript and a browser that supports passkeys."
    assert not page.is_visible("#add-passkey-form")
    context.close()
