"""Issue 19.2/19.3 follow-up: the outbox's ledger of published event ids (``published``: event id -> envelope seq)
grew by one row per event for ever.  Rows the recorder has acknowledged, and that a resumed table can no longer
offer again (at or below the last journal record whose events are all in the outbox), are pruned; the newest row
of each game stays (the seq continues from it).  A SIGKILLed table loses none of what the recorder has not
acknowledged: the resumed table delivers every event exactly once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from mjtable.broker import LocalMosquitto
from mjtable.mqtt.outbox import Outbox, glob_literal
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import SqlEventStore
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
GAME = "T1-1000"
PRUNABLE = f"{glob_literal(GAME)}:[0-9]*"  # ids of journal records (the service's form); not hand results




def _publish_acked(outbox: Outbox, first: int, last: int) -> None:
    """Events ``first..last`` as the table's publisher handles them: stored with their hold, the journal mark moved
    on, acknowledged by the broker, then by the recorder (every 10 events, as its acks come in batches)."""
    for seq in range(first, last + 1):
        rowid = outbox.put("table/T1/events", b"{}", 1, False, hold=(GAME, seq, f"{GAME}:{seq}:0"))
        outbox.mark_published(GAME, {f"published_n:{GAME}": str(seq)}, prunable=PRUNABLE)
        outbox.ack(rowid)
        if seq % 10 == 0:
            outbox.recorder_ack(GAME, seq)


def _ledger_rows(path: Path) -> int:
    db = sqlite3.connect(str(path))
    try:
        return int(db.execute("SELECT COUNT(*) FROM published").fetchone()[0])
    finally:
        db.close()


def test_a_long_session_keeps_the_ledger_and_the_file_bounded(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite"
    outbox = Outbox(path)
    _publish_acked(outbox, 1, 1000)
    outbox.checkpoint()
    size_1000 = path.stat().st_size
    _publish_acked(outbox, 1001, 5000)
    outbox.checkpoint()
    assert _ledger_rows(path) == 1  # the newest row; before: 5000 rows
    assert path.stat().st_size <= size_1000  # freed pages are reused: 5000 events take no more than 1000
    assert outbox.last_seq(GAME) == 5000 and outbox.held_count() == 0
    outbox.close()


def test_unacknowledged_and_still_offerable_rows_are_kept(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    _publish_acked(outbox, 1, 30)
    result = outbox.put("table/T1/events", b"{}", 1, False, hold=(GAME, 31, f"{GAME}:hand1:result"))
    outbox.ack(result)  # a hand result: offered again whenever a resumed table's state shows it
    rowid = outbox.put("table/T1/events", b"{}", 1, False, hold=(GAME, 32, f"{GAME}:32:0"))
    outbox.ack(rowid)
    outbox.mark_published(GAME, {f"published_n:{GAME}": "32"}, prunable=PRUNABLE)
    rowid = outbox.put("table/T1/events", b"{}", 1, False, hold=(GAME, 33, f"{GAME}:33:0"))  # mark not moved yet
    outbox.recorder_ack(GAME, 33)  # the recorder has all 33, but a resumed table may offer event 33 again
    assert outbox.seq_of(GAME, f"{GAME}:33:0") == 33
    assert outbox.seq_of(GAME, f"{GAME}:hand1:result") == 31  # not of the prunable form: kept
    assert outbox.seq_of(GAME, f"{GAME}:20:0") is None  # acknowledged and behind the mark: pruned
    assert outbox.last_seq(GAME) == 33
    outbox.close()


def test_a_sigkilled_table_with_a_pruned_ledger_delivers_every_event_exactly_once(mosquitto: LocalMosquitto,
                                                                                   tmp_path: Path) -> None:
    store = SqlEventStore(f"sqlite:///{tmp_path / 'recorder.sqlite'}")
    recorder = Recorder(store, mosquitto.host, mosquitto.port, client_id="mjtable-rec-ledger").start()
    cmd = [sys.executable, "-m", "bench.soak_table", "--table", "T1", "--seed", "4", "--hands", "2", "--port",
           str(mosquitto.port), "--dir", str(tmp_path / "table"), "--pace-s", "0.005", "--drain-s", "60"]
    try:
        first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ledger = tmp_path / "table" / "T1.outbox.sqlite"
        assert wait_until(lambda: ledger.exists() and _seqs(store) >= 40, 60)  # acks flowing, mid-session
        os.kill(first.pid, signal.SIGKILL)
        assert first.wait(10) == -signal.SIGKILL  # killed mid-session, not after its end
        assert first.stdout is not None
        first.stdout.close()
        again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
        assert again.returncode == 0, again.stdout + again.stderr[-2000:]
        published = int(json.loads(again.stdout)["published"])
        seqs = sorted(int(e["seq"]) for e in store.events(table="T1"))
        assert seqs == list(range(1, published + 1))  # every event stored, exactly once, no gap
        floor, left = _ledger(ledger)  # before: no floor, and one row per event
        assert left[-1][0] == published
        assert all(s > floor or ":hand" in i or i.endswith(":end") for s, i in left[:-1])  # pruned up to the floor
        assert len(left) <= published - floor + 1 + 2  # what is left: the events after the last journal mark and
        # the 2 hand results (a resumed table re-offers a hand result its state shows: never published twice)
    finally:
        recorder.stop()
        store.close()


def _ledger(path: Path) -> tuple[int, list[tuple[int, str]]]:
    """The game's ledger floor and the (seq, event id) left in the ledger."""
    db = sqlite3.connect(str(path))
    try:
        (floor,) = db.execute("SELECT value FROM meta WHERE key LIKE 'ledger_floor:%'").fetchone()
        return int(floor), [(int(r[0]), str(r[1])) for r in db.execute("SELECT seq, event_id FROM published "
                                                                      "ORDER BY seq")]
    finally:
        db.close()


def _seqs(store: SqlEventStore) -> int:
    return len(store.events(table="T1"))
