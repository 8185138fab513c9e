"""``mjtable table-check --port /dev/ttyACM0``: drive a board through protocol v1's test sequence, report each step.

For firmware authors (docs/serial-protocol.md, "Building a board that speaks v1"): the checker talks raw frames
(the reference codec, not ``TableLink``, which would hide a board's mistakes by retrying), runs the steps of
:data:`STEPS` in order and prints one JSON line per step (``{"step": ..., "ok": ..., "detail": ...}``) and a
final ``summary`` line.  Exit status: 0 every step passed, 1 a step failed, 2 the port could not be opened.
The reference board is ``mjtable table-sim --fast``; ``mjtable table-sim --bug NAME`` injects a firmware bug
the checker must catch.  The board must be idle, without an active fault, lid closed.  The sequence builds the
walls once (up to ``--build-timeout-s``) and, unless ``--no-reset``, reboots the board at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameKind
from firmware_bridge.commands import (
    COMMANDS_BY_NAME,
    EVENTS_BY_ID,
    EVENTS_BY_NAME,
    NACK_FIELDS,
    BootReason,
    McuState,
    NackReason,
    PayloadError,
    pack,
    unpack,
)
from firmware_bridge.transport import Transport, TransportClosedError, serial_factory

#: how long the checker waits for one reply, seconds (the protocol's per-command timeouts are 0.1-3 s)
REPLY_S = 1.0
#: how long it listens for a reply that must NOT come (a corrupted frame), seconds
SILENCE_S = 0.3


class CheckFailedError(Exception):
    """One step's expectation did not hold; the message says what was expected and what came."""


@dataclass
class Board:
    """The board under test over one transport: raw requests, replies by seq, every event kept in order."""

    transport: Transport
    reply_s: float = REPLY_S
    decoder: codec.FrameDecoder = field(default_factory=codec.FrameDecoder)
    events: list[Frame] = field(default_factory=list)
    replies: dict[int, list[Frame]] = field(default_factory=dict)
    seq: int = 0
    boot: int = 0
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _rx: asyncio.Task[None] | None = None
    closed_reason: str | None = None

    def start(self) -> None:
        self._rx = asyncio.get_running_loop().create_task(self._receive(), name="table-check.rx")

    async def _receive(self) -> None:
        try:
            while True:
                for frame in self.decoder.feed(await self.transport.read()):
                    if frame.kind == FrameKind.EVENT:
                        self.events.append(frame)
                    else:
                        self.replies.setdefault(frame.seq, []).append(frame)
                    self._arrived.set()
        except TransportClosedError as exc:
            self.closed_reason = str(exc) or "port closed"
            self._arrived.set()

    async def close(self) -> None:
        if self._rx is not None:
            self._rx.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._rx
        await self.transport.close()

    def next_seq(self) -> int:
        self.seq = self.seq % 0xFFFF + 1
        return self.seq

    async def wait_for(self, found: Callable[[], Any], timeout_s: float) -> Any:
        """Wait until ``found()`` returns something truthy (re-checked at each frame); None after the timeout."""
        deadline = time.monotonic() + timeout_s
        while True:
            got = found()
            if got or self.closed_reason is not None:
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)

    async def send(self, ident: int, payload: bytes = b"", seq: int | None = None) -> int:
        seq = self.next_seq() if seq is None else seq
        await self.transport.write(codec.encode(Frame(FrameKind.REQUEST, seq, ident, payload)))
        return seq

    async def reply(self, seq: int, timeout_s: float | None = None) -> Frame:
        """The first reply to ``seq``; :class:`CheckFailedError` when none comes."""
        got = await self.wait_for(lambda: self.replies.get(seq), self.reply_s if timeout_s is None else timeout_s)
        if not got:
            raise CheckFailedError(f"no reply to seq {seq} within {self.reply_s if timeout_s is None else timeout_s}"
                                   f" s{f' ({self.closed_reason})' if self.closed_reason else ''}")
        frame: Frame = got[0]
        return frame

    async def ack(self, name: str, seq: int | None = None, **args: int) -> tuple[int, dict[str, int]]:
        """Send command ``name``; expect an ACK with a well-formed payload.  Returns (seq, fields)."""
        spec = COMMANDS_BY_NAME[name]
        seq = await self.send(spec.ident, pack(spec.request, args), seq)
        try:
            r = await self.reply(seq, max(self.reply_s, spec.timeout_s * 2))
        except CheckFailedError as exc:
            raise CheckFailedError(f"{name}: expected ACK, {exc}") from None
        if r.ident != spec.ident:
            raise CheckFailedError(f"{name}: reply carries id {r.ident:#04x}, expected {spec.ident:#04x}")
        if r.kind == FrameKind.NACK:
            raise CheckFailedError(f"{name}: expected ACK, got NACK {_nack(r)}")
        try:
            return seq, unpack(spec.response, r.payload)
        except PayloadError as exc:
            raise CheckFailedError(f"{name}: malformed ACK payload ({exc})") from None

    async def nack(self, name: str, reason: NackReason, payload: bytes | None = None, ident: int | None = None,
                   seq: int | None = None, **args: int) -> None:
        """Send ``name`` (or a raw ``ident``/``payload``); expect NACK ``reason``."""
        spec = COMMANDS_BY_NAME.get(name)
        ident = spec.ident if ident is None and spec is not None else ident
        assert ident is not None
        body = payload if payload is not None else pack(spec.request, args) if spec is not None else b""
        seq = await self.send(ident, body, seq)
        try:
            r = await self.reply(seq)
        except CheckFailedError as exc:
            raise CheckFailedError(f"{name}: expected NACK {reason.name}, {exc}") from None
        if r.kind != FrameKind.NACK:
            raise CheckFailedError(f"{name}: expected NACK {reason.name}, got {r.kind.name}")
        got = _nack_reason(r)
        if got != reason:
            raise CheckFailedError(f"{name}: expected NACK {reason.name}, got NACK {_nack(r)}")

    async def status(self) -> dict[str, int]:
        return (await self.ack("STATUS"))[1]

    def events_named(self, name: str, since: int = 0) -> list[dict[str, int]]:
        spec = EVENTS_BY_NAME[name]
        out = []
        for f in self.events[since:]:
            if f.ident == spec.ident:
                with contextlib.suppress(PayloadError):
                    out.append(unpack(spec.fields, f.payload))
        return out


