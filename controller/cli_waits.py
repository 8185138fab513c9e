"""``mjtable waits``: every tile that completes a 13-tile hand, with its fan total on a discard win.

Same input as ``mjtable score`` without ``win``; out ``{"ok": true, "waits": [{"tile": "3s", "total": 12,
"meets_minimum": true}, ...]}`` (``total`` includes flowers, ``meets_minimum`` checks 8 points without them).
"""

from __future__ import annotations

import argparse

from controller.cli_score import add_common_arguments, run_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``--rules``, ``--option`` and ``--input``."""
    add_common_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Answer every input line; returns the exit code."""
    return run_command("waits", args)
