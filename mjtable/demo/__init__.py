"""``mjtable demo``: a full simulated session through the real stack, on a machine without table hardware.

Starts (unless given existing ones) a local mosquitto and the table MCU simulator on a pseudo-terminal
(``mjtable table-sim`` as a subprocess; with ``--table panel`` instead a simulated closed table on the fake GPIO
backend, driven through ``firmware_bridge.panel.PanelTable``, whose dice the demo referee enters), the recorder
and the referee display server, then runs the real table
service (``mjtable run``'s :class:`~mjtable.service.runner.TableService`) with the fake GPIO backend and the
simulated camera, while four seeded bots play through the buttons and the camera (:mod:`mjtable.demo.world`).
Prints JSON lines of progress and one final ``summary`` line; leaves the journal, recorder database, game
records (JSON + CSV) and logs in ``./runs/<timestamp>/``.  Re-running with the same ``--run-dir`` resumes the
session from its journal (what the kill test does).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mjtable.demo import runfile
from mjtable.demo.stack import DEFAULT_CAMERA, DemoOptions, DemoStack


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default=None,
                        help="mcr-1998 | mcr-2006 | mcr-2017 | sichuan-sbr-2025 | riichi-hkma-2025 "
                             "(default mcr-2006; the bots play MCR style; a resumed run keeps its own)")
    parser.add_argument("--seed", type=int, default=None,
                        help="walls, dice and bot choices (default 1; the simulated table's n-th throw is a function "
                             "of the seed and n, so a resumed run throws what an undisturbed one would; a resumed run "
                             "keeps its own)")
    parser.add_argument("--hands", type=int, default=None,
                        help="cut the session short after N hands (a resumed session keeps its own length)")
    parser.add_argument("--fast", action="store_true", help="0.2 s wall builds (default: 2 s; a real table: 60 s)")
    parser.add_argument("--build-s", type=float, default=None, help="wall build time of the simulated table, s")
    parser.add_argument("--camera", choices=("sim", "direct"), default=DEFAULT_CAMERA,
                        help="direct (default): the scene's ground truth as vision events; sim: rendered frames "
                             "through the real vision pipeline (about a minute per hand)")
    parser.add_argument("--run-dir", type=Path, default=None, help="where records go (default ./runs/<UTC time>);"
                        " an existing run dir is resumed from its journal")
    parser.add_argument("--broker", default=None, help="use this broker HOST:PORT instead of starting mosquitto")
    parser.add_argument("--broker-ws", default=None, help="its websockets URL for the display (ws://HOST:PORT)")
    parser.add_argument("--mcu-pty", default=None, help="use a running 'mjtable table-sim' on this pty")
    parser.add_argument("--display-port", type=int, default=0, help="display server port (0: a free one; -1: off)")
    parser.add_argument("--timer", action="append", default=[], metavar="NAME=SECONDS",
                        help="override an engine timer, e.g. claim_s=30 (repeatable)")
    parser.add_argument("--table", choices=("serial", "panel"), default="serial",
                        help="serial (default): the MCU simulator over protocol v1 on a pty; panel: a simulated "
                             "closed table driven through its control panel (GPIO adapter, fake backend)")
    parser.add_argument("--table-id", default="demo", help="table id (MQTT topics, journal name)")
    parser.add_argument("--panel-fault", action="append", default=[], metavar="FAULT",
                        help="--table panel: a fault of the simulated closed table: jam, no_ready, lift_stuck or "
                             "stuck:<button> (repeatable; each acts once)")
    parser.add_argument("--mcu-control", action="append", default=[], metavar="JSON", type=_json_object,
                        help='a fault for the MCU simulator, e.g. \'{"op": "reset_during_build"}\' (repeatable)')


def _json_object(text: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise argparse.ArgumentTypeError("a control command is a JSON object")
    return obj


def _timers(items: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise SystemExit(f"--timer {item!r}: use NAME=SECONDS") from None
        if not sep:
            raise SystemExit(f"--timer {item!r}: use NAME=SECONDS")
    return out


def emit_line(doc: dict[str, Any]) -> None:
    """One JSON line of progress on stdout (thread-safe enough: whole lines, flushed)."""
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def fresh_run_dir(parent: Path) -> Path:
    """A new directory under ``parent`` named by the UTC start time; demos started in the same second (two
    terminals, a script running seeds side by side) get ``-2``, ``-3``... so none writes into another's
    journal or records."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    parent.mkdir(parents=True, exist_ok=True)
    for n in range(1, 1000):
        candidate = parent / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise SystemExit(f"no free run directory under {parent} for {stamp}")


def run(args: argparse.Namespace) -> int:
    try:  # before anything starts: a bad --rules or a conflicting resume leaves no broker and no run folder
        chosen = runfile.resolve(args.run_dir, args.seed, args.rules)
    except runfile.RunOptionsError as exc:
        emit_line({"event": "error", "error": str(exc)})
        return 2
    if args.hands is not None and args.hands < 1:
        emit_line({"event": "error", "error": f"--hands {args.hands}: a session has at least 1 hand"})
        return 2
    run_dir = args.run_dir or fresh_run_dir(Path("runs"))
    run_dir.mkdir(parents=True, exist_ok=True)
    runfile.save(run_dir, chosen)
    build_s = args.build_s if args.build_s is not None else (0.2 if args.fast else 2.0)
    opts = DemoOptions(rules=chosen.rules, seed=chosen.seed, hands=args.hands, build_s=build_s, camera=args.camera,
                       run_dir=run_dir.resolve(), broker=args.broker, broker_ws=args.broker_ws, mcu_pty=args.mcu_pty,
                       display_port=args.display_port, timers=_timers(args.timer), table=args.table_id,
                       mcu_control=list(args.mcu_control), table_link=args.table,
                       panel_faults=list(args.panel_fault))
    stack = DemoStack(opts, emit_line)
    try:
        stack.start()
    except Exception as exc:  # a missing mosquitto/pty is a clear message, not a traceback
        emit_line({"event": "error", "error": f"{type(exc).__name__}: {exc}"})
        stack.close()
        return 1
    interrupted = threading.Event()

    async def main() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        def on_signal() -> None:
            interrupted.set()
            stack.stop()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        return await stack.play()

    try:
        summary = asyncio.run(main())
    except Exception as exc:
        emit_line({"event": "error", "error": f"{type(exc).__name__}: {exc}"})
        stack.close()
        return 1
    with contextlib.suppress(Exception):
        summary.update(stack.finish())
    stack.close()
    summary["interrupted"] = interrupted.is_set()
    emit_line(summary)
    if interrupted.is_set():
        return 130  # the journal keeps the session: run again with the same --run-dir to resume it
    return 0 if summary.get("ok") else 1
