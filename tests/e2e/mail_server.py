"""A real SMTP server (aiosmtpd, through smtp_server.py) for end-to-end tests: STARTTLS with a fresh self-signed
certificate and AUTH, and what it received read back as Python's email package decodes it."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


class MailServer:
    """One smtp_server.py process on a free port, with its certificate, credentials and received messages."""

    user = "varsel"
    password = "smtp secret for tests"

    def __init__(self, tls: str = "starttls") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="varsel-smtp-"))
        self.cert = self.dir / "cert.pem"
        key = self.dir / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
                        "-keyout", str(key), "-out", str(self.cert)], check=True, capture_output=True)
        self.password_file = self.dir / "password"
        self.password_file.write_text(self.password + "\n")
        self.out = self.dir / "received"
        self.out.mkdir()
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "smtp_server.py"), "--tls", tls, "--cert", str(self.cert), "--key", str(key),
             "--auth", f"{self.user}:{self.password}", "--out", str(self.out)], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline() if self.process.stdout else ""
        if not line.startswith("READY "):
            self.close()
            raise RuntimeError("the SMTP server did not start: " + line)
        self.port = int(line.split()[1])

    def serve_args(self, sender: str = "Varsel <varsel@example.org>") -> list[str]:
        """The `varsel serve` options that send email through this server."""
        return ["--smtp-host", "127.0.0.1", "--smtp-port", str(self.port), "--smtp-security", "starttls", "--smtp-username", self.user,
                "--smtp-password-file", str(self.password_file), "--smtp-ca-file", str(self.cert), "--mail-from", sender]

    def messages(self, to: str | None = None) -> list[dict]:
        """Every message received, in order: the envelope, whether it came over TLS and who authenticated, and
        `decoded` (subject, from, plain and html parts)."""
        found = []
        for path in sorted(self.out.glob("*.json"), key=lambda p: int(p.stem)):
            try:
                message = json.loads(path.read_text())
            except json.JSONDecodeError:
                continue  # still being written
            if to is None or to in message["rcpt_tos"]:
                found.append(message)
        return found

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
