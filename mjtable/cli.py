"""The ``mjtable`` console script: one entry point, one subcommand per job.

Each subcommand lives in the package that owns it and exposes ``add_arguments(parser)`` and
``run(args) -> int``.  Modules are imported only when their subcommand runs, so ``mjtable score`` does
not load OpenCV and ``mjtable table-sim`` does not load ONNX Runtime.  Machine-readable output is JSON lines.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol, cast

from mjtable.blas import one_blas_thread

#: subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "score": ("controller.cli_score", "score winning hands (JSON lines in, JSON lines out)"),
    "waits": ("controller.cli_waits", "list the tiles that complete a hand, with fan totals"),
    "sim": ("controller.cli_sim", "play whole sessions with bots through the engine"),
    "replay": ("controller.cli_replay", "rebuild state and scores from a journal (or --serve a replay UI)"),
    "table-sim": ("firmware_bridge.cli", "run the table MCU simulator on a pseudo-terminal"),
    "vision": ("vision.cli", "tile classifier and camera pipeline tools"),
    "display": ("mjtable.cli_display", "serve the referee / spectator display"),
    "recorder": ("mjtable.recorder.cli", "store every table's games from a broker"),
    "run": ("mjtable.service", "run the table service from a config file"),
    "demo": ("mjtable.demo", "a full simulated session: MCU sim, camera sim, bots, local mosquitto"),
    "doctor": ("mjtable.doctor", "check this machine's hardware, broker and config"),
    "standings": ("mjtable.standings.cli", "organiser's live standings: running scores, tournament table, CSV, web"),
    "table-check": ("firmware_bridge.check", "drive a table board through protocol v1's test sequence, step by step"),
    "records": ("mjtable.recorder.records_cli", "export a game's journal as records (riichi: tenhou.net/6, mjai)"),
    "--version": ("mjtable.version", "print the installed version and exit"),
    "journal": ("controller.journal_tool", "check an engine journal, or repair it keeping every good record"),
}


class _Command(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _load(name: str) -> _Command:
    module_name, _ = SUBCOMMANDS[name]
    return cast(_Command, importlib.import_module(module_name))


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run one subcommand; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="mjtable", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in SUBCOMMANDS:
        parser.print_help() if not argv or argv[0] in ("-h", "--help") else parser.parse_args(argv[:1])
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    name = argv[0]
    command = _load(name)
    sub_parser = argparse.ArgumentParser(prog=f"mjtable {name}", description=SUBCOMMANDS[name][1])
    command.add_arguments(sub_parser)
    args = sub_parser.parse_args(argv[1:])
    with one_blas_thread():  # small matrices only; spinning BLAS threads starve a busy Pi (mjtable.blas)
        return int(command.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
