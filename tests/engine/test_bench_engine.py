"""bench.engine --anchor REV measures REV's engine in the same run from a temporary git worktree, and leaves no
worktree behind; an unknown revision is a clear error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _worktrees() -> list[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "worktree", "list", "--porcelain"], capture_output=True, text=True,
                         check=True).stdout
    return sorted(line for line in out.splitlines() if line.startswith("worktree "))


@pytest.fixture(scope="module")
def in_git() -> None:
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, check=False).returncode:
        pytest.fail("the bench's --anchor needs the project's git checkout")


def test_anchor_runs_the_other_revision_in_the_same_run(in_git: None) -> None:
    before = _worktrees()
    done = subprocess.run([sys.executable, "-m", "bench.engine", "--hands", "2", "--rules", "mcr-2006",
                           "--anchor", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["anchor_rev"] == "HEAD" and out["rules"] == "mcr-2006"
    anchor = out["anchor"]
    assert anchor["bench"] == "engine" and anchor["rules"] == "mcr-2006" and anchor["hands"] == out["hands"] == 2
    assert "discard_best_of_3_p99_ms" in anchor and "p99_best_of_3_change" in out
    assert _worktrees() == before


def test_an_unknown_anchor_is_a_clear_error(in_git: None) -> None:
    done = subprocess.run([sys.executable, "-m", "bench.engine", "--hands", "1", "--rules", "mcr-2006",
                           "--anchor", "no-such-revision-xyz"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "cannot check out anchor 'no-such-revision-xyz'" in done.stderr


def test_a_terminated_bench_removes_its_anchor_worktree(in_git: None) -> None:
    before = _worktrees()
    proc = subprocess.Popen([sys.executable, "-m", "bench.engine", "--hands", "400", "--rules", "mcr-2006",
                             "--anchor", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # wait (up to 60 s) until the anchor worktree exists
            if len(_worktrees()) > len(before):
                break
            if proc.poll() is not None:
                break
            subprocess.run(["sleep", "0.1"], check=True)
        assert len(_worktrees()) == len(before) + 1
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert _worktrees() == before
