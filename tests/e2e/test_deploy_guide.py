"""The operator's guide, run as written: `docs/deploy.md`'s PostgreSQL commands (a role and a database, the first
admin, the people commands, an integration token) against the test PostgreSQL server, and every line they print is
one the guide shows.

Only what cannot be the same here is changed: the guide's database machine `db.internal:5432` is the test server,
its role and database `varsel` get a name of their own (the test server's superuser is already called varsel),
`sudo -u postgres` runs PostgreSQL's client as that superuser, and kari, whom the guide's coordinators add in the
browser, is added first. The package test runs the install commands in a Debian without Swift.
"""
from __future__ import annotations

import glob
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import pytest

from test_cli_and_privacy import POSTGRES
from varsel_server import ROOT, varsel_binary

GUIDE = ROOT / "docs" / "deploy.md"


def shell_blocks(markdown: str) -> list[str]:
    """The guide's ```sh blocks, in order."""
    return re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.S | re.M)


def block_starting(blocks: list[str], first_command: str) -> str:
    """The one block whose first command is `first_command`; the test fails when the guide no longer has it."""
    found = [block for block in blocks if next(line for line in block.splitlines() if not line.startswith("#")).startswith(first_command)]
    assert len(found) == 1, f"the guide has no single block starting with {first_command!r}"
    return found[0]


def shown_outputs(block: str) -> list[str]:
    """What the guide says the block prints: its comment lines, without `# `."""
    return [line[2:] for line in block.splitlines() if line.startswith("# ")]


def variable_parts_as_words(text: str) -> str:
    """A printed line with what differs from run to run named instead: times, link codes, ids of people and tokens."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?Z", "<time>", text)
    text = re.sub(r"[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}", "<code>", text)
    text = re.sub(r"integration token \d+", "integration token <id>", text)
    return re.sub(r"^\d+\t", "<id>\t", text)


@pytest.mark.skipif(not POSTGRES, reason="needs VARSEL_TEST_POSTGRES_URL (scripts/test.sh starts PostgreSQL)")
def test_the_guides_postgresql_commands_run_as_written_and_print_what_it_shows(tmp_path):
    guide = GUIDE.read_text()
    blocks = shell_blocks(guide)
    database = block_starting(blocks, "sudo -u postgres createuser")
    first_admin = block_starting(blocks, "read -rs VARSEL_DB_PASSWORD")
    people = block_starting(blocks, "varsel user reset-link kari")
    tokens = block_starting(blocks, "TOKEN=$(varsel token create")

    server = urlparse(POSTGRES)
    name = f"guide_{os.getpid()}"
    here = f"{server.hostname}:{server.port}"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "varsel").symlink_to(varsel_binary())
    postgres_bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]

    def as_here(block: str) -> str:
        return (block.replace("db.internal:5432", here).replace("createuser --pwprompt varsel", f"createuser --pwprompt {name}")
                .replace("--owner varsel varsel", f"--owner {name} {name}").replace("postgres://varsel:", f"postgres://{name}:").replace("postgres://varsel@", f"postgres://{name}@")
                .replace(":5432/varsel", f":5432/{name}").replace(f"{here}/varsel", f"{here}/{name}"))

    script = "\n".join([
        "set -euo pipefail",
        # `sudo -u postgres …` runs PostgreSQL's client as the test server's superuser, handing it the two lines it
        # asks for (it would read ahead the lines meant for the guide's `read`s).
        'sudo() { [ "$1" = -u ] && shift 2; { read -r first; read -r again; printf "%s\\n%s\\n" "$first" "$again"; } | "$@"; }',
        as_here(database),
        as_here(first_admin),
        # The guide's coordinators add kari in the browser; here the command line does.
        "varsel user add kari --role mentor --link --public-url https://varsel.example >/dev/null",
        as_here(people),
        as_here(tokens),
    ])
    secret = "a role password"
    # createuser asks for the role's password twice; the guide's two `read -rs` take the same and the admin's.
    stdin = f"{secret}\n{secret}\n\n\n{secret}\nthe first admin's password\n"
    env = dict(os.environ, PATH=f"{bin_dir}:{postgres_bin}:{os.environ['PATH']}", PGHOST=server.hostname, PGPORT=str(server.port),
               PGUSER=server.username, PGDATABASE="postgres")
    env.pop("VARSEL_DATABASE", None)
    env.pop("VARSEL_PUBLIC_URL", None)
    try:
        ran = subprocess.run(["bash", "-c", script], input=stdin, capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        printed = [line for line in (ran.stdout + ran.stderr).splitlines() if line.strip() and not line.startswith("Enter ")]
        shown = {variable_parts_as_words(as_here(line)) for block in (first_admin, people, tokens) for line in shown_outputs(block)}
        # `(and on standard error: …)` in the guide is a line of standard error.
        shown |= {re.sub(r"^\(and on standard error: (.*)\)$", r"\1", line) for line in shown}
        unshown = [line for line in printed if variable_parts_as_words(line) not in shown]
        assert not unshown, f"printed but not in the guide: {unshown}"
        # And the guide's own lines were all printed, but the comments that explain a step.
        said = {variable_parts_as_words(line) for line in printed}
        missing = [line for line in shown if line not in said and not re.match(r"^(\d\.|   |\(and on standard error)", line)
                   and "…" not in line]
        assert not missing, f"in the guide but never printed: {missing}"
    finally:
        subprocess.run([f"{postgres_bin}/psql", POSTGRES, "-c", f"DROP DATABASE IF EXISTS {name}", "-c", f"DROP ROLE IF EXISTS {name}"],
                       capture_output=True)


def test_the_guides_nginx_configuration_is_one_nginx_accepts():
    """The guide's nginx `server` and `upstream`, inside the `http` block of a file of its own, pass `nginx -t` with a
    certificate made for the test in place of the guide's Let's Encrypt paths (the test of two instances behind nginx
    runs the same proxying)."""
    import shutil
    import socket
    import tempfile

    def free_port() -> int:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip("needs nginx (scripts/test.sh installs it)")
    [block] = re.findall(r"^```nginx\n(.*?)^```", GUIDE.read_text(), flags=re.S | re.M)
    with tempfile.TemporaryDirectory() as directory:
        here = Path(directory)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=varsel.example",
                        "-keyout", str(here / "privkey.pem"), "-out", str(here / "fullchain.pem")], check=True, capture_output=True)
        config = (block.replace("/etc/letsencrypt/live/varsel.example/", f"{here}/")
                  .replace("listen 443 ssl", f"listen 127.0.0.1:{free_port()} ssl"))
        (here / "nginx.conf").write_text(f"""
error_log {here}/error.log;
pid {here}/nginx.pid;
events {{}}
http {{
  access_log off;
  client_body_temp_path {here}/body;
  proxy_temp_path {here}/proxy;
  fastcgi_temp_path {here}/fastcgi;
  uwsgi_temp_path {here}/uwsgi;
  scgi_temp_path {here}/scgi;
{config}
}}
""")
        checked = subprocess.run([nginx, "-t", "-p", str(here), "-c", str(here / "nginx.conf")], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        assert "syntax is ok" in checked.stderr and "test is successful" in checked.stderr, checked.stderr
