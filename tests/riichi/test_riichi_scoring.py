"""HKMA 2025 riichi yaku, fu, limits and options through the ``mahjong`` wrapper (seed 002_40e04c10307d973b.txt)."""

from __future__ import annotations

import pytest

from controller.riichi.scoring import DEFAULT_OPTIONS, NotWinningHand, RiichiOptions, RiichiSituation, score_hand
from mjtable.tiles import Tile, parse_hand, parse_tiles, tile

E, S, W = tile("1z"), tile("2z"), tile("3z")


def run(hand: str, win: str, *, options: RiichiOptions = DEFAULT_OPTIONS, seat: Tile = S, rnd: Tile = E,
        tsumo: bool = False, dora: str = "", ura: str = "", **flags: bool) -> tuple[dict[str, int], int, int, int]:
    sit = RiichiSituation(self_drawn=tsumo, seat_wind=seat, round_wind=rnd,
                          dora_indicators=tuple(parse_tiles(dora)), ura_indicators=tuple(parse_tiles(ura)), **flags)
    r = score_hand(parse_hand(hand), tile(win), sit, options)
    return dict(r.yaku), r.han, r.fu, r.value


@pytest.mark.parametrize(
    ("hand", "win", "kw", "yaku", "cite"),
    [
        ("123m456m789p234s5s", "5s", {"riichi": True}, {"Riichi": 1}, "L768"),
        ("123m456m789p234s5s", "5s", {"riichi": True, "ippatsu": True}, {"Riichi": 1, "Ippatsu": 1}, "L769"),
        ("123m456m789p234s5s", "5s", {"tsumo": True}, {"Menzen Tsumo": 1}, "L770"),
        ("123m456m789p23s55s", "4s", {}, {"Pinfu": 1}, "L771"),
        ("[234m]567m345p678s5s", "5s", {}, {"Tanyao": 1}, "L779 open tanyao (L15)"),
        ("112233m456p789s5s", "5s", {}, {"Iipeiko": 1}, "L787"),
        ("[555z]123m456p789s1s", "1s", {}, {"Yakuhai (haku)": 1}, "L793"),
        ("[111z]123m456p789s1s", "1s", {"seat": E}, {"Yakuhai (seat wind east)": 1, "Yakuhai (round wind east)": 1},
         "L793 double wind"),
        ("[9999m]123m456p789s1s", "1s", {"tsumo": True, "rinshan": True}, {"Rinshan Kaihou": 1}, "L794"),
        ("[123m]456m456p789s1s", "1s", {"chankan": True}, {"Chankan": 1}, "L795"),
        ("[123m]456m456p789s1s", "1s", {"tsumo": True, "haitei": True}, {"Haitei Raoyue": 1}, "L796"),
        ("[123m]456m456p789s1s", "1s", {"houtei": True}, {"Houtei Raoyui": 1}, "L797"),
        ("[123m]123p123s567s5s", "5s", {}, {"Sanshoku Doujun": 1}, "L801 open -1"),
        ("[123m]456m789m123s1s", "1s", {}, {"Ittsu": 1}, "L805 open -1"),
        ("[123m]789m123p789s1z", "1z", {}, {"Chantai": 1}, "L811 open -1"),
        ("1133m5577p22s44z6z", "6z", {}, {"Chiitoitsu": 2}, "L817"),
        ("[111m][333p]444s55s66s", "5s", {}, {"Toitoi": 2}, "L821"),
        ("111m333p444s67s55s", "8s", {}, {"San Ankou": 2}, "L822"),
        ("[1111m][3333p][4444s]55s67s", "8s", {}, {"San Kantsu": 2}, "L823"),
        ("[111m]111p111s567s8s", "8s", {}, {"Sanshoku Doukou": 2}, "L824"),
        ("[111m]999p333z44z99s", "9s", {}, {"Toitoi": 2, "Honroutou": 2}, "L834"),
        ("[555z][666z]77z123m45p", "6p", {}, {"Yakuhai (haku)": 1, "Yakuhai (hatsu)": 1, "Shou Sangen": 2},
         "L844"),
        ("123m456m789p234s5s", "5s", {"double_riichi": True}, {"Double Riichi": 2}, "L854 replaces riichi"),
        ("[123m]456m789m333z1m", "1m", {}, {"Ittsu": 1, "Honitsu": 2}, "L858 open 2"),
        ("[123m]789m123p789s1s", "1s", {}, {"Junchan": 2}, "L864 open 2"),
        ("112233m556677p1s", "1s", {}, {"Ryanpeikou": 3}, "L872"),
        ("[123m]456m789m1112m", "2m", {}, {"Ittsu": 1, "Chinitsu": 5}, "L880 open 5"),
    ],
)
def test_yaku_table(hand: str, win: str, kw: dict[str, bool], yaku: dict[str, int], cite: str) -> None:
    got, _han, _fu, _value = run(hand, win, **kw)  # type: ignore[arg-type]
    assert got == yaku, cite


