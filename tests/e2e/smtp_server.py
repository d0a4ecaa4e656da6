#!/usr/bin/env python3
"""A real SMTP server (aiosmtpd) for tests: it stores what it receives and can refuse on demand.

Prints exactly one line, ``READY <port>``, on stdout once it listens, then runs until SIGTERM.

Options:
  --host H                 address to listen on (default 127.0.0.1)
  --port N                 0 picks a free port (the READY line tells which)
  --tls none|starttls|implicit
  --cert FILE --key FILE   PEM certificate and key (needed for starttls and implicit)
  --auth USER:PASSWORD     require AUTH (PLAIN or LOGIN); with starttls only after STARTTLS
  --auth-mechanisms LIST   offer only these of PLAIN,LOGIN (default both)
  --out DIR                write each message as DIR/<n>.eml (bytes as received after
                           dot-unstuffing) and DIR/<n>.json (envelope, auth, tls, decoded)
  --fail-first N CODE      answer the first N DATA commands with CODE (e.g. 451), given as
                           the reply at the end of the message data
  --exit-with-stdin        also stop when stdin closes, so a parent that dies leaves no server

The json holds {"mail_from", "rcpt_tos", "auth_login", "tls"} and "decoded": the message as
Python's email package reads it (subject and from name decoded, plain and html parts with
their quoted-printable and charset undone, line endings as \\n), so tests in any language
can check a message without a MIME parser of their own.
"""

import argparse
import asyncio
import email
import email.policy
import json
import logging
import os
import signal
import ssl
import sys
import warnings

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def decode_message(raw: bytes) -> dict:
    """Reads a received message with Python's email package into plain fields."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    sender = msg["From"]
    sender_address = sender.addresses[0] if sender is not None and sender.addresses else None

    def body(kind):
        part = msg.get_body(preferencelist=(kind,))
        if part is None or part.get_content_type() != f"text/{kind}":
            return None
        return part.get_content().replace("\r\n", "\n")

    parts = [p for p in msg.walk() if not p.is_multipart()]
    lines = raw.split(b"\r\n")
    return {
        "subject": str(msg["Subject"]) if msg["Subject"] is not None else None,
        "from_name": sender_address.display_name if sender_address else None,
        "from_address": sender_address.addr_spec if sender_address else None,
        "to": str(msg["To"]) if msg["To"] is not None else None,
        "date": str(msg["Date"]) if msg["Date"] is not None else None,
        "message_id": msg["Message-ID"],
        "mime_version": msg["MIME-Version"],
        "content_language": msg["Content-Language"],
        "auto_submitted": msg["Auto-Submitted"],
        "content_type": msg.get_content_type(),
        "part_types": [p.get_content_type() for p in parts],
        "part_charsets": [p.get_content_charset() for p in parts],
        "part_encodings": [p.get("Content-Transfer-Encoding") for p in parts],
        "plain": body("plain"),
        "html": body("html"),
        "defects": [type(d).__name__ for d in msg.defects] + [
            type(d).__name__ for p in parts for d in p.defects
        ],
        "max_line_length": max((len(line) for line in lines), default=0),
        "bare_lf": b"\n" in raw.replace(b"\r\n", b""),
        "non_ascii": any(b > 127 for b in raw),
    }


class Handler:
    """Stores each message, after refusing the first few when asked to."""

    def __init__(self, out_dir, fail_count, fail_code, implicit_tls):
        self.out_dir = out_dir
        self.fail_left = fail_count
        self.fail_code = fail_code
        self.implicit_tls = implicit_tls
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        if self.fail_left > 0:
            self.fail_left -= 1
            kind = "4.3.0 Try again later" if self.fail_code < 500 else "5.7.1 Refused"
            return f"{self.fail_code} {kind}"
        self.count += 1
        if self.out_dir:
            raw = envelope.original_content
            login = getattr(session.auth_data, "login", None)
            info = {
                "mail_from": envelope.mail_from,
                "rcpt_tos": list(envelope.rcpt_tos),
                "auth_login": login.decode("utf-8") if isinstance(login, bytes) else login,
                "tls": self.implicit_tls or session.ssl is not None,
            }
            try:
                info["decoded"] = decode_message(raw)
            except Exception as error:  # a broken message is still stored, to be looked at
                info["decoded"] = {"error": repr(error)}
            base = os.path.join(self.out_dir, str(self.count))
            write_atomically(base + ".eml", raw)
            write_atomically(base + ".json", json.dumps(info, indent=2, ensure_ascii=False).encode("utf-8"))
        return "250 2.0.0 OK"


def write_atomically(path, data):
    """Writes a file under a temporary name and renames it, so readers never see half of it."""
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def make_authenticator(user, password):
    """Accepts only the one user and password given on the command line."""
    expected = LoginPassword(user.encode("utf-8"), password.encode("utf-8"))

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data == expected
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    return authenticate


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", choices=["none", "starttls", "implicit"], default="none")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--auth", metavar="USER:PASSWORD")
    parser.add_argument("--auth-mechanisms", default="PLAIN,LOGIN", metavar="LIST")
    parser.add_argument("--out", metavar="DIR")
    parser.add_argument("--fail-first", nargs=2, type=int, metavar=("N", "CODE"), default=(0, 451))
    parser.add_argument("--exit-with-stdin", action="store_true")
    args = parser.parse_args()

    # aiosmtpd warns per connection about choices made on purpose here (AUTH without STARTTLS).
    warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
    logging.getLogger("mail.log").setLevel(logging.ERROR)

    context = None
    if args.tls != "none":
        if not (args.cert and args.key):
            parser.error("--tls starttls/implicit needs --cert and --key")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
    if args.out:
        os.makedirs(args.out, exist_ok=True)

    handler = Handler(args.out, args.fail_first[0], args.fail_first[1], args.tls == "implicit")
    smtp_options = {"hostname": "localhost", "ident": "varsel-test-smtp"}
    if args.tls == "starttls":
        smtp_options["tls_context"] = context
        smtp_options["require_starttls"] = bool(args.auth)
    if args.auth:
        user, _, password = args.auth.partition(":")
        smtp_options["authenticator"] = make_authenticator(user, password)
        smtp_options["auth_required"] = True
        offered = {m.strip().upper() for m in args.auth_mechanisms.split(",")}
        smtp_options["auth_exclude_mechanism"] = {"PLAIN", "LOGIN"} - offered
        # aiosmtpd only counts STARTTLS as encryption; implicit TLS is encrypted from the start.
        smtp_options["auth_require_tls"] = args.tls == "starttls"

    async def serve():
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: SMTP(handler, **smtp_options),
            host=args.host,
            port=args.port,
            ssl=context if args.tls == "implicit" else None,
        )
        stop = loop.create_future()
        # A parent may start us with SIGTERM blocked (Foundation's Process can); unblock it.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
        if args.exit_with_stdin:
            loop.add_reader(sys.stdin.fileno(), lambda: os.read(sys.stdin.fileno(), 4096) or stop.done() or stop.set_result(None))
        port = server.sockets[0].getsockname()[1]
        print(f"READY {port}", flush=True)
        await stop
        server.close()

    asyncio.run(serve())


if __name__ == "__main__":
    sys.exit(main())
