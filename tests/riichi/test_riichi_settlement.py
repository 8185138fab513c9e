"""HKMA payments: split, honba, deposits, pao, noten, renchan/honba, final scores and uma (seed 002)."""

from __future__ import annotations

import pytest

from controller.riichi.scoring import Liability, RiichiOptions, RiichiScore, RiichiSituation, payment_split, score_hand
from controller.riichi.settlement import final_scores, next_hand, noten_payments
from mjtable.tiles import parse_hand, tile

E, S = tile("1z"), tile("2z")


def score(value: int, main: int, additional: int = 0) -> RiichiScore:
    return RiichiScore(han=1, fu=30, yaku=(), limit="", value=value, main=main, additional=additional)


def test_non_dealer_tsumo_split_and_honba_L406_L728() -> None:
    # 1300-2600 with one honba is 1400-2700 (L406); winner seat 1, dealer seat 0
    d = payment_split(score(5200, 2600, 1300), winner=1, dealer=0, self_drawn=True, discarder=None, honba=1)
    assert d == (-2700, 5500, -1400, -1400)


def test_dealer_tsumo_thirds_L728() -> None:
    d = payment_split(score(12000, 4000, 4000), winner=0, dealer=0, self_drawn=True, discarder=None)
    assert d == (12000, -4000, -4000, -4000)


def test_ron_discarder_pays_all_with_honba_and_deposits_L727_L442_L47() -> None:
    d = payment_split(score(3900, 3900), winner=2, dealer=0, self_drawn=False, discarder=3, honba=2,
                      riichi_sticks=2)
    assert d == (0, 0, 3900 + 600 + 2000, -4500)
    assert sum(d) == 2000  # the two deposits came off the table


def test_pao_tsumo_liable_pays_all_L735() -> None:
    d = payment_split(score(32000, 16000, 8000), winner=1, dealer=0, self_drawn=True, discarder=None,
                      pao=Liability(3))
    assert d == (0, 32000, 0, -32000)


def test_pao_ron_half_each_L736() -> None:
    d = payment_split(score(32000, 32000), winner=1, dealer=0, self_drawn=False, discarder=2, pao=Liability(3))
    assert d == (0, 32000, -16000, -16000)


def test_real_hand_end_to_end() -> None:
    r = score_hand(parse_hand("123456789m234p5z"), tile("5z"),
                   RiichiSituation(self_drawn=True, seat_wind=S, round_wind=E, riichi=True,
                                   dora_indicators=(tile("1p"),)))
    assert (r.han, r.fu, r.value) == (5, 30, 8000)
    assert payment_split(r, winner=1, dealer=0, self_drawn=True, discarder=None) == (-4000, 8000, -2000, -2000)


@pytest.mark.parametrize(
    ("tenpai", "expected"),
    [
        ((True, False, False, False), (3000, -1000, -1000, -1000)),
        ((True, True, False, False), (1500, 1500, -1500, -1500)),
        ((True, True, True, False), (1000, 1000, 1000, -3000)),
        ((False, False, False, False), (0, 0, 0, 0)),
        ((True, True, True, True), (0, 0, 0, 0)),
    ],
)
def test_noten_payments_L430_L433(tenpai: tuple[bool, ...], expected: tuple[int, ...]) -> None:
    assert noten_payments(tenpai) == expected


def test_renchan_and_honba_L26_L435_L440() -> None:
    h = next_hand(dealer=0, round_no=0, hand_in_round=0, honba=0, dealer_won=True, non_dealer_won=False,
                  dealer_tenpai=False)
    assert (h.dealer, h.honba, h.finished) == (0, 1, False)
    h = next_hand(dealer=0, round_no=0, hand_in_round=0, honba=1, dealer_won=False, non_dealer_won=False,
                  dealer_tenpai=False)
    assert (h.dealer, h.hand_in_round, h.honba) == (1, 1, 2)  # dealer noten: deal passes, honba still +1
    h = next_hand(dealer=2, round_no=0, hand_in_round=2, honba=3, dealer_won=False, non_dealer_won=True,
                  dealer_tenpai=False)
    assert (h.dealer, h.honba) == (3, 0)


def test_half_game_ends_after_south_4_without_renchan_L450() -> None:
    h = next_hand(dealer=3, round_no=1, hand_in_round=3, honba=0, dealer_won=False, non_dealer_won=True,
                  dealer_tenpai=False)
    assert h.finished
    h = next_hand(dealer=3, round_no=1, hand_in_round=3, honba=0, dealer_won=False, non_dealer_won=False,
                  dealer_tenpai=True)
    assert not h.finished  # South 4 dealer tenpai: renchan, play on


def test_final_scores_l19_uma_sum_zero_L19() -> None:
    f = final_scores([45000, 32000, 25000, 18000], 0)
    assert f.ranks == (1, 2, 3, 4)
    assert f.final == (60.0, 7.0, -20.0, -47.0)
    assert sum(f.final) == 0


def test_final_scores_l453_rank_points_A_and_B_L453_L456() -> None:
    a = final_scores([45000, 32000, 25000, 18000], 0, RiichiOptions(uma_mode="l453"))
    assert a.final == (60.0, 17.0, -25.0, -52.0)
    b = final_scores([40000, 27000, 20000, 13000], 0, RiichiOptions(uma_mode="l453", division="B"))
    assert b.final == (60.0, 17.0, -20.0, -57.0)
    assert sum(a.final) == 0 and sum(b.final) == 0


def test_leftover_deposits_to_first_and_ties_split_L47_L448() -> None:
    f = final_scores([40000, 40000, 20000, 18000], 2)
    assert f.raw == (41000, 41000, 20000, 18000)
    assert f.ranks == (1, 1, 3, 4)
    assert f.final[0] == f.final[1] == 6.0 + 30.0  # (41000-35000)/1000 + (50+10)/2
    assert sum(f.final) == pytest.approx(0)


def test_three_way_tie_remainder_to_nearest_first_dealer_L449() -> None:
    # 1000 of deposits over three tied firsts: 400/300/300, remainder to the one nearest the first dealer
    f = final_scores([30000, 30000, 30000, 28000], 1, first_dealer=1)
    assert f.raw == (30300, 30400, 30300, 28000)


def test_false_win_redeal_option_appendix_B4_L647_L657() -> None:
    from controller.riichi.settlement import after_false_win

    assert after_false_win("false", 20) == "redeal"  # >= 20 live tiles (L657)
    assert after_false_win("false", 19) == "play_on"  # fewer: play the hand out (L659)
    assert after_false_win("empty", 5) == "play_on"  # default "threshold"
    assert after_false_win("empty", 5, RiichiOptions(redeal_on_empty_win="always")) == "redeal"  # L647
    with pytest.raises(ValueError):
        after_false_win("bogus", 5)
