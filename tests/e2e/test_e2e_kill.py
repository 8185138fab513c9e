"""Kill test: ``mjtable demo`` is SIGKILLed at 20+ random moments of a seeded session and restarted each time
(resuming from its journal); the final record equals an uninterrupted run with the same seed.

Like a real table, the MCU simulator (``mjtable table-sim`` on a pty) and the broker outlive the killed
service process; each run gets its own simulator with the same seed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from controller.engine.events import event_from_json
from controller.engine.state import GameState
from controller.journal import fold, read_records
from mjtable.broker import LocalMosquitto

KILLS = 20
SEED = 7
COMMON = ["--rules", "mcr-2006", "--seed", str(SEED), "--hands", "1", "--fast", "--camera", "direct",
          "--display-port", "-1", "--timer", "claim_s=60", "--timer", "turn_s=120", "--timer", "first_discard_s=120"]


def start_table_sim(tmp: Path, name: str) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "table-sim", "--fast", "--seed", "11"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=(tmp / f"{name}-sim.log").open("wb"))
    assert proc.stdout is not None
    return proc, str(json.loads(proc.stdout.readline())["pty"])


def demo_cmd(broker: LocalMosquitto, pty: str, run_dir: Path, table: str) -> list[str]:
    return [sys.executable, "-m", "mjtable.cli", "demo", *COMMON, "--broker", f"127.0.0.1:{broker.port}",
            "--mcu-pty", pty, "--run-dir", str(run_dir), "--table-id", table]


def final_state(run_dir: Path, table: str) -> GameState:
    records, _ = read_records(run_dir / f"{table}.journal.jsonl")
    return fold([event_from_json(r.event) for r in records if r.rec == "event"])


def game_record(run_dir: Path) -> dict[str, Any]:
    (path,) = sorted((run_dir / "records").glob("*.json"))[:1]
    rec: dict[str, Any] = json.loads(path.read_text())
    for hand in rec["hands"]:
        hand.pop("ended_s", None)
    return {"hands": rec["hands"], "totals": rec["totals"], "players": rec["players"], "rules": rec["rules"]}


def outcome(st: GameState) -> dict[str, Any]:
    assert st.hand is not None
    return {"history": [(r.kind, r.winners, r.discarder, r.total, r.payments, r.fans) for r in st.history],
            "scores": st.session.scores, "ponds": [[d.tile.code for d in s.pond] for s in st.hand.seats],
            "melds": [[m.tiles for m in s.melds] for s in st.hand.seats], "phase": str(st.phase)}


@pytest.mark.timeout(240)
def test_sigkill_at_random_points_resumes_to_the_same_record(mosquitto: LocalMosquitto, tmp_path: Path) -> None:
    # the uninterrupted reference run
    sim, pty = start_table_sim(tmp_path, "ref")
    try:
        ref = subprocess.run(demo_cmd(mosquitto, pty, tmp_path / "ref", "kref"), capture_output=True, timeout=120,
                             check=False)
    finally:
        sim.terminate()
        sim.wait(10)
    assert ref.returncode == 0, ref.stderr.decode()[-2000:]

    # the same session, killed again and again
    rng = random.Random(SEED)
    sim, pty = start_table_sim(tmp_path, "kill")
    run_dir = tmp_path / "killed"
    kills = 0
    journal_lengths: list[int] = []
    try:
        while True:
            proc = subprocess.Popen(demo_cmd(mosquitto, pty, run_dir, "kkill"), stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
            assert proc.stdout is not None
            line = b""
            while b'"service_ready"' not in line:  # wait until it resumed and runs
                line = proc.stdout.readline()
                if not line:
                    break
            if kills < KILLS and proc.poll() is None:
                time.sleep(rng.uniform(0.01, 0.15))
                if proc.poll() is None:
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait(10)
                    proc.stdout.close()
                    kills += 1
                    journal = run_dir / "kkill.journal.jsonl"
                    journal_lengths.append(len(journal.read_bytes().splitlines()) if journal.exists() else 0)
                    continue
            rest = proc.stdout.read()
            proc.stdout.close()
            assert proc.wait(120) == 0, rest.decode()[-2000:]
            break
    finally:
        sim.terminate()
        sim.wait(10)

    assert kills >= KILLS
    assert journal_lengths == sorted(journal_lengths) and journal_lengths[-1] > journal_lengths[0]
    assert outcome(final_state(run_dir, "kkill")) == outcome(final_state(tmp_path / "ref", "kref"))
    assert game_record(run_dir) == game_record(tmp_path / "ref")
