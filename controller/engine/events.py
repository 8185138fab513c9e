"""Input events of the engine.  Every event is a frozen dataclass with an ``id`` (unique per session, used to
drop duplicates) and ``at_s`` (unix seconds when it happened, stamped by whoever produced it).

Tiles travel as shared-notation codes (``"5p"``); the core parses and checks them, so a bad code is a
rejection, not a crash.  ``to_json()`` / :func:`event_from_json` round-trip every event exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mjtable.typed_json import typed_json


class EventFormatError(ValueError):
    """A JSON object that is not a valid event (unknown type, missing or mistyped field)."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of all events.  ``type`` is the JSON discriminator."""

    type: ClassVar[str] = "event"
    id: str
    at_s: float

    def to_json(self) -> dict[str, Any]:
        return typed_json(self, self.type)  # shared with the effects and the MCU bridge's events


# --- session and table --------------------------------------------------------------------------------


#: The engine revision a new session starts under (``SessionStart.engine_rev``; a journal without it is 0).  Checks
#: that refuse what an older engine accepted apply only from the revision that brought them, so every journal
#: still replays exactly as it was played.  1 (2026-11-29): a session naming a player twice is refused; a camera
#: alert is confirmed only in the hand it was raised in.
ENGINE_REV = 1


def repeated_name(players: Sequence[str]) -> str | None:
    """The first of ``players`` whose name another one repeats (ignoring case and surrounding spaces), else None."""
    seen: set[str] = set()
    for name in players:
        key = name.strip().casefold()
        if key in seen:
            return next(p.strip() for p in players if p.strip().casefold() == key)
        seen.add(key)
    return None


@dataclass(frozen=True, kw_only=True)
class SessionStart(Event):
    """First event of every journal: who plays, which rules, which options (see EngineConfig)."""

    type: ClassVar[str] = "session_start"
    table_id: str = "t1"
    rules: str = "mcr-2006"
    players: tuple[str, ...] = ("P1", "P2", "P3", "P4")
    mode: str = "full"
    seat_rotation: str = "A"
    penalty_mode: str = "apply"
    camera_min_confidence: float = 0.8
    timer_overrides: tuple[tuple[str, float | None], ...] = ()
    hands_total: int | None = None
    flower_rounds: bool | None = None
    fast_claims: bool = False
    engine_rev: int = 0  # see ENGINE_REV: a journal replays under the checks it was played under


@dataclass(frozen=True, kw_only=True)
class TableBuilt(Event):
    """The table MCU finished building the wall.  ``tiles``: the 144 faces in physical order (full
    information, see docs/engine.md "wall layout") or None (face down, partial information).  ``dice``: the
    table's internal dice throws, if it has them (dealer's throw first)."""

    type: ClassVar[str] = "table_built"
    tiles: tuple[str, ...] | None = None
    dice: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, kw_only=True)
class DiceRolled(Event):
    """One throw of two dice, from the MCU or entered by the referee; the dealer's throw comes first."""

    type: ClassVar[str] = "dice_rolled"
    dice: tuple[int, int] = (1, 1)
    source: str = "mcu"


@dataclass(frozen=True, kw_only=True)
class McuFault(Event):
    """The table MCU reported a fault (jam, motor, sensor); the hand is paused for the referee."""

    type: ClassVar[str] = "mcu_fault"
    code: str = ""
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class LinkChanged(Event):
    """The serial link to the table MCU went up or down."""

    type: ClassVar[str] = "link_changed"
    up: bool = True


# --- players -----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SeatEvent(Event):
    """Base of the events a seat makes: ``seat`` 0..3 (physical seat; checked by the core, ``bad_seat``)."""

    seat: int = 0


@dataclass(frozen=True, kw_only=True)
class SeatTileEvent(SeatEvent):
    """Base of the events where a seat shows one ``tile`` (shared-notation code, parsed by the core)."""

    tile: str = ""


@dataclass(frozen=True, kw_only=True)
class ButtonPressed(SeatEvent):
    """A seat button: ``call`` (claim, details follow from camera or referee), ``pass``, ``ready``."""

    type: ClassVar[str] = "button"
    button: str = "pass"


@dataclass(frozen=True, kw_only=True)
class Discard(SeatTileEvent):
    """``seat`` shows ``tile`` as its discard."""

    type: ClassVar[str] = "discard"
    riichi: bool = False  # riichi declared with this discard (riichi rules only; see ext_riichi)

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if not self.riichi:  # ext_riichi: keep non-riichi discards exactly as before
            del out["riichi"]
        return out


@dataclass(frozen=True, kw_only=True)
class ChooseVoid(SeatEvent):
    """Sichuan 定缺: ``seat`` chooses its missing ``suit`` (m/p/s) face down; ``tile`` optionally names
    the face-down tile of that suit put out instead of a card (it must be the seat's first discard).  Choices
    stay hidden until all four have chosen (simultaneous reveal).  Handled by controller/engine/ext_sichuan.py."""

    type: ClassVar[str] = "void"
    suit: str = ""
    tile: str | None = None


