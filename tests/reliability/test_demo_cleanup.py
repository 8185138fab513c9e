"""Issue 19, smaller: after a SIGKILL the demo left its broker and MCU simulator running.  Both are now started
through ``mjtable.childproc`` (parent-death signal) and go with it.  And the demo says that its referee login takes
any password (a local anonymous broker; issue 19.10)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_sigkilled_demo_leaves_no_broker_or_simulator(tmp_path: Path) -> None:
    demo = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "demo", "--fast", "--hands", "1",
                             "--run-dir", str(tmp_path / "run")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert demo.stdout is not None
    try:
        events = []
        for raw in demo.stdout:  # until broker and simulator are up
            events.append(json.loads(raw))
            if events[-1].get("event") == "started":
                break
        display = next(e for e in events if e.get("event") == "display")
        assert "any name and password" in display["login"]  # the demo says its login is not a login
        kids = _children(demo.pid)
        names = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ") for pid in kids}
        assert any(b"mosquitto" in n for n in names.values()) and any(b"table-sim" in n for n in names.values()), names
        os.kill(demo.pid, signal.SIGKILL)
        demo.wait(30)
        deadline = time.monotonic() + 20
        while any(_alive(p) for p in kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [names[p] for p in kids if _alive(p)]
    finally:
        if demo.poll() is None:
            demo.kill()
        demo.stdout.close()