@pytest.mark.parametrize(
    ("hand", "win", "kw", "name", "cite"),
    [
        ("19m19p19s1234567z", "1m", {}, "Kokushi Musou", "L892"),
        ("111m222p333s444m5z", "5z", {"tsumo": True}, "Suu Ankou", "L893 single wait = single yakuman"),
        ("[555z][666z]77z123m44p", "7z", {}, "Daisangen", "L894"),
        ("[111z][222z]333z44z55m", "5m", {}, "Shousuushii", "L895"),
        ("[111z][222z]333z44z55m", "4z", {}, "Dai Suushii", "L901 single"),
        ("[222s][333s]444s66s88s", "8s", {}, "Ryuuiisou", "L903"),
        ("[111m][999m]111p99p99s", "9s", {}, "Chinroutou", "L907"),
        ("1112345678999m", "5m", {}, "Chuuren Poutou", "L908 no double"),
        ("[1111m][2222p][3333s][4444s]5m", "5m", {}, "Suu Kantsu", "L912"),
    ],
)
def test_yakuman_are_single(hand: str, win: str, kw: dict[str, bool], name: str, cite: str) -> None:
    got, han, _fu, value = run(hand, win, **kw)  # type: ignore[arg-type]
    assert name in got, cite
    assert han == 13 and value == 32000, cite  # non-dealer yakuman 32000 (L932), no double (L59)


def test_tsuuiisou_and_composite_option_L61_L729() -> None:
    hand, win = "[111z][222z][333z]55z44z", "4z"  # daisuushii + tsuuiisou + toitoi
    got, han, _fu, value = run(hand, win)
    assert {"Dai Suushii", "Tsuu Iisou"} <= set(got)
    assert (han, value) == (13, 32000)  # default: composite yakuman score one yakuman (L729)
    _got, han2, _fu2, value2 = run(hand, win, options=RiichiOptions(composite_yakuman=True))
    assert (han2, value2) == (26, 64000)  # L61 reading


def test_dora_red_five_and_ura_L162_L165() -> None:
    # L165: one 4s indicator + red 5s = 2 han of dora
    got, han, _fu, _v = run("123m456m789p340s6s", "6s", dora="4s", riichi=True)
    assert got["Dora"] == 1 and got["Aka Dora"] == 1
    # two 4s indicators + red 5s = 3 han
    got2, _h, _f, _v2 = run("123m456m789p340s6s", "6s", dora="4s4s", riichi=True)
    assert got2["Dora"] == 2 and got2["Aka Dora"] == 1
    got3, _h3, _f3, _v3 = run("123m456m789p340s6s", "6s", ura="1m", riichi=True)
    assert got3["Ura Dora"] == 1
    assert han >= 3


def test_dora_is_not_a_yaku_L166() -> None:
    with pytest.raises(NotWinningHand):
        run("[234m]567m345p678s1s", "1s", dora="1s")  # no yaku: terminals break tanyao


def test_ura_without_riichi_is_rejected() -> None:
    with pytest.raises(NotWinningHand, match="ura"):
        run("123m456m789p234s5s", "5s", ura="1m")


def test_riichi_needs_closed_hand_L363() -> None:
    with pytest.raises(NotWinningHand, match="closed"):
        run("[234m]567m345p678s5s", "5s", riichi=True)


def test_pinfu_tsumo_20_fu_and_chiitoitsu_25_fu_L749_L750() -> None:
    assert run("123m456m789p23s55s", "4s", tsumo=True)[2] == 20
    assert run("1133m5577p22s44z6z", "6z")[2] == 25


def test_chiitoitsu_needs_seven_different_pairs_L817() -> None:
    with pytest.raises(NotWinningHand):
        run("1111m5577p22s44z6z", "6z")


def test_double_wind_pair_is_2_fu_not_4_L758() -> None:
    # dealer in the East round, pair of East, concealed 999m, closed ron on a two-sided wait:
    # 20 + 10 (closed ron) + 8 (concealed terminal triplet) + 2 (double wind pair, HKMA) = 40;
    # the package's 4-fu reading would give 42 -> 50
    _y, _h, fu, _v = run("999m456m789p23s11z", "4s", seat=E, riichi=True)
    assert fu == 40
    # a guest-wind pair is 0 fu, a single seat-wind pair 2
    assert run("999m456m789p23s33z", "4s", seat=S, riichi=True)[2] == 40
    assert run("999m456m789p23s22z", "4s", seat=S, riichi=True)[2] == 40


def test_kiriage_mangan_4han30fu() -> None:
    # L740 says no kiriage (7700), L56/L752/L927/L940 say mangan: open tanyao + 3 dora, 20 + 2 (open simple
    # triplet) -> 30 fu, 4 han
    args = ("[222m]567p234s66s78s", "6s")
    _y, han, fu, value = run(*args, dora="4p4p4p")
    assert (han, fu, value) == (4, 30, 8000)
    _y2, han2, fu2, value2 = run(*args, dora="4p4p4p", options=RiichiOptions(kiriage_mangan=False))
    assert (han2, fu2, value2) == (4, 30, 7700)


def test_no_kazoe_yakuman_top_is_sanbaiman_L60() -> None:
    # chinitsu (6) + ryanpeikou (3) + riichi + tsumo + tanyao + pinfu + 8 dora: far more than 13 han, still
    # sanbaiman 24000
    _y, han, _fu, value = run("2233445566778m", "8m", riichi=True, tsumo=True, dora="1m1m1m1m")
    assert han >= 13 and value == 24000


def test_dealer_ron_is_one_and_a_half_L226() -> None:
    _y, _h, _f, dealer = run("123m456m789p23s55s", "4s", seat=E, riichi=True)
    _y2, _h2, _f2, non = run("123m456m789p23s55s", "4s", seat=S, riichi=True)
    assert (non, dealer) == (2000, 2900)  # 2 han 30 fu (L921, L934)
