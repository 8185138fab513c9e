"""HKMA riichi through area 2's live engine (``controller.engine``): simulation properties.

The generic engine plays the ruleset's protocol hooks (head bump, chi from the left, 136 tiles with the dead
wall, the yaku scorer and payments); tiles conserved, zero sum and replay equals live must hold.
"""

from __future__ import annotations

import json

import pytest

from controller.engine.events import Event, event_from_json
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, Phase
from controller.journal import fold

RULES = "riichi-hkma-2025"
TOTAL = 136


def tiles_on_table(state: GameState, dead_wall: int) -> int:
    hand = state.hand
    if hand is None:
        return TOTAL
    n = hand.wall_remaining + dead_wall
    if state.phase is Phase.ROB_KONG and hand.promoted is not None:
        n += 1  # the tile being added to a promoted kong, open to robbing
    # bloody battle: a discard won earlier in the hand is held by the engine in ``hand.wins``; several winners
    # on one discard share one physical tile (their results are consecutive)
    previous: tuple[int | None, str] | None = None
    for r in hand.wins:
        key = (r.discarder, r.win_tile.code if r.win_tile else "")
        if not r.self_drawn and key != previous:
            n += 1
        previous = key if not r.self_drawn else None
    for seat in hand.seats:
        n += len(seat.known) + seat.unknown + sum(len(m.tiles) for m in seat.melds)
        n += sum(1 for p in seat.pond if not p.called)
    return n


@pytest.mark.parametrize("seed", range(3))
def test_engine_sim_properties(seed: int) -> None:
    events: list[Event] = []
    counts: list[int] = []

    def sink(ev: Event, st: GameState, fx: object) -> None:
        events.append(event_from_json(json.loads(json.dumps(ev.to_json()))))
        if st.hand is not None and st.hand.result is None and st.hand.seats[0].known:
            counts.append(tiles_on_table(st, 14))

    run = SimRun(rules=RULES, seed=seed, hands_total=3, sink=sink)
    final = run.play()
    assert final.session.hand_no >= 3
    assert all(c == TOTAL for c in counts), set(counts)
    for result in final.history:
        assert sum(result.payments) == 0
    assert sum(final.session.scores) == 0
    assert fold(events) == final  # replay equals live
