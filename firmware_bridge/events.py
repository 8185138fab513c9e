"""Typed events delivered by ``TableLink.events()`` and the exceptions of the bridge.

Every event is a frozen dataclass with ``to_json() -> dict`` (``{"type": "...", ...}``) so the controller can
journal it.  Durations are seconds (``*_s``).  Pure data; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware_bridge.commands import Button, FaultCode, LidPart, NackReason, Severity
from mjtable.typed_json import typed_json


class _JsonEvent:
    """Mixin: ``to_json`` gives ``{"type": <snake name>, **fields}`` with enums as lower-case names."""

    __slots__ = ()
    type_name = "event"

    def to_json(self) -> dict[str, Any]:
        return typed_json(self, self.type_name)  # shared with the engine's events and effects


@dataclass(frozen=True, slots=True)
class LinkUp(_JsonEvent):
    """The link is READY: handshake done.  Sent at first connect and after every ``LinkDown``."""

    boot: int
    firmware: str
    capabilities: int
    type_name = "link_up"


@dataclass(frozen=True, slots=True)
class LinkDown(_JsonEvent):
    """The link is lost (port closed, heartbeat missed, handshake failed); the supervisor reconnects."""

    reason: str
    type_name = "link_down"


@dataclass(frozen=True, slots=True)
class McuReset(_JsonEvent):
    """The MCU restarted (boot counter changed): delivered exactly once per restart noticed.

    ``interrupted`` names the operation that was cut short (e.g. ``"SHUFFLE_AND_BUILD"``), or None.
    ``expected`` is True when the host asked for it (RESET command).
    """

    previous_boot: int
    boot: int
    reason: str
    interrupted: str | None
    expected: bool
    type_name = "mcu_reset"


@dataclass(frozen=True, slots=True)
class Fault(_JsonEvent):
    """The MCU reported a fault; ``build_id`` is the build it aborted (0: none)."""

    code: FaultCode
    severity: Severity
    detail: int
    build_id: int
    type_name = "fault"


@dataclass(frozen=True, slots=True)
class ButtonEvent(_JsonEvent):
    """A seat button (wired to the MCU) was pressed or released."""

    seat: int
    button: Button
    pressed: bool
    type_name = "button"


@dataclass(frozen=True, slots=True)
class LidEvent(_JsonEvent):
    """Lid or service door opened/closed."""

    part: LidPart
    open: bool
    type_name = "lid"


@dataclass(frozen=True, slots=True)
class BuildProgress(_JsonEvent):
    """Build progress of build ``build_id`` (0..100 %)."""

    build_id: int
    percent: int
    stage: str
    type_name = "build_progress"


@dataclass(frozen=True, slots=True)
class BuildDone(_JsonEvent):
    """Walls of build ``build_id`` are built (not yet raised)."""

    build_id: int
    tiles: int
    duration_s: float
    type_name = "build_done"


@dataclass(frozen=True, slots=True)
class DiceRolled(_JsonEvent):
    """Dice rolled from a table button (``roll_dice()`` returns its values instead)."""

    dice: tuple[int, int]
    seat: int
    type_name = "dice_rolled"


@dataclass(frozen=True, slots=True)
class EventsLost(_JsonEvent):
    """Events ``first``..``last`` of this boot were lost for good (MCU ring overwritten); treat as a fault."""

    first: int
    last: int
    type_name = "events_lost"


TableEvent = (LinkUp | LinkDown | McuReset | Fault | ButtonEvent | LidEvent | BuildProgress | BuildDone | DiceRolled
              | EventsLost)


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What ``shuffle_and_build`` returns."""

    build_id: int
    tiles: int
    duration_s: float


@dataclass(frozen=True, slots=True)
class TableStatus:
    """What ``status()`` returns (see the STATUS command)."""

    state: str
    tile_set: int
    layout: str
    build_percent: int
    dice: tuple[int, int]
    last_seq: int
    last_command: int
    fault: str | None
    temperature_c: float
    lid_open: bool
    lights: int


class BridgeError(Exception):
    """Base of every firmware_bridge error."""


class LinkLostError(BridgeError):
    """The link is not READY or was lost while waiting; nothing more is known about the request."""


class RequestTimeoutError(BridgeError):
    """No ACK/NACK after every allowed transmission."""

    def __init__(self, command: str, seq: int, attempts: int) -> None:
        self.command = command
        self.seq = seq
        self.attempts = attempts
        super().__init__(f"{command} seq {seq}: no reply after {attempts} transmission(s)")


class McuNackError(BridgeError):
    """The MCU refused a command."""

    def __init__(self, command: str, reason: NackReason | int, detail: int) -> None:
        self.command = command
        self.reason = reason
        self.detail = detail
        name = reason.name if isinstance(reason, NackReason) else str(reason)
        super().__init__(f"{command} refused: {name} (detail {detail})")


class McuResetError(BridgeError):
    """The MCU restarted while this command (or build) was in progress; its outcome is void."""

    def __init__(self, command: str, boot: int) -> None:
        self.command = command
        self.boot = boot
        super().__init__(f"MCU restarted (boot {boot}) during {command}")


class BuildFailedError(BridgeError):
    """A fault aborted the build."""

    def __init__(self, fault: Fault) -> None:
        self.fault = fault
        super().__init__(f"build {fault.build_id} aborted: {fault.code.name} ({fault.severity.name})")


class BuildAbortedError(BridgeError):
    """The host stopped the build (``stop()`` or ``emergency_stop()``) before BUILD_DONE."""


class ProtocolMismatchError(BridgeError):
    """The MCU speaks another protocol version."""
