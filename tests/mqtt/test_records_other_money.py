"""Every point on the organisers' score sheet is accounted for, hand by hand and player by player.

Money also changes hands outside a hand's result: an MCR false win pays 10 or 20 to each other player at once,
Sichuan kong money is paid when the kong is made, a riichi deposit (−1000) goes down when the declaration tile
passes, and penalties are deducted when they are applied.  Before the fix the sheet's hand rows showed only the
results' payments: the running total (合计) drifted away from the engine's scores and from the total row, the
offender's −60 was on no row, and an unfinished game's totals were wrong.

Whole sessions are played by the bots through the real engine (false win and referee penalty injected as a
table would receive them); the public view goes through a real :class:`TableChannel` at the end of every hand,
as in ``test_records_per_player``.  The record and the sheet are checked against the engine's own per-player
scores, penalties and results.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from controller.engine.effects import HandEnded, Rejected, SessionEnded
from controller.engine.events import DeclareWin, Event, event_from_json
from controller.engine.ext_riichi_state import session_of
from controller.engine.ext_sichuan_state import sichuan_of
from controller.engine.query import player_index
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, Phase
from controller.engine.step import step
from controller.views import public_view
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.records import game_records_from_events, score_sheet_csv

PLAYERS = ("Ann", "Bo", "Cy", "Di")
#: columns of one player's block on the sheet, after the 7 columns of the hand
BLOCK = ("name", "seat", "plus", "minus", "other", "penalty", "running")
FIRST = 7

Inject = Callable[[GameState, SimRun], Event | None]


@dataclass
class HandTruth:
    """What the engine says about one hand, per player (registration order)."""

    payments: list[int]
    other: list[int]  # score change outside the result's payments
    penalty: list[int]  # penalty points deducted during the hand
    net: list[int]  # session score net of penalties after the hand
    ledger: list[tuple[str, list[int], str]] = field(default_factory=list)  # Sichuan lines, per player
    deposits: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # riichi sticks put down, per player


@dataclass
class Played:
    events: list[dict[str, Any]]
    hands: list[HandTruth]
    final: GameState
    injected: dict[str, list[int]]  # injected event id -> per-player change of the gross scores it made


def _per_player(state: GameState, per_seat: list[int]) -> list[int]:
    out = [0, 0, 0, 0]
    for seat in range(4):
        out[player_index(state, seat)] += per_seat[seat]
    return out


def play(rules: str, seed: int, hands: int, inject: Inject | None = None) -> Played:
    """Play a session through the engine and a table channel; keep the engine's truth about every hand."""
    broker = MemoryBroker()
    ch = TableChannel("T1", FakePublisher(broker), clock=lambda: 1.0, game_id="T1-g1")
    run = SimRun(rules=rules, seed=seed, players=PLAYERS, hands_total=hands)
    state = run.start()
    truth: list[HandTruth] = []
    injected: dict[str, list[int]] = {}
    gross0, pen0 = list(state.session.scores), list(state.session.penalties)
    deposits = [0, 0, 0, 0]
    while True:
        ev = inject(state, run) if inject is not None else None
        ev = ev or run.next_event(state)
        if ev is None:
            break
        new, fx = step(state, ev)
        assert not (fx and isinstance(fx[0], Rejected)), fx
        if ev.id.startswith("inject"):
            injected[ev.id] = [a - b for a, b in zip(new.session.scores, state.session.scores, strict=True)]
        if session_of(new.session).sticks == session_of(state.session).sticks + 1:  # a riichi stick went down
            change = [a - b for a, b in zip(new.session.scores, state.session.scores, strict=True)]
            deposits[change.index(-1000)] += 1
        ended = [e for e in fx if isinstance(e, HandEnded)]
        if ended:
            assert new.hand is not None
            pay = _per_player(new, list(ended[0].result["payments"]))
            gross, pen = list(new.session.scores), list(new.session.penalties)
            other = [g - g0 - p for g, g0, p in zip(gross, gross0, pay, strict=True)]
            hand = HandTruth(payments=pay, other=other, penalty=[a - b for a, b in zip(pen, pen0, strict=True)],
                             net=[g - p for g, p in zip(gross, pen, strict=True)])
            sichuan = sichuan_of(new.hand)
            if sichuan is not None:
                hand.ledger = [(kind, _per_player(new, list(d)), note) for kind, d, note in sichuan.ledger]
            hand.deposits, deposits = deposits, [0, 0, 0, 0]
            truth.append(hand)
            gross0, pen0 = gross, pen
        if ended or any(isinstance(e, SessionEnded) for e in fx):
            ch.publish_state(public_view(new, "T1"))
        state = new
    events = [json.loads(m.payload) for m in broker.messages("mjtable/v1/table/T1/events")]
    return Played(events=events, hands=truth, final=state, injected=injected)


