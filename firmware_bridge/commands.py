"""Every command and event of serial protocol v1, declared once as data.

This table drives the host session (``firmware_bridge.session``), the MCU simulator
(``firmware_bridge.simulator``) and the tables in ``docs/serial-protocol.md`` (``python -m firmware_bridge.docgen``
prints them; a test checks the doc still matches).  Fields are big-endian ``struct`` codes.  Pure data; no I/O.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Field:
    """One payload field.

    Attributes:
        name: snake_case name used in dicts and JSON.
        fmt: one ``struct`` code: ``B`` u8, ``H`` u16, ``I`` u32, ``h`` i16 (always big-endian on the wire).
        unit: unit or value set, e.g. ``"ms"``, ``"0.1 degC"``, ``"TileSet"``.
        doc: one line.
    """

    name: str
    fmt: str
    unit: str
    doc: str


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """A host-to-MCU request and the payload of its ACK.

    Attributes:
        ident: command id byte (0x01..0x7F).
        name: SNAKE_CASE name.
        idempotent: True when executing it twice equals executing it once; only these are retransmitted with the
            same seq.  Non-idempotent commands are recovered after a lost reply by asking STATUS (``last_seq``).
        timeout_s: how long the host waits for the ACK/NACK of one transmission, seconds.
        request: request payload fields.
        response: ACK payload fields.
        doc: one line.
    """

    ident: int
    name: str
    idempotent: bool
    timeout_s: float
    request: tuple[Field, ...]
    response: tuple[Field, ...]
    doc: str


@dataclass(frozen=True, slots=True)
class EventSpec:
    """An unsolicited MCU-to-host event.  Every event payload starts with ``boot`` (u32, the boot counter)."""

    ident: int
    name: str
    fields: tuple[Field, ...]
    doc: str


class TileSet(enum.IntEnum):
    """Tile sets the table can hold (value = number of tiles)."""

    MCR_144 = 144
    RIICHI_136 = 136
    SICHUAN_108 = 108


class WallLayout(enum.IntEnum):
    """How the walls are built."""

    STANDARD = 0  #: four walls two tiles high, no dealing
    PRE_DEALT = 1  #: table also pushes each seat's starting hand


class McuState(enum.IntEnum):
    """``STATUS.state``."""

    IDLE = 0
    BUILDING = 1
    BUILT = 2  #: walls built, still below the table top
    RAISED = 3  #: walls raised, ready to play
    FAULT = 4  #: a fault of severity ERROR or worse is active; cleared by CLEAR_FAULT
    ESTOP = 5  #: emergency stop latched; cleared by RESET only


class NackReason(enum.IntEnum):
    """First byte of every NACK payload."""

    UNKNOWN_COMMAND = 1
    BAD_LENGTH = 2
    BAD_ARGUMENT = 3
    BUSY = 4
    FAULT_ACTIVE = 5
    NOT_READY = 6
    UNSUPPORTED_VERSION = 7
    EVENTS_LOST = 8
    ESTOP_ACTIVE = 9
    LID_OPEN = 10
    STALE_SEQ = 11  #: a non-idempotent request whose seq is not newer than the newest seq received


class FaultCode(enum.IntEnum):
    """``FAULT.code``."""

    JAM = 1
    WRONG_TILE_COUNT = 2
    MOTOR_OVERCURRENT = 3
    LIFT_TIMEOUT = 4
    SENSOR_FAULT = 5
    OVER_TEMPERATURE = 6


class Severity(enum.IntEnum):
    """``FAULT.severity``."""

    WARNING = 1  #: operation continues; tell the referee
    ERROR = 2  #: current operation aborted; CLEAR_FAULT then retry
    CRITICAL = 3  #: motors disabled; needs a person at the table, then RESET


class Button(enum.IntEnum):
    """``BUTTON.button``: the buttons wired to the MCU at each seat."""

    DICE = 0
    CALL = 1
    PASS = 2
    READY = 3


class LidPart(enum.IntEnum):
    """``LID.part``."""

    LID = 0  #: centre lid over the dice
    DOOR = 1  #: service door


class BootReason(enum.IntEnum):
    """``BOOT.reason``."""

    POWER_ON = 0
    WATCHDOG = 1
    RESET_COMMAND = 2
    BROWNOUT = 3


class BuildStage(enum.IntEnum):
    """``BUILD_PROGRESS.stage``."""

    SHUFFLING = 0
    STACKING = 1
    PUSHING = 2


#: Capability bits in ``HELLO.capabilities``.
CAP_TILESET_144 = 0x0001
CAP_TILESET_136 = 0x0002
CAP_TILESET_108 = 0x0004
CAP_PRE_DEALT = 0x0008
CAP_SEAT_LIGHTS = 0x0010
CAP_DICE = 0x0020

_NONE: tuple[Field, ...] = ()
_BOOT = Field("boot", "I", "count", "boot counter, +1 at every MCU start (kept in EEPROM)")

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(0x01, "HELLO", True, 0.25,
                (Field("host_version", "B", "version", "protocol version the host speaks"),),
                (Field("protocol_version", "B", "version", "protocol version the MCU speaks"),
                 Field("fw_major", "B", "version", "firmware major version"),
                 Field("fw_minor", "B", "version", "firmware minor version"),
                 _BOOT,
                 Field("capabilities", "H", "bits", "CAP_* bits: tile sets, pre-dealt layout, seat lights, dice"),
                 Field("last_event_seq", "H", "seq", "seq of the newest event sent this boot (0: none yet)"),
                 Field("uptime_ms", "I", "ms", "time since this boot")),
                "handshake: versions, capabilities, boot counter; resets the stale-seq floor; first after (re)connect"),
    CommandSpec(0x02, "PING", True, 0.25, _NONE,
                (_BOOT,
                 Field("last_event_seq", "H", "seq", "seq of the newest event sent this boot (0: none yet)"),
                 Field("uptime_ms", "I", "ms", "time since this boot")),
                "heartbeat; lets the host notice a reset and a lost trailing event"),
    CommandSpec(0x03, "STATUS", True, 0.25, _NONE,
                (Field("state", "B", "McuState", "what the table is doing"),
                 Field("tile_set", "B", "TileSet", "selected tile set (tiles)"),
                 Field("layout", "B", "WallLayout", "selected wall layout"),
                 Field("build_percent", "B", "%", "progress of the current or last build"),
                 Field("dice1", "B", "pips", "first die of the last roll (0: none yet)"),
                 Field("dice2", "B", "pips", "second die of the last roll (0: none yet)"),
                 Field("last_seq", "H", "seq", "seq of the last non-idempotent command executed this boot"),
                 Field("last_command", "B", "command id", "id of that command (0: none)"),
                 Field("fault", "B", "FaultCode", "active fault (0: none)"),
                 Field("temperature_dc", "h", "0.1 degC", "motor driver temperature"),
                 Field("lid_open", "B", "bool", "centre lid open"),
                 Field("lights", "B", "bits", "seat lights, bit n = seat n")),
                "full table status; how the host learns the outcome of a non-idempotent command whose reply was lost"),
    CommandSpec(0x10, "SELECT_TILE_SET", True, 0.25,
                (Field("tile_set", "B", "TileSet", "144, 136 or 108"),
                 Field("layout", "B", "WallLayout", "0 standard, 1 pre-dealt")),
                _NONE, "select the tile set loaded in the table and the wall layout"),
    CommandSpec(0x11, "SHUFFLE_AND_BUILD", False, 0.25,
                (Field("tile_set", "B", "TileSet", "must equal the selected set (guards against a stale selection)"),),
                (Field("build_id", "H", "seq", "equals the request seq; BUILD_PROGRESS/BUILD_DONE carry it"),
                 Field("expected_ms", "I", "ms", "expected build duration")),
                "shuffle and build the walls; ACK at start, then BUILD_PROGRESS events and BUILD_DONE or FAULT"),
    CommandSpec(0x12, "RAISE_WALLS", True, 3.0, _NONE, _NONE,
                "lift the built walls to the table top; ACK when raised (NACK NOT_READY if not built)"),
    CommandSpec(0x13, "ROLL_DICE", False, 0.25, _NONE,
                (Field("dice1", "B", "pips", "1..6"), Field("dice2", "B", "pips", "1..6")),
                "spin the dice; the ACK carries the values"),
    CommandSpec(0x14, "STOP", True, 0.25, _NONE, _NONE, "stop any motion at the end of the current step"),
    CommandSpec(0x15, "EMERGENCY_STOP", True, 0.1, _NONE, _NONE,
                "cut motor power now and latch ESTOP (only RESET clears it)"),
    CommandSpec(0x16, "SEAT_LIGHTS", True, 0.25,
                (Field("lights", "B", "bits", "bit n lights seat n's lamp"),), _NONE, "set the four seat lamps"),
    CommandSpec(0x17, "RESET", False, 0.25, _NONE, _NONE,
                "ACK, then reboot (boot counter +1, BOOT event with reason RESET_COMMAND)"),
    CommandSpec(0x18, "CLEAR_FAULT", True, 0.25, _NONE, _NONE,
                "acknowledge an ERROR fault so a new build may start (CRITICAL needs RESET)"),
    CommandSpec(0x20, "EVENTS_REPLAY", True, 0.25,
                (Field("from_seq", "H", "seq", "first event seq to send again"),
                 Field("count", "B", "events", "how many (1..64)")),
                (Field("sent", "B", "events", "events re-sent before this ACK"),
                 Field("oldest", "H", "seq", "oldest event seq still in the ring (0: ring empty)")),
                "re-send the asked events still in the ring of 64, original seq, before the ACK"),
)

EVENTS: tuple[EventSpec, ...] = (
    EventSpec(0x80, "BOOT", (_BOOT, Field("reason", "B", "BootReason", "why the MCU started")),
              "first event after every start; event seq restarts at 1"),
    EventSpec(0x81, "LID", (_BOOT, Field("part", "B", "LidPart", "0 lid, 1 service door"),
                            Field("open", "B", "bool", "1 open, 0 closed")), "lid or door opened/closed"),
    EventSpec(0x82, "BUTTON", (_BOOT, Field("seat", "B", "seat", "0..3"),
                               Field("button", "B", "Button", "0 dice, 1 call, 2 pass, 3 ready"),
                               Field("pressed", "B", "bool", "1 pressed, 0 released")), "a seat button changed"),
    EventSpec(0x83, "BUILD_PROGRESS", (_BOOT, Field("build_id", "H", "seq", "SHUFFLE_AND_BUILD seq"),
                                       Field("percent", "B", "%", "0..100"),
                                       Field("stage", "B", "BuildStage", "0 shuffling, 1 stacking, 2 pushing")),
              "build progress, at least every 10 %"),
    EventSpec(0x84, "BUILD_DONE", (_BOOT, Field("build_id", "H", "seq", "SHUFFLE_AND_BUILD seq"),
                                   Field("tiles", "H", "tiles", "tiles counted in the walls"),
                                   Field("duration_ms", "I", "ms", "build duration")), "walls built (not raised)"),
    EventSpec(0x85, "FAULT", (_BOOT, Field("code", "B", "FaultCode", "what went wrong"),
                              Field("severity", "B", "Severity", "1 warning, 2 error, 3 critical"),
                              Field("detail", "H", "code-specific", "e.g. tiles counted, temperature in 0.1 degC"),
                              Field("build_id", "H", "seq", "build aborted by it (0: none)")), "a fault was raised"),
    EventSpec(0x86, "DICE_ROLLED", (_BOOT, Field("dice1", "B", "pips", "1..6"), Field("dice2", "B", "pips", "1..6"),
                                    Field("seat", "B", "seat", "seat whose dice button rolled")),
              "dice rolled from a table button (a ROLL_DICE command answers in its ACK instead)"),
)

COMMANDS_BY_ID: dict[int, CommandSpec] = {c.ident: c for c in COMMANDS}
COMMANDS_BY_NAME: dict[str, CommandSpec] = {c.name: c for c in COMMANDS}
EVENTS_BY_ID: dict[int, EventSpec] = {e.ident: e for e in EVENTS}
EVENTS_BY_NAME: dict[str, EventSpec] = {e.name: e for e in EVENTS}
#: NACK payload: reason (NackReason) then detail (u8, reason-specific).
NACK_FIELDS: tuple[Field, ...] = (Field("reason", "B", "NackReason", "why the command was refused"),
                                  Field("detail", "B", "reason-specific", "e.g. the active FaultCode"))


#: Payload field lists that are not a command or an event, by name.
OTHER_PAYLOADS: dict[str, tuple[Field, ...]] = {"NACK": NACK_FIELDS}


class PayloadError(ValueError):
    """A payload does not match its field list (wrong length or value out of range)."""


def _struct(fields: tuple[Field, ...]) -> struct.Struct:
    return struct.Struct(">" + "".join(f.fmt for f in fields))


def pack(fields: tuple[Field, ...], values: Mapping[str, int]) -> bytes:
    """Payload bytes for ``values`` (every field must be present); raises :class:`PayloadError`."""
    try:
        return _struct(fields).pack(*(int(values[f.name]) for f in fields))
    except KeyError as exc:
        raise PayloadError(f"missing field {exc.args[0]}") from None
    except struct.error as exc:
        raise PayloadError(str(exc)) from None


def unpack(fields: tuple[Field, ...], payload: bytes) -> dict[str, int]:
    """Field values of ``payload``; raises :class:`PayloadError` when the length is wrong."""
    st = _struct(fields)
    if len(payload) != st.size:
        raise PayloadError(f"payload is {len(payload)} bytes, expected {st.size}")
    return dict(zip((f.name for f in fields), st.unpack(payload), strict=True))


def payload_size(fields: tuple[Field, ...]) -> int:
    """Payload length in bytes for ``fields``."""
    return _struct(fields).size
