"""``mjtable score``: score winning hands, JSON lines on stdin -> one JSON line each on stdout.

MCR profiles (``mcr-1998``, ``mcr-2006`` default, ``mcr-2017``) are scored by :mod:`controller.mcr`;
``sichuan-sbr-2025`` and ``riichi-hkma-2025`` are dispatched to their packages (see
:func:`controller.mcr.jsonlines.handler_for`).  Exit status 0 even when some lines fail (each failure is an
``{"ok": false, "error": ...}`` line); 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import TextIO

from controller.mcr.jsonlines import ALL_RULES, handler_for, parse_options, run_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--rules``, ``--explain``, ``--option`` and ``--input``."""
    add_common_arguments(parser)
    parser.add_argument("--explain", action="store_true", help="say which tiles or sets produced each fan")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """``--rules``, ``--option`` and ``--input``: shared by ``mjtable score`` and ``mjtable waits``."""
    parser.add_argument("--rules", default="mcr-2006", choices=ALL_RULES, help="rulebook (default mcr-2006)")
    parser.add_argument("--option", action="append", default=None, metavar="NAME=VALUE",
                        help="MCR interpretation switch (repeatable), e.g. four_kongs_adds_concealed=false; "
                             "see docs/mcr-interpretations.md")
    parser.add_argument("--input", type=argparse.FileType("r", encoding="utf-8", errors="replace"), default=None,
                        help="read JSON lines from this file instead of stdin")


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
        handler = handler_for(args.rules, command, explain=explain, options=parse_options(args.option))
    except ValueError as exc:
        print(f"mjtable {command}: {exc}", file=sys.stderr)
        return 2
    run_lines(args.input or _stdin(), sys.stdout, handler)
    return 0
