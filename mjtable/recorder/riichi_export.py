"""Riichi export helpers shared by the live-engine exporter (:mod:`mjtable.recorder.riichi_live`): tile codes of
tenhou.net/6 and mjai, the tenhou call strings, the export error, and the command line.

The standalone riichi procedure's ``mjtable.riichi_log/1`` replay is gone (issue 18): every export reads an engine
journal, replayed through the engine itself.

tenhou.net/6: tiles 11-19 man, 21-29 pin, 31-39 sou, 41-47 E S W N white green red, 51/52/53 red fives; 60 a
tsumogiri discard; calls ``c``/``p``/``m`` in the draw list and ``a``/``k`` kans in the discard list, with the
letter's position giving the seat the tile came from.  mjai: ``start_game``, ``start_kyoku``, ``tsumo``,
``dahai``, ``reach``/``reach_accepted``, ``chi``/``pon``/``daiminkan``/``ankan``/``kakan``, ``dora``,
``hora``, ``ryukyoku``, ``end_kyoku``, ``end_game``.  Pure; thread-safe.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from mjtable.tiles import Tile


class ExportError(ValueError):
    """A game log that cannot be replayed or exported."""


def tenhou_tile(t: Tile) -> int:
    if t.red:
        return {"m": 51, "p": 52, "s": 53}[t.suit]
    if t.is_honor:
        return 40 + t.rank
    return {"m": 10, "p": 20, "s": 30}[t.suit] + t.rank


def mjai_tile(t: Tile) -> str:
    if t.is_honor:
        return "ESWNPFC"[t.rank - 1]
    return f"{t.rank}{t.suit}{'r' if t.red else ''}"


def _called(letter: str, called: Tile, own: Sequence[Tile], rel: int) -> str:
    """tenhou call string: the letter sits before the called tile, placed by the source seat."""
    o = [str(tenhou_tile(x)) for x in own]
    c = letter + str(tenhou_tile(called))
    if rel == 3:  # from the left player (kamicha)
        return c + "".join(o)
    if rel == 2:  # opposite (toimen)
        return o[0] + c + "".join(o[1:])
    return "".join(o) + c  # from the right (shimocha)


def main(argv: list[str] | None = None) -> int:
    """``python -m mjtable.recorder.riichi_export GAME.json|JOURNAL.jsonl [--tenhou OUT.json] [--mjai OUT.jsonl]``:
    a live-engine journal (``mjtable sim --journal-dir``, the service)."""
    import argparse
    import sys
    from pathlib import Path

    ap = argparse.ArgumentParser(description="export a riichi game log to tenhou.net/6 JSON and mjai JSON lines")
    ap.add_argument("game", type=Path, help="an engine journal (.jsonl)")
    ap.add_argument("--tenhou", type=Path, default=None)
    ap.add_argument("--mjai", type=Path, default=None)
    args = ap.parse_args(argv)
    from mjtable.recorder.riichi_live import events_from_journal, export_engine_events

    try:
        if args.game.suffix != ".jsonl":
            raise ExportError(f"{args.game}: not an engine journal (.jsonl); mjtable.riichi_log/1 files of the "
                              "retired standalone procedure are no longer exported")
        tenhou, mj = export_engine_events(events_from_journal(args.game))
    except (OSError, json.JSONDecodeError, ExportError) as exc:
        sys.stdout.write(json.dumps({"event": "error", "error": str(exc)}) + "\n")
        return 1
    if args.tenhou:
        args.tenhou.write_text(json.dumps(tenhou, ensure_ascii=False), encoding="utf-8")
    if args.mjai:
        args.mjai.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in mj), encoding="utf-8")
    sys.stdout.write(json.dumps({"event": "riichi_export", "hands": len(tenhou["log"]), "mjai_events": len(mj)}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
