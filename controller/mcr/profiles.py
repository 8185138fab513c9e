"""Rule profiles ``mcr-1998``, ``mcr-2006`` (default) and ``mcr-2017``: points, exclusions (不计) and the
switches where the rulebooks differ.  Each exclusion cites its line; "implied" ones follow the principle
不重复 ("a fan whose conditions make another fan necessarily present excludes it", [004:L421]) and are listed in
docs/mcr-interpretations.md.  Pure data, built once at import; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from controller.mcr.fans import NUM_FANS, FanId, points_table

F = FanId

#: 2006 exclusions: printed 不计 lists plus the implied ones (不重复).  Keys exclude every fan in their tuple.
_EXCLUDES_2006: dict[FanId, tuple[FanId, ...]] = {
    # [004:L512] 不计三风刻、碰碰和、圈风刻、门风刻、幺九刻; Little Four Winds is implied
    F.BIG_FOUR_WINDS: (F.BIG_THREE_WINDS, F.ALL_PUNGS, F.PREVALENT_WIND, F.SEAT_WIND,
                       F.PUNG_OF_TERMINALS_OR_HONORS, F.LITTLE_FOUR_WINDS),
    # [004:L528] 不计双箭刻、箭刻
    F.BIG_THREE_DRAGONS: (F.TWO_DRAGON_PUNGS, F.DRAGON_PUNG, F.LITTLE_THREE_DRAGONS),
    # [004:L293] 不计清一色、门前清、幺九刻 (one pung of terminals: see calculator)
    F.NINE_GATES: (F.FULL_FLUSH, F.CONCEALED_HAND, F.NO_HONORS, F.ONE_VOIDED_SUIT),
    # [004:L568] 不计单调将; the kong fans and All Pungs are implied (digest §6.5)
    F.FOUR_KONGS: (F.SINGLE_WAIT, F.ALL_PUNGS, F.THREE_KONGS, F.TWO_MELDED_KONGS, F.TWO_CONCEALED_KONGS,
                   F.MELDED_KONG, F.CONCEALED_KONG, F.CONCEALED_KONG_AND_MELDED_KONG),
    # [004:L581] 不计清一色、门前清、单调将; Seven Pairs implied
    F.SEVEN_SHIFTED_PAIRS: (F.SEVEN_PAIRS, F.FULL_FLUSH, F.CONCEALED_HAND, F.SINGLE_WAIT, F.NO_HONORS,
                            F.ONE_VOIDED_SUIT),
    # [004:L588] 不计五门齐、门前清、单调将
    F.THIRTEEN_ORPHANS: (F.ALL_TYPES, F.CONCEALED_HAND, F.SINGLE_WAIT),
    # [004:L598] 不计碰碰和、全带幺、幺九刻、无字 (双同刻/三同刻 may be added); Terminals and Honors implied
    F.ALL_TERMINALS: (F.ALL_PUNGS, F.OUTSIDE_HAND, F.PUNG_OF_TERMINALS_OR_HONORS, F.NO_HONORS,
                      F.ALL_TERMINALS_AND_HONORS),
    # [004:L607] 不计三风刻、幺九刻
    F.LITTLE_FOUR_WINDS: (F.BIG_THREE_WINDS, F.PUNG_OF_TERMINALS_OR_HONORS),
    # [004:L623] 不计双箭刻、箭刻
    F.LITTLE_THREE_DRAGONS: (F.TWO_DRAGON_PUNGS, F.DRAGON_PUNG),
    # [004:L645] 不计碰碰和、全带幺、幺九刻; Terminals and Honors and One Voided Suit implied
    F.ALL_HONORS: (F.ALL_PUNGS, F.OUTSIDE_HAND, F.PUNG_OF_TERMINALS_OR_HONORS, F.ALL_TERMINALS_AND_HONORS,
                   F.ONE_VOIDED_SUIT),
    # [004:L655] 不计碰碰和、门前清; fewer concealed pungs implied
    F.FOUR_CONCEALED_PUNGS: (F.ALL_PUNGS, F.CONCEALED_HAND, F.THREE_CONCEALED_PUNGS, F.TWO_CONCEALED_PUNGS),
    # [004:L667-669] 不计七对、清一色、平和、一般高、老少副
    F.PURE_TERMINAL_CHOWS: (F.SEVEN_PAIRS, F.FULL_FLUSH, F.ALL_CHOWS, F.PURE_DOUBLE_CHOW, F.TWO_TERMINAL_CHOWS,
                            F.NO_HONORS, F.ONE_VOIDED_SUIT),
    # [004:L677] 不计一色三节高、四归一、一般高; Pure Triple Chow implied
    F.QUADRUPLE_CHOW: (F.PURE_SHIFTED_PUNGS, F.TILE_HOG, F.PURE_DOUBLE_CHOW, F.PURE_TRIPLE_CHOW),
    # [004:L687] 不计一色三同顺、碰碰和; Pure Shifted Pungs implied
    F.FOUR_PURE_SHIFTED_PUNGS: (F.PURE_TRIPLE_CHOW, F.ALL_PUNGS, F.PURE_SHIFTED_PUNGS),
    # [004:L697] 不计连六、老少副; Pure Shifted Chows implied
    F.FOUR_PURE_SHIFTED_CHOWS: (F.SHORT_STRAIGHT, F.TWO_TERMINAL_CHOWS, F.PURE_SHIFTED_CHOWS),
    # [004:L713] three kongs: the smaller kong fans are implied
    F.THREE_KONGS: (F.TWO_MELDED_KONGS, F.TWO_CONCEALED_KONGS, F.MELDED_KONG, F.CONCEALED_KONG,
                    F.CONCEALED_KONG_AND_MELDED_KONG),
    # [004:L723] 不计碰碰和、全带幺、幺九刻
    F.ALL_TERMINALS_AND_HONORS: (F.ALL_PUNGS, F.OUTSIDE_HAND, F.PUNG_OF_TERMINALS_OR_HONORS),
    # [004:L733] 不计门前清、单调将
    F.SEVEN_PAIRS: (F.CONCEALED_HAND, F.SINGLE_WAIT),
    # [004:L749] 不计五门齐、门前清; Lesser Honors and Knitted implied
    F.GREATER_HONORS_AND_KNITTED: (F.ALL_TYPES, F.CONCEALED_HAND, F.LESSER_HONORS_AND_KNITTED, F.SINGLE_WAIT),
    # [004:L755] 不计碰碰和、断幺; No Honors implied
    F.ALL_EVEN_PUNGS: (F.ALL_PUNGS, F.ALL_SIMPLES, F.NO_HONORS),
    # [004:L769] 不计无字; One Voided Suit implied (digest §6.5)
    F.FULL_FLUSH: (F.NO_HONORS, F.ONE_VOIDED_SUIT),
    # [000:L588] (2006 text lost) 不计一色三节高; Pure Double Chow implied
    F.PURE_TRIPLE_CHOW: (F.PURE_SHIFTED_PUNGS, F.PURE_DOUBLE_CHOW),
    # [000:L589] 不计一色三同顺
    F.PURE_SHIFTED_PUNGS: (F.PURE_TRIPLE_CHOW,),
    # [000:L590] 不计无字; Upper Four implied
    F.UPPER_TILES: (F.NO_HONORS, F.UPPER_FOUR),
    # [000:L591] 不计断幺; No Honors implied
    F.MIDDLE_TILES: (F.ALL_SIMPLES, F.NO_HONORS),
    # [004:L781] 不计无字; Lower Four implied
    F.LOWER_TILES: (F.NO_HONORS, F.LOWER_FOUR),
    # Pure Straight: Short Straight / Two Terminal Chows inside it implied (不拆移 [004:L422])
    F.PURE_STRAIGHT: (),
    # [004:L323] 三色双龙会 不计喜相逢、老少副、无字、平和
    F.THREE_SUITED_TERMINAL_CHOWS: (F.MIXED_DOUBLE_CHOW, F.TWO_TERMINAL_CHOWS, F.NO_HONORS, F.ALL_CHOWS),
    # [000:L601] 全带五 不计断幺; No Honors implied
    F.ALL_FIVE: (F.ALL_SIMPLES, F.NO_HONORS),
    F.TRIPLE_PUNG: (F.DOUBLE_PUNG,),
    F.THREE_CONCEALED_PUNGS: (F.TWO_CONCEALED_PUNGS,),
    # [004:L328] 全不靠 不计五门齐、门前清、单调将
    F.LESSER_HONORS_AND_KNITTED: (F.ALL_TYPES, F.CONCEALED_HAND, F.SINGLE_WAIT),
    # [000:L606-607] 大于五/小于五 不计无字
    F.UPPER_FOUR: (F.NO_HONORS,),
    F.LOWER_FOUR: (F.NO_HONORS,),
    # [000:L611] 推不倒 不计缺一门
    F.REVERSIBLE_TILES: (F.ONE_VOIDED_SUIT,),
    # [004:L341] 妙手回春 不计自摸
    F.LAST_TILE_DRAW: (F.SELF_DRAWN,),
    # [004:L343] 杠上开花 不计自摸 (the kong is still scored)
    F.OUT_WITH_REPLACEMENT_TILE: (F.SELF_DRAWN,),
    # [004:L344] 抢杠和 不计和绝张
    F.ROBBING_THE_KONG: (F.LAST_TILE,),
    # two concealed kongs: Concealed Kong and Two Concealed Pungs implied
    F.TWO_CONCEALED_KONGS: (F.CONCEALED_KONG, F.TWO_CONCEALED_PUNGS),
    # one voided suit is implied by a flush
    F.HALF_FLUSH: (F.ONE_VOIDED_SUIT,),
    # [004:L1007] 全求人 不计单调将
    F.MELDED_HAND: (F.SINGLE_WAIT,),
    # [004:L351] 双箭刻: Dragon Pung implied
    F.TWO_DRAGON_PUNGS: (F.DRAGON_PUNG,),
    # 不求人: 自摸 and 门前清 implied (digest §6.5, [004:L1045])
    F.FULLY_CONCEALED_HAND: (F.SELF_DRAWN, F.CONCEALED_HAND),
    # 双明杠: Melded Kong implied
    F.TWO_MELDED_KONGS: (F.MELDED_KONG,),
    F.CONCEALED_KONG_AND_MELDED_KONG: (F.MELDED_KONG, F.CONCEALED_KONG),
    # [004:L1083] 平和 不计无字
    F.ALL_CHOWS: (F.NO_HONORS,),
    # digest §6.5: 断幺 hands never add 无字 [004:L1045, L1079]
    F.ALL_SIMPLES: (F.NO_HONORS,),
    # [000:L1364]-style: a full suit fan inside All Green (2006 allows Full/Half Flush [004:L544])
    F.ALL_GREEN: (F.ONE_VOIDED_SUIT,),
    # 2017 additions [003:L45@2954-3321]
    F.HEAVENLY_HAND: (F.SELF_DRAWN,),  # [003:L45@2958] 不计自摸 (不求人 stays: [003:L45@2130])
    F.EARTHLY_HAND: (F.CONCEALED_HAND,),
    F.ALL_CONNECTED_FIVES: (F.FULL_FLUSH, F.TILE_HOG, F.ALL_CHOWS, F.NO_HONORS, F.ONE_VOIDED_SUIT),
    F.GREEN_SEVEN_PAIRS: (F.TILE_HOG,),
    F.ALL_HONOR_PAIRS: (F.OUTSIDE_HAND,),
    F.HONOR_SEVEN_PAIRS: (F.OUTSIDE_HAND, F.TILE_HOG),
    F.TERMINAL_SEVEN_PAIRS: (F.OUTSIDE_HAND, F.TILE_HOG, F.NO_HONORS),
    F.ALL_ODD_PUNGS: (F.ALL_PUNGS, F.NO_HONORS),
}

#: The new 2017 seven-pairs fans replace these fans unless ``new_pairs_stack`` (see interpretations doc).
_NEW_PAIRS_REPLACE: dict[FanId, tuple[FanId, ...]] = {
    F.GREEN_SEVEN_PAIRS: (F.SEVEN_PAIRS, F.ALL_GREEN, F.HALF_FLUSH, F.FULL_FLUSH),
    F.ALL_HONOR_PAIRS: (F.SEVEN_PAIRS, F.ALL_HONORS, F.ALL_TERMINALS_AND_HONORS),
    F.HONOR_SEVEN_PAIRS: (F.SEVEN_PAIRS, F.ALL_HONORS, F.ALL_TERMINALS_AND_HONORS),
    F.TERMINAL_SEVEN_PAIRS: (F.SEVEN_PAIRS, F.ALL_TERMINALS, F.ALL_TERMINALS_AND_HONORS),
}


@dataclass(frozen=True, slots=True)
class RuleProfile:
    """Everything that differs between the three MCR rulebooks.

    Attributes:
        name: ``mcr-1998``, ``mcr-2006`` or ``mcr-2017``.
        points: points per fan id (0 = not in this profile).
        excludes: per fan id, a bitmask of the fan ids it excludes.
        special_self_drawn: fan scored for a self-drawn special shape (Seven Pairs, Thirteen Orphans, ...,
            and Nine Gates / Four Concealed Pungs): 2006 "自摸加计不求人" -> Fully Concealed Hand; 1998 excludes
            不求人 and 2017 restricts it to 4-sets shapes -> Self-Drawn.
        special_concealed_discard: 2017 scores Concealed Hand for special shapes won on a discard.
        combined_kong: price one melded + one concealed kong as one fan (6 in 2006, 5 in 2017).
        waits_by_definition: 2017 counts Edge/Closed/Single Wait whenever the winning tile fits, however many
            tiles the hand waits on; older profiles need a unique wait.
        honor_pung_minus_one: 2017 rule for All Honors / All Terminals / Terminals and Honors: a pung fan
            worth 2+ adds its value minus 1 [003:L45@4660].
        knitted_plain: 2017: a knitted straight is not sequences -> no All Chows, no Tile Hog [003:L45@4823].
        new_fans: the nine 2017 fans.
        new_pairs_stack: option: 2017 seven-pairs fans stack with Seven Pairs / All Honors / ... instead of
            replacing them (the seed does not say; default False).
        all_terminals_double_pung: 2006 allows Double Pung inside All Terminals ([004:L598]); False drops it.
        four_concealed_self_drawn_full: Four Concealed Pungs self-drawn scores Fully Concealed Hand (2006 text
            "自摸加计不求人" [004:L301]); False scores Self-Drawn instead (PyMahjongGB's reading).
        waits_count_held_fourth: when deciding whether a wait is unique, also count a tile the hand already
            holds four times (PyMahjongGB does; we do not: there is no fifth copy).
        four_kongs_adds_concealed: Four Kongs still scores the concealed kongs (2006 "暗杠加计" [004:L294,
            L568]): one concealed kong adds Concealed Kong, two or more add Two Concealed Kongs.  False for 1998
            ("不计杠" [000:L1143]) and 2017 (its 四暗杠 "核好了为152分" = 四暗刻 64 + 四杠 88, digest §7).
        three_kongs_adds_concealed: Three Kongs still scores the concealed kongs: 2006 prints the same "暗杠加计"
            for 三杠 [004:L306] as for 四杠 [004:L294], read the same way (issue 16 point 12).  False for 1998
            ("3个杠" [000:L582]) and 2017 (暗部/明部 rule below).
        concealed_kong_split: 2017 [003:L45@4885] "把暗杠看成由明、暗两部分组成 … 二暗杠、三暗杠、四暗杠: 先计暗刻分
            (暗杠暗部), 后计明杠分(暗杠明部)": two concealed kongs score Two Concealed Pungs + Two Melded Kongs, never
            Two Concealed Kongs (issue 16 point 11).
    """

    name: str
    points: tuple[int, ...]
    excludes: tuple[int, ...]
    special_self_drawn: FanId
    special_concealed_discard: bool
    combined_kong: bool
    waits_by_definition: bool
    honor_pung_minus_one: bool
    knitted_plain: bool
    new_fans: bool
    new_pairs_stack: bool = False
    all_terminals_double_pung: bool = True
    four_concealed_self_drawn_full: bool = True
    waits_count_held_fourth: bool = False
    four_kongs_adds_concealed: bool = False
    three_kongs_adds_concealed: bool = False
    concealed_kong_split: bool = False


#: The concealed-kong fans that 2006's "暗杠加计" keeps beside Four Kongs.
_CONCEALED_KONG_FANS = (F.CONCEALED_KONG, F.TWO_CONCEALED_KONGS)


def _four_kongs_mask(mask: int, adds_concealed: bool) -> int:
    """Four Kongs' exclusion bitmask with the concealed-kong fans kept (``adds_concealed``) or excluded."""
    bits = 0
    for f in _CONCEALED_KONG_FANS:
        bits |= 1 << int(f)
    return mask & ~bits if adds_concealed else mask | bits


def _masks(table: dict[FanId, tuple[FanId, ...]]) -> tuple[int, ...]:
    out = [0] * NUM_FANS
    for k, vs in table.items():
        for v in vs:
            out[k] |= 1 << int(v)
    return tuple(out)


def _build() -> dict[str, RuleProfile]:
    ex06 = dict(_EXCLUDES_2006)
    m06 = list(_masks(ex06))
    m06[F.FOUR_KONGS] = _four_kongs_mask(m06[F.FOUR_KONGS], True)  # 四杠 "暗杠加计" [004:L294, L568]
    m06[F.THREE_KONGS] = _four_kongs_mask(m06[F.THREE_KONGS], True)  # 三杠 "暗杠加计" [004:L306]
    p2006 = RuleProfile("mcr-2006", points_table("mcr-2006"), tuple(m06), F.FULLY_CONCEALED_HAND, False,
                        True, False, False, False, False, four_kongs_adds_concealed=True,
                        three_kongs_adds_concealed=True)
    ex98 = dict(ex06)
    # [000:L563] 绿一色 不计混一色
    ex98[F.ALL_GREEN] = (F.ONE_VOIDED_SUIT, F.HALF_FLUSH)
    # [000:L568] 清幺九 不计碰碰和、同刻、无字
    ex98[F.ALL_TERMINALS] = (*ex06[F.ALL_TERMINALS], F.DOUBLE_PUNG, F.TRIPLE_PUNG)
    # [000:L564] 九莲宝灯 不计清一色 only (门前清 is still implied by 不重复 for a concealed shape)
    p1998 = replace(p2006, name="mcr-1998", points=points_table("mcr-1998"), excludes=_masks(ex98),
                    special_self_drawn=F.SELF_DRAWN, combined_kong=False, all_terminals_double_pung=False,
                    four_kongs_adds_concealed=False, three_kongs_adds_concealed=False)  # 四杠 "不计杠" [000:L1143]
    ex17 = dict(ex06)
    for fan, gone in _NEW_PAIRS_REPLACE.items():
        ex17[fan] = (*ex17.get(fan, ()), *gone)
    # 2017 rewrites 门前清 for every shape [003:L45@2130]: the special shapes no longer exclude it
    for fan in (F.SEVEN_SHIFTED_PAIRS, F.THIRTEEN_ORPHANS, F.SEVEN_PAIRS, F.GREATER_HONORS_AND_KNITTED,
                F.LESSER_HONORS_AND_KNITTED, F.NINE_GATES, F.FOUR_CONCEALED_PUNGS):
        ex17[fan] = tuple(f for f in ex17[fan] if f is not F.CONCEALED_HAND)
    # 2017: Out with Replacement Tile, Last Tile Draw, Fully Concealed, Single Wait all combine [003:L45@4773]
    p2017 = replace(p2006, name="mcr-2017", points=points_table("mcr-2017"), excludes=_masks(ex17),
                    special_self_drawn=F.SELF_DRAWN, special_concealed_discard=True, waits_by_definition=True,
                    honor_pung_minus_one=True, knitted_plain=True, new_fans=True, four_kongs_adds_concealed=False,
                    three_kongs_adds_concealed=False, concealed_kong_split=True)  # 暗部/明部 [003:L45@4885]
    return {p.name: p for p in (p1998, p2006, p2017)}


PROFILES: dict[str, RuleProfile] = _build()


def get_profile(rules: str, *, new_pairs_stack: bool = False) -> RuleProfile:
    """The profile called ``rules``; raises ValueError naming the known ones."""
    try:
        prof = PROFILES[rules]
    except KeyError:
        raise ValueError(f"unknown MCR rules {rules!r}: expected one of {', '.join(sorted(PROFILES))}") from None
    if new_pairs_stack and prof.new_fans:
        ex = list(prof.excludes)
        for fan, gone in _NEW_PAIRS_REPLACE.items():
            for g in gone:
                ex[fan] &= ~(1 << int(g))
        prof = replace(prof, excludes=tuple(ex), new_pairs_stack=True)
    return prof


def variant(prof: RuleProfile, *, special_self_drawn: FanId | None = None,
            four_concealed_self_drawn_full: bool | None = None, combined_kong_points: int | None = None,
            two_concealed_kongs_points: int | None = None, all_green_half_flush: bool | None = None,
            all_terminals_double_pung: bool | None = None, waits_count_held_fourth: bool | None = None,
            four_kongs_adds_concealed: bool | None = None, three_kongs_adds_concealed: bool | None = None,
            concealed_kong_split: bool | None = None) -> RuleProfile:
    """A copy of ``prof`` with the documented interpretation switches changed (docs/mcr-interpretations.md).

    The name gets a ``+variant`` suffix.  Used by the differential test to show that each disagreement with
    PyMahjongGB is one of the documented readings, and available to callers who want another reading.
    """
    points = list(prof.points)
    ex = list(prof.excludes)
    out = prof
    if special_self_drawn is not None:
        out = replace(out, special_self_drawn=special_self_drawn)
    if four_concealed_self_drawn_full is not None:
        out = replace(out, four_concealed_self_drawn_full=four_concealed_self_drawn_full)
    if combined_kong_points is not None:
        points[F.CONCEALED_KONG_AND_MELDED_KONG] = combined_kong_points
    if two_concealed_kongs_points is not None:
        points[F.TWO_CONCEALED_KONGS] = two_concealed_kongs_points
    if all_green_half_flush is not None:
        bit = 1 << int(F.HALF_FLUSH)
        ex[F.ALL_GREEN] = ex[F.ALL_GREEN] & ~bit if all_green_half_flush else ex[F.ALL_GREEN] | bit
    if all_terminals_double_pung is not None:
        out = replace(out, all_terminals_double_pung=all_terminals_double_pung)
    if waits_count_held_fourth is not None:
        out = replace(out, waits_count_held_fourth=waits_count_held_fourth)
    if four_kongs_adds_concealed is not None:
        out = replace(out, four_kongs_adds_concealed=four_kongs_adds_concealed)
        ex[F.FOUR_KONGS] = _four_kongs_mask(ex[F.FOUR_KONGS], four_kongs_adds_concealed)
    if three_kongs_adds_concealed is not None:
        out = replace(out, three_kongs_adds_concealed=three_kongs_adds_concealed)
        ex[F.THREE_KONGS] = _four_kongs_mask(ex[F.THREE_KONGS], three_kongs_adds_concealed)
    if concealed_kong_split is not None:
        out = replace(out, concealed_kong_split=concealed_kong_split)
    return replace(out, name=prof.name + "+variant", points=tuple(points), excludes=tuple(ex))


def _bool_option(name: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "yes", "on", "1"):
        return True
    if v in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"option {name}: expected true or false, got {value!r}")


