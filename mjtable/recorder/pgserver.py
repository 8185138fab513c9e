"""Start and stop a throwaway PostgreSQL cluster on 127.0.0.1 (tests and ``bench.recorder_load``).

Debian's server binaries (``/usr/lib/postgresql/<version>/bin``: ``initdb``, ``pg_ctl``; package ``postgresql``)
make a cluster in a private temporary directory, trust authentication for one superuser on loopback and the
directory's own Unix socket, listening on a free TCP port.  ``initdb`` refuses to run as root: as root the
cluster runs as an unprivileged system user (``postgres``, which the Debian package creates, else ``nobody``)
through ``runuser``, and the directory is handed to that user.  Blocking API; not thread-bound.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from mjtable.broker import PICK_ATTEMPTS, free_port

SEARCH = Path("/usr/lib/postgresql")
SUPERUSER = "mjt"


class PostgresError(RuntimeError):
    """The server binaries are missing, or the cluster did not start."""


def server_bindir() -> Path:
    """The newest installed ``/usr/lib/postgresql/<version>/bin`` with ``initdb``; PostgresError if none."""
    found = sorted(SEARCH.glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    if not found:
        raise PostgresError("PostgreSQL server binaries not found under /usr/lib/postgresql: run scripts/bootstrap "
                            "or 'apt-get install postgresql'")
    return found[-1].parent


def run_as_user() -> str | None:
    """The unprivileged user that runs the cluster when we are root (None when we are not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise PostgresError("running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as")


@dataclass
class LocalPostgres:
    """A PostgreSQL server on 127.0.0.1 in a temporary directory.

    Args:
        port: TCP port (0 = a free one).
        settings: extra server settings (``-c name=value``), e.g. ``{"max_connections": "50"}``.
    """

    port: int = 0
    settings: dict[str, str] = field(default_factory=dict)
    _dir: Path | None = field(default=None, init=False, repr=False)
    _prefix: list[str] = field(default_factory=list, init=False, repr=False)
    _running: bool = field(default=False, init=False, repr=False)

    @property
    def url(self) -> str:
        """``postgresql://mjt@127.0.0.1:<port>/postgres`` (trust authentication, loopback only)."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def start(self, timeout_s: int = 60) -> LocalPostgres:
        """initdb, then ``pg_ctl start -w``; PostgresError with the server log if it does not come up."""
        if self._running:
            return self
        bindir = server_bindir()
        user = run_as_user()
        self._prefix = ["runuser", "-u", user, "--"] if user else []
        if user and shutil.which("runuser") is None:
            raise PostgresError("running as root without runuser (util-linux) to drop privileges")
        # as root: under /tmp (whatever TMPDIR says), so the unprivileged user can reach the directory
        self._dir = Path(tempfile.mkdtemp(prefix="mjt-pg-", dir="/tmp" if user else None))
        if user:
            shutil.chown(self._dir, user)
        try:
            self._init_and_start(bindir, timeout_s)
        except BaseException:
            self.stop()  # removes the directory: a cluster that did not come up leaves nothing behind
            raise
        self._running = True
        return self

    def _init_and_start(self, bindir: Path, timeout_s: int) -> None:
        assert self._dir is not None
        picked = self.port == 0
        data = self._dir / "data"
        self._call([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", SUPERUSER, "-E", "UTF8",
                    "--no-instructions"], "initdb")
        for attempt in range(PICK_ATTEMPTS):  # a picked port taken before the server bound it is picked again
            if picked:
                self.port = free_port()
            opts = [f"-p {self.port}", f"-k {self._dir}", "-c listen_addresses=127.0.0.1", "-c fsync=on"]
            opts += [f"-c {k}={v}" for k, v in self.settings.items()]
            try:
                self._call([str(bindir / "pg_ctl"), "-D", str(data), "-w", "-t", str(timeout_s), "-l",
                            str(self._dir / "server.log"), "-o", " ".join(opts), "start"], "pg_ctl start")
                break
            except PostgresError as exc:
                if not (picked and attempt + 1 < PICK_ATTEMPTS and "Address already in use" in str(exc)):
                    raise

    def _call(self, argv: list[str], what: str) -> None:
        proc = subprocess.run([*self._prefix, *argv], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise PostgresError(f"{what} failed ({proc.returncode}): {proc.stderr.strip()} {self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        log = self._dir / "server.log" if self._dir else None
        if log is None or not log.exists():
            return ""
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """``pg_ctl stop -m immediate`` and remove the directory (in the background).  Immediate: the cluster is
        thrown away, so its shutdown checkpoint (every dirty page of every test database written and fsynced)
        would be wasted; it took 13.9 s after 15 test databases here (fast mode), the test session's teardown."""
        if self._dir is None:
            return
        if self._running:
            bindir = server_bindir()
            subprocess.run([*self._prefix, str(bindir / "pg_ctl"), "-D", str(self._dir / "data"), "-m",
                            "immediate", "-w", "stop"], capture_output=True, check=False)
            self._running = False
        # removed in the background: a cluster with a dozen test databases is ~110 MB in thousands of files,
        # 2.6 s to delete here, which nothing needs to wait for (the server has stopped; the name is unique)
        subprocess.Popen(["rm", "-rf", "--", str(self._dir)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
        self._dir = None

    def create_database(self, name: str) -> str:
        """A new empty database; returns its URL (one cluster, a fresh database per test)."""
        import psycopg

        if not name.replace("_", "").isalnum():
            raise ValueError(f"bad database name {name!r}")
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{name}"

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
