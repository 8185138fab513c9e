"""Public value types of the MCR scorer (the contract the engine codes against): immutable, thread-safe."""

from __future__ import annotations

from dataclasses import dataclass

from mjtable.tiles import Tile

#: Rule profiles this package scores.
RULE_PROFILES = ("mcr-1998", "mcr-2006", "mcr-2017")
#: Points a hand needs, flowers excluded ([004:L397], [000:L411], [003:L45@3418]).
MINIMUM_POINTS = 8


class NotWinningHand(ValueError):  # noqa: N818 - the name is the published contract
    """The tiles do not form a winning shape (or the win is impossible as described)."""


@dataclass(frozen=True, slots=True)
class WinContext:
    """How the hand was won.

    Attributes:
        win_tile: the winning tile (not part of the ``Hand`` given to :func:`score_hand`).
        self_drawn: won on an own draw (including a kong replacement) rather than on a discard.
        seat_wind, round_wind: wind tiles ``1z``-``4z``.
        flowers: number of flowers (1 point each, not towards the minimum).
        last_of_kind: the winning tile is the last of its kind (the other three are visible) - 和绝张.
        kong: self-drawn: out on a kong replacement tile (杠上开花); on a discard: robbing the kong (抢杠和).
        last_tile: last tile of the wall drawn (妙手回春) or its discard claimed (海底捞月).
        heavenly, earthly, concealed_ready: 2017 only - 天和, 地和, 人和 (ignored by older profiles).
    """

    win_tile: Tile
    self_drawn: bool
    seat_wind: Tile
    round_wind: Tile
    flowers: int = 0
    last_of_kind: bool = False
    kong: bool = False
    last_tile: bool = False
    heavenly: bool = False
    earthly: bool = False
    concealed_ready: bool = False


@dataclass(frozen=True, slots=True)
class Fan:
    """One scored fan: English name, points each, how many times, and which tiles/sets produced it."""

    name: str
    points: int
    count: int
    explain: str


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """Fans in table order (highest value first), total points (flowers included), and whether the hand
    reaches the 8-point minimum without flowers."""

    fans: tuple[Fan, ...]
    total: int
    meets_minimum: bool
