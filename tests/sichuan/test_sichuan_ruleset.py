"""Sichuan SBR 2025 through the engine's Ruleset protocol."""

from __future__ import annotations

from controller.engine.registry import ruleset_for
from controller.engine.ruleset import ClaimKind, FalseWinKind, Ruleset, WinSituation
from controller.sichuan import RULESET as EXPORTED
from controller.sichuan.ruleset import SichuanRuleset
from mjtable.tiles import parse_hand, tile

E, S = tile("1z"), tile("2z")
RULESET = SichuanRuleset()


def sit(**kw: object) -> WinSituation:
    base: dict[str, object] = {"winner": 0, "win_tile": tile("4p"), "self_drawn": False, "discarder": 2,
                               "seat_wind": E, "round_wind": E}
    base.update(kw)
    return WinSituation(**base)  # type: ignore[arg-type]


def test_registry_and_protocol() -> None:
    r = ruleset_for("sichuan-sbr-2025")
    assert isinstance(r, Ruleset) and isinstance(r, SichuanRuleset)
    assert isinstance(EXPORTED, SichuanRuleset) and isinstance(RULESET, Ruleset)
    assert r.tileset.total == 108  # L64
    assert sum(2 * n for n in RULESET.wall_stacks()) == 108  # 14/13/14/13 stacks (L310)
    assert r.timers.claim_s == 3.0  # L428


def test_claims_no_chow_and_win_first_L426_L434() -> None:
    assert ClaimKind.CHOW not in RULESET.claim_kinds()
    assert RULESET.claim_priority(ClaimKind.WIN) > RULESET.claim_priority(ClaimKind.PUNG)
    assert RULESET.claim_priority(ClaimKind.PUNG) == RULESET.claim_priority(ClaimKind.KONG)
    assert RULESET.multiple_winners()
    assert not RULESET.claim_allowed(ClaimKind.PUNG, tile("5s"), "s")
    assert RULESET.claim_allowed(ClaimKind.PUNG, tile("5p"), "s")


def test_bloody_battle_until_three_winners_L466() -> None:
    assert [RULESET.hand_continues_after_win(n) for n in (1, 2, 3)] == [True, True, False]


def test_next_dealer_L478_L482() -> None:
    assert RULESET.next_dealer(0, [2, 3], exhaustive=False) == (2, False)
    assert RULESET.next_dealer(1, [], exhaustive=True) == (1, False)
    assert RULESET.next_dealer_after(0, [1, 3], discarder=2) == 2
    assert RULESET.next_dealer_after(0, [3], discarder=2) == 3


def test_dice_L322_L328() -> None:
    assert [RULESET.dice_to_seat(0, t) for t in (5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12)] == [0, 0, 1, 1, 1, 2, 2,
                                                                                          2, 3, 3, 3]


def test_check_win_and_payments() -> None:
    hand = parse_hand("123m456m789m11p23p")
    check = RULESET.check_win(hand, sit())
    assert check.ok and check.total == 0
    assert RULESET.payments(check, sit()) == (1, 0, -1, 0)
    tsumo = sit(self_drawn=True, discarder=None)
    assert RULESET.payments(RULESET.check_win(hand, tsumo), tsumo) == (6, -2, -2, -2)
    bad = RULESET.check_win(hand, sit(win_tile=tile("9p")))
    assert not bad.ok and bad.false_win is FalseWinKind.WRONG_TILE


def test_void_suit_and_active_seats_from_the_situation() -> None:
    check = RULESET.check_win(parse_hand("123m456m789m11p23p"), sit(void_suit="p"))
    assert not check.ok and "missing suit" in check.reason
    hand = parse_hand("123m456m789m11p23p")
    tsumo = sit(self_drawn=True, discarder=None, active=(0, 1, 3))  # seat 2 already won: it does not pay
    assert RULESET.payments(RULESET.check_win(hand, tsumo), tsumo) == (4, -2, 0, -2)
    kong = sit(after_kong_discard=True)  # 杠上炮 (L545)
    assert RULESET.check_win(hand, kong).fans == (("Win on Discard after Kong", 1, 1),)


def test_active_pig_discard_check_L352() -> None:
    hand = parse_hand("123m456m789m11p2p9s")
    assert RULESET.discard_violation(hand, tile("1m"), "s") is not None
    assert RULESET.discard_violation(hand, tile("9s"), "s") is None
    assert RULESET.choose_void(hand) == "s"


def test_ranking_points() -> None:
    assert RULESET.ranking_points([3, 1, -2, -2]) == (4.0, 3.0, 1.5, 1.5)


def test_one_throw_break_point_and_draw_timing_L318_L332_L430() -> None:
    assert RULESET.break_point(0, (2, 5)) == (2, 2)  # 7 -> opposite wall, smaller die 2
    assert RULESET.break_point(1, (6, 6)) == (0, 6)  # 12 -> the dealer's 上家
    assert RULESET.draw_within_s == 3.0
