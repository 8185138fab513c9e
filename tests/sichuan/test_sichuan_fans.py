"""The ten Sichuan SBR 2025 fans, the cap and the win conditions (seed 001_2f25afa9281b00ab.txt)."""

from __future__ import annotations

import pytest

from controller.sichuan.fans import (
    FAN_TYPES,
    NotWinningHand,
    SichuanOptions,
    WinSituation,
    base_points,
    max_tenpai_fan,
    score_win,
    winning_tiles,
)
from mjtable.tiles import parse_hand, tile

RON = WinSituation(self_drawn=False)


def fans_of(hand: str, win: str, sit: WinSituation = RON, void: str | None = None) -> dict[str, int]:
    s = score_win(parse_hand(hand), tile(win), sit, void_suit=void)
    return {h.fan.key: h.total for h in s.fans}


def test_exactly_ten_fans_L522() -> None:
    assert len(FAN_TYPES) == 10
    assert {f.value for f in FAN_TYPES} == {1, 2}


@pytest.mark.parametrize(
    ("hand", "win", "sit", "expected", "cite"),
    [
        # 平和: no fan, base 1 (L512)
        ("123m456m789m11p23p", "4p", RON, {}, "L512"),
        # ① 杠 1 per declared kong; two kongs = 2 (L526, example L527)
        ("[1111m][2222m]345p67p99p", "8p", RON, {"kong": 2}, "L527"),
        # ② 根: four alike not declared as a kong, 1 each (L528); pung + the fourth in hand (example L529)
        ("[555p]345p678m99m11p", "9m", RON, {"root": 1}, "L528"),
        # ③ 大对子 (L531)
        ("[111m]222p333p444p5p", "5p", RON, {"all_triplets": 1}, "L531"),
        # ④ 金钩钩: four melds, single tile, 杠 + 大对子 + 金钩钩 (example L537)
        ("[1111m][222m][555p][777p]9p", "9p", RON, {"kong": 1, "all_triplets": 1, "golden_hook": 1}, "L537"),
        # ⑤ 清一色 2 + 根 1 (example L539)
        ("[111m]12345678m99m", "9m", RON, {"root": 1, "one_suit": 2}, "L539"),
        # 大对子 + 清一色 (example L540)
        ("[111m]222333m44m55m", "5m", RON, {"all_triplets": 1, "one_suit": 2}, "L540"),
        # ⑥ 七对 2 (example L543); a four inside seven pairs is 根 (example L530)
        ("1133557799m22p4p", "4p", RON, {"seven_pairs": 2}, "L543"),
        ("1111m335577m22p4p", "4p", RON, {"root": 1, "seven_pairs": 2}, "L530"),
        # 清一色 + 七对 = 4 (example L541)
        ("1133557799m224m", "4m", RON, {"one_suit": 2, "seven_pairs": 2}, "L541"),
        # ⑦ 杠上花 counts as a self-draw (L544)
        ("[1111m]345p678p99p22p", "2p", WinSituation(True, kong_replacement=True), {"kong": 1, "kong_bloom": 1},
         "L544"),
        # ⑧ 杠上炮 (L545)
        ("123m456m789m11p23p", "4p", WinSituation(False, after_kong=True), {"kong_discard": 1}, "L545"),
        # ⑨ 抢杠 (L546)
        ("123m456m789m11p23p", "4p", WinSituation(False, robbing_kong=True), {"rob_kong": 1}, "L546"),
        # ⑩ 海底 self-drawn or on a discard after the wall ran out (L547)
        ("123m456m789m11p23p", "4p", WinSituation(True, last_tile=True), {"last_tile": 1}, "L547"),
    ],
)
def test_fan_table(hand: str, win: str, sit: WinSituation, expected: dict[str, int], cite: str) -> None:
    assert fans_of(hand, win, sit) == expected, cite


def test_base_points_and_cap_L512_L516() -> None:
    assert [base_points(f) for f in range(6)] == [1, 2, 4, 8, 8, 8]
    assert base_points(4, cap_fan=4) == 16


def test_cap_is_configurable_and_example_L541_is_capped_to_8() -> None:
    s = score_win(parse_hand("1133557799m224m"), tile("4m"), RON)
    assert (s.fan, s.capped_fan, s.base) == (4, 3, 8)
    s5 = score_win(parse_hand("1133557799m224m"), tile("4m"), RON, options=SichuanOptions(cap_fan=5))
    assert (s5.capped_fan, s5.base) == (4, 16)


def test_robbing_on_kong_discard_option_L545() -> None:
    sit = WinSituation(False, after_kong=True, robbing_kong=True)
    assert "rob_kong" not in fans_of("123m456m789m11p23p", "4p", sit)
    s = score_win(parse_hand("123m456m789m11p23p"), tile("4p"), sit,
                  options=SichuanOptions(rob_on_kong_discard_scores_both=True))
    assert {h.fan.key for h in s.fans} == {"kong_discard", "rob_kong"}


@pytest.mark.parametrize(
    ("hand", "win", "void", "why"),
    [
        ("123m456p789s11m23m", "4m", None, "three suits (L450)"),
        ("123m456m789m11p23p", "4p", "p", "holds the missing suit (L342)"),
        ("123m456m789m11p23p", "9p", None, "no winning shape (L444)"),
        ("[123m]456m789m11p2p", "2p", None, "no chow (L426)"),
    ],
)
def test_not_winning(hand: str, win: str, void: str | None, why: str) -> None:
    with pytest.raises(NotWinningHand):
        score_win(parse_hand(hand), tile(win), RON, void_suit=void)


def test_honour_tiles_are_rejected_L64() -> None:
    with pytest.raises(ValueError, match="not a Sichuan tile"):
        score_win(parse_hand("123m456m789m11p23z"), tile("4p"), RON)


def test_best_reading_seven_pairs_over_basic() -> None:
    # 22 33 44m 55 66 77 88p is seven pairs (2 fan) or 234m 234m 567p 567p 88p (0 fan): the best is used
    r = score_win(parse_hand("223344m5566778p"), tile("8p"), RON)
    assert {h.fan.key for h in r.fans} == {"seven_pairs"}


def test_waits_exclude_tiles_all_held_L560() -> None:
    # 111m + a lone 1m waits only on the fifth 1m: not tenpai
    assert winning_tiles(parse_hand("1111m456p789p234p")) == []
    assert [t.code for t in winning_tiles(parse_hand("1111m23m456p789p5p"))] == ["5p"]


def test_tenpai_fan_leaves_out_situational_fans_L578() -> None:
    # 大对子 wait (L580 example 1): 111m 222m 333p 44p 5p? -> shanpon 44p/55p
    assert max_tenpai_fan(parse_hand("111m222m333p44p55p"), "s") == 1
    assert max_tenpai_fan(parse_hand("123m456m789m11p24p"), "s") == 0
    assert max_tenpai_fan(parse_hand("123m456m789m11p29p"), "s") is None