def _int_option(name: str, value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"option {name}: expected an integer number of points, got {value!r}") from None
    if not 0 <= n <= 88:
        raise ValueError(f"option {name}: points must be 0..88, got {n}")
    return n


def _fan_option(name: str, value: str) -> FanId:
    choices = {"self_drawn": F.SELF_DRAWN, "fully_concealed_hand": F.FULLY_CONCEALED_HAND}
    try:
        return choices[value.strip().lower()]
    except KeyError:
        raise ValueError(f"option {name}: expected one of {', '.join(choices)}, got {value!r}") from None


#: The interpretation switches a caller may set (``mjtable score|waits --option name=value``), each with its
#: value parser; docs/mcr-interpretations.md explains every one.
OPTIONS = {
    "special_self_drawn": _fan_option,
    "four_concealed_self_drawn_full": _bool_option,
    "combined_kong_points": _int_option,
    "two_concealed_kongs_points": _int_option,
    "all_green_half_flush": _bool_option,
    "all_terminals_double_pung": _bool_option,
    "waits_count_held_fourth": _bool_option,
    "four_kongs_adds_concealed": _bool_option,
    "three_kongs_adds_concealed": _bool_option,
    "concealed_kong_split": _bool_option,
    "new_pairs_stack": _bool_option,
}


