"""Decoded event/STATUS field dicts -> the typed objects of ``firmware_bridge.events``.  Pure."""

from __future__ import annotations

import enum
from typing import TypeVar

from firmware_bridge.commands import BuildStage, Button, FaultCode, LidPart, McuState, Severity, WallLayout
from firmware_bridge.events import (
    BuildDone,
    BuildProgress,
    ButtonEvent,
    DiceRolled,
    Fault,
    LidEvent,
    TableEvent,
    TableStatus,
)

E = TypeVar("E", bound=enum.IntEnum)


def _enum(cls: type[E], value: int) -> E | int:
    try:
        return cls(value)
    except ValueError:
        return value


def _name(cls: type[enum.IntEnum], value: int) -> str:
    found = _enum(cls, value)
    return found.name.lower() if isinstance(found, enum.IntEnum) else f"unknown_{value}"


def table_event(name: str, v: dict[str, int]) -> TableEvent | None:
    """The typed event for MCU event ``name`` with fields ``v``; None for BOOT (reported as ``McuReset``).

    Values outside the known enums (newer firmware) are kept as plain ints, never dropped.
    """
    if name == "LID":
        return LidEvent(_enum(LidPart, v["part"]), bool(v["open"]))  # type: ignore[arg-type]
    if name == "BUTTON":
        return ButtonEvent(v["seat"], _enum(Button, v["button"]), bool(v["pressed"]))  # type: ignore[arg-type]
    if name == "BUILD_PROGRESS":
        return BuildProgress(v["build_id"], v["percent"], _name(BuildStage, v["stage"]))
    if name == "BUILD_DONE":
        return BuildDone(v["build_id"], v["tiles"], v["duration_ms"] / 1000)
    if name == "FAULT":
        return Fault(_enum(FaultCode, v["code"]), _enum(Severity, v["severity"]),  # type: ignore[arg-type]
                     v["detail"], v["build_id"])
    if name == "DICE_ROLLED":
        return DiceRolled((v["dice1"], v["dice2"]), v["seat"])
    return None


def table_status(v: dict[str, int]) -> TableStatus:
    """STATUS ACK fields -> :class:`TableStatus`."""
    return TableStatus(
        state=_name(McuState, v["state"]), tile_set=v["tile_set"], layout=_name(WallLayout, v["layout"]),
        build_percent=v["build_percent"], dice=(v["dice1"], v["dice2"]), last_seq=v["last_seq"],
        last_command=v["last_command"], fault=_name(FaultCode, v["fault"]) if v["fault"] else None,
        temperature_c=v["temperature_dc"] / 10, lid_open=bool(v["lid_open"]), lights=v["lights"],
    )
