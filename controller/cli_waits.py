"""``mjtable waits``: every tile that completes a 13-tile hand, with its fan total on a discard win.

Same input as ``mjtable score`` without ``win``; out ``{"ok": true, "waits": [{"tile": "3s", "total": 12,
"meets_minimum": true}, ...]}`` (``total`` includes flowers, ``meets_minimum`` checks 8 points without them).
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import TextIO

from controller.mcr.jsonlines import ALL_RULES, handler_for, parse_options, run_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--rules``, ``--option`` and ``--input``."""
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
    """Answer every input line; returns the exit code."""
    try:
        handler = handler_for(args.rules, "waits", options=parse_options(args.option))
    except ValueError as exc:
        print(f"mjtable waits: {exc}", file=sys.stderr)
        return 2
    run_lines(args.input or _stdin(), sys.stdout, handler)
    return 0
