"""The engine's alert and infraction words name the player, never a seat number: the display shows players by name
(``renderLists`` prints an alert's kind and message as they are) and in MCR the players move seats every round.

Before the fix: "turn time is up for seat 2", "seat 3 made a wrong chow: ...", "seat(s) [2] called but the claim is
not shown yet", "camera hand_seen reading for seat 1 does not fit the game", and a dead hand's false win
"false win (dead_hand): seat 1 has lost the right to win: ...", "empty pung (空碰): seat 1 does not hold 5p".
"""

from __future__ import annotations

import re

from controller.engine.effects import Alert, Effect, InfractionEffect
from controller.engine.events import event_from_json
from controller.engine.query import player_index
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, Phase
from controller.engine.step import step
from tests.engine.engine_helpers import PRIORITY_HANDS, TWO_WINNERS_HANDS, Table, pass_all

PLAYERS = ("Ann", "Bo", "Cy", "Di")
SEAT_WORDS = re.compile(r"\bseat")


def _table(rules: str = "mcr-2006") -> Table:
    return Table(rules=rules, options={"players": PLAYERS})


def _alerts(fx: tuple[Effect, ...], kind: str) -> list[Alert]:
    return [e for e in fx if isinstance(e, Alert) and e.kind == kind]


def test_a_timer_alert_after_the_seats_rotate_names_the_player_at_that_seat() -> None:
    """Hand 5 of an MCR session (round 2, rotation A): the opening limit of the dealer's seat runs out; the alert
    names whoever sits there now, as its data already did."""
    run = SimRun(rules="mcr-2006", seed=3, hands_total=8, players=PLAYERS)
    state: GameState = run.start()
    while len(state.history) < 4:
        ev = run.next_event(state)
        assert ev is not None
        state, _ = step(state, ev)
    ev = run.next_event(state)  # the table built for hand 5
    assert ev is not None and ev.type == "table_built"
    state, _ = step(state, ev)
    state, fx = step(state, event_from_json({"type": "tick", "id": "late", "at_s": state.now_s + 60.0}))
    alerts = _alerts(fx, "timer_zero")
    assert alerts
    for alert in alerts:
        seat = alert.data["seat"]
        assert isinstance(seat, int)
        player = state.session.players[player_index(state, seat)]
        assert player != PLAYERS[seat]  # the players have moved: a seat number would mislead
        assert alert.data["player"] == player
        assert alert.message == f"{alert.data['timer']} time is up for {player}"
        assert not SEAT_WORDS.search(alert.message)


def test_the_2017_wrong_call_alert_names_the_player() -> None:
    t = _table("mcr-2017")
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    fx = t.ok("claim", seat=3, kind="chow", tiles=["4p", "6p"])
    (alert,) = _alerts(fx, "wrong_call")
    assert alert.message.startswith("Di made a wrong chow: if it leads to another player's win")
    assert not SEAT_WORDS.search(alert.message)
    assert alert.data["seat"] == 3 and alert.data["player"] == "Di"  # the data keeps the seat for machines


def test_a_pending_call_alert_names_the_players() -> None:
    t = _table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    t.ok("button", seat=2, button="call")
    (alert,) = _alerts(t.ok("tick", dt_s=5.0), "call_pending")
    assert alert.message == "Cy called but the claim is not shown yet"
    assert alert.data["seats"] == [2]


def test_camera_mismatch_alerts_name_the_player() -> None:
    t = _table()
    t.deal(PRIORITY_HANDS)
    held = [x.code for x in t.seat(1).known]
    obs = {"type": "hand_seen", "seat": 1, "tiles": held[:-1], "claimed_from": None, "position": 0,
           "confidence": 0.99, "frame_id": 11}
    (alert,) = _alerts(t.ok("camera", observation=obs), "camera_mismatch")
    assert alert.message == "camera hand_seen reading for Bo does not fit the game"
    discard = {"type": "discard", "seat": 0, "tiles": ["9s"], "claimed_from": None, "position": 0,
               "confidence": 0.99, "frame_id": 12}
    (alert,) = _alerts(t.ok("camera", observation=discard), "camera_mismatch")
    assert alert.message == "camera discard does not fit the game: Ann does not hold 9s"
    assert alert.data["detail"] == "seat 0 does not hold 9s"  # the referee-only data keeps the engine's words


def test_infraction_words_name_the_player() -> None:
    """An empty call (the engine's reason why the call fails) and a dead hand's false win."""
    t = _table()
    t.deal(PRIORITY_HANDS)
    t.ok("discard", seat=0, tile="5p")
    fx = t.ok("claim", seat=1, kind="pung")
    (empty,) = [e.infraction for e in fx if isinstance(e, InfractionEffect)]
    assert empty["kind"] == "empty_call" and str(empty["message"]).startswith("empty pung (空碰): Bo does not hold 5p")
    t = _table()
    t.deal(TWO_WINNERS_HANDS)
    t.ok("referee", command="dead_hand", seat=1, reason="argued")
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=1, kind="win")
    pass_all(t)
    false_win = t.state.infractions[-1]
    assert false_win.kind == "false_win_dead_hand"
    assert false_win.message.startswith("false win (dead_hand): Bo has lost the right to win: dead hand (相公)")
    for inf in t.state.infractions:
        assert not SEAT_WORDS.search(inf.message), inf.message
    assert t.state.phase is not Phase.SESSION_OVER
