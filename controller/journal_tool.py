"""``mjtable journal check|repair JOURNAL``: find bad lines in an engine journal and keep every good record.

    mjtable journal check runs/T1.journal.jsonl     # one JSON line per bad line, then a summary; exit 1 if any
    mjtable journal repair runs/T1.journal.jsonl    # set bad lines aside, keep the good ones, check the replay

A bad line is one whose checksum does not match, that is not a journal record, that repeats an accepted event
id, or a last line cut short by a crash.  ``repair`` never deletes anything: the damaged file is kept as
``<journal>.bak-<unix s>``, the bad lines go to ``<journal>.bad-<unix s>`` (JSON lines with the line number,
the problem and the raw bytes in base64), the journal is rewritten (atomically) with the good lines in order,
and the SQLite index is rebuilt on the next open.  It then replays the kept events through the engine and
reports whether the table can resume (exit 0) or not (exit 1: an event the engine rejects without the lost
one, named in the output; the operator decides).  Single-threaded CLI.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from controller.engine.events import event_from_json
from controller.journal import JournalError, Line, fold, scan_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("check", "repair"), help="check: report bad lines; repair: keep the good")
    parser.add_argument("journal", type=Path, help="an engine journal (<table>.journal.jsonl)")


def _emit(doc: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _problem(line: Line) -> dict[str, Any]:
    return {"event": "journal_bad_line", "line": line.no, "offset": line.start, "problem": line.problem,
            "detail": line.detail}


def _replay_error(good: list[Line]) -> str | None:
    """None when the accepted events of ``good`` fold through the engine, else why not."""
    try:
        fold([event_from_json(ln.record.event) for ln in good if ln.record is not None and ln.record.rec == "event"])
    except (JournalError, ValueError, KeyError, TypeError) as exc:
        return str(exc)
    return None


def check(path: Path) -> int:
    lines = scan_lines(path.read_bytes())
    bad = [ln for ln in lines if ln.record is None]
    for ln in bad:
        _emit(_problem(ln))
    good = [ln for ln in lines if ln.record is not None]
    replay = _replay_error(good) if good else "no records"
    _emit({"event": "journal_check", "path": str(path), "lines": len(lines), "records": len(good),
           "bad_lines": len(bad), "replays": replay is None, "replay_error": replay})
    return 0 if not bad and replay is None else 1


def repair(path: Path) -> int:
    data = path.read_bytes()
    lines = scan_lines(data)
    bad = [ln for ln in lines if ln.record is None]
    good = [ln for ln in lines if ln.record is not None]
    stamp = int(time.time())
    backup = path.with_name(f"{path.name}.bak-{stamp}")
    aside = path.with_name(f"{path.name}.bad-{stamp}")
    if bad:
        _write(backup, data)
        _write(aside, b"".join(json.dumps({**_problem(ln), "raw_b64": base64.b64encode(ln.raw).decode()})
                               .encode() + b"\n" for ln in bad))
        _write(path, b"".join(ln.raw + b"\n" for ln in good))
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}.idx.sqlite{suffix}").unlink(missing_ok=True)
    for ln in bad:
        _emit(_problem(ln))
    replay = _replay_error(good) if good else "no records"
    _emit({"event": "journal_repair", "path": str(path), "kept": len(good), "set_aside": len(bad),
           "backup": str(backup) if bad else None, "aside": str(aside) if bad else None,
           "replays": replay is None, "replay_error": replay})
    return 0 if replay is None else 1


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file, fsync, rename)."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def run(args: argparse.Namespace) -> int:
    path: Path = args.journal
    if not path.is_file():
        _emit({"event": "error", "error": f"{path}: no such journal file"})
        return 2
    return check(path) if args.action == "check" else repair(path)
