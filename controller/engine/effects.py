"""Effects: what the core asks the outside world to do.  The asyncio shell (:mod:`controller.shell`) executes
them through injected ports; the journal records ``Rejected`` effects as rejection records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from mjtable.typed_json import typed_json


@dataclass(frozen=True, kw_only=True)
class Effect:
    type: ClassVar[str] = "effect"

    def to_json(self) -> dict[str, Any]:
        return typed_json(self, self.type)  # shared with the input events and the MCU bridge's events


@dataclass(frozen=True, kw_only=True)
class McuCommand(Effect):
    """Send a command to the table MCU, e.g. ``shuffle_and_build`` ``{"tile_set": 144}``, ``roll_dice``."""

    type: ClassVar[str] = "mcu_command"
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class StartTimer(Effect):
    """Arm timer ``name`` to fire at ``deadline_s`` (unix seconds); ``duration_s`` is its full length."""

    type: ClassVar[str] = "start_timer"
    name: str
    seat: int | None
    duration_s: float
    deadline_s: float


@dataclass(frozen=True, kw_only=True)
class CancelTimer(Effect):
    type: ClassVar[str] = "cancel_timer"
    name: str


@dataclass(frozen=True, kw_only=True)
class SetLed(Effect):
    """Light (or darken) the LED of ``seat``: on while that seat must act."""

    type: ClassVar[str] = "set_led"
    seat: int
    on: bool


@dataclass(frozen=True, kw_only=True)
class Buzz(Effect):
    type: ClassVar[str] = "buzz"
    duration_s: float


@dataclass(frozen=True, kw_only=True)
class Alert(Effect):
    """Something for the referee: ``kind`` e.g. ``camera_mismatch``, ``camera_uncertain``, ``timer_zero``,
    ``mcu_fault``, ``link_down``, ``session_warning``.  ``data`` never holds a concealed tile unless the alert is
    referee-only (``data["referee_only"] = True``)."""

    type: ClassVar[str] = "alert"
    id: str
    kind: str
    message: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class InfractionEffect(Effect):
    """An infraction was recorded (applied at once or proposed to the referee)."""

    type: ClassVar[str] = "infraction"
    infraction: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Rejected(Effect):
    """The event was rejected; the state is unchanged.  ``reason`` is a stable code (see docs/engine.md)."""

    type: ClassVar[str] = "rejected"
    event_id: str
    reason: str
    message: str


@dataclass(frozen=True, kw_only=True)
class ResultEffect(Effect):
    """Base of the effects that carry a hand result (``session.result_json``)."""

    result: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class HandEnded(ResultEffect):
    type: ClassVar[str] = "hand_ended"


@dataclass(frozen=True, kw_only=True)
class WinSettled(ResultEffect):
    """A win was paid and the hand goes on without the winner (bloody battle); ``hand_ended`` comes later."""

    type: ClassVar[str] = "win_settled"


@dataclass(frozen=True, kw_only=True)
class SessionEnded(Effect):
    type: ClassVar[str] = "session_ended"
    scores: list[int]
    ranking_points: list[float]
