"""Sichuan SBR 2025 sessions played by bots through the live engine (``controller/engine/ext_sichuan.py``): after every
event the tiles are conserved and the scores sum to zero; journal replay equals live; a run killed mid-session and
resumed from its journal ends identical; 查花猪/查大叫 and the next-dealer rule on real simulated hands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import pytest

from controller.engine.events import Event, SessionStart, event_from_json
from controller.engine.ext_sichuan import SichuanHand, sichuan_of
from controller.engine.simulate import SimRun, summary
from controller.engine.state import GameState, HandState, Phase
from controller.journal import fold
from controller.sichuan.fans import max_tenpai_fan
from controller.views import public_view
from mjtable.tiles import Hand
from tests.engine_sichuan.table_helpers import TileCounter

RULES = "sichuan-sbr-2025"
TOTAL = 108


@dataclass
class Recorder:
    """Sink of a SimRun: every event (through its JSON form) and checks after each step."""

    events: list[Event] = field(default_factory=list)
    ends: list[tuple[GameState, HandState]] = field(default_factory=list)  # (state at the hand end, hand)
    before_end: list[GameState] = field(default_factory=list)
    tiles: TileCounter = field(default_factory=lambda: TileCounter(TOTAL, 0))
    last: GameState | None = None

    def __call__(self, ev: Event, st: GameState, fx: object) -> None:
        self.events.append(event_from_json(json.loads(json.dumps(ev.to_json()))))
        hand = st.hand
        assert sum(st.session.scores) == 0  # zero sum after every event (kong money, refunds, 查叫 included)
        self.tiles.check(st)  # tiles conserved after every event
        if hand is not None and st.phase is not Phase.VOID and sichuan_of(hand) is not None:
            ext = sichuan_of(hand)
            assert ext is not None and ext.revealed  # nobody discards before the 定缺 reveal (L348)
        if hand is not None and st.phase is Phase.VOID:
            assert public_view(st)["sichuan"]["voids"] == [None] * 4
        if hand is not None and hand.result is not None and (self.last is None or self.last.hand is None
                                                              or self.last.hand.result is None):
            assert self.last is not None
            self.ends.append((st, hand))
            self.before_end.append(self.last)
        self.last = st


def _play(seed: int, hands: int) -> tuple[GameState, Recorder]:
    rec = Recorder()
    final = SimRun(rules=RULES, seed=seed, hands_total=hands, sink=rec).play()
    return final, rec


@pytest.fixture(scope="module")
def sessions() -> list[tuple[int, GameState, Recorder]]:
    return [(seed, *_play(seed, 4)) for seed in range(3)]


def _ledgers(hand: HandState) -> Iterator[tuple[str, tuple[int, int, int, int], str]]:
    ext = hand.extra
    assert isinstance(ext, SichuanHand)
    yield from ext.ledger


def test_sessions_finish_zero_sum_and_replay_equals_live(sessions: list[tuple[int, GameState, Recorder]]) -> None:
    for _, final, rec in sessions:
        assert final.phase is Phase.SESSION_OVER and len(final.history) == 4
        assert fold(rec.events) == final
        for _, hand in rec.ends:
            for _, deltas, _ in _ledgers(hand):
                assert sum(deltas) == 0  # every money line balances
        for r in final.history:
            assert sum(r.payments) == 0


@pytest.mark.parametrize("cut", [0.3, 0.7])
def test_kill_and_resume_from_the_journal_ends_identical(sessions: list[tuple[int, GameState, Recorder]],
                                                         cut: float) -> None:
    seed, final, rec = sessions[0]
    k = int(len(rec.events) * cut)
    resumed = fold(rec.events[:k])  # what a restarted process rebuilds from its journal
    again = SimRun(rules=RULES, seed=seed, hands_total=4).play(resumed)
    assert again == final


def test_every_hand_plays_the_void_choice_and_kong_money(sessions: list[tuple[int, GameState, Recorder]]) -> None:
    """Each hand starts with four 定缺 events (L346); kong money is paid when a kong is made (L490-L502)."""
    kongs = 0
    for _, _, rec in sessions:
        voids = [e for e in rec.events if e.type == "void"]
        assert len(voids) == 4 * len(rec.ends)
        for _, hand in rec.ends:
            kongs += sum(1 for kind, _, _ in _ledgers(hand) if kind == "kong")
            melds = sum(1 for s in hand.seats for m in s.melds if m.kind in ("kong", "concealed_kong"))
            assert melds == sum(1 for kind, _, _ in _ledgers(hand) if kind == "kong")
    assert kongs > 0


def test_next_dealer_is_the_first_winner(sessions: list[tuple[int, GameState, Recorder]]) -> None:
    """First winner deals next; several first winners on one discard: the discarder; none: same (L478-L482)."""
    for _, final, rec in sessions:
        dealers = [hand.dealer for _, hand in rec.ends]
        for i, (_, hand) in enumerate(rec.ends[:-1]):
            ext = sichuan_of(hand)
            assert ext is not None
            if not ext.first_winners:
                expected = hand.dealer
            elif len(ext.first_winners) > 1:
                assert ext.first_discarder is not None
                expected = ext.first_discarder
            else:
                expected = ext.first_winners[0]
            assert dealers[i + 1] == expected
        assert final.session.hand_no == len(rec.ends)


def test_exhaustive_draw_settles_with_chajiao() -> None:
    """At the wall's end 有叫 players are paid by 没叫 ones (查大叫) the base of their best wait (L549-L596);
    the settlement is part of the hand result and every line sums to zero."""
    found = 0
    for seed in range(3, 12):
        _final, rec = _play(seed, 2)
        for (_st, hand), prev in zip(rec.ends, rec.before_end, strict=True):
            if hand.wall_remaining > 0 or len(hand.result.winners if hand.result else ()) >= 3:
                continue
            ext = sichuan_of(hand)
            assert ext is not None
            lines = [(k, d) for k, d, _ in ext.ledger if k == "chajiao"]
            assert len(lines) == 1
            chajiao = lines[0][1]
            winners = set(hand.result.winners if hand.result else ())
            for s in range(4):
                if s in winners or hand.seats[s].dead is not None:
                    continue
                held = Hand(hand.seats[s].known)
                void = ext.voids[s]
                tenpai = not any(t.suit == void for t in held.all_tiles) and max_tenpai_fan(
                    Hand(hand.seats[s].known, ()), void) is not None and not hand.seats[s].melds
                if tenpai:
                    assert chajiao[s] >= 0  # a ready hand never pays in 查大叫
            assert prev.hand is not None and prev.hand.result is None
            found += 1
        if found >= 2:
            break
    assert found >= 1


class _TimedRun(SimRun):
    """A session limited by time (35 min, L290) rather than hands; the bots act every 0.9 s."""

    def session_start(self) -> SessionStart:
        return replace(super().session_start(), timer_overrides=(("session_s", 35 * 60.0),))


def test_time_limit_finishes_the_running_hand_then_ends_the_session() -> None:
    """35-80 min sessions: at the limit the running hand is finished, then the session ends; 盘分 4/3/2/1 by
    rank, ties split (L157, L161, L290)."""
    run = _TimedRun(rules=RULES, seed=1, tick_s=0.9, hands_total=500)
    final = run.play()
    assert final.phase is Phase.SESSION_OVER and final.session.ended
    assert 1 <= len(final.history) < 500
    assert all(r.kind in ("win", "draw") for r in final.history)  # no hand was cut short
    assert final.now_s - final.session.start_s >= 35 * 60
    net = [final.session.scores[p] - final.session.penalties[p] for p in range(4)]
    points = sorted(summary(final, game=0, seed=1)["ranking_points"])
    assert sum(points) == 10 and (points == [1, 2, 3, 4] or len(set(net)) < 4)
