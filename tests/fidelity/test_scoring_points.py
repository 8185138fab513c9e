"""Issue 16 points 11 and 12: concealed kongs in 2017 (暗部/明部, [003:L45@4885]) and 2006's 三杠 "暗杠加计"
([004:L306], read like 四杠's [004:L294])."""

from __future__ import annotations

from controller.mcr import WinContext, score_hand
from mjtable.tiles import parse_hand, tile


def _fans(rules: str, hand: str, win: str) -> tuple[int, dict[str, int]]:
    ctx = WinContext(win_tile=tile(win), self_drawn=False, seat_wind=tile("4z"), round_wind=tile("4z"))
    res = score_hand(parse_hand(hand, expect_size=13), ctx, rules)
    return res.total, {f.name: f.points * f.count for f in res.fans}


def test_2017_two_concealed_kongs_split_into_concealed_pungs_then_melded_kongs() -> None:
    """[003:L45@4885] 二暗杠: 先计暗刻分(暗杠暗部), 后计明杠分(暗杠明部): Two Concealed Pungs 2 + Two Melded
    Kongs 4 instead of Two Concealed Kongs 8; the issue's hand scores 12, not 14."""
    total, fans = _fans("mcr-2017", "{2222m}{8888p}234s567s5s", "5s")
    assert fans.get("Two Concealed Pungs") == 2 and fans.get("Two Melded Kongs") == 4
    assert "Two Concealed Kongs" not in fans
    assert total == 12


def test_2017_three_and_four_concealed_kongs_are_unchanged_by_the_split() -> None:
    """Three: 三暗刻 16 + 三杠 32; four: 四暗刻 64 + 四杠 88 = 152 (the seed's own figure, [003:L45@5021])."""
    _, fans = _fans("mcr-2017", "{1111m}{2222p}{3333s}567s5z", "5z")
    assert fans["Three Kongs"] == 32 and fans["Three Concealed Pungs"] == 16
    _, fans = _fans("mcr-2017", "{1111m}{2222p}{3333s}{4444z}5z", "5z")
    assert fans["Four Kongs"] + fans["Four Concealed Pungs"] == 152


def test_2006_and_1998_two_concealed_kongs_keep_their_fan() -> None:
    assert _fans("mcr-2006", "{2222m}{8888p}234s567s5s", "5s")[1]["Two Concealed Kongs"] == 8
    assert _fans("mcr-1998", "{2222m}{8888p}234s567s5s", "5s")[1]["Two Concealed Kongs"] == 6


def test_2006_three_kongs_adds_the_concealed_kongs_like_four_kongs() -> None:
    """[004:L306] 三杠 (暗杠加计), the same words as 四杠 [004:L294]: the concealed kongs are scored beside it."""
    total, fans = _fans("mcr-2006", "[1111m]{2222p}{3333s}567s5z", "5z")
    assert fans["Three Kongs"] == 32 and fans["Two Concealed Kongs"] == 8 and "Two Concealed Pungs" not in fans
    assert total == 50
    _, fans = _fans("mcr-2006", "[1111m][2222p]{3333s}567s5z", "5z")
    assert fans["Concealed Kong"] == 2
    # 1998 has no such words for 三杠 [000:L582]: no kong fan beside it
    _, fans = _fans("mcr-1998", "[1111m][2222p]{3333s}567s5z", "5z")
    assert "Concealed Kong" not in fans
