"""``LinkCore``: connection lifecycle, supervisor, heartbeat, receive path and request/response of a table link.

The public command methods live in ``firmware_bridge.session.TableLink`` (a subclass).  See that module for the
rules kept here.  Everything runs on the loop that entered the context manager.  Owns the tasks
``table.supervisor``, ``table.rx`` and ``table.replay``.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameKind
from firmware_bridge.commands import (
    COMMANDS_BY_NAME,
    EVENTS_BY_ID,
    NACK_FIELDS,
    CommandSpec,
    NackReason,
    PayloadError,
    pack,
    unpack,
)
from firmware_bridge.event_map import table_event
from firmware_bridge.events import (
    BridgeError,
    BuildDone,
    BuildFailedError,
    BuildResult,
    EventsLost,
    Fault,
    LinkDown,
    LinkLostError,
    LinkUp,
    McuNackError,
    McuReset,
    McuResetError,
    ProtocolMismatchError,
    RequestTimeoutError,
    TableEvent,
)
from firmware_bridge.sequencer import EventSequencer, seq_add, seq_distance
from firmware_bridge.table import queued_events
from firmware_bridge.transport import Transport, TransportClosedError, TransportFactory

LOGGER = logging.getLogger(__name__)
#: Log level below DEBUG for raw bytes on the wire (enable with ``logging.getLogger("firmware_bridge").setLevel(5)``).
TRACE = 5
_INTERNAL = frozenset({"HELLO", "PING", "STATUS", "EVENTS_REPLAY"})


class LinkState(enum.Enum):
    """Where the link is."""

    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    HANDSHAKING = "handshaking"
    READY = "ready"
    CLOSED = "closed"


@dataclass(frozen=True, kw_only=True, slots=True)
class LinkTiming:
    """Timing policy (seconds).  ``timeout_scale`` multiplies every command's ``timeout_s``.

    Worst-case silence detection is about ``heartbeat_s + heartbeat_misses * (retries + 1) * 0.25 * timeout_scale``.
    """

    heartbeat_s: float = 0.5
    heartbeat_misses: int = 2
    retries: int = 5
    timeout_scale: float = 1.0
    backoff_base_s: float = 0.05
    backoff_cap_s: float = 2.0
    ready_wait_s: float = 2.0
    connect_timeout_s: float | None = 5.0
    build_margin_s: float = 10.0


class _LinkFailureError(Exception):
    pass


class LinkCore:
    """One table MCU link, owned by one asyncio loop.

    Args:
        transport_factory: opens a fresh transport at every (re)connect (``serial_factory(url)``, or a fake).
        timing: timeouts, heartbeat and backoff.
        rng: jitter of the reconnect backoff.
        sleep: ``asyncio.sleep`` or a fake (backoff only).
    """

    def __init__(self, transport_factory: TransportFactory, *, timing: LinkTiming | None = None,
                 rng: random.Random | None = None, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._factory = transport_factory
        self.timing = timing or LinkTiming()
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._state = LinkState.DISCONNECTED
        self._transport: Transport | None = None
        self._decoder = codec.FrameDecoder()
        self._seq = 0
        self._pending: dict[int, tuple[CommandSpec, asyncio.Future[Frame]]] = {}
        self._builds: dict[int, asyncio.Future[BuildResult]] = {}
        self._events: asyncio.Queue[TableEvent | None] = asyncio.Queue()
        self._sequencer: EventSequencer[tuple[str, dict[str, int]]] = EventSequencer()
        self._boot: int | None = None
        self._old_boots: set[int] = set()
        self._ready = asyncio.Event()
        self._lost = asyncio.Event()
        self._lost_reason = ""
        self._rehandshake = asyncio.Event()
        self._reset_requested = False
        self._was_up = False
        self._config: dict[str, dict[str, int]] = {}
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self.firmware = ""
        self.capabilities = 0
        self.backoff_log: list[float] = []  #: every backoff delay slept, seconds (for tests and the doctor)

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> Self:
        if self._state == LinkState.CLOSED or "table.supervisor" in self._tasks:
            raise RuntimeError("TableLink is not reentrant or reusable")
        self._spawn("table.supervisor", self._supervise())
        if self.timing.connect_timeout_s is not None:
            try:
                async with asyncio.timeout(self.timing.connect_timeout_s):
                    await self._ready.wait()
            except TimeoutError:
                await self.aclose()
                raise LinkLostError(f"no table within {self.timing.connect_timeout_s} s") from None
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop every task, close the port, fail waiters with ``LinkLostError`` and end ``events()``.  Idempotent."""
        if self._state == LinkState.CLOSED:
            return
        self._state = LinkState.CLOSED
        self._ready.clear()
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._drop_transport()
        self._fail_waiters(LinkLostError("link closed"))
        self._events.put_nowait(None)

    def _spawn(self, name: str, coro: Awaitable[Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks[name] = task
        task.add_done_callback(lambda t: self._task_done(name, t))

    def _task_done(self, name: str, task: asyncio.Task[Any]) -> None:
        if self._tasks.get(name) is task:
            del self._tasks[name]
        if name == "table.replay" and self._state in (LinkState.READY, LinkState.HANDSHAKING):
            self._request_replay()  # more may be missing than one replay covers
        if not task.cancelled() and task.exception() is not None:
            LOGGER.error("task %s crashed", name, exc_info=task.exception())

    @property
    def state(self) -> LinkState:
        """Current link state."""
        return self._state

    @property
    def boot(self) -> int | None:
        """The MCU boot counter last seen (None before the first handshake)."""
        return self._boot

    def events(self) -> AsyncIterator[TableEvent]:
        """Every table event in order, exactly once, until the link is closed.  One consumer only."""
        return queued_events(self._events)

    # ------------------------------------------------------------------ supervisor
    async def _supervise(self) -> None:
        attempt = 0
        while True:
            self._state = LinkState.CONNECTING
            reason = "connect failed"
            try:
                self._transport = await self._factory()
                self._decoder = codec.FrameDecoder()
                self._lost.clear()
                self._spawn("table.rx", self._rx_loop(self._transport))
                await self._handshake()
                attempt = 0
                self._state = LinkState.READY
                self._ready.set()
                await self._heartbeat()
            except (_LinkFailureError, BridgeError, OSError) as exc:
                reason = str(exc) or type(exc).__name__
            except Exception as exc:  # never let the supervisor die: log, drop the link, reconnect
                LOGGER.exception("table link supervisor error")
                reason = f"internal error: {exc!r}"
            self._ready.clear()
            self._state = LinkState.DISCONNECTED
            await self._drop_transport()
            self._fail_waiters(LinkLostError(f"link lost: {reason}"))
            if self._was_up:
                self._was_up = False
                self._put(LinkDown(reason))
            LOGGER.warning("table link down: %s", reason)
            attempt += 1
            delay = self._rng.uniform(0.0, min(self.timing.backoff_cap_s, self.timing.backoff_base_s * 2**attempt))
            self.backoff_log.append(delay)
            await self._sleep(delay)

    async def _drop_transport(self) -> None:
        rx = self._tasks.get("table.rx")
        if rx is not None and rx is not asyncio.current_task():
            rx.cancel()
            await asyncio.gather(rx, return_exceptions=True)
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.close()

    def _fail_waiters(self, exc: BridgeError) -> None:
        for _, fut in list(self._pending.values()):
            if not fut.done():
                fut.set_exception(exc)
        for build in list(self._builds.values()):
            if not build.done():
                build.set_exception(exc)

    async def _handshake(self) -> None:
        self._state = LinkState.HANDSHAKING
        r = await self._transact(COMMANDS_BY_NAME["HELLO"], {"host_version": codec.PROTOCOL_VERSION})
        if r["protocol_version"] != codec.PROTOCOL_VERSION:
            raise ProtocolMismatchError(f"MCU speaks protocol {r['protocol_version']}, host {codec.PROTOCOL_VERSION}")
        self.firmware = f"{r['fw_major']}.{r['fw_minor']}"
        self.capabilities = r["capabilities"]
        if self._boot is None:
            self._boot = r["boot"]
            self._sequencer.restart(seq_add(r["last_event_seq"], 1))
        elif r["boot"] != self._boot:
            self._on_reset(r["boot"], "noticed at handshake")
        self._rehandshake.clear()
        if not self._was_up:  # before any event of this connection reaches the consumer
            self._was_up = True
            self._put(LinkUp(self._boot or 0, self.firmware, self.capabilities))
        for name, args in list(self._config.items()):
            await self._transact(COMMANDS_BY_NAME[name], args)
        self._check_backlog(r["last_event_seq"])

    async def _heartbeat(self) -> None:
        misses = 0
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.timing.heartbeat_s):
                    await _first(self._lost.wait(), self._rehandshake.wait())
            if self._lost.is_set():
                raise _LinkFailureError(self._lost_reason)
            if self._rehandshake.is_set():
                self._ready.clear()
                await self._handshake()
                self._state = LinkState.READY
                self._ready.set()
                continue
            try:
                r = await self._transact(COMMANDS_BY_NAME["PING"], {})
            except McuResetError:
                continue  # noticed meanwhile (BOOT event): re-handshake now
            except RequestTimeoutError:
                misses += 1
                if misses >= self.timing.heartbeat_misses:
                    raise _LinkFailureError(f"{misses} heartbeats missed") from None
                continue
            misses = 0
            if r["boot"] != self._boot and r["boot"] not in self._old_boots:
                self._on_reset(r["boot"], "noticed by heartbeat")
            elif r["boot"] == self._boot:
                self._check_backlog(r["last_event_seq"])

    # ------------------------------------------------------------------ receiving
    async def _rx_loop(self, transport: Transport) -> None:
        try:
            while True:
                data = await transport.read()
                if LOGGER.isEnabledFor(TRACE):
                    LOGGER.log(TRACE, "rx %s", data.hex(" "))
                for frame in self._decoder.feed(data):
                    self._on_frame(frame)
        except TransportClosedError as exc:
            self._lost_reason = f"port closed ({exc})"
        except Exception:  # a bug must not leave a half-dead link behind: drop it and reconnect
            LOGGER.exception("table receive loop failed")
            self._lost_reason = "receive loop failed"
        self._lost.set()
        self._fail_waiters(LinkLostError(f"link lost: {self._lost_reason}"))  # no wait outlives the port

    def _on_frame(self, frame: Frame) -> None:
        if frame.kind in (FrameKind.ACK, FrameKind.NACK):
            entry = self._pending.get(frame.seq)
            if entry is None or entry[0].ident != frame.ident:
                LOGGER.debug("unsolicited reply seq %d id %#x dropped", frame.seq, frame.ident)
            elif not entry[1].done():
                entry[1].set_result(frame)
        elif frame.kind == FrameKind.EVENT:
            self._on_event(frame)

    def _on_event(self, frame: Frame) -> None:
        spec = EVENTS_BY_ID.get(frame.ident)
        if spec is None:
            LOGGER.warning("unknown event id %#x (seq %d) dropped", frame.ident, frame.seq)
            return
        try:
            values = unpack(spec.fields, frame.payload)
        except PayloadError as exc:
            LOGGER.warning("malformed %s event: %s", spec.name, exc)
            return
        boot = values["boot"]
        if boot in self._old_boots:
            return  # a late copy from before a reset
        if self._boot is None:
            return  # before the first handshake; HELLO's last_event_seq tells where to start
        if boot != self._boot:
            self._on_reset(boot, _boot_reason(values) if spec.name == "BOOT" else f"noticed by {spec.name} event")
        for name, vals in self._sequencer.offer(frame.seq, (spec.name, values)):
            self._deliver(name, vals)
        self._request_replay()

    def _deliver(self, name: str, values: dict[str, int]) -> None:
        ev = table_event(name, values)
        if ev is None:
            return
        if isinstance(ev, BuildDone):
            fut = self._builds.get(ev.build_id)
            if fut is not None and not fut.done():
                fut.set_result(BuildResult(ev.build_id, ev.tiles, ev.duration_s))
        elif isinstance(ev, Fault) and ev.severity >= 2:
            for build_id, fut in self._builds.items():
                if not fut.done() and ev.build_id in (0, build_id):
                    fut.set_exception(BuildFailedError(ev))
        self._put(ev)

    def _put(self, ev: TableEvent) -> None:
        self._events.put_nowait(ev)

    def _on_reset(self, boot: int, reason: str) -> None:
        previous = self._boot or 0
        interrupted = "SHUFFLE_AND_BUILD" if any(not f.done() for f in self._builds.values()) else None
        if interrupted is None:
            names = [spec.name for spec, fut in self._pending.values() if not fut.done()]
            interrupted = next((n for n in names if n not in _INTERNAL), None)
        self._old_boots.add(previous)
        self._boot = boot
        self._sequencer.restart(1)
        expected, self._reset_requested = self._reset_requested, False
        LOGGER.warning("MCU restarted: boot %d -> %d (%s), interrupted %s", previous, boot, reason, interrupted)
        self._put(McuReset(previous, boot, reason, interrupted, expected))
        err = McuResetError(interrupted or "command", boot)
        for spec, fut in list(self._pending.values()):
            if not fut.done() and spec.name != "HELLO":  # a PING sent into the reboot must not delay re-handshake
                fut.set_exception(err)
        for build in self._builds.values():
            if not build.done():
                build.set_exception(err)
        self._rehandshake.set()

    def _check_backlog(self, last_event_seq: int) -> None:
        self._request_replay(last_event_seq)

    def _request_replay(self, newest: int | None = None) -> None:
        gap = self._sequencer.missing(newest)
        if gap is None or "table.replay" in self._tasks:
            return
        self._spawn("table.replay", self._replay(gap[0], min(gap[1], 64)))

    async def _replay(self, first: int, count: int) -> None:
        boot = self._boot
        try:
            r = await self._transact(COMMANDS_BY_NAME["EVENTS_REPLAY"], {"from_seq": first, "count": count})
        except BridgeError as exc:
            LOGGER.info("event replay failed: %s", exc)
            return
        # the re-sent events arrived before the ACK and wait in the sequencer; whatever is older than the ring's
        # oldest entry is gone for good
        lost = seq_distance(r["oldest"], self._sequencer.expected) if r["oldest"] else 0
        if boot == self._boot and lost > 0:
            first_lost = self._sequencer.expected
            self._put(EventsLost(first_lost, seq_add(first_lost, lost - 1)))
            for name, vals in self._sequencer.skip(lost):
                self._deliver(name, vals)

    # ------------------------------------------------------------------ requests
    def _next_seq(self) -> int:
        self._seq = seq_add(self._seq, 1)
        return self._seq

    async def _transact(self, spec: CommandSpec, args: dict[str, int], seq: int | None = None) -> dict[str, int]:
        """Send ``spec`` and return its ACK values; idempotent commands are retransmitted with the same seq."""
        transport = self._transport
        if transport is None:
            raise LinkLostError("not connected")
        seq = self._next_seq() if seq is None else seq
        wire = codec.encode(Frame(FrameKind.REQUEST, seq, spec.ident, pack(spec.request, args)))
        fut: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._pending[seq] = (spec, fut)
        attempts = 1 + (self.timing.retries if spec.idempotent else 0)
        try:
            for _ in range(attempts):
                if LOGGER.isEnabledFor(TRACE):
                    LOGGER.log(TRACE, "tx %s %s", spec.name, wire.hex(" "))
                try:
                    await transport.write(wire)
                except TransportClosedError as exc:
                    raise LinkLostError(f"write failed: {exc}") from exc
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(spec.timeout_s * self.timing.timeout_scale):
                        await asyncio.shield(fut)
                if fut.done():
                    break
            else:
                raise RequestTimeoutError(spec.name, seq, attempts)
        finally:
            self._pending.pop(seq, None)
        reply = fut.result()
        if reply.kind == FrameKind.NACK:
            try:
                nack = unpack(NACK_FIELDS, reply.payload)
            except PayloadError:
                nack = {"reason": 0, "detail": 0}
            reason: NackReason | int = nack["reason"]
            with contextlib.suppress(ValueError):
                reason = NackReason(nack["reason"])
            raise McuNackError(spec.name, reason, nack["detail"])
        try:
            return unpack(spec.response, reply.payload)
        except PayloadError as exc:
            raise BridgeError(f"{spec.name}: malformed ACK: {exc}") from exc

    async def _wait_ready(self) -> None:
        if self._state == LinkState.CLOSED:
            raise LinkLostError("link closed")
        if not self._ready.is_set():
            try:
                async with asyncio.timeout(self.timing.ready_wait_s):
                    await self._ready.wait()
            except TimeoutError:
                raise LinkLostError(f"table link is {self._state.value}") from None

    async def request(self, name: str, **args: int) -> dict[str, int]:
        """Send an idempotent command by name (see ``firmware_bridge.commands``); returns the ACK fields."""
        spec = COMMANDS_BY_NAME[name]
        if not spec.idempotent:
            raise ValueError(f"{name} is not idempotent; use its own method")
        await self._wait_ready()
        return await self._transact(spec, args)

    async def _once(self, name: str, args: dict[str, int], on_seq: Callable[[int], None] | None = None,
                    recover: Callable[[dict[str, int], int], dict[str, int]] | None = None) -> dict[str, int]:
        """Run a non-idempotent command exactly once: on a lost reply ask STATUS, resend (new seq) only if unrun."""
        spec = COMMANDS_BY_NAME[name]
        for attempt in range(1 + self.timing.retries):
            await self._wait_ready()
            boot = self._boot
            seq = self._next_seq()
            if on_seq is not None:
                on_seq(seq)
            try:
                return await self._transact(spec, args, seq)
            except RequestTimeoutError:
                status = await self.request("STATUS")
                if self._boot != boot:
                    raise McuResetError(name, self._boot or 0) from None  # never retried across a reset
                if status["last_seq"] == seq and status["last_command"] == spec.ident:
                    if recover is None:
                        raise
                    return recover(status, seq)
                LOGGER.info("%s seq %d was not executed (attempt %d); sending again", name, seq, attempt + 1)
        raise RequestTimeoutError(name, self._seq, 1 + self.timing.retries)

def _boot_reason(values: dict[str, int]) -> str:
    from firmware_bridge.commands import BootReason

    try:
        return BootReason(values["reason"]).name.lower()
    except ValueError:
        return f"reason {values['reason']}"


async def _first(*aws: Awaitable[Any]) -> None:
    """Wait until the first of ``aws`` finishes; cancel the rest."""
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()