def profile_with_options(rules: str, options: dict[str, str]) -> RuleProfile:
    """The profile ``rules`` with interpretation switches set from text values (``{"name": "value"}``), as
    given on the command line.  No options: the plain profile.  Raises ValueError naming a bad name or value."""
    parsed: dict[str, object] = {}
    for name, value in options.items():
        parser = OPTIONS.get(name)
        if parser is None:
            raise ValueError(f"unknown option {name!r}: expected one of {', '.join(OPTIONS)}")
        parsed[name] = parser(name, value)
    stack = bool(parsed.pop("new_pairs_stack", False))
    prof = get_profile(rules, new_pairs_stack=stack)
    if not parsed:
        return prof
    return variant(prof, **parsed)  # type: ignore[arg-type]


def fan_table(rules: str = "mcr-2006") -> list[dict[str, object]]:
    """The fan table of a profile as JSON-ready rows: id, English and Chinese name, points, the fans each one
    excludes (不计, printed and implied) and its rulebook line.  Fans absent from the profile are left out."""
    from controller.mcr.fans import FAN_BY_ID, FAN_DEFS

    prof = get_profile(rules)
    rows: list[dict[str, object]] = []
    for d in FAN_DEFS:
        pts = prof.points[d.id]
        if not pts and d.id is not F.CHICKEN_HAND:
            continue
        mask = prof.excludes[d.id]
        excl = [FAN_BY_ID[f].name for f in range(NUM_FANS) if mask >> f & 1 and prof.points[f]]
        rows.append({"id": int(d.id), "name": d.name, "chinese": d.chinese, "points": pts, "excludes": excl,
                     "cite": d.cite})
    return rows
