"""``mjtable sim`` for both non-MCR rulesets, killed with SIGKILL mid-session and restarted on its journal,
prints exactly the summary of an uninterrupted run (same recipe as tests/engine/test_properties.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _sim_cmd(rules: str, journal_dir: Path) -> list[str]:
    return [sys.executable, "-m", "mjtable.cli", "sim", "--rules", rules, "--games", "1", "--seed", "5",
            "--hands", "3", "--journal-dir", str(journal_dir)]


@pytest.mark.parametrize("rules", ["sichuan-sbr-2025", "riichi-hkma-2025"])
def test_sigkill_and_restart_ends_identical(tmp_path: Path, rules: str) -> None:
    reference = subprocess.run(_sim_cmd(rules, tmp_path / "ref"), capture_output=True, text=True, check=True,
                               timeout=120)
    expected = json.loads(reference.stdout)
    assert expected["rules"] == rules and expected["hands"] == 3
    total_lines = len((tmp_path / "ref" / "game-0.jsonl").read_bytes().splitlines())
    d = tmp_path / "kill"
    proc = subprocess.Popen(_sim_cmd(rules, d), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = d / "game-0.jsonl"
    target = total_lines // 2
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # waiting for the child, not timing anything
        if journal.exists() and journal.read_bytes().count(b"\n") >= target:
            break
        time.sleep(0.005)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.stderr is not None
    proc.stderr.close()
    again = subprocess.run(_sim_cmd(rules, d), capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(again.stdout) == expected
