"""HKMA riichi half-games played by bots through the live engine (``controller/engine/ext_riichi.py``): after every
event the 136 tiles are conserved and the scores plus the riichi deposits sum to zero; replay equals live;
kill-and-resume ends identical; noten payments, honba and renchan, the end at South 4 and the final scores on real
hands."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from controller.engine.events import Event, event_from_json
from controller.engine.ext_riichi import kans, riichi_of, session_of
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, HandState, Phase
from controller.journal import fold
from controller.riichi.settlement import DIVISIONS, noten_payments
from controller.views import public_view
from tests.engine_sichuan.table_helpers import TileCounter

RULES = "riichi-hkma-2025"
TOTAL = 136
DEAD = 14


@dataclass
class Recorder:
    events: list[Event] = field(default_factory=list)
    ends: list[tuple[GameState, HandState]] = field(default_factory=list)
    before_end: list[GameState] = field(default_factory=list)  # the state just before each hand ended
    starts: list[GameState] = field(default_factory=list)  # state when each hand's wall was built
    tiles: TileCounter = field(default_factory=lambda: TileCounter(TOTAL, DEAD))
    last: GameState | None = None

    def __call__(self, ev: Event, st: GameState, fx: object) -> None:
        self.events.append(event_from_json(json.loads(json.dumps(ev.to_json()))))
        hand = st.hand
        assert sum(st.session.scores) + 1000 * session_of(st.session).sticks == 0  # zero sum with sticks
        self.tiles.check(st)  # tiles conserved after every event
        if hand is not None and hand.result is None and hand.seats[0].known:
            view = public_view(st)["riichi"]
            assert len(view["dora_indicators"]) == 1 + kans(hand)  # kan dora at once, nothing else shown
            assert view["ura_indicators"] == []
        if ev.type == "table_built":
            self.starts.append(st)
        if hand is not None and hand.result is not None and (self.last is None or self.last.hand is None
                                                              or self.last.hand.result is None):
            assert self.last is not None
            self.ends.append((st, hand))
            self.before_end.append(self.last)
        self.last = st


def _play(seed: int, hands: int | None = None) -> tuple[GameState, Recorder]:
    rec = Recorder()
    final = SimRun(rules=RULES, seed=seed, hands_total=hands, sink=rec).play()
    return final, rec


@pytest.fixture(scope="module")
def games() -> list[tuple[int, GameState, Recorder]]:
    return [(seed, *_play(seed)) for seed in range(3)]


def test_half_game_ends_at_south_4_with_final_scores(games: list[tuple[int, GameState, Recorder]]) -> None:
    """East 1 to South 4, renchan adds hands (L13, L446); leftover deposits to first place and uma (L19, L47)."""
    start, _ = DIVISIONS["A"]
    for _, final, rec in games:
        assert final.phase is Phase.SESSION_OVER and len(final.history) >= 8
        assert fold(rec.events) == final
        out = public_view(final)["riichi"]["final"]
        assert sum(out["raw"]) == 4 * start  # every point and stick accounted for
        for a in range(4):
            for b in range(4):
                if out["raw"][a] > out["raw"][b]:
                    assert out["ranks"][a] < out["ranks"][b] and out["final"][a] > out["final"][b]
        assert final.session.round_no == 2 or final.session.hand_no >= 8


@pytest.mark.parametrize("cut", [0.25, 0.6, 0.9])
def test_kill_and_resume_from_the_journal_ends_identical(games: list[tuple[int, GameState, Recorder]],
                                                         cut: float) -> None:
    seed, final, rec = games[0]
    k = int(len(rec.events) * cut)
    again = SimRun(rules=RULES, seed=seed).play(fold(rec.events[:k]))
    assert again == final


def test_noten_payments_honba_and_renchan(games: list[tuple[int, GameState, Recorder]]) -> None:
    """Exhaustive draw: 3000 from noten to tenpai players (L429-L433); honba +1 on renchan or a draw, reset by
    a non-dealer win (L440); the dealer keeps the deal when he wins or is tenpai (L26, L435)."""
    draws = wins = 0
    for _, _, rec in games:
        for i, (_st, hand) in enumerate(rec.ends):
            r = hand.result
            ext = riichi_of(hand)
            assert r is not None and ext is not None
            honba = session_of(rec.starts[i].session).honba
            if i + 1 >= len(rec.starts):
                continue
            nxt = rec.starts[i + 1]
            assert nxt.hand is not None
            if r.kind == "draw":
                draws += 1
                assert ext.tenpai is not None
                assert r.payments == noten_payments(ext.tenpai)
                assert session_of(nxt.session).honba == honba + 1
                assert (nxt.hand.dealer == hand.dealer) == ext.tenpai[hand.dealer]
            else:
                wins += 1
                dealer_won = hand.dealer in r.winners
                assert session_of(nxt.session).honba == (honba + 1 if dealer_won else 0)
                assert (nxt.hand.dealer == hand.dealer) == dealer_won
    assert draws > 0 and wins > 0


def test_a_win_collects_every_deposit(games: list[tuple[int, GameState, Recorder]]) -> None:
    """A win collects every riichi deposit on the table (L47) and the honba (L442); a draw leaves the deposits
    there (L434)."""
    collected = honba_wins = 0
    for _, _, rec in games:
        for (st, hand), before in zip(rec.ends, rec.before_end, strict=True):
            r = hand.result
            assert r is not None
            on_table = session_of(before.session).sticks
            if r.kind == "win":
                assert sum(r.payments) == 1000 * on_table
                assert session_of(st.session).sticks == 0
                collected += on_table
                # the winner gets the hand value, 300 per honba (ron: +N x 300, tsumo: N x 100 from each, L442)
                # and the deposits
                honba = session_of(before.session).honba
                assert r.payments[r.winners[0]] == r.total + 300 * honba + 1000 * on_table
                honba_wins += honba > 0
            else:
                assert sum(r.payments) == 0 and session_of(st.session).sticks >= on_table
    assert collected > 0 and honba_wins > 0
