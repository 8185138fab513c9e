"""Riichi hand and session state in the live engine (``HandState.extra`` / ``SessionState.extra``), the dead
wall and the wait helpers.

Split from :mod:`controller.engine.ext_riichi`.  Pure; any thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.engine.query import scoring_hand
from controller.engine.shanten import completing_kinds
from controller.engine.state import HandState, SeatState, SessionState
from controller.riichi.tenpai import completing_tiles
from mjtable.tiles import Hand, MeldKind, Tile, tile_counts

if TYPE_CHECKING:
    pass

STICK = 1000  # a riichi deposit (L366)
FALSE_WIN_POINTS = 25  # 錯和: level 5 league points (L651, L515)
DEAD = 14
MAX_KANS = 4  # no fifth kan (L319)
Vec = tuple[int, int, int, int]
FOUR_FALSE = (False, False, False, False)
FOUR_TRUE = (True, True, True, True)


def set_at(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1:])


@dataclass(frozen=True, slots=True)
class RiichiHand:
    """Riichi state of one hand (``HandState.extra``).

    ``pending``: the seat whose declaration tile is still open: its stick goes down once nobody rons it
    (L366, L371); ``first_round``: the seat has not discarded yet (double riichi, tenhou/chiihou, L364);
    ``calls_made``: any call or kan interrupted the first go-around; ``temp_furiten`` / ``riichi_furiten``:
    passed a winning tile (until the seat's next discard / for the rest of the hand after riichi, L393-L394);
    ``pao``: per seat the liable seat and yakuman name (L730-L738); ``tenpai`` at an exhaustive draw;
    ``redeal``: the hand ended by a false win with 20+ live tiles left (L657); ``intent``: the seat that
    pressed its *riichi* button: its next discard (e.g. seen by the camera) is the declaration tile.
    """

    riichi: tuple[bool, ...] = FOUR_FALSE
    double: tuple[bool, ...] = FOUR_FALSE
    ippatsu: tuple[bool, ...] = FOUR_FALSE
    pending: int | None = None
    first_round: tuple[bool, ...] = FOUR_TRUE
    calls_made: bool = False
    temp_furiten: tuple[bool, ...] = FOUR_FALSE
    riichi_furiten: tuple[bool, ...] = FOUR_FALSE
    pao: tuple[tuple[int, str] | None, ...] = (None, None, None, None)
    tenpai: tuple[bool, ...] | None = None
    redeal: bool = False
    intent: int | None = None
    seen_indicators: tuple[Tile, ...] = ()  # partial information: indicators read by the camera (issue 16 point 15)
    seen_ura: tuple[Tile, ...] = ()
    draw_pre: tuple[int, int, int, int] | None = None  # exhaustive draw: dealer, round, kyoku, honba before it
    kuikae_back: tuple[int, Tile, str] | None = None  # a 喰替 discard refused (seat, tile, infraction id, L566)


@dataclass(frozen=True, slots=True)
class RiichiSession:
    """``honba`` counters (L440), ``sticks`` riichi deposits on the table (L47), ``kyoku`` 0..3 in the round."""

    honba: int = 0
    sticks: int = 0
    kyoku: int = 0


def riichi_of(hand: HandState | None) -> RiichiHand | None:
    if hand is None or not isinstance(hand.extra, RiichiHand):
        return None
    return hand.extra


def session_of(sess: SessionState) -> RiichiSession:
    return sess.extra if isinstance(sess.extra, RiichiSession) else RiichiSession()


def dead_wall(hand: HandState) -> tuple[Tile, ...]:
    """The 14 dead-wall tiles (empty when the faces are unknown: partial information)."""
    dead = hand.wall[hand.wall_size:hand.wall_size + DEAD]
    return dead if len(dead) == DEAD else ()


def kans(hand: HandState) -> int:
    """Kans declared this hand (a robbed added kan stays a pon: it never existed, L349)."""
    return sum(1 for s in hand.seats for m in s.melds if m.kind in (MeldKind.KONG, MeldKind.CONCEALED_KONG))


def dora_indicators(hand: HandState) -> tuple[Tile, ...]:
    """The dora indicator and one kan-dora per kan, revealed at once (L37)."""
    dead = dead_wall(hand)
    if dead:
        return (dead[4], *dead[5:5 + kans(hand)])
    ext = riichi_of(hand)  # partial information: what the camera read on the dead wall
    return ext.seen_indicators if ext is not None else ()


def ura_indicators(hand: HandState) -> tuple[Tile, ...]:
    """Ura-dora under each revealed indicator (only for a riichi winner, L38)."""
    dead = dead_wall(hand)
    if dead:
        return (dead[9], *dead[10:10 + kans(hand)])
    ext = riichi_of(hand)
    return ext.seen_ura if ext is not None else ()


def hand_of(hand: HandState, seat: int, concealed: tuple[Tile, ...] | None = None) -> Hand | None:
    s = hand.seats[seat]
    if not s.fully_known:
        return None
    try:
        return scoring_hand(hand, seat, s.known if concealed is None else concealed)
    except ValueError:
        return None


def closed_hand(s: SeatState) -> bool:
    return all(m.kind is MeldKind.CONCEALED_KONG for m in s.melds)


def shape_waits(hand: HandState, seat: int) -> frozenset[int]:
    """Kinds completing the seat's 13-tile hand's shape (fast count-vector test, for furiten on every
    discard; empty if unknown or not 13 tiles).  Cached per count vector (:func:`completing_kinds`)."""
    s = hand.seats[seat]
    if not s.fully_known or len(s.known) + 3 * len(s.melds) != 13:
        return frozenset()
    return completing_kinds(tuple(tile_counts(s.known)), len(s.melds))


def tenpai_waits(hand: HandState, seat: int) -> set[int]:
    """Kinds completing the seat's 13-tile hand for tenpai (a pure empty wait is not tenpai, L428)."""
    h = hand_of(hand, seat)
    if h is None or len(h.concealed) + 3 * len(h.melds) != 13:
        return set()
    return {t.kind for t in completing_tiles(h)}