def _nack_reason(frame: Frame) -> NackReason | int:
    try:
        values = unpack(NACK_FIELDS, frame.payload)
    except PayloadError:
        return -1
    try:
        return NackReason(values["reason"])
    except ValueError:
        return values["reason"]


def _nack(frame: Frame) -> str:
    reason = _nack_reason(frame)
    return reason.name if isinstance(reason, NackReason) else f"reason {reason} (not a NackReason)"


def _expect(ok: bool, message: str) -> None:
    if not ok:
        raise CheckFailedError(message)


# ---------------------------------------------------------------------------------------------------- the steps
@dataclass
class Context:
    board: Board
    build_timeout_s: float
    reset: bool
    dice: tuple[int, int] = (0, 0)
    dice_seq: int = 0
    build_seq: int = 0
    build_events_from: int = 0


async def step_hello(c: Context) -> str:
    b = c.board
    _, r = await b.ack("HELLO", host_version=codec.PROTOCOL_VERSION)
    _expect(r["protocol_version"] == codec.PROTOCOL_VERSION,
            f"HELLO: protocol_version {r['protocol_version']}, expected {codec.PROTOCOL_VERSION}")
    b.boot = r["boot"]
    return f"firmware {r['fw_major']}.{r['fw_minor']}, boot {r['boot']}, capabilities {r['capabilities']:#06x}"


async def step_unsupported_version(c: Context) -> str:
    await c.board.nack("HELLO", NackReason.UNSUPPORTED_VERSION, host_version=codec.PROTOCOL_VERSION + 1)
    await step_hello(c)  # back to a good session
    return "HELLO for protocol 2 refused with UNSUPPORTED_VERSION"


async def step_ping(c: Context) -> str:
    _, r = await c.board.ack("PING")
    _expect(r["boot"] == c.board.boot, f"PING: boot {r['boot']}, HELLO said {c.board.boot}")
    return f"boot {r['boot']}, uptime {r['uptime_ms']} ms"


async def step_status(c: Context) -> str:
    r = await c.board.status()
    try:
        state = McuState(r["state"])
    except ValueError:
        raise CheckFailedError(f"STATUS: state {r['state']} is not an McuState") from None
    _expect(state == McuState.IDLE, f"STATUS: state {state.name}; start the check with the table idle (no fault)")
    return f"state {state.name.lower()}, {r['temperature_dc'] / 10:.1f} degC"


async def step_unknown_command(c: Context) -> str:
    await c.board.nack("0x7e", NackReason.UNKNOWN_COMMAND, payload=b"", ident=0x7E)
    return "id 0x7e refused with UNKNOWN_COMMAND"