@dataclass(frozen=True, kw_only=True)
class Claim(SeatEvent):
    """A call on the open discard: ``kind`` chow/pung/kong/win.  ``tiles``: for a chow the two tiles from the
    hand; for a win in partial information the revealed concealed tiles (win tile excluded)."""

    type: ClassVar[str] = "claim"
    kind: str = "pung"
    tiles: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Flower(SeatTileEvent):
    """``seat`` lays down flower ``tile`` and takes a replacement from the back of the wall."""

    type: ClassVar[str] = "flower"


@dataclass(frozen=True, kw_only=True)
class ConcealedKong(SeatTileEvent):
    """``seat`` declares a concealed kong of ``tile`` in its own turn."""

    type: ClassVar[str] = "concealed_kong"


@dataclass(frozen=True, kw_only=True)
class PromotedKong(SeatTileEvent):
    """``seat`` adds ``tile`` to its exposed pung (加杠); the others may rob it."""

    type: ClassVar[str] = "promoted_kong"


@dataclass(frozen=True, kw_only=True)
class DeclareWin(SeatEvent):
    """Self-drawn win by ``seat``.  ``tiles``: revealed concealed tiles including the win tile (needed in
    partial information); ``win_tile`` the tile set apart (default: the tile just drawn)."""

    type: ClassVar[str] = "declare_win"
    tiles: tuple[str, ...] = ()
    win_tile: str | None = None


@dataclass(frozen=True, kw_only=True)
class CameraObserved(Event):
    """A vision event dict: ``{"type", "seat", "tiles", "claimed_from", "position", "confidence", "frame_id"}``."""

    type: ClassVar[str] = "camera"
    observation: dict[str, Any] = field(default_factory=dict)


# --- referee -----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RefereeCommand(Event):
    """A referee command.  ``command``: ``pause``, ``resume``, ``confirm`` / ``reject`` (an alert),
    ``correct_tile`` (fix a pond tile: ``seat``, ``position``, ``tile``), ``apply_penalty`` (``seat``,
    ``points``, ``reason``), ``correct_meld`` (``seat``, ``position`` = meld index, ``tiles``),
    ``waive_penalty`` / ``confirm_penalty`` (``infraction_id``), ``dead_hand``
    (``seat``, ``reason``), ``void_call`` (``seat``: a pending *call* that never got its claim), ``end_session``."""

    type: ClassVar[str] = "referee"
    command: str = "pause"
    alert_id: str | None = None
    infraction_id: str | None = None
    seat: int | None = None
    player: str | None = None  # the player the referee means at ``seat``: refused when another sits there now
    position: int | None = None
    tile: str | None = None
    points: int | None = None
    reason: str = ""
    tiles: tuple[str, ...] = ()  # correct_meld: the meld's tiles (issue 16 point 13)


# --- clock -------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ClockTick(Event):
    """The injected clock reads ``at_s``; expired timers fire.  The shell sends one at each timer deadline."""

    type: ClassVar[str] = "tick"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (SessionStart, TableBuilt, DiceRolled, McuFault, LinkChanged, ButtonPressed, Discard, Claim, Flower,
                ConcealedKong, PromotedKong, DeclareWin, CameraObserved, RefereeCommand, ClockTick,
                ChooseVoid)  # ChooseVoid: Sichuan 定缺 (ext_sichuan)
}


def _tupled(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_tupled(x) for x in v)
    return v


def event_from_json(obj: dict[str, Any]) -> Event:
    """Build an event from its JSON dict; raises :class:`EventFormatError` with a readable reason."""
    if not isinstance(obj, dict):
        raise EventFormatError("an event is a JSON object")
    kind = obj.get("type")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise EventFormatError(f"unknown event type {kind!r}; known: {', '.join(sorted(EVENT_TYPES))}")
    names = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(obj) - set(names) - {"type"}
    if unknown:
        raise EventFormatError(f"{kind}: unknown field(s) {', '.join(sorted(unknown))}")
    kwargs: dict[str, Any] = {}
    for name, value in obj.items():
        if name == "type":
            continue
        kwargs[name] = value if name == "observation" else _tupled(value)
    if not isinstance(kwargs.get("id"), str) or not kwargs["id"]:
        raise EventFormatError(f"{kind}: 'id' must be a non-empty string")
    at = kwargs.get("at_s")
    if isinstance(at, bool) or not isinstance(at, (int, float)):
        raise EventFormatError(f"{kind}: 'at_s' must be a number (unix seconds)")
    kwargs["at_s"] = float(at)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise EventFormatError(f"{kind}: {exc}") from exc
