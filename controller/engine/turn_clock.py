"""Per-rulebook turn clock and discard checks that the claim and win steps call (issue 16 points 2, 6, 8).

* MCR 1998 counts a turn's 15 s "from the upper player's discard to one's own discard, chow, pung, kong and
  flower replacement included" (每次从上家打出牌后,到自己出牌的时限为15秒(包括吃牌、碰牌、杠牌、补花) [000:L496]):
  the limit is anchored at the discard that gave the seat its turn and a kong replacement does not restart it.
  The other rulebooks count from getting the turn (draw or claim) and restart after a kong (their texts give a
  limit per 行牌 / 出牌: [004:L244; 003:L45@1117]).
* MCR 1998: a flower must be replaced ("抓到花牌后,明放在立牌前,并从牌墙最后补一张牌" [000:L350], §二十 补花
  [000:L348]); 2017 lets a player keep or discard one ("可补花,也可藏花或打出" [003:L45@2419]), 2006 does not
  forbid it.  A flower discard under 1998 is refused while the wall can still replace it.
* Penalty tiles (罚张) exposed by a wrong call are discarded first, one per turn ("要在下一次轮到自己出牌时,将罚张打出"
  [000:L808]; "应在轮到自己出牌时,将罚张打出" [004:L462]; "暴露张须依次打出" [003:L45@2553]).

Pure functions of the state, called from the engine's thread.
"""

from __future__ import annotations

from dataclasses import replace

from controller.engine.effects import Effect
from controller.engine.errors import Reject
from controller.engine.query import ruleset_of
from controller.engine.state import GameState, SeatState
from controller.engine.timers import limits, start
from mjtable.tiles import Tile


def start_turn(state: GameState, seat: int, fx: list[Effect], *, kong: bool = False) -> GameState:
    """Start ``seat``'s turn limit: from now, or (MCR 1998) from the discard that gave it the turn."""
    lim = limits(state)
    hand = state.hand
    if not lim.turn_from_discard or hand is None or hand.discard_s is None or lim.turn_s is None:
        return start(state, "turn", seat, lim.turn_s, fx)
    if kong and any(t.name == "turn" and t.seat == seat for t in state.timers):
        return state  # a kong is part of the same 15 s [000:L496]
    left = max(0.0, hand.discard_s + lim.turn_s - state.now_s)
    return start(state, "turn", seat, left, fx)


def check_discard(state: GameState, seat: int, t: Tile) -> SeatState:
    """Refuse a discard the rulebook forbids; returns the seat with a penalty tile used up."""
    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    # with the wall empty there is nothing to replace it with: the flower may go (cf. [003:L45@2432])
    if t.is_flower and hand.wall_remaining > 0 and ruleset_of(state).name == "mcr-1998":
        raise Reject("must_replace_flower", f"{t.code} is a flower: under MCR 1998 it must be laid down and "
                     "replaced, not discarded [000:L348, L350]")
    if s.penalty_tiles:
        idx = next((i for i, p in enumerate(s.penalty_tiles) if p.kind == t.kind), None)
        if idx is None:
            names = " ".join(p.code for p in s.penalty_tiles)
            raise Reject("penalty_tile", f"seat {seat} must first discard its penalty tile(s) {names} "
                         "[000:L808; 004:L462]")
        s = replace(s, penalty_tiles=(*s.penalty_tiles[:idx], *s.penalty_tiles[idx + 1:]))
    return s


__all__ = ["check_discard", "start_turn"]
