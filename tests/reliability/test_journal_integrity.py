"""Issue 19 point 1: one corrupted line in the middle of the journal must never silently delete later records.

Only a torn LAST line may be dropped (kept aside in a side file); corruption elsewhere stops with a clear error
that names the line; ``mjtable journal check|repair`` keeps every good record; a garbage SQLite index is
rebuilt and a duplicated line is refused clearly (never a traceback).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import Journal, JournalCorruptError, JournaledTable, JournalError, read_records
from tests.reliability.helpers import journaled_game


def _flip_bit(path: Path, line_no: int) -> bytes:
    """Flip one bit inside a digit or letter of 1-based line ``line_no``; returns the original file bytes."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    line = bytearray(lines[line_no - 1])
    i = line.index(b'"type":') + 8  # inside the event type's name: still valid JSON after the flip
    line[i] ^= 0x01
    lines[line_no - 1] = bytes(line)
    path.write_bytes(b"\n".join(lines))
    return data


def test_every_line_carries_a_checksum(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journaled_game(path, stop_after=20)
    for raw in path.read_bytes().splitlines():
        assert "crc" in json.loads(raw)


def test_a_flipped_bit_mid_journal_stops_with_the_line_named(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journaled_game(path, stop_after=60)
    before = path.read_bytes()
    n_lines = before.count(b"\n")
    _flip_bit(path, 30)
    size = path.stat().st_size
    with pytest.raises(JournalCorruptError, match=r"line 30\b"):
        read_records(path)
    with pytest.raises(JournalError, match=r"line 30\b.*mjtable journal"):
        JournaledTable(path)
    assert path.stat().st_size == size  # nothing cut
    assert path.read_bytes().count(b"\n") == n_lines


def test_replay_refuses_a_corrupted_journal_with_a_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journaled_game(path, stop_after=40)
    _flip_bit(path, 20)
    out = subprocess.run([sys.executable, "-m", "mjtable.cli", "replay", str(path)], capture_output=True, text=True,
                         check=False, timeout=120)
    assert out.returncode != 0
    assert "line 20" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


def test_a_torn_last_line_is_dropped_and_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journaled_game(path, stop_after=30)
    whole = path.read_bytes()
    torn = b'{"crc":"0000","event":{"id":"x'
    path.write_bytes(whole + torn)
    table = JournaledTable(path)
    assert len(table.journal.records) == whole.count(b"\n")
    table.close()
    assert path.read_bytes() == whole
    aside = list(tmp_path.glob("j.jsonl.torn*"))
    assert aside and torn in aside[0].read_bytes()


def test_old_journals_without_checksums_still_read(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    final = journaled_game(path, stop_after=50)
    old = [json.loads(raw) for raw in path.read_bytes().splitlines()]
    for obj in old:
        obj.pop("crc")
    path.write_text("".join(json.dumps(o, separators=(",", ":"), sort_keys=True) + "\n" for o in old))
    (tmp_path / "j.jsonl.idx.sqlite").unlink()
    table = JournaledTable(path)
    assert table.state == final
    table.close()


def test_garbage_sqlite_index_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    final = journaled_game(path, stop_after=30)
    idx = tmp_path / "j.jsonl.idx.sqlite"
    idx.write_bytes(b"this is not a database" * 100)
    table = JournaledTable(path)
    assert table.state == final
    first = next(table.journal.events())
    assert table.journal.has_id(first.id)
    table.close()


def test_a_duplicated_line_is_refused_clearly_and_repair_drops_it(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    final = journaled_game(path, stop_after=30)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:10], lines[9], *lines[10:]]))
    with pytest.raises(JournalError, match=r"line 11\b.*duplicate"):
        JournaledTable(path)
    out = _journal_cli("repair", path)
    assert out.returncode == 0, out.stderr
    table = JournaledTable(path)
    assert table.state == final
    table.close()


def _journal_cli(action: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mjtable.cli", "journal", action, str(path)], capture_output=True,
                          check=False, text=True, timeout=120)


def test_journal_check_and_repair_keep_every_good_record(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journaled_game(path, stop_after=60)
    original = path.read_bytes()
    _flip_bit(path, 45)
    check = _journal_cli("check", path)
    assert check.returncode == 1
    report = [json.loads(line) for line in check.stdout.splitlines()]
    assert any(r.get("line") == 45 and r.get("problem") == "checksum" for r in report), report
    assert report[-1]["event"] == "journal_check" and report[-1]["bad_lines"] == 1
    repair = _journal_cli("repair", path)
    summary = json.loads(repair.stdout.splitlines()[-1])
    assert summary["kept"] == original.count(b"\n") - 1 and summary["set_aside"] == 1
    # the lost line was an accepted move: the engine cannot replay past it, and repair says which event stops it
    assert repair.returncode == 1 and not summary["replays"] and "rejected on replay" in summary["replay_error"]
    kept = path.read_bytes().splitlines()
    assert kept == [raw for i, raw in enumerate(original.splitlines(), 1) if i != 45]
    assert Path(summary["backup"]).read_bytes() != original  # the backup holds the damaged file as it was
    aside = [json.loads(raw) for raw in Path(summary["aside"]).read_bytes().splitlines()]
    assert [a["line"] for a in aside] == [45]
    records, _ = read_records(path)
    assert len(records) == original.count(b"\n") - 1


def test_journal_opens_after_repair_of_corrupt_index_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journaled_game(path, stop_after=10)
    j = Journal(path)
    n = len(j.records)
    j.close()
    final = journaled_game(path, stop_after=5)  # resumes and appends 5 more
    records, _ = read_records(path)
    assert len(records) == n + 5 and final.seq >= records[-1].n - 0
