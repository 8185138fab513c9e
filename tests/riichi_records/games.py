"""Riichi half-games for the record-export tests: seeded bot games through the live engine (``mjtable sim``'s
driver), and games whose first wall is stacked so that a chosen hand is dealt (a multi-yakuman tenhou)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller.engine.events import Event, TableBuilt
from controller.engine.procedure import linear_wall
from controller.engine.query import ruleset_of
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, Phase

PLAYERS = ("Ann", "Bo", "Cy", "Di")
RULES = "riichi-hkma-2025"
#: the dice used for a stacked wall
STACKED_DICE = ((2, 3), (4, 4))


def seat_positions(offset: int) -> tuple[int, ...]:
    """Draw-order positions of the tiles a seat ``offset`` seats after the dealer is dealt (three rounds of four,
    then the jump: the dealer 48 and 52, the others 48 + offset) followed, for a non-dealer, by its first draw
    (53 + offset - 1, when nobody calls before it)."""
    dealt = (*range(4 * offset, 4 * offset + 4), *range(16 + 4 * offset, 20 + 4 * offset),
             *range(32 + 4 * offset, 36 + 4 * offset))
    return (*dealt, 48, 52) if offset == 0 else (*dealt, 48 + offset, 52 + offset)


def play(seed: int, *, rules: str = RULES, players: tuple[str, str, str, str] = PLAYERS,
         hands: int | None = None) -> list[dict[str, Any]]:
    """A bot session through the live engine: its accepted events as the journal holds them."""
    events: list[dict[str, Any]] = []
    SimRun(rules=rules, seed=seed, players=players, hands_total=hands,
           sink=lambda ev, state, fx: events.append(ev.to_json())).play()
    return events


def stacked_physical(tiles14: list[str], all_tiles: list[str], *, dealer: int, seat: int) -> tuple[str, ...]:
    """A built wall (physical order, as the MCU reports it) that gives ``seat`` the 14 tiles ``tiles14`` (dealt
    13 + its first draw; the dealer's 14 dealt) when the dice are :data:`STACKED_DICE`; the other tiles follow
    ``all_tiles``' order."""
    rest = Counter(all_tiles)
    rest.subtract(tiles14)
    if any(v < 0 for v in rest.values()):
        raise ValueError(f"{tiles14} is not part of the set")
    others = []
    for t in all_tiles:
        if rest[t] > 0:
            rest[t] -= 1
            others.append(t)
    draw = [""] * len(all_tiles)
    for pos, t in zip(seat_positions((seat - dealer) % 4), tiles14, strict=True):
        draw[pos] = t
    it = iter(others)
    draw = [t or next(it) for t in draw]
    # linear_wall is a permutation of positions: apply it to the indices and invert it
    first, second = STACKED_DICE
    second_seat = (dealer + sum(first) - 1) % 4  # RiichiRuleset.dice_to_seat
    perm: tuple[Any, ...] = linear_wall(tuple(range(len(draw))), second_seat, sum(first) + sum(second))  # type: ignore[arg-type]
    physical = [""] * len(draw)
    for i, p in enumerate(perm):
        physical[int(p)] = draw[i]
    return tuple(physical)


@dataclass
class StackedRun(SimRun):
    """A bot session in which the first hand of round ``round_no`` dealt by ``dealer`` gives ``seat`` the tiles
    ``tiles14`` (a dealer: its 14 dealt tiles; another seat: 13 dealt and its first draw)."""

    tiles14: list[str] = field(default_factory=list)
    round_no: int = 0
    dealer: int = 0
    seat: int = 0
    stacked: bool = False

    def next_event(self, state: GameState) -> Event | None:
        sess = state.session
        if (state.phase in (Phase.BUILDING, Phase.HAND_OVER) and not self.stacked and sess.round_no == self.round_no
                and sess.dealer == self.dealer and not sess.ended):
            self.stacked = True
            self._reseed(state)
            tiles = [t.code for t in ruleset_of(state).tileset.all_tiles()]
            self.rng.shuffle(tiles)
            wall = stacked_physical(self.tiles14, tiles, dealer=self.dealer, seat=self.seat)
            return TableBuilt(id=self._next_id(), at_s=self.now_s, tiles=wall, dice=STACKED_DICE)
        return super().next_event(state)


def play_stacked(tiles14: list[str], *, seed: int, round_no: int, dealer: int, seat: int, rules: str = RULES,
                 players: tuple[str, str, str, str] = PLAYERS) -> list[dict[str, Any]]:
    """A seeded bot half-game with one stacked deal (see :class:`StackedRun`): its accepted events."""
    events: list[dict[str, Any]] = []
    StackedRun(rules=rules, seed=seed, players=players, tiles14=tiles14, round_no=round_no, dealer=dealer, seat=seat,
               sink=lambda ev, state, fx: events.append(ev.to_json())).play()
    return events
