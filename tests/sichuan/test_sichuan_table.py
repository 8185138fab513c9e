"""A Sichuan hand step by step (procedure with seed citations) and whole simulated sessions."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from controller.sichuan.simulate import bench_ruleset, play_session, replay_hand
from controller.sichuan.table import HandState, IllegalEventError, apply, new_hand, next_dealer, table_tiles
from mjtable.tiles import SICHUAN_TILESET, Tile, parse_tiles


def wall_for(hands: list[str], draws: str = "") -> list[Tile]:
    """A 108-tile wall that deals ``hands`` (dealer seat 0 first, 14 tiles) and then draws ``draws`` in order."""
    hs = [parse_tiles(h) for h in hands]
    assert [len(h) for h in hs] == [14, 13, 13, 13]
    wall: list[Tile] = []
    for r in range(3):
        for s in range(4):
            wall.extend(hs[s][4 * r:4 * r + 4])
    wall.extend(hs[0][12:14])
    wall.extend(h[12] for h in hs[1:])
    wall.extend(parse_tiles(draws) if draws else [])
    rest = Counter(SICHUAN_TILESET.all_tiles())
    rest.subtract(Counter(wall))
    assert all(v >= 0 for v in rest.values()), "too many copies in the scenario"
    wall.extend(sorted(rest.elements()))
    return wall


def run(st: HandState, *events: dict[str, Any]) -> HandState:
    for ev in events:
        st = apply(st, ev)
        assert sorted(table_tiles(st)) == sorted(SICHUAN_TILESET.all_tiles())
    return st


def voids(*suits: str) -> list[dict[str, Any]]:
    return [{"type": "void", "seat": s, "suit": v} for s, v in enumerate(suits)]


# Scenario: the dealer discards 5p, seat 1 kongs it (点杠), draws 9p and discards 3m, on which seats 2 and 3
# both win (一炮多响, 杠上炮); then the dealer self-draws 5m.  Everybody voids bamboo (天缺, L348).
HANDS = ["2345678m111999p5p", "1234m6789m555p22p", "12456789m33p234p", "45m678m777p666p88p"]


def scenario() -> HandState:
    st = new_hand(0, wall_for(HANDS, draws="9p5m"))
    return run(st, *voids("s", "s", "s", "s"))


def test_deal_and_simultaneous_void_L332_L346() -> None:
    st = new_hand(0, wall_for(HANDS))
    assert [len(x.concealed) for x in st.seats] == [14, 13, 13, 13]
    with pytest.raises(IllegalEventError, match="may not discard"):
        apply(st, {"type": "discard", "seat": 0, "tile": "5p"})  # 定缺 first (L346-L348)
    st = run(st, *voids("s", "s", "s", "s")[:3])
    assert st.phase == "void"
    st = run(st, voids("s", "s", "s", "s")[3])
    assert st.phase == "turn" and st.turn == 0


def test_bloody_battle_kong_money_refund_and_multiple_winners() -> None:
    st = run(scenario(), {"type": "discard", "seat": 0, "tile": "5p"},
             {"type": "kong", "seat": 1, "tile": "5p", "kind": "called"})
    assert st.totals() == (-2, 2, 0, 0)  # 点杠: the discarder pays 2 (L490)
    assert st.drawn == parse_tiles("9p")[0] and st.after_kong  # replacement = next wall tile (L403)
    st = run(st, {"type": "discard", "seat": 1, "tile": "3m"})
    with pytest.raises(IllegalEventError, match="cannot win"):
        apply(st, {"type": "win", "seats": [0]})
    st = run(st, {"type": "win", "seats": [3, 2]})
    # 杠上炮: the kong money goes back (L506); each winner: 杠上炮 1 fan -> base 2 from the discarder (L518)
    assert [(w.seat, w.fan, w.base, w.discarder) for w in st.won] == [(2, 1, 2, 1), (3, 1, 2, 1)]
    assert st.totals() == (0, -4, 2, 2)
    assert st.phase == "draw" and st.turn == 0  # after the last winner counter-clockwise (L474)
    st = run(st, {"type": "draw", "seat": 0}, {"type": "tsumo", "seat": 0})
    # self-draw: base 1 + 1 from each player still in: only seat 1 (L520)
    assert st.totals() == (2, -6, 2, 2) and sum(st.totals()) == 0
    assert st.phase == "over"  # three winners end the hand (L466)
    assert next_dealer(st) == 1  # two first winners on one discard: the discarder deals (L481)


def test_void_suit_must_be_discarded_first_active_pig_L350_L352() -> None:
    st = new_hand(0, wall_for(HANDS))
    st = run(st, *voids("m", "s", "s", "s"))
    st = run(st, {"type": "discard", "seat": 0, "tile": "5p"})  # still holds 万 of the void suit
    assert st.penalties == ((0, "active_pig", 24),)
    assert st.seats[0].dead  # 停和陪打 (L352)


def test_no_pong_or_kong_on_missing_suit_and_no_chow_L342_L426() -> None:
    st = new_hand(0, wall_for(HANDS))
    st = run(st, *voids("s", "p", "s", "s"), {"type": "discard", "seat": 0, "tile": "5p"})
    with pytest.raises(IllegalEventError, match="missing suit"):
        apply(st, {"type": "kong", "seat": 1, "tile": "5p", "kind": "called"})
    with pytest.raises(IllegalEventError, match="unknown event"):
        apply(st, {"type": "chow", "seat": 1})


def test_no_self_kong_right_after_a_pong_L404() -> None:
    st = new_hand(0, wall_for(HANDS))
    st = run(st, *voids("s", "s", "s", "s"), {"type": "discard", "seat": 0, "tile": "5p"},
             {"type": "pung", "seat": 1})
    assert st.turn == 1 and st.drawn is None
    with pytest.raises(IllegalEventError, match="right after a pong"):
        apply(st, {"type": "kong", "seat": 1, "tile": "5p", "kind": "promoted"})


@pytest.mark.parametrize("seed", range(6))
def test_simulated_sessions_conserve_tiles_zero_sum_and_replay(seed: int) -> None:
    res = play_session(seed, hands=4, mistake_rate=0.03)  # play_hand checks tile conservation every event
    for h in res.hands:
        assert h.state is not None and h.state.phase == "over"
        assert sum(h.state.totals()) == 0
        assert all(sum(line.deltas) == 0 for line in h.state.ledger)
        assert len(h.state.won) <= 3
        assert replay_hand(h) == h.state
        journal = json.loads(json.dumps(h.events))  # the events survive a JSON journal unchanged
        assert journal == h.events
    assert sum(res.scores) == 0
    assert sorted(res.session_points) == [1, 2, 3, 4] or sum(res.session_points) == 10


def test_bench_figures() -> None:
    out = bench_ruleset(hands=5)
    assert out["hands"] == 5 and out["hands_per_s"] > 0


def test_face_down_void_tile_must_be_the_first_discard_L348() -> None:
    st = new_hand(0, wall_for(HANDS))
    with pytest.raises(IllegalEventError, match="face-down"):
        apply(st, {"type": "void", "seat": 0, "suit": "m", "tile": "5p"})
    st = run(st, {"type": "void", "seat": 0, "suit": "m", "tile": "3m"}, *voids("s", "s", "s", "s")[1:])
    with pytest.raises(IllegalEventError, match="first discard"):
        apply(st, {"type": "discard", "seat": 0, "tile": "2m"})
    st = run(st, {"type": "discard", "seat": 0, "tile": "3m"})
    assert st.penalties == ()


def test_dealer_may_self_draw_the_dealt_hand() -> None:
    # dealer 14 tiles complete: 123 456 789m 111p 99p
    st = new_hand(0, wall_for(["123456789m11199p", *HANDS[1:]]))
    st = run(st, *voids("s", "s", "s", "s"), {"type": "tsumo", "seat": 0})
    assert st.won[0].seat == 0 and st.totals() == (6, -2, -2, -2)


def test_passed_win_then_win_on_a_lesser_tile_is_shunhe_L248() -> None:
    # seat 2 waits on 1m/4m; the dealer throws 4m, seat 2 does not call 和 and seat 3 pongs it; before seat 2
    # draws again seat 3 throws 1m, worth no more fan: winning on it is 顺和 (category 2, kong money refunded)
    hands = ["2345678m111999p5p", "123m6789m9m555p22p", "23m456m789m33p234p", "1m44m678m777p666p8p"]
    st = new_hand(0, wall_for(hands))
    st = run(st, *voids("s", "s", "s", "s"), {"type": "discard", "seat": 0, "tile": "4m"},
             {"type": "pung", "seat": 3})
    assert st.seats[2].passed_fan == 0
    st = run(st, {"type": "discard", "seat": 3, "tile": "1m"}, {"type": "win", "seats": [2]})
    assert st.penalties == ((2, "passed_win", 24),) and st.won == ()
    assert st.seats[2].dead and st.phase == "claim"


def test_concealed_kong_money_and_win_on_replacement_L502_L544() -> None:
    hands = ["1111m234567m99p34p", "2468m2468p2468s9s", "3579m3579p3579s8s", "2468m1357p1357s9m"]
    st = new_hand(0, wall_for(hands, draws="5p"))
    st = run(st, *voids("s", "m", "p", "m"), {"type": "kong", "seat": 0, "tile": "1m", "kind": "concealed"})
    assert st.totals() == (6, -2, -2, -2)  # 暗杠: 2 from each player still in
    st = run(st, {"type": "tsumo", "seat": 0})
    # 杠 1 + 杠上花 1 = 2 fan -> base 4; a self-draw: 4 + 1 from each (L520, L544)
    assert (st.won[0].fan, st.won[0].base) == (2, 4)
    assert st.totals() == (21, -7, -7, -7)


def test_robbing_a_timely_promoted_kong_L494_L546() -> None:
    hands = ["2345678m111999p5p", "1234m6789m55p22p7p", "123m456m789m33p46p", "45m678m777p888p99s"]
    st = new_hand(0, wall_for(hands, draws="9s1s2s5p"))
    st = run(st, *voids("s", "s", "s", "s"), {"type": "discard", "seat": 0, "tile": "5p"},
             {"type": "pung", "seat": 1}, {"type": "discard", "seat": 1, "tile": "7p"}, {"type": "pass"},
             {"type": "draw", "seat": 2}, {"type": "discard", "seat": 2, "tile": "9s"}, {"type": "pass"},
             {"type": "draw", "seat": 3}, {"type": "discard", "seat": 3, "tile": "9s"}, {"type": "pass"},
             {"type": "draw", "seat": 0}, {"type": "discard", "seat": 0, "tile": "2s"}, {"type": "pass"},
             {"type": "draw", "seat": 1}, {"type": "kong", "seat": 1, "tile": "5p", "kind": "promoted"})
    assert st.phase == "rob"
    st = run(st, {"type": "win", "seats": [2]})
    assert [(w.seat, w.fan, w.discarder) for w in st.won] == [(2, 1, 1)]  # 抢杠 1 fan, paid as the discarder
    assert st.totals() == (0, -2, 2, 0)  # the robbed kong earns nothing
    assert [m.kind.value for m in st.seats[1].melds] == ["pung"]  # and is invalid (L546)


def test_timely_promoted_kong_is_paid_when_nobody_robs_L494() -> None:
    hands = ["2345678m111999p5p", "1234m6789m55p22p7p", "123m456m789m33p46p", "45m678m777p888p99s"]
    st = new_hand(0, wall_for(hands, draws="9s1s2s5p"))
    st = run(st, *voids("s", "s", "s", "s"), {"type": "discard", "seat": 0, "tile": "5p"},
             {"type": "pung", "seat": 1}, {"type": "discard", "seat": 1, "tile": "7p"}, {"type": "pass"},
             {"type": "draw", "seat": 2}, {"type": "discard", "seat": 2, "tile": "9s"}, {"type": "pass"},
             {"type": "draw", "seat": 3}, {"type": "discard", "seat": 3, "tile": "9s"}, {"type": "pass"},
             {"type": "draw", "seat": 0}, {"type": "discard", "seat": 0, "tile": "2s"}, {"type": "pass"},
             {"type": "draw", "seat": 1}, {"type": "kong", "seat": 1, "tile": "5p", "kind": "promoted"},
             {"type": "pass"})
    assert st.totals() == (-1, 3, -1, -1)  # 及时雨: 1 from each player still in
    assert st.turn == 1 and st.after_kong  # replacement drawn


def test_session_by_time_finishes_the_running_hand_L290() -> None:
    res = play_session(4, session_s=35 * 60, seconds_per_event=4.0, check=False)
    per_hand = [4.0 * len(h.events) for h in res.hands]
    assert sum(per_hand[:-1]) < 35 * 60 <= sum(per_hand)  # time ran out during the last hand, which finished
    assert res.elapsed_s == sum(per_hand)
    with pytest.raises(ValueError, match="35-80"):
        play_session(4, session_s=20 * 60)


def test_no_win_player_may_pong_only_to_reach_tenpai_and_refunds_kongs_L654() -> None:
    st = new_hand(0, wall_for(HANDS))
    st = run(st, *voids("m", "s", "s", "s"), {"type": "discard", "seat": 0, "tile": "5p"})  # active pig: dead
    assert st.seats[0].dead
    # seat 1 (alive) may pong; now make seat 1 dead by hand and check the tenpai condition
    dead1 = replace(st, seats=(st.seats[0], replace(st.seats[1], dead=True), st.seats[2], st.seats[3]))
    # seat 1 holds 1234m 6789m 555p 22p: after the pong, throwing the third 5p leaves a 5m wait
    assert apply(dead1, {"type": "pung", "seat": 1}).seats[1].melds
    hands = ["2345678m111999p5p", "13579m13579p22p5p", "12456789m33p234p", "45m678m777p666p88p"]
    st2 = run(new_hand(0, wall_for(hands)), *voids("s", "s", "s", "s"), {"type": "discard", "seat": 0, "tile": "5p"})
    dead2 = replace(st2, seats=(st2.seats[0], replace(st2.seats[1], dead=True), st2.seats[2], st2.seats[3]))
    with pytest.raises(IllegalEventError, match="only to reach tenpai"):
        apply(dead2, {"type": "pung", "seat": 1})
