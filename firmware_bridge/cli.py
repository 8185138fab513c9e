"""``mjtable table-sim``: the table MCU simulator on a pseudo-terminal, with a JSON-lines control channel.

Prints ``{"pty": "/dev/pts/N", "pid": ..., "build_s": ..., "seed": ...}`` as its first stdout line, then serves
protocol v1 on that pty until SIGTERM/SIGINT.  Each stdin line is a control command
(``{"op": "jam"}``, ``{"op": "reset"}``, ``{"op": "rates", "corrupt": 0.1, "direction": "both"}`` ...; see
``firmware_bridge.sim_control``) and gets one JSON reply line on stdout; ``--control-socket PATH`` accepts the same
lines on a UNIX socket, for a process that did not start the simulator.  Logs go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import sys
import threading
from typing import Any

from firmware_bridge.simulator import BUGS, SimulatedMcu
from firmware_bridge.transport import PtyMaster

FAST_BUILD_S = 0.2
REAL_BUILD_S = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mjtable table-sim``."""
    parser.add_argument("--pty", action="store_true", default=True,
                        help="serve on a new pseudo-terminal (the only mode; kept for clarity)")
    parser.add_argument("--fast", action="store_true",
                        help=f"build in {FAST_BUILD_S} s and boot in 0.02 s instead of {REAL_BUILD_S} s / 0.5 s")
    parser.add_argument("--build-s", type=float, default=None, help="shuffle-and-build duration, seconds")
    parser.add_argument("--boot-s", type=float, default=None, help="reset-to-BOOT time, seconds (0.5; --fast 0.02)")
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed for the dice (throw n: a function of seed and n) and random faults")
    parser.add_argument("--first-throw", type=int, default=0, metavar="N",
                        help="the n-th throw's dice are a function of (seed, n): start at throw N (0-based; a "
                             "resumed session's journaled throws)")
    parser.add_argument("--boot-counter", type=int, default=0, help="EEPROM boot counter before the first boot")
    parser.add_argument("--control-socket", default=None,
                        help="also accept control lines on this UNIX socket path (one reply line per line)")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (DEBUG, INFO, WARNING)")
    parser.add_argument("--bug", action="append", default=[], choices=BUGS,
                        help="behave like firmware with this bug (repeatable), to see 'mjtable table-check' fail")


def _reply(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def handle_control_line(sim: SimulatedMcu, line: str) -> dict[str, Any] | None:
    """Decode and apply one control line; returns the reply (None for a blank line).  Never raises."""
    line = line.strip()
    if not line:
        return None
    try:
        cmd = json.loads(line)
        if not isinstance(cmd, dict):
            raise TypeError("a control command is a JSON object")
        return sim.apply_control(cmd)
    except (ValueError, KeyError, TypeError) as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "line": line[:200]}


async def _read_control(sim: SimulatedMcu) -> None:
    """Apply stdin control lines; a daemon thread reads stdin so a blocked ``readline`` never holds up exit."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def reader() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, "")

    threading.Thread(target=reader, name="table-sim-control", daemon=True).start()
    while True:
        line = await lines.get()
        if not line:
            return  # stdin closed: keep simulating until a signal
        reply = handle_control_line(sim, line)
        if reply is not None:
            _reply(reply)


async def _serve_socket(sim: SimulatedMcu, path: str) -> asyncio.Server:
    """Control lines over a UNIX socket: each connection may send many lines; each gets one reply line."""

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                reply = handle_control_line(sim, line.decode(errors="replace"))
                if reply is not None:
                    writer.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
                    await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    return await asyncio.start_unix_server(client, path=path)


async def serve(args: argparse.Namespace) -> int:
    """Run the simulator until SIGTERM/SIGINT; returns the exit code."""
    build_s = args.build_s if args.build_s is not None else (FAST_BUILD_S if args.fast else REAL_BUILD_S)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    pty = PtyMaster()
    boot_s = args.boot_s if args.boot_s is not None else (0.02 if args.fast else 0.5)
    if args.first_throw < 0:
        raise SystemExit(f"--first-throw {args.first_throw}: a throw index is 0 or more")
    sim = SimulatedMcu(pty, rng=random.Random(seed), build_s=build_s, boot_s=boot_s,
                       boot_counter=args.boot_counter, dice_seed=seed, first_throw=args.first_throw)
    sim.bugs.update(args.bug)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    server = await _serve_socket(sim, args.control_socket) if args.control_socket else None
    _reply({"pty": pty.path, "pid": os.getpid(), "build_s": build_s, "boot_s": boot_s, "seed": seed,
            "control_socket": args.control_socket})
    sim_task = asyncio.ensure_future(sim.run())
    control = asyncio.ensure_future(_read_control(sim))
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait([sim_task, stopper], return_when=asyncio.FIRST_COMPLETED)
    for task in (sim_task, control, stopper):
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.gather(sim_task, stopper, return_exceptions=True)
    if server is not None:
        server.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(args.control_socket)
    await pty.close()
    return 0


def run(args: argparse.Namespace) -> int:
    """Entry point of ``mjtable table-sim``."""
    logging.basicConfig(level=getattr(logging, str(args.log_level).upper(), logging.WARNING), stream=sys.stderr,
                        format="%(asctime)s table-sim %(levelname)s %(message)s")
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        return 0