@dataclass
class FalseWinThenPenalty:
    """Hand 6 (round South: the seats have rotated): the player to move calls a win he does not have; hand 7: the
    referee deducts 10 points from seat 2."""

    done: set[str] = field(default_factory=set)

    def __call__(self, state: GameState, run: SimRun) -> Event | None:
        hand = state.hand
        if hand is None or state.phase is not Phase.TURN or hand.turn is None or hand.drawn is None:
            return None
        if hand.hand_no == 5 and len(hand.seats[hand.turn].pond) == 3 and "inject-1" not in self.done:
            self.done.add("inject-1")
            return DeclareWin(id="inject-1", at_s=run.now_s, seat=hand.turn)
        if hand.hand_no == 6 and "inject-2" not in self.done:
            self.done.add("inject-2")
            return event_from_json({"type": "referee", "id": "inject-2", "at_s": run.now_s,
                                    "command": "apply_penalty", "seat": 2, "points": 10,
                                    "reason": "penalty by the referee"})
        return None


@pytest.fixture(scope="module")
def mcr() -> Played:
    return play("mcr-2006", 3, 8, FalseWinThenPenalty())


@pytest.fixture(scope="module")
def sichuan() -> Played:
    return play("sichuan-sbr-2025", 0, 4)


@pytest.fixture(scope="module")
def riichi() -> Played:
    return play("riichi-hkma-2025", 1, 4)


def _sheet(record: dict[str, Any]) -> list[list[str]]:
    return list(csv.reader(io.StringIO(score_sheet_csv(record))))


def _cells(row: list[str], player: int) -> dict[str, str]:
    start = FIRST + len(BLOCK) * player
    return dict(zip(BLOCK, row[start:start + len(BLOCK)], strict=True))


def _num(cell: str) -> int:
    return int(cell) if cell else 0


def check_rows_add_up(record: dict[str, Any], hands: list[HandTruth]) -> None:
    """Record and sheet, hand by hand: the result's payments, the other money, the penalties, the running total
    equal the engine's; each row adds up to its running total; the last running total is the total row."""
    assert len(record["hands"]) == len(hands)
    for k, (h, t) in enumerate(zip(record["hands"], hands, strict=True)):
        assert [pp["player"] for pp in h["per_player"]] == list(PLAYERS)
        assert [pp["points"] for pp in h["per_player"]] == t.payments, f"hand {k + 1}"
        assert [pp["other"] for pp in h["per_player"]] == t.other, f"hand {k + 1}"
        assert [pp["penalty"] for pp in h["per_player"]] == t.penalty, f"hand {k + 1}"
        assert [pp["running"] for pp in h["per_player"]] == t.net, f"hand {k + 1}"
    rows = _sheet(record)
    assert [_cells(rows[0], p)["name"] for p in range(4)] == [f"{n} 姓名" for n in PLAYERS]
    assert _cells(rows[0], 0)["other"] == "Ann other ± 其他" and _cells(rows[0], 0)["penalty"] == "Ann penalty − 罚分"
    hand_rows = [r for r in rows[1:] if r[2].isdigit()]
    running = [0, 0, 0, 0]
    for k, row in enumerate(hand_rows):
        for p in range(4):
            c = _cells(row, p)
            assert c["name"] == PLAYERS[p]
            running[p] += _num(c["plus"]) - _num(c["minus"]) + _num(c["other"]) - _num(c["penalty"])
            assert int(c["running"]) == running[p] == hands[k].net[p], f"hand {k + 1}, {PLAYERS[p]}"
    total = rows[-1]
    assert total[2] == "total 合计"
    assert [int(_cells(total, p)["running"]) for p in range(4)] == record["totals"] == running


