"""The release installs and runs where there is no Swift: a minimal Debian made with debootstrap, the .deb installed
with apt as an operator would, `varsel serve --demo` started as the varsel user, and its pages read over HTTP.

Needs root (debootstrap, chroot, mounts) and the packages from scripts/package.sh in dist/."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"


def only(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {DIST} (run scripts/package.sh): {found}"
    return found[0]


def run(*arguments, **options) -> subprocess.CompletedProcess:
    return subprocess.run(arguments, capture_output=True, text=True, timeout=600, **options)


@pytest.fixture(scope="module")
def debian(tmp_path_factory):
    """A minimal Debian 12 root, without Swift, with /proc and /dev for the programs run in it: the one named by
    VARSEL_TEST_DEBIAN, or one made now."""
    if os.geteuid() != 0:
        pytest.skip("debootstrap and chroot need root")
    if not shutil.which("debootstrap"):
        pytest.skip("debootstrap is not installed (scripts/test.sh installs it)")
    prepared = os.environ.get("VARSEL_TEST_DEBIAN")
    if prepared:
        # Made beforehand by scripts/test.sh, while the builds ran.
        root = Path(prepared)
        assert (root / "usr/bin/apt-get").exists(), f"{root} is not a Debian made by debootstrap"
    else:
        root = tmp_path_factory.mktemp("debian") / "root"
        made = run("debootstrap", "--variant=minbase", "bookworm", str(root), "http://deb.debian.org/debian")
        assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    mounts = []
    for source, target, extra in (("proc", "proc", ["-t", "proc"]), ("/dev", "dev", ["--bind"])):
        assert run("mount", *extra, source, str(root / target)).returncode == 0
        mounts.append(root / target)
    yield root
    for mount in reversed(mounts):
        run("umount", "-l", str(mount))


def chroot(root: Path, *command: str, **options) -> subprocess.CompletedProcess:
    return run("chroot", str(root), *command, **options)


def as_varsel(root: Path, script: str) -> subprocess.CompletedProcess:
    """Runs a shell line in the root as the varsel user, in its data directory."""
    return chroot(root, "setpriv", "--reuid=varsel", "--regid=varsel", "--init-groups", "sh", "-c", f"cd /var/lib/varsel && {script}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_deb_installs_on_a_debian_without_swift_and_serves_the_demo(debian, capsys):
    deb = only("varsel_*.deb")
    assert not (debian / "usr/bin/swift").exists() and chroot(debian, "sh", "-c", "command -v swift").returncode != 0
    shutil.copy(deb, debian / "tmp" / deb.name)
    installed = chroot(debian, "apt-get", "install", "-y", "-q", f"/tmp/{deb.name}",
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]

    # Every library the binary loads is there, brought by the package's dependencies; none of them is Swift's.
    libraries = chroot(debian, "ldd", "/usr/lib/varsel/varsel").stdout
    assert "not found" not in libraries and "libswift" not in libraries, libraries
    depends = run("dpkg-deb", "-f", str(deb), "Depends").stdout
    for library, package in (("libstdc++", "libstdc++6"), ("libgcc_s", "libgcc-s1"), ("libz.so", "zlib1g"), ("libsqlite3", "libsqlite3-0")):
        if library in libraries:
            assert package in depends, (package, depends)

    version = chroot(debian, "varsel", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"varsel {deb.name.split('_')[1]}"
    # The system user, its data directory, the settings readable by its group only, the systemd unit.
    assert chroot(debian, "id", "-u", "varsel").returncode == 0
    assert chroot(debian, "stat", "-c", "%U:%G %a", "/var/lib/varsel").stdout.strip() == "varsel:varsel 750"
    assert chroot(debian, "stat", "-c", "%U:%G %a", "/etc/varsel/env").stdout.strip() == "root:varsel 640"
    assert (debian / "lib/systemd/system/varsel@.service").exists()
    assert (debian / "usr/share/varsel/prometheus/varsel-alerts.yml").exists()
    assert chroot(debian, "stat", "-c", "%U:%G %a", "/etc/varsel/keys").stdout.strip() == "varsel:varsel 700"

    # The guide's first commands, as it writes them: the data key made by the varsel user, then `varsel check` with the
    # settings file read the way the guide reads it.
    made = as_varsel(debian, "varsel keys create --data-key-file /etc/varsel/keys/data.key")
    assert made.returncode == 0 and made.stdout.startswith("Made the data key file /etc/varsel/keys/data.key"), made.stdout + made.stderr
    (debian / "etc/varsel/env").write_text((debian / "etc/varsel/env").read_text()
                                           .replace("#VARSEL_DATA_KEY_FILE=", "VARSEL_DATA_KEY_FILE=")
                                           .replace("#VARSEL_PUBLIC_URL=", "VARSEL_PUBLIC_URL="))
    assert as_varsel(debian, "varsel user add anne --role admin --link").returncode == 0
    checked = as_varsel(debian, "set -a; . /etc/varsel/env; exec varsel check --vapid-subject mailto:drift@varsel.example")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK: The data key file /etc/varsel/keys/data.key opens everything encrypted in /var/lib/varsel/varsel.sqlite" in checked.stdout
    # The guide's integration token for a member system: the token alone on standard output, listed, revoked.
    made = as_varsel(debian, 'TOKEN=$(varsel token create "Member system" --role coordinator) && echo "${TOKEN%%_*}_${#TOKEN}"')
    assert made.returncode == 0 and made.stdout.strip() == "varsel_53", made.stdout + made.stderr
    assert 'Made integration token 2 for "Member system" (coordinator) in /var/lib/varsel/varsel.sqlite' in made.stderr, made.stderr
    listed = as_varsel(debian, "varsel token list")
    assert listed.stdout.splitlines()[1].startswith("2\tcoordinator\tactive\t"), listed.stdout + listed.stderr
    revoked = as_varsel(debian, "varsel token revoke 2")
    assert revoked.returncode == 0 and revoked.stdout.startswith('Revoked integration token 2 ("Member system")'), revoked.stdout + revoked.stderr

    # The demo, run as the varsel user in its data directory, answers on a port of this machine.
    port = free_port()
    server = subprocess.Popen(
        ["chroot", str(debian), "setpriv", "--reuid=varsel", "--regid=varsel", "--init-groups", "sh", "-c",
         f"cd /var/lib/varsel && VARSEL_DEMO_PASSWORD='a demo password' exec varsel serve --demo --port {port} --bcrypt-cost 4 "
         "--database /var/lib/varsel/demo.sqlite"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        output = []
        while time.monotonic() < deadline:
            line = server.stdout.readline()
            if not line:
                break
            output.append(line)
            if f"Varsel is listening on http://127.0.0.1:{port}" in line:
                break
        assert any("Varsel is listening" in line for line in output), "".join(output)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
            assert response.status == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/signin", timeout=10) as response:
            page = response.read().decode()
            assert response.status == 200 and "<title>Sign in – Varsel</title>" in page and 'id="have-code"' in page
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/varsel.css", timeout=10) as response:
            assert response.status == 200
        # The database it made is the varsel user's, in its data directory.
        assert chroot(debian, "stat", "-c", "%U", "/var/lib/varsel/demo.sqlite").stdout.strip() == "varsel"
    finally:
        server.terminate()
        server.wait(20)

    # What the release weighs installed, and how soon the configured service answers ready: reported beside the
    # release's targets (40 MB, 0.3 s), measured here rather than asserted.
    installed_kib = int(chroot(debian, "dpkg-query", "-W", "-f=${Installed-Size}", "varsel").stdout)
    starts = [seconds_to_ready(debian) for _ in range(3)]
    with capsys.disabled():
        print(f"\nThe release: {installed_kib / 1024:.1f} MiB installed; start to ready "
              f"{min(starts):.2f}–{max(starts):.2f} s over {len(starts)} starts of the configured service.")


def seconds_to_ready(debian: Path) -> float:
    """Starts the service as its unit does (the varsel user, its settings file, its database with one account and a
    data key) and answers how long it took until `GET /readyz` answered 200, polled every 10 ms."""
    port = free_port()
    started = time.monotonic()
    server = subprocess.Popen(
        ["chroot", str(debian), "setpriv", "--reuid=varsel", "--regid=varsel", "--init-groups", "sh", "-c",
         f"cd /var/lib/varsel && set -a && . /etc/varsel/env && exec varsel serve --host 127.0.0.1 --port {port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.monotonic() - started < 30:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as response:
                    if response.status == 200:
                        return time.monotonic() - started
            except OSError:
                pass
            assert server.poll() is None, f"the service stopped with status {server.returncode}"
            time.sleep(0.01)
        raise AssertionError("the service was not ready within 30 s")
    finally:
        server.terminate()
        server.wait(20)


def test_the_tarball_runs_from_where_it_is_unpacked(debian):
    tarball = only("varsel-*-linux-*.tar.gz")
    unpacked = run("tar", "-xzf", str(tarball), "-C", str(debian / "opt"))
    assert unpacked.returncode == 0, unpacked.stderr
    name = tarball.name.removesuffix(".tar.gz")
    for part in ("bin/varsel", "lib/varsel/varsel", "varsel@.service", "env.example", "share/doc/varsel/deploy.md"):
        assert (debian / "opt" / name / part).exists(), part
    listed = chroot(debian, f"/opt/{name}/bin/varsel", "transcript")
    assert listed.returncode == 0, listed.stderr
    assert "Assignment: New assignment, Visit Kari Nordmann at Storgata 1 on Tuesday" in listed.stdout


def test_the_release_speaks_dates_and_times_as_the_tested_build_does(tmp_path):
    """The release links ICU's data for English and Norwegian only (Sources/VarselICUData): what its screen reader
    transcript says, with its dates, weekdays and relative times, is byte for byte what the build the other tests
    run says with the toolchain's whole ICU data, in both languages and for every screen reader."""
    tested = ROOT / ".build" / "debug" / "varsel"
    assert tested.exists(), f"no {tested}: build Varsel first (swift build)"
    tarball = only("varsel-*-linux-*.tar.gz")
    name = tarball.name.removesuffix(".tar.gz")
    unpacked = run("tar", "-xzf", str(tarball), "-C", str(tmp_path), f"{name}/lib/varsel/varsel")
    assert unpacked.returncode == 0, unpacked.stderr
    release = tmp_path / name / "lib" / "varsel" / "varsel"
    for locale in ("en", "nb"):
        for reader in ("voiceover", "talkback", "web"):
            said = [run(str(binary), "transcript", "--locale", locale, "--reader", reader) for binary in (tested, release)]
            assert [result.returncode for result in said] == [0, 0], [result.stderr for result in said]
            assert said[1].stdout == said[0].stdout, (locale, reader)
