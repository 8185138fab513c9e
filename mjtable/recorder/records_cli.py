"""``mjtable records export JOURNAL [--tenhou F] [--mjai F]``: records from an engine journal.

The journal's ``session_start`` names the rules; the export dispatches on them: a riichi game writes
tenhou.net/6 JSON (``--tenhou``) and mjai JSON lines (``--mjai``) through :mod:`mjtable.recorder.riichi_live`
(the events are replayed through the engine's ``step``); other rules have no tenhou/mjai form and get a clear
error.  Files are written whole or not at all (a temporary file renamed into place).  Prints one JSON line
(``records_export`` or ``error``); exit 0, 1 for a journal that cannot be exported, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from mjtable.recorder.riichi_export import ExportError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    ex = sub.add_parser("export", help="export one game's journal (riichi: tenhou.net/6 JSON, mjai JSON lines)")
    ex.add_argument("journal", type=Path, help="engine journal (JSON lines), e.g. mjtable sim --journal-dir D: "
                                               "D/game-0.jsonl")
    ex.add_argument("--tenhou", type=Path, default=None, metavar="FILE", help="write tenhou.net/6 JSON here")
    ex.add_argument("--mjai", type=Path, default=None, metavar="FILE", help="write mjai JSON lines here")
    ex.add_argument("--title", default=None, help="the tenhou title (default: the journal's table id)")


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def export_journal(journal: Path, *, tenhou: Path | None, mjai: Path | None,
                   title: str | None = None) -> dict[str, Any]:
    """Export ``journal`` to the named files; returns the summary line; raises ExportError (bad journal, or a
    format the journal's rules have no form for) or OSError (cannot write)."""
    from mjtable.recorder.riichi_live import events_from_journal, export_engine_events

    events = events_from_journal(journal)
    rules = str(events[0].get("rules", ""))
    if not rules.startswith("riichi"):
        raise ExportError(f"{journal}: a {rules or 'unnamed-rules'} game has no tenhou.net/6 or mjai form "
                          "(those are riichi records)")
    doc, mj = export_engine_events(events, title or str(events[0].get("table_id") or "mjtable"))
    if tenhou is not None:
        _write(tenhou, json.dumps(doc, ensure_ascii=False))
    if mjai is not None:
        _write(mjai, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in mj))
    return {"event": "records_export", "journal": str(journal), "rules": rules, "players": doc["name"],
            "hands": len(doc["log"]), "mjai_events": len(mj),
            "tenhou": str(tenhou) if tenhou else None, "mjai": str(mjai) if mjai else None}


def run(args: argparse.Namespace) -> int:
    if args.action != "export":  # pragma: no cover - argparse refuses other actions
        return 2
    if args.tenhou is None and args.mjai is None:
        _emit({"event": "error", "error": "name at least one output: --tenhou FILE and/or --mjai FILE"})
        return 2
    try:
        _emit(export_journal(args.journal, tenhou=args.tenhou, mjai=args.mjai, title=args.title))
    except (ExportError, OSError) as exc:
        _emit({"event": "error", "error": str(exc)})
        return 1
    return 0
