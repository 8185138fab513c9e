"""Sichuan hand state in the live engine (``HandState.extra``), its helpers and the 14/13-stack wall.

Split from :mod:`controller.engine.ext_sichuan`.  Pure; any thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from controller.engine.errors import Reject
from controller.engine.query import scoring_hand
from controller.engine.session import add_scores
from controller.engine.state import GameState, HandState
from controller.sichuan.settlement import KongMoney
from mjtable.tiles import Hand, Tile

if TYPE_CHECKING:
    from controller.sichuan.ruleset import SichuanRuleset

SUITS = ("m", "p", "s")
T = TypeVar("T")
Vec = tuple[int, int, int, int]
PIG_POINTS = 24  # 主动花猪: category 2 deduction (L352, L630, L774)


def vec4(v: list[int]) -> Vec:
    return (v[0], v[1], v[2], v[3])


def set_at(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return (*t[:i], v, *t[i + 1:])


@dataclass(frozen=True, slots=True)
class SichuanHand:
    """Sichuan state of one hand (``HandState.extra``).

    ``voids``: each seat's 定缺 (hidden until ``revealed``: all four chose, L346-L348); ``void_tiles``: the
    face-down tile that must be the seat's first discard (no-card procedure, L348); ``discarded_other``: the
    seat discarded a non-void tile (查花猪, L574); ``pigs``: 主动花猪 already judged (L352); ``kongs``: kong
    money paid this hand, kept for refunds (L504-L506, L654); ``last_kong``: index of the latest kong;
    ``kong_discard``: the seat whose open discard follows its own kong (杠上炮, L545); ``first_winners`` /
    ``first_discarder``: the hand's first win (next dealer, L478-L482); ``ledger``: money lines
    ``(kind, deltas, note)``, each summing to zero; ``passed_fan``: the best fan a seat let pass since its
    turn last began (顺和, L248).
    """

    voids: tuple[str | None, ...] = (None, None, None, None)
    void_tiles: tuple[Tile | None, ...] = (None, None, None, None)
    revealed: bool = False
    discarded_other: tuple[bool, ...] = (False, False, False, False)
    pigs: tuple[bool, ...] = (False, False, False, False)
    kongs: tuple[KongMoney, ...] = ()
    last_kong: int | None = None
    kong_discard: int | None = None
    promoted_timely: bool = False
    first_winners: tuple[int, ...] = ()
    first_discarder: int | None = None
    ledger: tuple[tuple[str, Vec, str], ...] = ()
    passed_fan: tuple[int | None, ...] = (None, None, None, None)
    pending_void: tuple[str | None, ...] = (None, None, None, None)  # 定缺 from the panel: call cycles, pass puts down


def sichuan_of(hand: HandState | None) -> SichuanHand | None:
    """The hand's Sichuan state, or None (not a Sichuan hand, or not dealt yet)."""
    if hand is None or not isinstance(hand.extra, SichuanHand):
        return None
    return hand.extra


def with_extra(state: GameState, ext: SichuanHand) -> GameState:
    assert state.hand is not None
    return replace(state, hand=replace(state.hand, extra=ext))


def pay_line(state: GameState, ext: SichuanHand, kind: str, deltas: Vec, note: str) -> tuple[GameState, SichuanHand]:
    """Apply a money line now and keep it in the ledger."""
    if any(deltas):
        state = add_scores(state, deltas)
    return state, replace(ext, ledger=(*ext.ledger, (kind, deltas, note)))


def seat_hand(hand: HandState, seat: int) -> Hand:
    """The seat's known tiles as a Hand (melds with unknown faces are left out)."""
    s = hand.seats[seat]
    try:
        return scoring_hand(hand, seat, s.known)
    except ValueError:
        return Hand(s.known, ())


def sichuan_live_wall(rules: SichuanRuleset, physical: Sequence[T], dealer: int,
                      dice: tuple[int, int]) -> tuple[T, ...]:
    """The wall in draw order.  Physical layout as in docs/engine.md, but with the Sichuan side lengths:
    ``p = (start[ring] + k) * 2 + level``, ``ring`` 0..3 = the walls of seats 0, 3, 2, 1 (clockwise),
    ``start`` the cumulative stacks with seats E/S/W/N building 14/13/14/13 stacks (L310).  The dealer's
    throw: the sum names the wall (L322-L328), the smaller die the stacks counted from its right end (L332);
    the draw starts after them, clockwise (our reading, as for MCR)."""
    sides = rules.wall_stacks()
    ring_seats = (0, 3, 2, 1)
    start = [0, 0, 0, 0]
    for r in range(1, 4):
        start[r] = start[r - 1] + sides[ring_seats[r - 1]]
    stacks = sum(sides)
    if len(physical) != 2 * stacks:
        raise Reject("bad_event", f"a Sichuan wall has {2 * stacks} tiles, got {len(physical)}")
    owner, skip = rules.break_point(dealer, dice)
    first = (start[ring_seats.index(owner)] + skip) % stacks
    out: list[T] = []
    for i in range(stacks):
        g = (first + i) % stacks
        out.append(physical[2 * g])
        out.append(physical[2 * g + 1])
    return tuple(out)
