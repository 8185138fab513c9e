"""Issue 19, smaller: ``mjtable-broker-users`` passed passwords on argv (visible to every user in ``ps``), and the
recorder printed its ``--db`` URL with the password in it.  Both with the real tools: a PATH wrapper records
every argv the broker tool gives the real ``mosquitto_passwd``; the recorder runs against a real PostgreSQL
(and against a closed port, where the error line quotes the URL)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mjtable.broker import free_port
from mjtable.recorder.pgserver import LocalPostgres

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "deploy" / "mosquitto" / "mjtable-broker-users"
SECRET = "s3cret-Horse-battery"

#: stands first on PATH: logs its argv (one JSON line), then runs the real mosquitto_passwd with it
WRAPPER = """#!/bin/sh
{python} -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@" >> {log}
exec {real} "$@"
"""


def test_broker_users_never_puts_a_password_on_a_command_line(tmp_path: Path) -> None:
    real = shutil.which("mosquitto_passwd")
    if real is None:
        pytest.skip("no mosquitto_passwd (apt-get install mosquitto)")
    shim, log, etc = tmp_path / "bin", tmp_path / "argv.log", tmp_path / "etc"
    shim.mkdir()
    (shim / "mosquitto_passwd").write_text(WRAPPER.format(python=sys.executable, log=log, real=real))
    (shim / "mosquitto_passwd").chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PATH": f"{shim}:{os.environ.get('PATH', '')}"}

    def tool(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(TOOL), "--dir", str(etc), *args], input=stdin,
                              capture_output=True, text=True, check=False, timeout=60, env=env)

    assert tool("init").returncode == 0
    added = tool("add", "referee", "referee1", "--password-stdin", stdin=SECRET + "\n")
    assert added.returncode == 0, added.stderr
    generated = tool("add", "recorder", "recorder", "--generate")
    assert generated.returncode == 0, generated.stderr
    printed = generated.stdout.strip().split()[-1]  # the generated password, shown once to the operator
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 2 and all(c[0] == "-U" and len(c) == 2 for c in calls), calls  # hashed in a file
    assert SECRET not in log.read_text() and printed not in log.read_text()
    passwd = (etc / "passwd").read_text()
    assert "referee1:$" in passwd and SECRET not in passwd and printed not in passwd
    assert not list(etc.glob("mjt-passwd-*"))  # the private clear-text file is gone
    refused = tool("add", "referee", "referee2", "--password", SECRET)
    assert refused.returncode == 2  # the tool takes no password argument at all


def test_the_recorder_never_prints_its_database_password(postgres_server: LocalPostgres) -> None:
    closed = f"postgresql://rec:{SECRET}@127.0.0.1:{free_port()}/records"
    failed = subprocess.run([sys.executable, "-m", "mjtable.cli", "recorder", "--db", closed, "--broker",
                             f"127.0.0.1:{free_port()}"], capture_output=True, text=True, timeout=60, check=False)
    assert failed.returncode == 2 and "rec:***@127.0.0.1" in failed.stdout, failed.stdout + failed.stderr
    assert SECRET not in failed.stdout + failed.stderr
    # trust authentication on the test cluster: the password is accepted, and must still not be shown
    url = postgres_server.url.replace("postgresql://mjt@", f"postgresql://mjt:{SECRET}@")
    proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "recorder", "--db", url, "--broker",
                             f"127.0.0.1:{free_port()}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline())
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert started["event"] == "recorder_started" and started["db"].startswith("postgresql://mjt:***@"), started
    assert SECRET not in json.dumps(started) + out + err
