"""The MCR fan table: integer fan ids, English and Chinese names, points per rule profile, rulebook lines.

Fan ids 1-81 follow the numbering of the 2006 rulebook's table 3.8.1 (seed 004).  Id 82 is the combined
"one melded kong plus one concealed kong" that 2006 prices at 6 (``双明杠`` note, [004:L359]) and 2017 at 5
([003:L45@4924]); 1998 has no such rule and scores Melded Kong + Concealed Kong instead.  Ids 83-91 are the
nine fans added by the 2017 rulebook ([003:L45@2954-3321]); they exist only in the ``mcr-2017`` profile.

English names are those of the official English edition as printed by PyMahjongGB's verbose mode (one
consistent set; see docs/mcr-interpretations.md).  Pure data, thread-safe.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class FanId(enum.IntEnum):
    """Integer fan ids (2006 numbering) used as list indexes in the hot path."""

    BIG_FOUR_WINDS = 1
    BIG_THREE_DRAGONS = 2
    ALL_GREEN = 3
    NINE_GATES = 4
    FOUR_KONGS = 5
    SEVEN_SHIFTED_PAIRS = 6
    THIRTEEN_ORPHANS = 7
    ALL_TERMINALS = 8
    LITTLE_FOUR_WINDS = 9
    LITTLE_THREE_DRAGONS = 10
    ALL_HONORS = 11
    FOUR_CONCEALED_PUNGS = 12
    PURE_TERMINAL_CHOWS = 13
    QUADRUPLE_CHOW = 14
    FOUR_PURE_SHIFTED_PUNGS = 15
    FOUR_PURE_SHIFTED_CHOWS = 16
    THREE_KONGS = 17
    ALL_TERMINALS_AND_HONORS = 18
    SEVEN_PAIRS = 19
    GREATER_HONORS_AND_KNITTED = 20
    ALL_EVEN_PUNGS = 21
    FULL_FLUSH = 22
    PURE_TRIPLE_CHOW = 23
    PURE_SHIFTED_PUNGS = 24
    UPPER_TILES = 25
    MIDDLE_TILES = 26
    LOWER_TILES = 27
    PURE_STRAIGHT = 28
    THREE_SUITED_TERMINAL_CHOWS = 29
    PURE_SHIFTED_CHOWS = 30
    ALL_FIVE = 31
    TRIPLE_PUNG = 32
    THREE_CONCEALED_PUNGS = 33
    LESSER_HONORS_AND_KNITTED = 34
    KNITTED_STRAIGHT = 35
    UPPER_FOUR = 36
    LOWER_FOUR = 37
    BIG_THREE_WINDS = 38
    MIXED_STRAIGHT = 39
    REVERSIBLE_TILES = 40
    MIXED_TRIPLE_CHOW = 41
    MIXED_SHIFTED_PUNGS = 42
    CHICKEN_HAND = 43
    LAST_TILE_DRAW = 44
    LAST_TILE_CLAIM = 45
    OUT_WITH_REPLACEMENT_TILE = 46
    ROBBING_THE_KONG = 47
    TWO_CONCEALED_KONGS = 48
    ALL_PUNGS = 49
    HALF_FLUSH = 50
    MIXED_SHIFTED_CHOWS = 51
    ALL_TYPES = 52
    MELDED_HAND = 53
    TWO_DRAGON_PUNGS = 54
    OUTSIDE_HAND = 55
    FULLY_CONCEALED_HAND = 56
    TWO_MELDED_KONGS = 57
    LAST_TILE = 58
    DRAGON_PUNG = 59
    PREVALENT_WIND = 60
    SEAT_WIND = 61
    CONCEALED_HAND = 62
    ALL_CHOWS = 63
    TILE_HOG = 64
    DOUBLE_PUNG = 65
    TWO_CONCEALED_PUNGS = 66
    CONCEALED_KONG = 67
    ALL_SIMPLES = 68
    PURE_DOUBLE_CHOW = 69
    MIXED_DOUBLE_CHOW = 70
    SHORT_STRAIGHT = 71
    TWO_TERMINAL_CHOWS = 72
    PUNG_OF_TERMINALS_OR_HONORS = 73
    MELDED_KONG = 74
    ONE_VOIDED_SUIT = 75
    NO_HONORS = 76
    EDGE_WAIT = 77
    CLOSED_WAIT = 78
    SINGLE_WAIT = 79
    SELF_DRAWN = 80
    FLOWER_TILES = 81
    CONCEALED_KONG_AND_MELDED_KONG = 82
    # 2017 additions [003:L45@2954-3321]
    HEAVENLY_HAND = 83
    ALL_CONNECTED_FIVES = 84
    GREEN_SEVEN_PAIRS = 85
    ALL_HONOR_PAIRS = 86
    EARTHLY_HAND = 87
    HONOR_SEVEN_PAIRS = 88
    TERMINAL_SEVEN_PAIRS = 89
    CONCEALED_READY_HAND = 90
    ALL_ODD_PUNGS = 91


#: Length of a fan-count table (index 0 unused).
NUM_FANS = 92


@dataclass(frozen=True, slots=True)
class FanDef:
    """One fan: names, points in each profile (None = the fan does not exist there) and its rulebook line."""

    id: FanId
    name: str
    chinese: str
    points_2006: int
    points_1998: int | None
    points_2017: int
    cite: str


def _d(fid: FanId, name: str, zh: str, p06: int, cite: str, *, p98: int | None = -1, p17: int = -1) -> FanDef:
    return FanDef(fid, name, zh, p06, p06 if p98 == -1 else p98, p06 if p17 == -1 else p17, cite)


_F = FanId
FAN_DEFS: tuple[FanDef, ...] = (
    _d(_F.BIG_FOUR_WINDS, "Big Four Winds", "四风会(大四喜)", 88, "[004:L287]"),
    _d(_F.BIG_THREE_DRAGONS, "Big Three Dragons", "大三元", 88, "[004:L291]"),
    _d(_F.ALL_GREEN, "All Green", "绿一色", 88, "[004:L292]"),
    _d(_F.NINE_GATES, "Nine Gates", "九莲宝灯", 88, "[004:L293]"),
    _d(_F.FOUR_KONGS, "Four Kongs", "四杠", 88, "[004:L294]"),
    _d(_F.SEVEN_SHIFTED_PAIRS, "Seven Shifted Pairs", "连七对", 88, "[004:L295]"),
    _d(_F.THIRTEEN_ORPHANS, "Thirteen Orphans", "十三幺", 88, "[004:L296]"),
    _d(_F.ALL_TERMINALS, "All Terminals", "清幺九", 64, "[004:L297]"),
    _d(_F.LITTLE_FOUR_WINDS, "Little Four Winds", "小四风会(小四喜)", 64, "[004:L298]"),
    _d(_F.LITTLE_THREE_DRAGONS, "Little Three Dragons", "小三元", 64, "[004:L299]"),
    _d(_F.ALL_HONORS, "All Honors", "字一色", 64, "[004:L300]"),
    _d(_F.FOUR_CONCEALED_PUNGS, "Four Concealed Pungs", "四暗刻", 64, "[004:L301]"),
    _d(_F.PURE_TERMINAL_CHOWS, "Pure Terminal Chows", "一色双龙会", 64, "[004:L667]"),
    _d(_F.QUADRUPLE_CHOW, "Quadruple Chow", "一色四同顺", 48, "[004:L303]"),
    _d(_F.FOUR_PURE_SHIFTED_PUNGS, "Four Pure Shifted Pungs", "一色四节高", 48, "[004:L304]"),
    _d(_F.FOUR_PURE_SHIFTED_CHOWS, "Four Pure Shifted Chows", "一色四步高", 32, "[004:L305]"),
    _d(_F.THREE_KONGS, "Three Kongs", "三杠", 32, "[004:L306]"),
    _d(_F.ALL_TERMINALS_AND_HONORS, "All Terminals and Honors", "混幺九", 32, "[004:L307]"),
    _d(_F.SEVEN_PAIRS, "Seven Pairs", "七对", 24, "[004:L313]"),
    _d(_F.GREATER_HONORS_AND_KNITTED, "Greater Honors and Knitted Tiles", "七星不靠", 24, "[004:L314]"),
    _d(_F.ALL_EVEN_PUNGS, "All Even Pungs", "全双刻", 24, "[004:L315]"),
    _d(_F.FULL_FLUSH, "Full Flush", "清一色", 24, "[004:L316]"),
    _d(_F.PURE_TRIPLE_CHOW, "Pure Triple Chow", "一色三同顺", 24, "[004:L317]"),
    _d(_F.PURE_SHIFTED_PUNGS, "Pure Shifted Pungs", "一色三节高", 24, "[004:L318]"),
    _d(_F.UPPER_TILES, "Upper Tiles", "全大", 24, "[004:L319]"),
    _d(_F.MIDDLE_TILES, "Middle Tiles", "全中", 24, "[004:L320]"),
    _d(_F.LOWER_TILES, "Lower Tiles", "全小", 24, "[004:L321]"),
    _d(_F.PURE_STRAIGHT, "Pure Straight", "清龙", 16, "[004:L322]"),
    _d(_F.THREE_SUITED_TERMINAL_CHOWS, "Three-Suited Terminal Chows", "三色双龙会", 16, "[004:L323]"),
    _d(_F.PURE_SHIFTED_CHOWS, "Pure Shifted Chows", "一色三步高", 16, "[004:L324]"),
    _d(_F.ALL_FIVE, "All Five", "全带五", 16, "[004:L325]"),
    _d(_F.TRIPLE_PUNG, "Triple Pung", "三同刻", 16, "[004:L326]"),
    _d(_F.THREE_CONCEALED_PUNGS, "Three Concealed Pungs", "三暗刻", 16, "[004:L327]"),
    _d(_F.LESSER_HONORS_AND_KNITTED, "Lesser Honors and Knitted Tiles", "全不靠", 12, "[004:L328]"),
    _d(_F.KNITTED_STRAIGHT, "Knitted Straight", "组合龙", 12, "[004:L329]"),
    _d(_F.UPPER_FOUR, "Upper Four", "大于五", 12, "[004:L333]"),
    _d(_F.LOWER_FOUR, "Lower Four", "小于五", 12, "[004:L334]"),
    _d(_F.BIG_THREE_WINDS, "Big Three Winds", "三风刻", 12, "[004:L335]"),
    _d(_F.MIXED_STRAIGHT, "Mixed Straight", "花龙", 8, "[004:L336]"),
    _d(_F.REVERSIBLE_TILES, "Reversible Tiles", "推不倒", 8, "[004:L337]"),
    _d(_F.MIXED_TRIPLE_CHOW, "Mixed Triple Chow", "三色三同顺", 8, "[004:L338]"),
    _d(_F.MIXED_SHIFTED_PUNGS, "Mixed Shifted Pungs", "三色三节高", 8, "[004:L339]"),
    _d(_F.CHICKEN_HAND, "Chicken Hand", "无番和", 8, "[004:L340]"),
    _d(_F.LAST_TILE_DRAW, "Last Tile Draw", "妙手回春", 8, "[004:L341]"),
    _d(_F.LAST_TILE_CLAIM, "Last Tile Claim", "海底捞月", 8, "[004:L342]"),
    _d(_F.OUT_WITH_REPLACEMENT_TILE, "Out with Replacement Tile", "杠上开花", 8, "[004:L343]"),
    _d(_F.ROBBING_THE_KONG, "Robbing The Kong", "抢杠和", 8, "[004:L344]"),
    _d(_F.TWO_CONCEALED_KONGS, "Two Concealed Kongs", "双暗杠", 8, "[004:L345]", p98=6),
    _d(_F.ALL_PUNGS, "All Pungs", "碰碰和", 6, "[004:L346]"),
    _d(_F.HALF_FLUSH, "Half Flush", "混一色", 6, "[004:L347]"),
    _d(_F.MIXED_SHIFTED_CHOWS, "Mixed Shifted Chows", "三色三步高", 6, "[004:L348]"),
    _d(_F.ALL_TYPES, "All Types", "五门齐", 6, "[004:L349]"),
    _d(_F.MELDED_HAND, "Melded Hand", "全求人", 6, "[004:L350]"),
    _d(_F.TWO_DRAGON_PUNGS, "Two Dragons Pungs", "双箭刻", 6, "[004:L351]"),
    _d(_F.OUTSIDE_HAND, "Outside Hand", "全带幺", 4, "[004:L357]"),
    _d(_F.FULLY_CONCEALED_HAND, "Fully Concealed Hand", "不求人", 4, "[004:L358]"),
    _d(_F.TWO_MELDED_KONGS, "Two Melded Kongs", "双明杠", 4, "[004:L359]"),
    _d(_F.LAST_TILE, "Last Tile", "和绝张", 4, "[004:L360]"),
    _d(_F.DRAGON_PUNG, "Dragon Pung", "箭刻", 2, "[004:L361]"),
    _d(_F.PREVALENT_WIND, "Prevalent Wind", "圈风刻", 2, "[004:L362]"),
    _d(_F.SEAT_WIND, "Seat Wind", "门风刻", 2, "[004:L363]"),
    _d(_F.CONCEALED_HAND, "Concealed Hand", "门前清", 2, "[004:L364]"),
    _d(_F.ALL_CHOWS, "All Chows", "平和", 2, "[004:L365]"),
    _d(_F.TILE_HOG, "Tile Hog", "四归一", 2, "[004:L366]"),
    _d(_F.DOUBLE_PUNG, "Double Pung", "双同刻", 2, "[004:L367]"),
    _d(_F.TWO_CONCEALED_PUNGS, "Two Concealed Pungs", "双暗刻", 2, "[004:L368]"),
    _d(_F.CONCEALED_KONG, "Concealed Kong", "暗杠", 2, "[004:L369]"),
    _d(_F.ALL_SIMPLES, "All Simples", "断幺", 2, "[004:L370]"),
    _d(_F.PURE_DOUBLE_CHOW, "Pure Double Chow", "一般高", 1, "[004:L371]"),
    _d(_F.MIXED_DOUBLE_CHOW, "Mixed Double Chow", "喜相逢", 1, "[004:L372]"),
    _d(_F.SHORT_STRAIGHT, "Short Straight", "连六", 1, "[004:L373]"),
    _d(_F.TWO_TERMINAL_CHOWS, "Two Terminal Chows", "老少副", 1, "[004:L374]"),
    _d(_F.PUNG_OF_TERMINALS_OR_HONORS, "Pung of Terminals or Honors", "幺九刻", 1, "[004:L375]"),
    _d(_F.MELDED_KONG, "Melded Kong", "明杠", 1, "[004:L376]"),
    _d(_F.ONE_VOIDED_SUIT, "One Voided Suit", "缺一门", 1, "[004:L380]"),
    _d(_F.NO_HONORS, "No Honors", "无字", 1, "[004:L381]"),
    _d(_F.EDGE_WAIT, "Edge Wait", "边张", 1, "[004:L382]"),
    _d(_F.CLOSED_WAIT, "Closed Wait", "坎张", 1, "[004:L383]"),
    _d(_F.SINGLE_WAIT, "Single Wait", "单调将", 1, "[004:L384]"),
    _d(_F.SELF_DRAWN, "Self-Drawn", "自摸", 1, "[004:L385]"),
    _d(_F.FLOWER_TILES, "Flower Tiles", "花牌", 1, "[004:L386]"),
    _d(_F.CONCEALED_KONG_AND_MELDED_KONG, "Concealed Kong and Melded Kong", "明暗杠", 6, "[004:L359]",
       p98=None, p17=5),
    _d(_F.HEAVENLY_HAND, "Heavenly Hand", "天和", 0, "[003:L45@2958]", p98=None, p17=88),
    _d(_F.ALL_CONNECTED_FIVES, "All Connected", "全靠", 0, "[003:L45@2991]", p98=None, p17=88),
    _d(_F.GREEN_SEVEN_PAIRS, "Green Seven Pairs", "绿七对", 0, "[003:L45@3036]", p98=None, p17=88),
    _d(_F.ALL_HONOR_PAIRS, "Seven Different Honor Pairs", "字全七对", 0, "[003:L45@3084]", p98=None, p17=88),
    _d(_F.EARTHLY_HAND, "Earthly Hand", "地和", 0, "[003:L45@3130]", p98=None, p17=64),
    _d(_F.HONOR_SEVEN_PAIRS, "Honor Seven Pairs", "字七对", 0, "[003:L45@3157]", p98=None, p17=64),
    _d(_F.TERMINAL_SEVEN_PAIRS, "Terminal Seven Pairs", "清幺九七对", 0, "[003:L45@3199]", p98=None, p17=64),
    _d(_F.CONCEALED_READY_HAND, "Concealed Ready Hand", "人和", 0, "[003:L45@3245]", p98=None, p17=48),
    _d(_F.ALL_ODD_PUNGS, "All Odd Pungs", "全单刻", 0, "[003:L45@3276]", p98=None, p17=24),
)

#: FanDef by id (index 0 unused).
FAN_BY_ID: dict[int, FanDef] = {d.id: d for d in FAN_DEFS}
#: FanDef by English name.
FAN_BY_NAME: dict[str, FanDef] = {d.name: d for d in FAN_DEFS}

assert len(FAN_DEFS) == NUM_FANS - 1


def points_table(profile: str) -> tuple[int, ...]:
    """Points per fan id for ``profile`` (``mcr-1998``/``mcr-2006``/``mcr-2017``); 0 where the fan is absent."""
    out = [0] * NUM_FANS
    for d in FAN_DEFS:
        if profile == "mcr-1998":
            p = d.points_1998
        elif profile == "mcr-2017":
            p = d.points_2017
        else:
            p = d.points_2006
        out[d.id] = p or 0
    return tuple(out)
