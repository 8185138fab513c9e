"""Bridge to the automatic table's MCU: protocol v1 codec, command table, transports, session, simulator.

Layers (one-way dependencies): ``codec`` (pure bytes <-> frames) -> ``commands`` (every command/event as data) ->
``transport`` (pyserial, pty, in-memory) -> ``session`` (``TableLink``).  ``simulator`` is the MCU side over the
same codec; ``cli`` is ``mjtable table-sim``.  The wire protocol is ``docs/serial-protocol.md``.
"""

from __future__ import annotations

from firmware_bridge.events import (
    BridgeError,
    BuildAbortedError,
    BuildDone,
    BuildFailedError,
    BuildProgress,
    BuildResult,
    ButtonEvent,
    DiceRolled,
    EventsLost,
    Fault,
    LidEvent,
    LinkDown,
    LinkLostError,
    LinkUp,
    McuNackError,
    McuReset,
    McuResetError,
    ProtocolMismatchError,
    RequestTimeoutError,
    TableEvent,
    TableStatus,
)
from firmware_bridge.session import LinkState, LinkTiming, TableLink
from firmware_bridge.transport import SerialTransport, Transport, TransportClosedError, memory_pair, serial_factory

__all__ = [
    "BridgeError", "BuildAbortedError", "BuildDone", "BuildFailedError", "BuildProgress", "BuildResult",
    "ButtonEvent", "DiceRolled", "EventsLost", "Fault", "LidEvent", "LinkDown", "LinkLostError", "LinkState",
    "LinkTiming", "LinkUp", "McuNackError", "McuReset", "McuResetError", "ProtocolMismatchError",
    "RequestTimeoutError", "SerialTransport", "TableEvent", "TableLink", "TableStatus", "Transport",
    "TransportClosedError", "memory_pair", "serial_factory",
]
