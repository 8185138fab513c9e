"""Demo run directories: two demos started in the same second never share one; a resumed run keeps its seed;
a bad ``--rules`` starts nothing."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mjtable.demo import fresh_run_dir


def test_same_second_runs_get_distinct_directories(tmp_path: Path) -> None:
    made = [fresh_run_dir(tmp_path / "runs") for _ in range(3)]
    assert len({p.name for p in made}) == 3
    assert all(p.is_dir() and p.parent == tmp_path / "runs" for p in made)
    stamps = {p.name.split("-")[0] for p in made}
    assert len(stamps) <= 2  # the same UTC second, unless the clock ticked between calls
    assert any(p.name.endswith("-2") for p in made) or len(stamps) == 2


def _demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mjtable.cli", "demo", *args], capture_output=True, text=True,
                          timeout=180, check=False)


def _summary(out: str) -> dict[str, Any]:
    lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    (summary,) = [x for x in lines if x.get("event") == "summary"]
    assert isinstance(summary, dict)
    return summary


@pytest.mark.timeout(240)
def test_a_resumed_demo_reports_and_keeps_the_seed_it_ran_with(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    common = ["--hands", "1", "--fast", "--display-port", "-1", "--run-dir", str(run_dir)]
    first = _demo("--seed", "5", *common)
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    assert _summary(first.stdout)["seed"] == 5
    again = _demo(*common)  # resume without --seed: the run's own seed, not the default
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-2000:]
    assert _summary(again.stdout)["seed"] == 5
    other = _demo("--seed", "4", *common)  # another seed cannot resume this run
    assert other.returncode == 2 and "--seed 5" in json.loads(other.stdout)["error"]
    assert "Traceback" not in other.stderr


@pytest.mark.parametrize("rules", ["sichuan-xyz", "riichi-xyz", "mcr-3000", "riichi-hkma-2025:foo=1"])
def test_a_demo_with_bad_rules_starts_nothing(tmp_path: Path, rules: str) -> None:
    run_dir = tmp_path / "run"
    proc = _demo("--rules", rules, "--run-dir", str(run_dir))
    assert proc.returncode == 2
    (line,) = proc.stdout.splitlines()
    assert json.loads(line)["event"] == "error" and rules in json.loads(line)["error"]
    assert "Traceback" not in proc.stderr
    assert not run_dir.exists()  # no run folder (and no broker: it would live in the run folder)