async def step_bad_length(c: Context) -> str:
    await c.board.nack("SEAT_LIGHTS", NackReason.BAD_LENGTH, payload=b"")
    return "SEAT_LIGHTS without its byte refused with BAD_LENGTH"


async def step_bad_argument(c: Context) -> str:
    await c.board.nack("SEAT_LIGHTS", NackReason.BAD_ARGUMENT, lights=0x10)
    await c.board.nack("SELECT_TILE_SET", NackReason.BAD_ARGUMENT, tile_set=100, layout=0)
    return "SEAT_LIGHTS 0x10 and SELECT_TILE_SET 100 refused with BAD_ARGUMENT"


async def step_bad_crc(c: Context) -> str:
    b = c.board
    seq = b.next_seq()
    wire = bytearray(codec.encode(Frame(FrameKind.REQUEST, seq, COMMANDS_BY_NAME["PING"].ident, b"")))
    wire[-2] ^= 0x01 if wire[-2] != 0x01 else 0x02  # the CRC's last byte, never making a 0x00
    await b.transport.write(bytes(wire))
    got = await b.wait_for(lambda: b.replies.get(seq), SILENCE_S)
    _expect(not got, f"a frame with a bad CRC was answered ({got[0].kind.name if got else ''})")
    await step_ping(c)  # and the next good frame is still understood
    return f"bad CRC ignored (no reply in {SILENCE_S} s), next frame answered"


async def step_select_tile_set(c: Context) -> str:
    await c.board.ack("SELECT_TILE_SET", tile_set=136, layout=0)
    _expect((await c.board.status())["tile_set"] == 136, "STATUS.tile_set is not 136 after SELECT_TILE_SET 136")
    return "136 tiles selected"


async def step_raise_not_ready(c: Context) -> str:
    await c.board.nack("RAISE_WALLS", NackReason.NOT_READY)
    return "RAISE_WALLS before a build refused with NOT_READY"


async def step_dice_once(c: Context) -> str:
    b = c.board
    seq, r = await b.ack("ROLL_DICE")
    _expect(all(1 <= r[k] <= 6 for k in ("dice1", "dice2")), f"dice {r['dice1']}+{r['dice2']} outside 1..6")
    c.dice, c.dice_seq = (r["dice1"], r["dice2"]), seq
    first = b.replies[seq][0]
    await b.send(COMMANDS_BY_NAME["ROLL_DICE"].ident, b"", seq)  # the same request again: a lost reply's resend
    again = await b.wait_for(lambda: len(b.replies.get(seq, [])) > 1 and b.replies[seq][1], b.reply_s)
    _expect(bool(again), "a repeated ROLL_DICE (same seq) got no reply: resend the cached reply")
    _expect(again.kind == FrameKind.ACK,
            f"a repeated ROLL_DICE (same seq, a lost reply's resend) was answered with {again.kind.name} "
            f"{_nack(again) if again.kind == FrameKind.NACK else ''}: answer repeats from the reply cache")
    _expect(again.payload == first.payload,
            f"a repeated ROLL_DICE (same seq) rolled again ({again.payload.hex()} after {first.payload.hex()}): "
            "a non-idempotent command must run once per seq; answer repeats from the reply cache")
    s = await b.status()
    _expect(s["last_seq"] == seq and s["last_command"] == COMMANDS_BY_NAME["ROLL_DICE"].ident,
            f"STATUS.last_seq/last_command {s['last_seq']}/{s['last_command']:#04x}, expected {seq}/0x13")
    _expect((s["dice1"], s["dice2"]) == c.dice, f"STATUS.dice {s['dice1']}+{s['dice2']}, rolled {c.dice}")
    return f"rolled {c.dice[0]}+{c.dice[1]} once; the repeat answered from the cache; STATUS agrees"


async def step_stale_seq(c: Context) -> str:
    stale = (c.board.seq - 1000) % 0xFFFF + 1
    await c.board.nack("ROLL_DICE", NackReason.STALE_SEQ, seq=stale)
    return f"ROLL_DICE with old seq {stale} refused with STALE_SEQ"


