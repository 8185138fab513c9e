"""``SimulatedMcu``: an automatic-table MCU speaking protocol v1 over any :class:`Transport`, with fault knobs.

It decodes with the real codec, answers through ``@handles("NAME")`` handlers (payloads packed from the
``firmware_bridge.commands`` table), keeps the event ring for EVENTS_REPLAY and a reply cache keyed by seq, and
models a table: shuffle/build with progress (``build_s``, about 60 s real, 0.2 s fast), wall lift, dice, lid,
seat buttons and faults.  Link faults (drop/duplicate/corrupt/delay) act on whole frames in either direction.
Runs on one asyncio loop; every public method is called from that loop.  ``apply_control`` takes the JSON-line
control commands of ``mjtable table-sim`` (see ``docs/serial-protocol.md`` "Simulator").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameKind
from firmware_bridge.commands import (
    CAP_DICE,
    CAP_PRE_DEALT,
    CAP_SEAT_LIGHTS,
    CAP_TILESET_108,
    CAP_TILESET_136,
    CAP_TILESET_144,
    COMMANDS_BY_ID,
    COMMANDS_BY_NAME,
    EVENTS_BY_NAME,
    NACK_FIELDS,
    BootReason,
    BuildStage,
    Button,
    FaultCode,
    LidPart,
    McuState,
    NackReason,
    PayloadError,
    Severity,
    TileSet,
    WallLayout,
    pack,
    unpack,
)
from firmware_bridge.faults import LinkFaults, split_wire
from firmware_bridge.transport import Transport, TransportClosedError

LOGGER = logging.getLogger(__name__)
EVENT_RING = 64
#: Firmware bugs the simulator can be given, so ``mjtable table-check`` can be seen failing (docs/serial-protocol.md
#: "Building a board that speaks v1"): ``no_reply_cache`` runs a repeated request (same seq) again instead of
#: answering it from the reply cache; ``wrong_build_id`` puts the next seq into BUILD_DONE; ``ignore_unknown``
#: leaves an unknown command unanswered instead of NACKing it.
BUGS = ("no_reply_cache", "wrong_build_id", "ignore_unknown")
FW_VERSION = (1, 0)
Values = dict[str, int]
_H = TypeVar("_H", bound=Callable[..., Awaitable[Values]])


def handles(command: str) -> Callable[[_H], _H]:
    """Mark a ``SimulatedMcu`` coroutine method as the handler of ``command`` (a name in ``COMMANDS_BY_NAME``)."""
    spec = COMMANDS_BY_NAME[command]

    def mark(fn: _H) -> _H:
        fn._handles = spec.ident  # type: ignore[attr-defined]
        return fn

    return mark


class NackError(Exception):
    """Raised by a handler to answer NACK."""

    def __init__(self, reason: NackReason, detail: int = 0) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(reason.name)


@dataclass
class TableFaults:
    """Mechanical fault knobs (each acts once, then clears itself)."""

    fail_next_build: FaultCode | None = None  #: JAM, WRONG_TILE_COUNT, MOTOR_OVERCURRENT, SENSOR_FAULT ...
    reset_during_build: bool = False  #: watchdog reset at 50 % of the next build
    reset_on_command: str | None = None  #: reboot instead of answering the next such command
    drop_reply_to: str | None = None  #: execute the next such command but lose its reply on the wire
    lift_timeout: bool = False  #: next RAISE_WALLS raises LIFT_TIMEOUT
    silent_until_s: float = 0.0  #: monotonic time until which the MCU neither reads nor sends


@dataclass
class _Table:
    state: McuState = McuState.IDLE
    tile_set: int = TileSet.MCR_144
    layout: int = WallLayout.STANDARD
    build_percent: int = 0
    dice: tuple[int, int] = (0, 0)
    last_seq: int = 0
    last_command: int = 0
    fault: int = 0
    fault_severity: int = 0  # severity of the active fault; CRITICAL needs RESET, not CLEAR_FAULT
    temperature_dc: int = 312
    lid_open: bool = False
    lights: int = 0
    boot_started_s: float = field(default_factory=time.monotonic)


def seeded_dice(seed: int, throw: int) -> tuple[int, int]:
    """The two dice (1..6) of throw number ``throw`` (0-based) of a session seeded ``seed``: a function of both
    only, like the demo's walls (seeded per hand), so a restarted simulator continues the same session."""
    r = random.Random(f"{seed}:dice:{throw}")
    return (r.randint(1, 6), r.randint(1, 6))


