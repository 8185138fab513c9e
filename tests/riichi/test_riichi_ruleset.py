"""HKMA riichi through the engine's Ruleset protocol (seed 002 lines)."""

from __future__ import annotations

from typing import Any

from controller.engine.registry import ruleset_for
from controller.engine.ruleset import ClaimKind, FalseWinKind, Ruleset, WinSituation
from controller.riichi import RULESET as EXPORTED
from controller.riichi.ruleset import RiichiRuleset
from mjtable.tiles import parse_hand, parse_tiles, tile

E, S = tile("1z"), tile("2z")
R = RiichiRuleset()


def sit(**kw: Any) -> WinSituation:
    base: dict[str, Any] = {"winner": 1, "win_tile": tile("5z"), "self_drawn": True, "discarder": None,
                            "seat_wind": S, "round_wind": E, "dealer": 0}
    base.update(kw)
    return WinSituation(**base)


def test_registry_protocol_and_geometry_L23_L106() -> None:
    r = ruleset_for("riichi-hkma-2025")
    assert isinstance(r, Ruleset) and isinstance(r, RiichiRuleset) and isinstance(EXPORTED, RiichiRuleset)
    assert r.tileset.total == 136 and r.tileset.red_fives == (1, 1, 1)
    assert r.wall.dead_wall == 14 and r.wall.stacks_per_side * 8 == 136
    assert r.timers.claim_s == 3.0  # no number in the seed (L33): default 3 s


def test_claims_L309_L414_L415() -> None:
    assert R.claim_priority(ClaimKind.WIN) > R.claim_priority(ClaimKind.PUNG) == R.claim_priority(ClaimKind.KONG)
    assert R.claim_priority(ClaimKind.KONG) > R.claim_priority(ClaimKind.CHOW)
    assert not R.multiple_winners()  # head bump
    assert not R.hand_continues_after_win(1)


def test_check_win_and_payment_split_with_dora_honba_and_sticks() -> None:
    hand = parse_hand("123456789m234p5z")
    s = sit(riichi=True, dora_indicators=tuple(parse_tiles("1p")), honba=1, riichi_sticks=2)
    check = R.check_win(hand, s)
    assert check.ok and check.total == 8000  # mangan (5 han)
    assert ("Riichi", 1, 1) in check.fans
    # non-dealer tsumo 2000/4000 + 100 per payer per honba, plus 2 deposits
    assert R.payments(check, s) == (-4100, 8300 + 2000, -2100, -2100)


def test_odd_tsumo_split_is_exact_L728() -> None:
    # 1 han 30 fu non-dealer tsumo: 300/500 (L921); the value 1100 splits back exactly
    hand = parse_hand("123m456m789p23s55s")  # wait 1s/4s: menzen tsumo + pinfu = 2 han 20 fu: 400/700
    s = sit(win_tile=tile("4s"))
    check = R.check_win(hand, s)
    assert check.total == 1500
    assert R.payments(check, s) == (-700, 1500, -400, -400)


def test_no_yaku_and_furiten_are_false_wins_L149_L391() -> None:
    hand = parse_hand("123m456m234p789p3z")
    bad = R.check_win(hand, sit(win_tile=tile("3z"), self_drawn=False, discarder=2))
    assert not bad.ok and bad.false_win is FalseWinKind.UNDER_MINIMUM
    furiten = R.check_win(parse_hand("123456789m234p5z"), sit(self_drawn=False, discarder=2, furiten=True))
    assert not furiten.ok and furiten.false_win is FalseWinKind.DEAD_HAND


def test_pao_ron_half_each_L736() -> None:
    hand = parse_hand("[555z][666z]77z123m44p")
    s = sit(win_tile=tile("7z"), self_drawn=False, discarder=2, pao=3)
    check = R.check_win(hand, s)
    assert check.total == 32000
    assert R.payments(check, s) == (0, 32000, -16000, -16000)


def test_riichi_conditions_and_hooks_L363_L428_L435() -> None:
    h14 = parse_hand("123456789m122p33z")
    assert R.can_riichi(h14, tile("1p"), live_tiles_left=5)
    assert not R.can_riichi(h14, tile("3z"), live_tiles_left=5)  # not tenpai after it
    assert not R.can_riichi(h14, tile("1p"), live_tiles_left=0)
    assert not R.can_riichi(parse_hand("[123m]456789m122p33z"), tile("1p"), live_tiles_left=5)  # open
    assert R.noten_payments([True, False, True, False]) == (1500, -1500, 1500, -1500)
    nxt = R.next_hand(dealer=0, round_no=0, hand_in_round=0, honba=0, dealer_won=False, non_dealer_won=False,
                      dealer_tenpai=True)
    assert (nxt.dealer, nxt.honba) == (0, 1)
    assert R.furiten(parse_hand("123456789m22p33z"), parse_tiles("2p"))  # discard furiten (L392)
    assert not R.furiten(parse_hand("123456789m22p33z"), parse_tiles("4p"))
    assert R.start_points() == 30000
    # start 30000 added: 45000/35000/25000/15000 -> (p - 35000)/1000 + 50/10/-10/-30 (L19)
    assert R.ranking_points([15000, 5000, -5000, -15000]) == (60.0, 10.0, -20.0, -50.0)
