"""What Varsel stands on, started for real so it can be made to fail: PostgreSQL servers (a primary and a synchronous
standby), HAProxy in front of them, a TCP relay that can stop passing bytes (a partition), and a small tmpfs."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from cluster import free_port
from varsel_server import wait_until


def postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda path: int(path.parent.name))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    return found[-1]


def process_state(pid: int) -> str:
    """A process's state letter from /proc (`T` once a SIGSTOP has taken effect), or an empty string once it is gone."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return status.rsplit(")", 1)[1].split()[0]


def as_postgres(args: list[str]) -> list[str]:
    """initdb and pg_ctl refuse root: run them as `postgres` when this is root."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class PostgresServer:
    """One PostgreSQL server in a directory of its own, on its own port: a primary, or a standby of one."""

    def __init__(self, primary: "PostgresServer | None" = None, synchronous: bool = False) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="varsel-faults-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self.data = self.dir / "data"
        self.port = free_port()
        self.bin = postgres_bin()
        if primary is None:
            subprocess.run(as_postgres([str(self.bin / "initdb"), "-D", str(self.data), "-U", "varsel", "--auth=trust", "--no-sync"]),
                           check=True, capture_output=True)
            settings = ["wal_level = replica", "max_wal_senders = 4", "wal_keep_size = '64MB'", "hot_standby = on",
                        "max_connections = 200", f"unix_socket_directories = '{self.dir}'", "listen_addresses = '127.0.0.1'"]
            if synchronous:
                settings.append("synchronous_standby_names = '*'")
            with open(self.data / "postgresql.conf", "a") as conf:
                conf.write("\n".join(settings) + "\n")
            with open(self.data / "pg_hba.conf", "a") as hba:
                hba.write("host replication varsel 127.0.0.1/32 trust\n")
        else:
            # A streaming standby of `primary`, made the way the guide says: pg_basebackup -R.
            subprocess.run(as_postgres([str(self.bin / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port), "-U", "varsel",
                                        "-D", str(self.data), "-R", "-X", "stream", "--no-sync"]), check=True, capture_output=True)
            with open(self.data / "postgresql.conf", "a") as conf:
                # Promoted, it has no standby of its own to wait for.
                conf.write(f"unix_socket_directories = '{self.dir}'\nsynchronous_standby_names = ''\n")
        self.start()

    def url(self, database: str = "postgres", port: int | None = None) -> str:
        return f"postgres://varsel@127.0.0.1:{port or self.port}/{database}"

    def pg_ctl(self, *args: str) -> None:
        subprocess.run(as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"), *args]),
                       check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self.pg_ctl("-w", "-o", f"-p {self.port}", "start")

    def restart(self, down_for: float = 0) -> None:
        """A restart as for a minor upgrade: fast shutdown (sessions ended, in-flight transactions rolled back), the
        server down for `down_for` seconds (a package being replaced), then started again."""
        self.pg_ctl("-w", "-m", "fast", "stop")
        time.sleep(down_for)
        self.start()

    def promote(self) -> None:
        self.pg_ctl("-w", "promote")

    def postmaster(self) -> int:
        """The process id of the server's postmaster, from its pid file."""
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def pids(self) -> list[int]:
        """The postmaster and every process it started."""
        postmaster = self.postmaster()
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        return [postmaster, *map(int, children)]

    def pause(self) -> None:
        """Every process stopped (SIGSTOP): from Varsel's side, a database that stops answering.

        The postmaster stops first, so it cannot start a backend for a new connection between the listing of its
        children and their stop; a backend it started just before is in the listing taken after."""
        postmaster = self.postmaster()
        os.kill(postmaster, signal.SIGSTOP)
        assert wait_until(lambda: process_state(postmaster) == "T", 5, 0.01), "the postmaster did not stop"
        for pid in self.pids()[1:]:
            os.kill(pid, signal.SIGSTOP)
        assert wait_until(lambda: all(process_state(pid) in ("T", "") for pid in self.pids()), 5, 0.01), \
            "a PostgreSQL process did not stop"

    def resume(self) -> None:
        for pid in self.pids():
            os.kill(pid, signal.SIGCONT)

    def kill(self) -> None:
        """kill -9 of every process, as a crash of the machine that runs it."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def sql(self, statement: str, database: str = "postgres") -> str:
        return subprocess.run(["psql", self.url(database), "-At", "-c", statement], check=True, capture_output=True, text=True,
                              timeout=30).stdout.strip()

    def stop(self) -> None:
        try:
            self.resume()
        except (OSError, FileNotFoundError, ValueError):
            pass
        subprocess.run(as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


class HAProxy:
    """HAProxy in TCP mode in front of a primary and its standby: the standby takes connections only while the
    primary fails its health check, and sessions on a server marked down are cut, so clients reconnect."""

    def __init__(self, primary_port: int, standby_port: int) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="varsel-haproxy-"))
        self.port = free_port()
        (self.dir / "haproxy.cfg").write_text(f"""
global
  maxconn 1000
defaults
  mode tcp
  timeout connect 2s
  timeout client 1h
  timeout server 1h
listen postgres
  bind 127.0.0.1:{self.port}
  option pgsql-check user varsel
  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
  server primary 127.0.0.1:{primary_port} check
  server standby 127.0.0.1:{standby_port} check backup
""")
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        self.process = subprocess.Popen([binary, "-db", "-f", str(self.dir / "haproxy.cfg")], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        assert wait_until(lambda: socket.socket().connect_ex(("127.0.0.1", self.port)) == 0, 10), "haproxy did not start"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


class Relay:
    """A TCP relay to one server that can be frozen: while frozen it passes no bytes either way and connects nothing,
    as a network partition does; thawed, it goes on where it was."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.frozen = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        while self.frozen.is_set() and not self.closed:
            time.sleep(0.05)
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target))
        except OSError:
            client.close()
            return
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                while self.frozen.is_set() and not self.closed:
                    time.sleep(0.05)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.closed = True
        self.frozen.clear()
        self.listener.close()


class SmallDisk:
    """A tmpfs of `size` mounted on a new directory (needs root): a disk that fills, and can be given room again."""

    def __init__(self, size: str = "8m") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="varsel-small-disk-"))
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(self.dir)], check=True)

    def resize(self, size: str) -> None:
        subprocess.run(["mount", "-o", f"remount,size={size}", str(self.dir)], check=True)

    def remove(self) -> None:
        subprocess.run(["umount", "-l", str(self.dir)], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
