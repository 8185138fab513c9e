"""Shape helpers against brute force: the suit-by-suit wait counter and completeness test."""

from __future__ import annotations

import random

from controller.mcr import FanId, WinContext, score_hand, shapes
from controller.mcr.profiles import get_profile, variant
from mjtable.tiles import parse_hand, tile


def _brute_waits(c13: tuple[int, ...], seven_pairs: bool, allow_fifth: bool) -> int:
    n = 0
    c = list(c13)
    for t in range(34):
        if c[t] >= 4 and not allow_fifth:
            continue
        c[t] += 1
        key = tuple(c)
        if shapes.divisions(key) or (seven_pairs and shapes.is_seven_pairs(key)):
            n += 1
        c[t] -= 1
    return min(n, 2)


def test_wait_count_matches_brute_force_on_random_hands() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        size = rng.choice((1, 4, 7, 10, 13))
        pool = list(range(rng.choice((9, 18, 27, 34)))) if rng.random() < 0.7 else list(range(34))
        c = [0] * 34
        while sum(c) < size:
            t = rng.choice(pool)
            if c[t] < 4:
                c[t] += 1
        key = tuple(c)
        for sp in (False, size == 13):
            for af in (False, True):
                assert shapes.wait_count(key, sp, af) == _brute_waits(key, sp, af), (key, sp, af)


def test_is_regular_matches_divisions() -> None:
    rng = random.Random(12)
    for _ in range(3000):
        c = [0] * 34
        while sum(c) < 14:
            t = rng.randrange(27) if rng.random() < 0.9 else rng.randrange(34)
            if c[t] < 4:
                c[t] += 1
        key = tuple(c)
        assert shapes.is_regular(key) == bool(shapes.divisions(key))


def test_variant_switches_and_new_pairs_option() -> None:
    hand = parse_hand("1155m2288p3399s1z")
    ctx = WinContext(tile("1z"), True, tile("1z"), tile("1z"))
    gb_like = variant(get_profile("mcr-2006"), special_self_drawn=FanId.SELF_DRAWN)
    assert "Self-Drawn" in {f.name for f in score_hand(hand, ctx, gb_like).fans}
    honors = parse_hand("1122334455667z")
    win = WinContext(tile("7z"), False, tile("1z"), tile("1z"))
    replaced = {f.name for f in score_hand(honors, win, "mcr-2017").fans}
    stacked = {f.name for f in score_hand(honors, win, get_profile("mcr-2017", new_pairs_stack=True)).fans}
    assert "Seven Pairs" not in replaced and {"Seven Pairs", "All Honors"} <= stacked


def test_fan_table_per_profile() -> None:
    from controller.mcr.profiles import fan_table

    t06, t98, t17 = fan_table("mcr-2006"), fan_table("mcr-1998"), fan_table("mcr-2017")
    assert len(t06) == 82 and len(t98) == 81 and len(t17) == 91  # 81 + 明暗杠; 1998 without it; + 9 new
    by = {r["name"]: r for r in t06}
    assert by["Big Four Winds"]["excludes"] == ["Little Four Winds", "Big Three Winds", "All Pungs", "Prevalent Wind",
                                                "Seat Wind", "Pung of Terminals or Honors"]
    assert {r["name"]: r["points"] for r in t98}["Two Concealed Kongs"] == 6


def test_complete_suit_table_equals_the_search_for_every_holdable_suit() -> None:
    """The precomputed table behind the suit checks (``shapes.complete_suits``) says exactly what the
    set-by-set search says, for every 9-count suit with at most 4 of a rank and at most 14 tiles."""
    from itertools import product

    from controller.mcr import shapes

    checked = 0
    for key in product(range(5), repeat=9):
        n = sum(key)
        if n > 14:
            continue
        checked += 1
        r = n % 3
        ok = r != 1 and shapes._can_split(list(key), 0, r == 2)
        assert shapes._suit_ok(key) is ok, key
        assert shapes._suit_state(key) == (0 if n == 0 else -1 if not ok else 1 if r == 2 else 0), key
    assert checked == 405_350
    assert len(shapes.complete_suits()) == 21_743