class SimulatedMcu:
    """A table MCU on ``transport``.  ``await run()`` until cancelled.

    Args:
        transport: the device side (``PtyMaster`` or one end of ``memory_pair``).
        rng: random link faults, and the dice when ``dice_seed`` is None.
        dice_seed: when set, the n-th throw of the session is :func:`seeded_dice` (``dice_seed``, n), whatever
            process throws it: a simulator restarted with a resumed session (``first_throw`` = the throws its
            journal holds) throws what an undisturbed one would have.
        first_throw: the index (0-based) of this simulator's first throw.
        build_s: shuffle-and-build duration, seconds (real tables about 60).
        boot_s: time from reset to the BOOT event, seconds.
        boot_counter: value before the first boot (EEPROM); the first BOOT event reports it + 1.
        clock: monotonic seconds.
    """

    def __init__(self, transport: Transport, *, rng: random.Random | None = None, build_s: float = 60.0,
                 boot_s: float = 0.5, boot_counter: int = 0, clock: Callable[[], float] = time.monotonic,
                 dice_seed: int | None = None, first_throw: int = 0) -> None:
        self.transport = transport
        self.rng = rng or random.Random()
        self.dice_seed = dice_seed
        self.throws = first_throw  #: index of the next throw in the session (ROLL_DICE or the dice button)
        self.build_s = build_s
        self.boot_s = boot_s
        self.clock = clock
        self.boot_counter = boot_counter
        self.tx = LinkFaults()
        self.rx = LinkFaults()
        self.faults = TableFaults()
        self.bugs: set[str] = set()  #: injected firmware bugs (see :data:`BUGS`)
        self.table = _Table()
        self.stats: dict[str, int] = {"requests": 0, "replies": 0, "events": 0, "replayed": 0, "resets": 0,
                                      "cache_hits": 0, "stale": 0}
        #: successful executions per command name (a cached re-answer is not an execution)
        self.executed: Counter[str] = Counter()
        self._decoder = codec.FrameDecoder()
        self._rx_buf = bytearray()
        self._event_seq = 0
        self._ring: deque[Frame] = deque(maxlen=EVENT_RING)
        self._replies: OrderedDict[int, Frame] = OrderedDict()
        self._in_progress: set[int] = set()
        self._newest_seq = 0
        self._booting = True
        self._tasks: set[asyncio.Task[Any]] = set()
        self._build_task: asyncio.Task[None] | None = None
        self._handlers: dict[int, Callable[[Frame, Values], Awaitable[Values]]] = {}
        for name in dir(type(self)):
            ident = getattr(getattr(type(self), name), "_handles", None)
            if ident is not None:
                self._handlers[ident] = getattr(self, name)

    # ----------------------------------------------------------------- running
    async def run(self) -> None:
        """Boot, then serve requests until the transport closes or the task is cancelled."""
        self._spawn(self._boot(BootReason.POWER_ON))
        try:
            while True:
                try:
                    data = await self.transport.read()
                except TransportClosedError:
                    return
                for wire in split_wire(self._rx_buf, data):
                    for delay, chunk in self.rx.apply(wire, self.rng):
                        if delay:
                            self._spawn(self._later(delay, self._receive, chunk))
                        else:
                            self._receive(chunk)
        finally:
            for task in list(self._tasks):
                task.cancel()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _later(self, delay_s: float, fn: Callable[[bytes], None], data: bytes) -> None:
        await asyncio.sleep(delay_s)
        fn(data)

    @property
    def silent(self) -> bool:
        """True while a "go silent" fault is active."""
        return self.clock() < self.faults.silent_until_s

    def _receive(self, wire: bytes) -> None:
        if self._booting or self.silent:
            return
        for frame in self._decoder.feed(wire):
            if frame.kind != FrameKind.REQUEST:
                continue
            self.stats["requests"] += 1
            spec = COMMANDS_BY_ID.get(frame.ident)
            if spec is not None and spec.name == "HELLO":
                self._replies.clear()  # a (re)connecting host: replies to its older seqs are of no use now
            cached = None if "no_reply_cache" in self.bugs else self._replies.get(frame.seq)
            if cached is not None and cached.ident == frame.ident:
                self.stats["cache_hits"] += 1
                self._send(cached)  # a retransmission: answer again, do not execute again
                continue
            if frame.seq in self._in_progress:
                continue  # a copy of a request still being handled: its reply will come
            newer = self._newest_seq == 0 or 0 < (frame.seq - self._newest_seq) % 0x10000 < 0x8000
            if spec is not None and spec.name == "HELLO":
                self._newest_seq = frame.seq  # a (re)started host: its seq numbers start over
            elif newer:
                self._newest_seq = frame.seq
            elif spec is not None and not spec.idempotent:
                self.stats["stale"] += 1
                self._send(Frame(FrameKind.NACK, frame.seq, frame.ident,
                                 pack(NACK_FIELDS, {"reason": NackReason.STALE_SEQ, "detail": 0})))
                continue
            self._in_progress.add(frame.seq)
            self._spawn(self._dispatch(frame))

    async def _dispatch(self, frame: Frame) -> None:
        spec = COMMANDS_BY_ID.get(frame.ident)
        boot = self.boot_counter
        try:
            if spec is None or frame.ident not in self._handlers:
                if "ignore_unknown" in self.bugs:
                    return
                raise NackError(NackReason.UNKNOWN_COMMAND)
            if self.faults.reset_on_command == spec.name:
                self.faults.reset_on_command = None
                self.reset(BootReason.WATCHDOG)
                return
            try:
                args = unpack(spec.request, frame.payload)
            except PayloadError:
                raise NackError(NackReason.BAD_LENGTH) from None
            values = await self._handlers[frame.ident](frame, args)
            self.executed[spec.name] += 1
            reply = Frame(FrameKind.ACK, frame.seq, frame.ident, pack(spec.response, values))
        except NackError as nack:
            reply = Frame(FrameKind.NACK, frame.seq, frame.ident,
                          pack(NACK_FIELDS, {"reason": nack.reason, "detail": nack.detail}))
        finally:
            self._in_progress.discard(frame.seq)
        if boot != self.boot_counter:
            return  # the MCU rebooted while handling it: the reply died with it
        self._replies[frame.seq] = reply
        while len(self._replies) > 16:
            self._replies.popitem(last=False)
        if spec is not None and self.faults.drop_reply_to == spec.name:
            self.faults.drop_reply_to = None
        else:
            self._send(reply)
        if spec is not None and spec.name == "RESET" and reply.kind == FrameKind.ACK:
            self._spawn(self._later(0.001, lambda _: self.reset(BootReason.RESET_COMMAND), b""))

    def _send(self, frame: Frame) -> None:
        if self.silent:
            return
        self.stats["replies" if frame.kind != FrameKind.EVENT else "events"] += 1
        for delay, data in self.tx.apply(codec.encode(frame), self.rng):
            if delay:
                self._spawn(self._write_later(delay, data, self.boot_counter))
            else:
                self._spawn(self._write(data))

    async def _write(self, data: bytes) -> None:
        with contextlib.suppress(TransportClosedError):
            await self.transport.write(data)

    async def _write_later(self, delay_s: float, data: bytes, boot: int) -> None:
        await asyncio.sleep(delay_s)
        if boot == self.boot_counter:
            await self._write(data)

    def emit(self, name: str, **values: int) -> None:
        """Send event ``name`` (a name in ``EVENTS_BY_NAME``); ``boot`` is filled in."""
        spec = EVENTS_BY_NAME[name]
        self._event_seq = self._event_seq % 0xFFFF + 1
        frame = Frame(FrameKind.EVENT, self._event_seq, spec.ident,
                      pack(spec.fields, {"boot": self.boot_counter, **values}))
        self._ring.append(frame)
        self._send(frame)

    # ----------------------------------------------------------------- resets
    def reset(self, reason: BootReason = BootReason.WATCHDOG) -> None:
        """Reboot now: everything volatile is lost, the boot counter goes up, BOOT follows after ``boot_s``."""
        self.stats["resets"] += 1
        if self._build_task is not None:
            self._build_task.cancel()
            self._build_task = None
        for task in list(self._tasks):
            if task is not asyncio.current_task():
                task.cancel()
        self._booting = True
        self._decoder = codec.FrameDecoder()
        self._rx_buf.clear()
        self._replies.clear()
        self._in_progress.clear()
        self._newest_seq = 0
        self._spawn(self._boot(reason))

    async def _boot(self, reason: BootReason) -> None:
        await asyncio.sleep(self.boot_s)
        flush = getattr(self.transport, "flush_input", None)
        if flush is not None:
            flush()
        self.boot_counter += 1
        self._event_seq = 0
        self._ring.clear()
        self.table = _Table(boot_started_s=self.clock())
        self._booting = False
        LOGGER.info("simulated MCU booted: boot %d (%s)", self.boot_counter, reason.name)
        self.emit("BOOT", reason=reason)

    def _uptime_ms(self) -> int:
        return int((self.clock() - self.table.boot_started_s) * 1000) & 0xFFFFFFFF

    # ----------------------------------------------------------------- handlers
    @handles("HELLO")
    async def _hello(self, frame: Frame, args: Values) -> Values:
        if args["host_version"] != codec.PROTOCOL_VERSION:
            raise NackError(NackReason.UNSUPPORTED_VERSION, codec.PROTOCOL_VERSION)
        caps = CAP_TILESET_144 | CAP_TILESET_136 | CAP_TILESET_108 | CAP_PRE_DEALT | CAP_SEAT_LIGHTS | CAP_DICE
        return {"protocol_version": codec.PROTOCOL_VERSION, "fw_major": FW_VERSION[0], "fw_minor": FW_VERSION[1],
                "boot": self.boot_counter, "capabilities": caps, "last_event_seq": self._event_seq,
                "uptime_ms": self._uptime_ms()}

    @handles("PING")
    async def _ping(self, frame: Frame, args: Values) -> Values:
        return {"boot": self.boot_counter, "last_event_seq": self._event_seq, "uptime_ms": self._uptime_ms()}

    @handles("STATUS")
    async def _status(self, frame: Frame, args: Values) -> Values:
        t = self.table
        return {"state": t.state, "tile_set": t.tile_set, "layout": t.layout, "build_percent": t.build_percent,
                "dice1": t.dice[0], "dice2": t.dice[1], "last_seq": t.last_seq, "last_command": t.last_command,
                "fault": t.fault, "temperature_dc": t.temperature_dc, "lid_open": int(t.lid_open),
                "lights": t.lights}

    def _check_can_move(self) -> None:
        t = self.table
        if t.state == McuState.ESTOP:
            raise NackError(NackReason.ESTOP_ACTIVE)
        if t.state == McuState.FAULT:
            raise NackError(NackReason.FAULT_ACTIVE, t.fault)
        if t.state == McuState.BUILDING:
            raise NackError(NackReason.BUSY)

    @handles("SELECT_TILE_SET")
    async def _select(self, frame: Frame, args: Values) -> Values:
        if args["tile_set"] not in set(TileSet) or args["layout"] not in set(WallLayout):
            raise NackError(NackReason.BAD_ARGUMENT)
        if self.table.state == McuState.BUILDING:
            raise NackError(NackReason.BUSY)
        self.table.tile_set, self.table.layout = args["tile_set"], args["layout"]
        return {}

    @handles("SHUFFLE_AND_BUILD")
    async def _shuffle(self, frame: Frame, args: Values) -> Values:
        self._check_can_move()
        if args["tile_set"] != self.table.tile_set:
            raise NackError(NackReason.BAD_ARGUMENT, self.table.tile_set & 0xFF)
        if self.table.lid_open:
            raise NackError(NackReason.LID_OPEN)
        t = self.table
        t.state, t.build_percent, t.last_seq, t.last_command = McuState.BUILDING, 0, frame.seq, frame.ident
        self._build_task = asyncio.ensure_future(self._build(frame.seq))
        return {"build_id": frame.seq, "expected_ms": int(self.build_s * 1000)}

    async def _build(self, build_id: int) -> None:
        started = self.clock()
        t = self.table
        failure, self.faults.fail_next_build = self.faults.fail_next_build, None
        for step in range(1, 11):
            await asyncio.sleep(self.build_s / 10)
            percent = step * 10
            if percent == 50 and self.faults.reset_during_build:
                self.faults.reset_during_build = False
                self.reset(BootReason.WATCHDOG)
                return
            if failure is not None and failure != FaultCode.WRONG_TILE_COUNT and percent == 40:
                self._raise_fault(failure, Severity.ERROR, 0, build_id)
                return
            t.build_percent = percent
            t.temperature_dc += 3
            stage = (BuildStage.SHUFFLING if percent <= 40 else BuildStage.STACKING if percent < 100
                     else BuildStage.PUSHING)
            self.emit("BUILD_PROGRESS", build_id=build_id, percent=percent, stage=stage)
        if failure == FaultCode.WRONG_TILE_COUNT:
            self._raise_fault(failure, Severity.ERROR, t.tile_set - 1, build_id)
            return
        t.state = McuState.BUILT
        done_id = (build_id % 0xFFFF + 1) if "wrong_build_id" in self.bugs else build_id
        self.emit("BUILD_DONE", build_id=done_id, tiles=t.tile_set, duration_ms=int((self.clock() - started) * 1000))
        self._build_task = None

    def _raise_fault(self, code: FaultCode, severity: Severity, detail: int, build_id: int = 0) -> None:
        if severity >= Severity.ERROR:
            if self._build_task is not None and self._build_task is not asyncio.current_task():
                self._build_task.cancel()
            self._build_task = None
            self.table.state = McuState.FAULT
            self.table.fault = code
            self.table.fault_severity = severity
        self.emit("FAULT", code=code, severity=severity, detail=detail, build_id=build_id)

    @handles("RAISE_WALLS")
    async def _raise(self, frame: Frame, args: Values) -> Values:
        self._check_can_move()
        if self.table.state == McuState.RAISED:
            return {}
        if self.table.state != McuState.BUILT:
            raise NackError(NackReason.NOT_READY)
        await asyncio.sleep(self.build_s / 40)
        if self.faults.lift_timeout:
            self.faults.lift_timeout = False
            self._raise_fault(FaultCode.LIFT_TIMEOUT, Severity.ERROR, 0)
            raise NackError(NackReason.FAULT_ACTIVE, FaultCode.LIFT_TIMEOUT)
        self.table.state = McuState.RAISED
        return {}

    @handles("ROLL_DICE")
    async def _roll(self, frame: Frame, args: Values) -> Values:
        self._check_can_move()
        t = self.table
        t.dice = self._throw()
        t.last_seq, t.last_command = frame.seq, frame.ident
        return {"dice1": t.dice[0], "dice2": t.dice[1]}

    def _throw(self) -> tuple[int, int]:
        """The dice of the next throw: seeded by its index when ``dice_seed`` is set, else from ``rng``."""
        n, self.throws = self.throws, self.throws + 1
        if self.dice_seed is None:
            return (self.rng.randint(1, 6), self.rng.randint(1, 6))
        return seeded_dice(self.dice_seed, n)

    def _stop_build(self) -> None:
        if self._build_task is not None:
            self._build_task.cancel()
            self._build_task = None
            self.table.state = McuState.IDLE

    @handles("STOP")
    async def _stop(self, frame: Frame, args: Values) -> Values:
        self._stop_build()
        return {}

    @handles("EMERGENCY_STOP")
    async def _estop(self, frame: Frame, args: Values) -> Values:
        self._stop_build()
        self.table.state = McuState.ESTOP
        return {}

    @handles("SEAT_LIGHTS")
    async def _lights(self, frame: Frame, args: Values) -> Values:
        if args["lights"] > 0x0F:
            raise NackError(NackReason.BAD_ARGUMENT)
        self.table.lights = args["lights"]
        return {}

    @handles("RESET")
    async def _reset(self, frame: Frame, args: Values) -> Values:
        self.table.last_seq, self.table.last_command = frame.seq, frame.ident
        return {}

    @handles("CLEAR_FAULT")
    async def _clear(self, frame: Frame, args: Values) -> Values:
        t = self.table
        if t.state == McuState.FAULT:
            if t.fault_severity >= Severity.CRITICAL:
                raise NackError(NackReason.FAULT_ACTIVE, t.fault)  # doc §9: a CRITICAL fault needs RESET
            if t.fault in (FaultCode.MOTOR_OVERCURRENT, FaultCode.OVER_TEMPERATURE) and t.temperature_dc > 800:
                raise NackError(NackReason.FAULT_ACTIVE, t.fault)
            t.state, t.fault, t.fault_severity = McuState.IDLE, 0, 0
        return {}

    @handles("EVENTS_REPLAY")
    async def _replay(self, frame: Frame, args: Values) -> Values:
        if not 1 <= args["count"] <= EVENT_RING or args["from_seq"] == 0:
            raise NackError(NackReason.BAD_ARGUMENT)
        by_seq = {f.seq: f for f in self._ring}
        sent = 0
        for i in range(args["count"]):
            found = by_seq.get((args["from_seq"] - 1 + i) % 0xFFFF + 1)
            if found is not None:
                self._send(found)
                sent += 1
        self.stats["replayed"] += sent
        return {"sent": sent, "oldest": self._ring[0].seq if self._ring else 0}

    # ----------------------------------------------------------------- table inputs
    def press_button(self, seat: int, button: Button) -> None:
        """A player presses and releases ``button`` at ``seat``; the dice button also rolls the dice."""
        self.emit("BUTTON", seat=seat, button=button, pressed=1)
        self.emit("BUTTON", seat=seat, button=button, pressed=0)
        if button == Button.DICE and self.table.state not in (McuState.BUILDING, McuState.ESTOP):
            self.table.dice = self._throw()
            self.emit("DICE_ROLLED", dice1=self.table.dice[0], dice2=self.table.dice[1], seat=seat)

    def set_lid(self, part: LidPart, is_open: bool) -> None:
        """Open or close the lid or the service door."""
        if part == LidPart.LID:
            self.table.lid_open = is_open
        self.emit("LID", part=part, open=int(is_open))

    def inject_fault(self, code: FaultCode, severity: Severity, detail: int = 0) -> None:
        """Raise a fault now (e.g. OVER_TEMPERATURE); ERROR or worse aborts a running build."""
        build_id = self.table.last_seq if self.table.state == McuState.BUILDING else 0
        if code == FaultCode.OVER_TEMPERATURE:
            self.table.temperature_dc = detail or 850
            detail = self.table.temperature_dc
        self._raise_fault(code, severity, detail, build_id)

    def apply_control(self, cmd: dict[str, Any]) -> dict[str, Any]:
        """Run one control command (a decoded JSON line); returns the JSON reply.  Raises ValueError/KeyError."""
        from firmware_bridge.sim_control import apply_control

        return apply_control(self, cmd)
