"""A riichi hand step by step (HKMA 2025 procedure, seed lines) and whole simulated half-games."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from controller.riichi.simulate import bench_ruleset, play_half_game, replay_hand
from controller.riichi.table import HandState, IllegalEventError, apply, furiten, new_hand, table_tiles
from mjtable.tiles import RIICHI_TILESET, Tile, parse_tiles

# dealer seat 0 throws 1p (with or without riichi); seats 2 and 3 both wait on 1p; seat 1 holds four 7z
HANDS = ["123456789m122p33z", "7777z1357m2468p1s", "23p555z456s789s11s", "666z123s456s789s1p"]


def wall_for(hands: list[str], draws: str = "") -> list[Tile]:
    hs = [parse_tiles(h) for h in hands]
    assert [len(h) for h in hs] == [14, 13, 13, 13]
    wall: list[Tile] = []
    for r in range(3):
        for s in range(4):
            wall.extend(hs[s][4 * r:4 * r + 4])
    wall.extend(hs[0][12:14])
    wall.extend(h[12] for h in hs[1:])
    wall.extend(parse_tiles(draws) if draws else [])
    rest = Counter(RIICHI_TILESET.all_tiles())
    rest.subtract(Counter(wall))
    assert all(v >= 0 for v in rest.values())
    wall.extend(sorted(rest.elements()))
    return wall


def run(st: HandState, *events: dict[str, Any]) -> HandState:
    for ev in events:
        st = apply(st, ev)
        assert sorted(table_tiles(st)) == sorted(RIICHI_TILESET.all_tiles())
    return st


def start() -> HandState:
    return new_hand(0, wall_for(HANDS, draws="9m"))


def test_deal_and_dead_wall_L23_L244() -> None:
    st = start()
    assert [len(x.concealed) for x in st.seats] == [14, 13, 13, 13]
    assert len(st.dead) == 14 and len(st.live) == 136 - 14 - 53
    assert st.dora_indicators() == (st.dead[4],)


def test_head_bump_and_ronned_riichi_tile_pays_no_deposit_L371_L415() -> None:
    st = run(start(), {"type": "discard", "seat": 0, "tile": "1p", "riichi": True})
    st = run(st, {"type": "ron", "seats": [3, 2]})
    assert st.winner == 2  # nearest to the discarder in turn order
    assert st.sticks == 0 and st.totals() == (-1300, 0, 1300, 0)  # haku 1 han 40 fu, no riichi stick


def test_riichi_deposit_furiten_and_kan_dora_L366_L393_L37() -> None:
    st = run(start(), {"type": "discard", "seat": 0, "tile": "1p", "riichi": True}, {"type": "pass"})
    assert st.sticks == 1 and st.totals() == (-1000, 0, 0, 0)
    assert st.seats[0].riichi and st.seats[0].ippatsu
    assert furiten(st, 2) and furiten(st, 3)  # they let 1p go: temporary furiten (L393)
    st = run(st, {"type": "draw", "seat": 1})
    assert not furiten(st, 1)
    st = run(st, {"type": "kan", "seat": 1, "tile": "7z", "kind": "concealed"})
    assert st.kans == 1 and len(st.dora_indicators()) == 2  # kan dora at once (L37)
    assert len(st.dead) - st.kans == 14 and st.rinshan  # dead wall stays 14; replacement drawn
    assert not st.seats[0].ippatsu  # a kan in the go-around cancels ippatsu (L769)
    st = run(st, {"type": "discard", "seat": 1, "tile": "9m"}, {"type": "pass"}, {"type": "draw", "seat": 2})
    assert not st.seats[2].temp_furiten  # own next draw clears temporary furiten
    assert st.seats[3].temp_furiten


def test_chi_only_from_the_left_and_riichi_rules_L309_L363_L367() -> None:
    st = run(start(), {"type": "discard", "seat": 0, "tile": "2p"})
    with pytest.raises(IllegalEventError, match="left"):
        apply(st, {"type": "chi", "seat": 2, "tiles": ["3p", "4p"]})
    with pytest.raises(IllegalEventError, match="tenpai"):
        apply(start(), {"type": "discard", "seat": 0, "tile": "3z", "riichi": True})


@pytest.mark.parametrize("seed", range(3))
def test_simulated_half_games_conserve_tiles_zero_sum_and_replay(seed: int) -> None:
    hg = play_half_game(seed)  # play_hand checks that all 136 tiles are on the table after every event
    for h in hg.hands:
        st = h.state
        assert st is not None and st.phase == "over"
        # zero sum including the riichi deposits on the table
        assert all(sum(line.deltas) + line.to_table == 0 for line in st.ledger)
        assert sum(st.totals()) + 1000 * (st.sticks - h.sticks) == 0
        assert replay_hand(h) == st
        journal = json.loads(json.dumps(h.events))  # the events survive a JSON journal unchanged
        assert journal == h.events
    start_points = 30000
    assert sum(hg.points) + 1000 * hg.leftover_sticks == 4 * start_points
    assert sum(hg.final.final) == pytest.approx(0)


def test_bench_figures() -> None:
    out = bench_ruleset(games=1)
    assert out["hands"] >= 8 and out["hands_per_s"] > 0


def test_pao_for_big_three_dragons_ron_half_each_L730_L736() -> None:
    hands = ["5z13579m13579p246s", "55z66z77z123m4m19p9s", "67z2468m1357p259s", "4m369m2468p13578s"]
    st = new_hand(0, wall_for(hands, draws="1z2z3z4z"))
    st = run(st, {"type": "discard", "seat": 0, "tile": "5z"}, {"type": "pon", "seat": 1},
             {"type": "discard", "seat": 1, "tile": "1p"}, {"type": "pass"},
             {"type": "draw", "seat": 2}, {"type": "discard", "seat": 2, "tile": "6z"}, {"type": "pon", "seat": 1},
             {"type": "discard", "seat": 1, "tile": "9p"}, {"type": "pass"},
             {"type": "draw", "seat": 2}, {"type": "discard", "seat": 2, "tile": "7z"}, {"type": "pon", "seat": 1})
    assert st.pao[1] == (2, "Daisangen")  # seat 2 fed the third dragon set
    st = run(st, {"type": "discard", "seat": 1, "tile": "9s"}, {"type": "pass"},
             {"type": "draw", "seat": 2}, {"type": "discard", "seat": 2, "tile": "2s"}, {"type": "pass"},
             {"type": "draw", "seat": 3}, {"type": "discard", "seat": 3, "tile": "4m"},
             {"type": "ron", "seats": [1]})
    assert st.winner == 1
    assert st.totals() == (0, 32000, -16000, -16000)  # liable and discarder pay half each (L736)


def test_tenhou_on_the_dealt_hand_L916() -> None:
    st = new_hand(0, wall_for(["123456789m11199p", *HANDS[1:]]))
    st = run(st, {"type": "tsumo", "seat": 0})
    assert st.totals() == (48000, -16000, -16000, -16000)  # dealer yakuman = 1.5 x 32000 (L226)
