"""Sichuan money: kong money and refunds, win payments, 查花猪/查大叫, 盘分 (digest §5, seed 001)."""

from __future__ import annotations

import pytest

from controller.sichuan.penalties import RULES, Category, deduction
from controller.sichuan.settlement import (
    DrawSeat,
    DrawStatus,
    KongType,
    classify,
    kong_money,
    refund_all,
    session_points,
    settle_draw,
    win_payment,
)
from mjtable.tiles import parse_hand

ALL = (0, 1, 2, 3)


def test_called_kong_discarder_pays_2_L490() -> None:
    assert kong_money(0, KongType.CALLED, ALL, discarder=2).deltas == (2, 0, -2, 0)


def test_timely_promoted_kong_1_from_each_still_in_L494() -> None:
    assert kong_money(1, KongType.PROMOTED_TIMELY, (0, 1, 3)).deltas == (-1, 2, 0, -1)


def test_late_promoted_kong_pays_nothing_L496_L500() -> None:
    assert kong_money(1, KongType.PROMOTED_LATE, ALL).deltas == (0, 0, 0, 0)


def test_concealed_kong_2_from_each_still_in_L502() -> None:
    assert kong_money(3, KongType.CONCEALED, ALL).deltas == (-2, -2, -2, 6)


def test_called_kong_needs_a_discarder() -> None:
    with pytest.raises(ValueError):
        kong_money(0, KongType.CALLED, ALL)


def test_ron_discarder_pays_base_L518() -> None:
    assert win_payment(0, 8, self_drawn=False, discarder=3, active=ALL) == (8, 0, 0, -8)


def test_self_draw_base_plus_one_from_players_still_in_L520() -> None:
    # seat 2 already won: only seats 1 and 3 pay
    assert win_payment(0, 4, self_drawn=True, discarder=None, active=(0, 1, 3)) == (10, -5, 0, -5)


def test_refund_all_for_false_win_L784() -> None:
    kongs = [kong_money(0, KongType.CONCEALED, ALL), kong_money(1, KongType.CALLED, ALL, discarder=0)]
    deltas, after = refund_all(0, kongs)
    assert deltas == (-6, 2, 2, 2)
    assert after[0].refunded and not after[1].refunded
    assert refund_all(0, after)[0] == (0, 0, 0, 0)  # never twice


def seat(s: int, hand: str, void: str, **kw: bool) -> DrawSeat:
    return DrawSeat(seat=s, hand=parse_hand(hand), void_suit=void, **kw)


def test_classify_L553_L576() -> None:
    assert classify(seat(0, "111m222m333p44p55p", "s")) is DrawStatus.TENPAI
    assert classify(seat(0, "123m456m789m11p29p", "s")) is DrawStatus.NOT_TENPAI
    # holds a void tile but only ever discarded the void suit: passive pig (L572)
    assert classify(seat(0, "123m456m789m11p2p9s", "s")) is DrawStatus.PASSIVE_PIG
    # holds a void tile after discarding another suit: active pig (L574)
    assert classify(seat(0, "123m456m789m11p2p9s", "s", discarded_other_suit=True)) is DrawStatus.ACTIVE_PIG
    assert classify(seat(0, "111m222m333p44p55p", "s", active_pig_declared=True)) is DrawStatus.ACTIVE_PIG


def test_chajiao_not_tenpai_pays_each_tenpai_player_max_fan_L578() -> None:
    seats = [
        seat(0, "111m222m333p44p55p", "s"),  # 有叫, best wait 大对子 1 fan -> base 2 (example L580)
        seat(1, "123m456m789m11p29p", "s"),  # 没叫
        seat(2, "123m456m789m11p2p9s", "s", discarded_other_suit=True),  # 主动花猪 pays as 没叫
    ]
    res = settle_draw(seats, [])
    assert res.status == {0: DrawStatus.TENPAI, 1: DrawStatus.NOT_TENPAI, 2: DrawStatus.ACTIVE_PIG}
    assert res.chajiao == (4, -2, -2, 0)
    assert res.active_pigs == (2,)
    assert sum(res.deltas) == 0


def test_chajiao_one_suit_plus_root_example_L582() -> None:
    # 清一色 + 根 = 3 fan -> 8
    seats = [seat(0, "1111m234m567m88m9m", "s"), seat(1, "123m456m789m11p29p", "s")]
    res = settle_draw(seats, [])
    assert res.tenpai_fan[0] == 3
    assert res.chajiao == (8, -8, 0, 0)


def test_all_in_same_state_nothing_paid_L594() -> None:
    seats = [seat(0, "123m456m789m11p29p", "s"), seat(1, "123m456m789m11p29p", "p")]
    assert settle_draw(seats, []).deltas == (0, 0, 0, 0)


def test_not_tenpai_kong_player_refunds_L504() -> None:
    kongs = [kong_money(1, KongType.CONCEALED, ALL)]
    seats = [seat(0, "111m222m333p44p55p", "s"), seat(1, "[1111s]123m456m11p29p", "s")]
    res = settle_draw(seats, kongs)
    assert res.kong_refund == (2, -6, 2, 2)
    assert sum(res.deltas) == 0


def test_no_win_player_neither_charges_nor_is_charged_when_tenpai_L654() -> None:
    seats = [seat(0, "111m222m333p44p55p", "s", no_win=True), seat(1, "123m456m789m11p29p", "s")]
    assert settle_draw(seats, []).chajiao == (0, 0, 0, 0)


def test_session_points_4_3_2_1_ties_split_L161() -> None:
    assert session_points([10, -5, 3, -8]) == [4, 2, 3, 1]
    assert session_points([5, 5, 0, -10]) == [3.5, 3.5, 2, 1]


def test_penalty_categories_L610_L612() -> None:
    assert deduction(RULES["active_pig"]) == 24
    assert RULES["active_pig"].no_win
    assert deduction(RULES["false_win"]) == 24 and RULES["false_win"].refund_kongs
    assert deduction(RULES["empty_win"], minor_points=3) == 3
    assert RULES["early_draw"].category is Category.WARNING and deduction(RULES["early_draw"]) == 0
    with pytest.raises(ValueError):
        deduction(RULES["empty_win"], minor_points=9)
