"""The 「聽牌」/「不聽」 declarations after an exhaustive draw (002 L427) reach the riichi exports: the engine settles
the draw at once with its default (every tenpai hand declares) and re-settles the noten payments on each later
declaration until the next wall (``controller.engine.ext_riichi_tenpai``); the tenhou.net/6 log and the mjai
``ryukyoku`` must hold the final settlement, not the default (the exporter wrote the draw when it first appeared)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.engine.effects import Rejected
from controller.engine.events import SessionStart, event_from_json
from controller.engine.ext_riichi_state import riichi_of
from controller.engine.query import player_index
from controller.engine.state import GameState, Phase
from controller.engine.step import start_session, step
from mjtable.recorder.riichi_live import export_engine_events
from tests.mqtt.riichi_checks import check_mjai, check_tenhou
from tests.riichi_records.games import play

START = 30000


def replay(events: list[dict[str, Any]]) -> list[GameState]:
    """The engine's state after each event (``session_start`` first)."""
    first = event_from_json(events[0])
    assert isinstance(first, SessionStart)
    state, _ = start_session(first)
    states = [state]
    for obj in events[1:]:
        state, fx = step(state, event_from_json(obj))
        assert not (fx and isinstance(fx[0], Rejected)), (obj, fx)
        states.append(state)
    return states


def first_declarable_draw(events: list[dict[str, Any]]) -> tuple[int, int]:
    """(index after which the first exhaustive draw stands, a non-dealer seat that is tenpai without riichi)."""
    for i, st in enumerate(replay(events)):
        ext = riichi_of(st.hand)
        if st.phase is Phase.HAND_OVER and st.hand is not None and ext is not None and ext.tenpai is not None \
                and ext.draw_pre is not None:
            seats = [s for s in range(4) if ext.tenpai[s] and not ext.riichi[s] and s != st.hand.dealer]
            if seats:
                return i + 1, seats[0]
    raise AssertionError("no exhaustive draw with a tenpai hand that may declare noten")


@pytest.fixture(scope="module")
def game() -> list[dict[str, Any]]:
    return play(2)


def declared(events: list[dict[str, Any]], buttons: tuple[str, ...]) -> tuple[list[dict[str, Any]], int, int]:
    """The game with ``buttons`` pressed by a tenpai non-dealer right after the first exhaustive draw:
    (events, index of the last press, seat).  The rest of the game replays unchanged (the dealer's continuation
    does not depend on that seat)."""
    at, seat = first_declarable_draw(events)
    ts = float(events[at - 1]["at_s"])
    presses = [{"type": "button", "id": f"declare-{k}", "at_s": ts, "seat": seat, "button": b}
               for k, b in enumerate(buttons)]
    return [*events[:at], *presses, *events[at:]], at + len(presses) - 1, seat


def points(state: GameState) -> list[int]:
    return [START + state.session.scores[player_index(state, s)] for s in range(4)]


def test_a_noten_declaration_after_the_draw_is_what_tenhou_and_mjai_record(game: list[dict[str, Any]]) -> None:
    events, last, seat = declared(game, ("pass",))
    states = replay(events)
    at_draw, final_hand = states[last - 1], states[last]
    default = riichi_of(at_draw.hand)
    assert default is not None and default.tenpai is not None and default.tenpai[seat]  # the default: declared
    ext = riichi_of(final_hand.hand)
    assert ext is not None and ext.tenpai is not None and not ext.tenpai[seat]  # 「不聽」
    settled = list(final_hand.history[-1].payments)
    assert settled != list(at_draw.history[-1].payments)  # the noten payments changed

    tenhou, mj = export_engine_events(events)
    draws = [e for e in mj if e["type"] == "ryukyoku"]
    first = draws[0]
    assert first["tenpais"] == list(ext.tenpai) and first["deltas"] == settled
    assert first["scores"] == points(final_hand)
    hand = len(final_hand.history) - 1
    assert tenhou["log"][hand][16] == ["流局", settled]
    # the scores chain from hand to hand, the end is the engine's
    final = states[-1]
    check_tenhou(tenhou, start_points=START, final_points=points(final))
    check_mjai(mj, final_points=points(final))
    assert [e["type"] for e in mj].count("ryukyoku") == sum(1 for r in final.history if r.kind != "win")


def test_a_seat_that_changes_its_mind_is_recorded_with_its_last_declaration(game: list[dict[str, Any]]) -> None:
    """「不聽」 then 「聽牌」 again before the next wall: the draw is recorded as the default had it, once."""
    events, last, seat = declared(game, ("pass", "call"))
    states = replay(events)
    final_hand = states[last]
    ext = riichi_of(final_hand.hand)
    assert ext is not None and ext.tenpai is not None and ext.tenpai[seat]
    tenhou, mj = export_engine_events(events)
    plain, plain_mj = export_engine_events(game)
    assert tenhou == plain and mj == plain_mj