async def step_build(c: Context) -> str:
    b = c.board
    c.build_events_from = len(b.events)
    seq, r = await b.ack("SHUFFLE_AND_BUILD", tile_set=136)
    c.build_seq = seq
    _expect(r["build_id"] == seq, f"SHUFFLE_AND_BUILD ACK build_id {r['build_id']}, expected the seq {seq}")
    await b.nack("SHUFFLE_AND_BUILD", NackReason.BUSY, tile_set=136)  # a second build while building
    timeout_s = min(c.build_timeout_s, r["expected_ms"] / 1000 * 1.5 + 10)

    def done() -> list[dict[str, int]]:
        return b.events_named("BUILD_DONE", c.build_events_from) or b.events_named("FAULT", c.build_events_from)

    await b.wait_for(done, timeout_s)
    faults = b.events_named("FAULT", c.build_events_from)
    _expect(not faults, f"FAULT during the build: {faults}")
    finished = b.events_named("BUILD_DONE", c.build_events_from)
    _expect(bool(finished), f"no BUILD_DONE within {timeout_s:.1f} s (expected_ms {r['expected_ms']})")
    d = finished[0]
    _expect(d["build_id"] == seq, f"BUILD_DONE build_id {d['build_id']}, expected {seq}")
    _expect(d["tiles"] == 136, f"BUILD_DONE tiles {d['tiles']}, expected 136")
    progress = b.events_named("BUILD_PROGRESS", c.build_events_from)
    percents = [p["percent"] for p in progress if p["build_id"] == seq]
    _expect(bool(percents) and percents == sorted(percents) and percents[-1] <= 100,
            f"BUILD_PROGRESS percents {percents}: expected rising values up to 100")
    _expect(all(p["build_id"] == seq for p in progress), "BUILD_PROGRESS with another build_id")
    _expect((await b.status())["state"] == McuState.BUILT, "STATUS.state is not BUILT after BUILD_DONE")
    return f"built 136 in {d['duration_ms']} ms, progress {percents}, BUSY while building"


async def step_events_in_order(c: Context) -> str:
    b = c.board
    seqs = [f.seq for f in b.events[c.build_events_from:]]
    _expect(bool(seqs), "no events seen during the build")
    gaps = [(x, y) for x, y in itertools.pairwise(seqs) if y != x % 0xFFFF + 1]
    _expect(not gaps, f"event seqs not consecutive: {gaps[:3]} (seqs {seqs})")
    boots = {unpack(EVENTS_BY_ID[f.ident].fields, f.payload)["boot"] for f in b.events[c.build_events_from:]
             if f.ident in EVENTS_BY_ID}
    _expect(boots == {b.boot}, f"events carry boot {sorted(boots)}, HELLO said {b.boot}")
    _, ping = await b.ack("PING")
    _expect(ping["last_event_seq"] == seqs[-1], f"PING.last_event_seq {ping['last_event_seq']}, last seen {seqs[-1]}")
    return f"events {seqs[0]}..{seqs[-1]} consecutive, boot {b.boot}"


async def step_events_replay(c: Context) -> str:
    b = c.board
    originals = b.events[c.build_events_from:]
    first, count = originals[0].seq, len(originals)
    before = len(b.events)
    _, r = await b.ack("EVENTS_REPLAY", from_seq=first, count=count)
    resent = b.events[before:]
    _expect(r["sent"] == count, f"EVENTS_REPLAY sent {r['sent']}, expected {count}")
    _expect([(f.seq, f.ident, f.payload) for f in resent] == [(f.seq, f.ident, f.payload) for f in originals],
            "EVENTS_REPLAY did not re-send the same events with their original seqs before its ACK")
    return f"{count} events re-sent from seq {first} before the ACK (oldest in ring {r['oldest']})"


async def step_raise(c: Context) -> str:
    await c.board.ack("RAISE_WALLS")
    await c.board.ack("RAISE_WALLS")  # idempotent
    _expect((await c.board.status())["state"] == McuState.RAISED, "STATUS.state is not RAISED after RAISE_WALLS")
    return "walls raised (twice: idempotent)"


async def step_seat_lights(c: Context) -> str:
    await c.board.ack("SEAT_LIGHTS", lights=0b0101)
    _expect((await c.board.status())["lights"] == 0b0101, "STATUS.lights is not 0b0101 after SEAT_LIGHTS 5")
    await c.board.ack("SEAT_LIGHTS", lights=0)
    return "seat lamps 0 and 2 lit, then off"


async def step_clear_and_stop(c: Context) -> str:
    await c.board.ack("CLEAR_FAULT")
    await c.board.ack("STOP")
    return "CLEAR_FAULT without a fault and STOP ACKed"


