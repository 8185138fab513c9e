"""Issue 19, smaller: a resumed demo diverged from an undisturbed one because the MCU simulator's dice restarted
from the seed (the walls were already seeded per hand).  The simulator's n-th throw is now a function of (seed, n)
and a resumed demo starts its simulator at the throw its journal has reached, so the session ends the same."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from controller.journal import read_records

DEMO = [sys.executable, "-m", "mjtable.cli", "demo", "--seed", "1", "--hands", "2", "--fast", "--display-port", "-1"]


def _dice(run_dir: Path) -> list[list[int]]:
    records, _ = read_records(run_dir / "demo.journal.jsonl")
    return [r.event["dice"] for r in records if r.rec == "event" and r.event["type"] == "dice_rolled"]


def _summary(out: str) -> dict[str, Any]:
    (summary,) = [d for d in map(json.loads, out.splitlines()) if d.get("event") == "summary"]
    assert isinstance(summary, dict)
    return summary


def test_a_demo_killed_after_its_first_hand_resumes_to_the_same_dice_and_scores(tmp_path: Path) -> None:
    ref = subprocess.run([*DEMO, "--run-dir", str(tmp_path / "ref")], capture_output=True, text=True, timeout=120,
                         check=False)
    assert ref.returncode == 0, ref.stdout[-2000:] + ref.stderr[-2000:]

    run_dir = tmp_path / "killed"
    demo = subprocess.Popen([*DEMO, "--run-dir", str(run_dir)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert demo.stdout is not None
    try:
        for raw in demo.stdout:  # the first hand is over: its dice are journaled, the second hand's are not yet
            if json.loads(raw).get("event") == "hand":
                break
        os.kill(demo.pid, signal.SIGKILL)  # its simulator goes with it (parent-death signal)
        demo.wait(30)
    finally:
        if demo.poll() is None:
            demo.kill()
        demo.stdout.close()
    thrown = len(_dice(run_dir))
    assert 0 < thrown < len(_dice(tmp_path / "ref"))  # the kill came mid-session

    again = subprocess.run([*DEMO, "--run-dir", str(run_dir)], capture_output=True, text=True, timeout=120,
                           check=False)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert json.loads(again.stdout.splitlines()[0])["resumed"] is True
    assert _dice(run_dir) == _dice(tmp_path / "ref")
    assert _summary(again.stdout)["scores"] == _summary(ref.stdout)["scores"]