def test_mcr_false_win_money_and_a_referee_penalty_are_on_their_hand_rows(mcr: Played) -> None:
    (record,) = game_records_from_events(mcr.events)
    final = mcr.final
    assert record["complete"] and record["totals"] == [final.session.scores[p] - final.session.penalties[p]
                                                       for p in range(4)]
    check_rows_add_up(record, mcr.hands)
    paid = mcr.injected["inject-1"]  # the false win: the offender pays each of the others at once
    offender = paid.index(min(paid))
    assert paid[offender] in (-30, -60) and all(paid[p] == -paid[offender] // 3 for p in range(4) if p != offender)
    sixth = record["hands"][5]
    assert [pp["other"] for pp in sixth["per_player"]] == paid
    assert sixth["seating"] != list(PLAYERS)  # round South: the seats have rotated, the money follows the players
    seventh = record["hands"][6]
    fined = PLAYERS.index(seventh["seating"][2])
    assert [pp["penalty"] for pp in seventh["per_player"]] == [10 if p == fined else 0 for p in range(4)]
    assert all(pp["other"] == 0 for h in record["hands"] if h is not sixth for pp in h["per_player"])


def test_sichuan_kong_money_paid_at_once_is_on_its_hand_row(sichuan: Played) -> None:
    (record,) = game_records_from_events(sichuan.events)
    check_rows_add_up(record, sichuan.hands)
    kong_money = 0
    for h, t in zip(record["hands"], sichuan.hands, strict=True):
        # the hand-end settlement (停和陪打 L654, 查花猪/查大叫, 没叫 退杠 L504) is in the result's payments;
        # every other ledger line (kong money, refunds at 顺和/诈和/杠上炮) was paid during play
        at_once = [line for line in t.ledger if line[0] != "chajiao" and "L654" not in line[2]
                   and "L504" not in line[2]]
        assert [pp["other"] for pp in h["per_player"]] == [sum(line[1][p] for line in at_once) for p in range(4)]
        kong_money += sum(abs(x) for line in at_once if line[0] == "kong" for x in line[1])
    assert kong_money > 0  # the seed has kong money


def test_riichi_deposits_are_on_the_depositors_rows(riichi: Played) -> None:
    (record,) = game_records_from_events(riichi.events)
    check_rows_add_up(record, riichi.hands)
    deposits = 0
    for h, t in zip(record["hands"], riichi.hands, strict=True):
        assert [pp["other"] for pp in h["per_player"]] == [-1000 * d for d in t.deposits]
        deposits += sum(t.deposits)
    assert deposits > 0  # the seed has riichi declarations


def test_an_unfinished_game_totals_what_the_players_have(mcr: Played) -> None:
    events = [e for e in mcr.events if e["type"] != "game_end"]
    (record,) = game_records_from_events(events)
    assert not record["complete"]
    assert record["totals"] == mcr.hands[-1].net
    check_rows_add_up(record, mcr.hands)


def test_a_missing_hand_is_noted_and_the_numbers_stay_right(mcr: Played) -> None:
    """The result of hand 6 never reached the recorder: hand 7's row carries hand 6's money with a note."""
    events = [e for e in mcr.events if not (e["type"] == "hand_result" and e["data"]["hand_no"] == 6)]
    (record,) = game_records_from_events(events)
    assert [h["hand_no"] for h in record["hands"]] == [1, 2, 3, 4, 5, 7, 8]
    seventh = record["hands"][5]
    assert seventh["unrecorded_before"] == [6] and "6" in seventh["note"]
    six, seven = mcr.hands[5], mcr.hands[6]
    for p, pp in enumerate(seventh["per_player"]):
        assert pp["points"] == seven.payments[p]
        assert pp["running"] == seven.net[p]
        assert pp["other"] - pp["penalty"] == six.net[p] + seven.other[p] - seven.penalty[p] - mcr.hands[4].net[p]
    assert all(not h["unrecorded_before"] and h["note"] is None for h in record["hands"] if h is not seventh)
    rows = _sheet(record)
    row = next(r for r in rows if r[2] == "7")
    assert "hand 6 not recorded" in row[4]
    assert record["totals"] == mcr.hands[-1].net
    assert [int(_cells(rows[-1], p)["running"]) for p in range(4)] == record["totals"]


def test_money_after_the_last_recorded_hand_has_its_own_row(mcr: Played) -> None:
    """The last hand's result is missing: the game end's scores still make the totals, the difference is shown."""
    events = [e for e in mcr.events if not (e["type"] == "hand_result" and e["data"]["hand_no"] == 8)]
    (record,) = game_records_from_events(events)
    assert record["complete"] and record["totals"] == mcr.hands[-1].net
    change = [a - b for a, b in zip(mcr.hands[-1].net, mcr.hands[-2].net, strict=True)]
    assert record["after_last_hand"] == change
    rows = _sheet(record)
    after, total = rows[-2], rows[-1]
    assert after[2] == "after hand 7 第7盘后" and "hand 8 not recorded" in after[4]
    for p in range(4):
        c = _cells(after, p)
        assert _num(c["other"]) == change[p] and int(c["running"]) == record["totals"][p]
        assert int(_cells(total, p)["running"]) == record["totals"][p]


def test_a_complete_record_has_nothing_after_the_last_hand(mcr: Played) -> None:
    (record,) = game_records_from_events(mcr.events)
    assert record["after_last_hand"] == [0, 0, 0, 0]
    assert not any(r[2].startswith("after hand") for r in _sheet(record))


def test_a_result_without_scores_says_the_other_money_is_not_known(mcr: Played) -> None:
    """An event from a table that sent no scores: the row shows the result only and says so."""
    events = [json.loads(json.dumps(e)) for e in mcr.events if e["type"] == "hand_result"]
    sixth = next(e for e in events if e["data"]["hand_no"] == 6)
    del sixth["data"]["scores"]
    (record,) = game_records_from_events(events)
    h = record["hands"][5]
    assert "no scores" in h["note"]
    assert [pp["other"] for pp in h["per_player"]] == [0, 0, 0, 0]
    assert [pp["running"] for pp in h["per_player"]] == [
        mcr.hands[4].net[p] + mcr.hands[5].payments[p] - mcr.hands[5].penalty[p] for p in range(4)]
    assert not h["other_known"] and record["hands"][6]["other_known"]
    seventh = record["hands"][6]
    assert [pp["running"] for pp in seventh["per_player"]] == mcr.hands[6].net  # back on the scores
    assert "hand 6's money outside its result" in seventh["note"]
    assert "no scores" in next(r for r in _sheet(record) if r[2] == "6")[4]