async def step_reset(c: Context) -> str:
    b = c.board
    if not c.reset:
        return "skipped (--no-reset)"
    before, boot = len(b.events), b.boot
    await b.ack("RESET")
    booted = await b.wait_for(lambda: b.events_named("BOOT", before), 10.0)
    _expect(bool(booted), "no BOOT event within 10 s of RESET")
    ev = booted[0]
    _expect(ev["boot"] == boot + 1, f"BOOT boot {ev['boot']}, expected {boot + 1} (the counter must survive RESET)")
    _expect(ev["reason"] == BootReason.RESET_COMMAND, f"BOOT reason {ev['reason']}, expected RESET_COMMAND")
    first = next(f for f in b.events[before:] if f.ident == EVENTS_BY_NAME["BOOT"].ident)
    _expect(first.seq == 1, f"BOOT event seq {first.seq}, expected 1 (event seq restarts)")
    b.seq = 0  # a new session after the restart
    await step_hello(c)
    return f"rebooted: boot {boot} -> {ev['boot']}, BOOT seq 1, reason RESET_COMMAND"


STEPS: tuple[tuple[str, Callable[[Context], Awaitable[str]]], ...] = (
    ("hello", step_hello),
    ("unsupported_version", step_unsupported_version),
    ("ping", step_ping),
    ("status_idle", step_status),
    ("unknown_command", step_unknown_command),
    ("bad_length", step_bad_length),
    ("bad_argument", step_bad_argument),
    ("bad_crc_ignored", step_bad_crc),
    ("select_tile_set", step_select_tile_set),
    ("raise_before_build", step_raise_not_ready),
    ("roll_dice_exactly_once", step_dice_once),
    ("stale_seq", step_stale_seq),
    ("build", step_build),
    ("events_in_order", step_events_in_order),
    ("events_replay", step_events_replay),
    ("raise_walls", step_raise),
    ("seat_lights", step_seat_lights),
    ("clear_fault_and_stop", step_clear_and_stop),
    ("reset", step_reset),
)
#: a failure of these leaves nothing to talk to: the remaining steps are not run
_FATAL = frozenset({"hello"})


async def check_board(transport: Transport, emit: Callable[[dict[str, Any]], None], *,
                      build_timeout_s: float = 180.0, reset: bool = True) -> dict[str, Any]:
    """Run every step against the board on ``transport``; ``emit`` gets one dict per step; returns the summary."""
    board = Board(transport)
    board.start()
    ctx = Context(board, build_timeout_s, reset)
    failed: list[str] = []
    passed = 0
    try:
        for name, step in STEPS:
            t0 = time.monotonic()
            try:
                detail = await step(ctx)
                ok = True
            except CheckFailedError as exc:
                detail, ok = str(exc), False
            except TransportClosedError as exc:
                detail, ok = f"port closed: {exc}", False
            emit({"step": name, "ok": ok, "detail": detail, "s": round(time.monotonic() - t0, 3)})
            if ok:
                passed += 1
            else:
                failed.append(name)
                if name in _FATAL or board.closed_reason is not None:
                    break
    finally:
        await board.close()
    rejected = {k: v for k, v in board.decoder.stats.items() if k != "frames" and v}
    return {"event": "summary", "ok": not failed and passed == len(STEPS), "passed": passed, "steps": len(STEPS),
            "failed": failed, "frames_rejected": rejected}


# ---------------------------------------------------------------------------------------------------- the CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mjtable table-check``."""
    parser.add_argument("--port", required=True, help="the board's serial port (/dev/ttyACM0, /dev/serial0, or "
                                                      "the pty printed by 'mjtable table-sim')")
    parser.add_argument("--baud", type=int, default=115200, help="bit/s (default 115200)")
    parser.add_argument("--build-timeout-s", type=float, default=180.0,
                        help="longest wait for BUILD_DONE, seconds (default 180; the ACK's expected_ms decides "
                             "below that)")
    parser.add_argument("--no-reset", action="store_true", help="do not reboot the board at the end")


def run(args: argparse.Namespace) -> int:
    """Entry point of ``mjtable table-check``."""

    def emit(doc: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(doc, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    async def main() -> int:
        try:
            transport = await serial_factory(args.port, args.baud)()
        except (OSError, ValueError) as exc:
            emit({"event": "error", "error": str(exc) or f"cannot open {args.port}"})
            return 2
        summary = await check_board(transport, emit, build_timeout_s=args.build_timeout_s, reset=not args.no_reset)
        summary["port"] = args.port
        emit(summary)
        return 0 if summary["ok"] else 1

    return asyncio.run(main())


__all__ = ["STEPS", "Board", "CheckFailedError", "add_arguments", "check_board", "run"]
