"""``mjtable score``: score winning hands, JSON lines on stdin -> one JSON line each on stdout.

MCR profiles (``mcr-1998``, ``mcr-2006`` default, ``mcr-2017``) are scored by :mod:`controller.mcr`;
``sichuan-sbr-2025`` and ``riichi-hkma-2025`` are dispatched to their packages (see
:func:`controller.cli_jsonlines.handler_for`).  Exit status 0 even when some lines fail (each failure is an
``{"ok": false, "error": ...}`` line); 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import TextIO

from controller.cli_jsonlines import ALL_RULES, handler_for, parse_options, run_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--rules``, ``--explain``, ``--option`` and ``--input``."""
    add_common_arguments(parser)
    parser.add_argument("--explain", action="store_true", help="say which tiles or sets produced each fan")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """``--rules``, ``--option`` and ``--input``: shared by ``mjtable score`` and ``mjtable waits``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = INPUT_HELP
    parser.add_argument("--rules", default="mcr-2006", metavar="RULES",
                        help=f"rulebook: {', '.join(ALL_RULES)} (default mcr-2006); Sichuan and riichi take the "
                             "profile options the table config takes, e.g. riichi-hkma-2025:division=B")
    parser.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                        help="MCR interpretation switch (repeatable), e.g. four_kongs_adds_concealed=false; "
                             "see docs/mcr-interpretations.md")
    parser.add_argument("--input", type=argparse.FileType("r", encoding="utf-8", errors="replace"), default=None,
                        help="read JSON lines from this file instead of stdin")


INPUT_HELP = """input: one JSON object per line (UTF-8), e.g.
  {"id": 1, "hand": "[123m]{5555p}11223s33p", "win": "3s", "self_drawn": true, "seat_wind": "E",
   "round_wind": "S", "flowers": 0}
  hand: concealed tiles like 123m456p11z, melds [123m] chow, [555p] pung, [5555p] melded kong,
        {5555p} concealed kong; tiles 1m-9m 1p-9p 1s-9s 1z-7z (E S W N White Green Red), red fives 0m 0p 0s.
  score: "hand" is the hand without the winning tile, "win" the winning tile.  waits: the 13-tile "hand" only.
  MCR flags: self_drawn last_of_kind kong last_tile heavenly earthly concealed_ready (true/false).
  Sichuan and riichi fields: see README.md ("Scoring from the command line").
output: one JSON line per input line, {"ok": true, ...} or {"ok": false, "error": "..."}, with the input's
  "id" echoed; blank lines are skipped (no output line); a line over 65536 characters is answered with
  {"ok": false, "error": "line too long: ..."} and not echoed."""


def _stdin() -> TextIO:
    """stdin decoding bad bytes as U+FFFD, so one undecodable line fails alone instead of stopping the run."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")
    return sys.stdin


def run(args: argparse.Namespace) -> int:
    """Score every input line; returns the exit code."""
    return run_command("score", args, explain=args.explain)


def run_command(command: str, args: argparse.Namespace, *, explain: bool = False) -> int:
    """Answer every input line with ``command`` (``score`` or ``waits``); 2 for bad arguments, else 0."""
    try:
        if args.rules.split(":", 1)[0] not in ALL_RULES:
            raise ValueError(f"unknown rules {args.rules!r}: expected one of {', '.join(ALL_RULES)}")
        handler = handler_for(args.rules, command, explain=explain, options=parse_options(args.option))
    except ValueError as exc:
        print(f"mjtable {command}: {exc}", file=sys.stderr)
        return 2
    run_lines(args.input or _stdin(), sys.stdout, handler)
    return 0
