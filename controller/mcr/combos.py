"""Fans made by combining chows or pungs, with 不拆移, 不得相同 and 套算一次 ([004:L421-425]).

Procedure: a 4-set fan (e.g. Quadruple Chow) takes all four sets and nothing else is combined.  Otherwise the
best 3-set fan is fixed first (就高不就低); the one set left may then combine *once* with one used set
(套算一次).  With no 3-set fan, pairs of sets combine under two rules: every new pairing must bring in a set
not combined before (so the chosen pairs form a forest: at most 3 for 4 sets), and a set never forms the same
fan twice (不得相同: pairs of one fan form a matching).  Example from the 2017 notes [003:L45@4483]:
``123456s 123456p`` scores Short Straight + 2 Mixed Double Chow = 3, not 4.

Tiles are kinds 0-33; a chow is named by its lowest tile.  Results are cached per sorted tuple of tiles, so
the hot path does one dict lookup.  Pure, thread-safe.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations

from controller.mcr.fans import FanId

F = FanId
#: (fan, indexes of the sets that form it) - indexes refer to the sorted input tuple.
Combo = tuple[FanId, tuple[int, ...]]

_WEIGHT = {F.PURE_DOUBLE_CHOW: 1, F.MIXED_DOUBLE_CHOW: 1, F.SHORT_STRAIGHT: 1, F.TWO_TERMINAL_CHOWS: 1,
           F.DOUBLE_PUNG: 2, F.TWO_DRAGON_PUNGS: 6, F.MIXED_SHIFTED_CHOWS: 6, F.MIXED_TRIPLE_CHOW: 8,
           F.MIXED_STRAIGHT: 8, F.PURE_STRAIGHT: 16, F.PURE_SHIFTED_CHOWS: 16, F.PURE_TRIPLE_CHOW: 24,
           F.MIXED_SHIFTED_PUNGS: 8, F.TRIPLE_PUNG: 16, F.PURE_SHIFTED_PUNGS: 24, F.BIG_THREE_WINDS: 12,
           F.BIG_THREE_DRAGONS: 88}


#: Among equal-valued pairings the leftover set names the more specific one (PyMahjongGB's order).
_PRIORITY = {F.PURE_DOUBLE_CHOW: 4, F.MIXED_DOUBLE_CHOW: 3, F.SHORT_STRAIGHT: 2, F.TWO_TERMINAL_CHOWS: 1}


def _rank(fan: FanId) -> tuple[int, int]:
    return _WEIGHT[fan], _PRIORITY.get(fan, 0)


def _chow4(a: int, b: int, c: int, d: int) -> FanId | None:
    if not (a // 9 == b // 9 == c // 9 == d // 9):
        return None
    if (b - a == c - b == d - c) and b - a in (1, 2):
        return F.FOUR_PURE_SHIFTED_CHOWS  # [004:L305] rising by one or by two
    if a == b == c == d:
        return F.QUADRUPLE_CHOW  # [004:L303]
    return None


def _chow3(a: int, b: int, c: int) -> FanId | None:
    sa, sb, sc = a // 9, b // 9, c // 9
    ra, rb, rc = sorted((a % 9, b % 9, c % 9))
    if sb not in (sa, sc) and sa != sc:
        if rb == ra + 1 and rc == rb + 1:
            return F.MIXED_SHIFTED_CHOWS  # [004:L348]
        if ra == rb == rc:
            return F.MIXED_TRIPLE_CHOW  # [004:L338]
        if (ra, rb, rc) == (0, 3, 6):
            return F.MIXED_STRAIGHT  # [004:L336]
        return None
    if not sa == sb == sc:
        return None
    if a % 9 == 0 and b == a + 3 and c == b + 3:
        return F.PURE_STRAIGHT  # [004:L322]
    if (b - a == c - b) and b - a in (1, 2):
        return F.PURE_SHIFTED_CHOWS  # [004:L324]
    if a == b == c:
        return F.PURE_TRIPLE_CHOW  # [004:L317]
    return None


def _chow2(a: int, b: int) -> FanId | None:
    if a // 9 != b // 9:
        return F.MIXED_DOUBLE_CHOW if a % 9 == b % 9 else None  # [004:L372]
    if b - a == 3:
        return F.SHORT_STRAIGHT  # [004:L373]
    if a % 9 == 0 and b % 9 == 6:
        return F.TWO_TERMINAL_CHOWS  # [004:L374]
    if a == b:
        return F.PURE_DOUBLE_CHOW  # [004:L371]
    return None


def _pung4(a: int, b: int, c: int, d: int) -> FanId | None:
    if d < 27 and a // 9 == d // 9 and b == a + 1 and c == b + 1 and d == c + 1:
        return F.FOUR_PURE_SHIFTED_PUNGS  # [004:L304]
    if (a, b, c, d) == (27, 28, 29, 30):
        return F.BIG_FOUR_WINDS  # [004:L287]
    return None


def _pung3(a: int, b: int, c: int) -> FanId | None:
    if c < 27:
        sa, sb, sc = a // 9, b // 9, c // 9
        ra, rb, rc = sorted((a % 9, b % 9, c % 9))
        if sb not in (sa, sc) and sa != sc:
            if rb == ra + 1 and rc == rb + 1:
                return F.MIXED_SHIFTED_PUNGS  # [004:L339]
            if ra == rb == rc:
                return F.TRIPLE_PUNG  # [004:L326]
            return None
        if sa == sb == sc and b == a + 1 and c == b + 1:
            return F.PURE_SHIFTED_PUNGS  # [004:L318]
        return None
    if a >= 27 and c <= 30:
        return F.BIG_THREE_WINDS  # [004:L335]
    if (a, b, c) == (31, 32, 33):
        return F.BIG_THREE_DRAGONS  # [004:L291]
    return None


def _pung2(a: int, b: int) -> FanId | None:
    if b < 27:
        return F.DOUBLE_PUNG if a % 9 == b % 9 else None  # [004:L367]
    if a >= 31:
        return F.TWO_DRAGON_PUNGS  # [004:L351]
    return None


_FanFn = Callable[..., FanId | None]


def _combine(items: tuple[int, ...], f4: _FanFn, f3: _FanFn, f2: _FanFn) -> tuple[Combo, ...]:
    n = len(items)
    if n == 4:
        fan4 = f4(*items)
        if fan4 is not None:
            return ((fan4, (0, 1, 2, 3)),)
    best3: Combo | None = None
    if n >= 3:
        for tri in combinations(range(n), 3):
            fan3 = f3(*(items[i] for i in tri))
            if fan3 is not None and (best3 is None or _WEIGHT[fan3] > _WEIGHT[best3[0]]):
                best3 = (fan3, tri)
    if best3 is not None:
        out: list[Combo] = [best3]
        if n == 4:
            left = next(i for i in range(4) if i not in best3[1])
            extra: Combo | None = None
            for i in best3[1]:
                lo, hi = min(i, left), max(i, left)
                fan2 = f2(items[lo], items[hi])
                if fan2 is not None and (extra is None or _rank(fan2) > _rank(extra[0])):
                    extra = (fan2, (lo, hi))
            if extra is not None:
                out.append(extra)
        return tuple(out)
    edges: list[Combo] = []
    for i, j in combinations(range(n), 2):
        fan2 = f2(items[i], items[j])
        if fan2 is not None:
            edges.append((fan2, (i, j)))
    return _best_forest(edges, n)


def _best_forest(edges: list[Combo], n: int) -> tuple[Combo, ...]:
    """The heaviest subset of pairings that is a forest with each fan's pairs disjoint (see module doc)."""
    best: tuple[Combo, ...] = ()
    best_w = (0, 0)
    for mask in range(1, 1 << len(edges)):
        chosen = [e for k, e in enumerate(edges) if mask >> k & 1]
        parent = list(range(n))

        def find(x: int, parent: list[int] = parent) -> int:
            while parent[x] != x:
                x = parent[x]
            return x

        ok = True
        used: set[tuple[FanId, int]] = set()
        for fan, (i, j) in chosen:
            ri, rj = find(i), find(j)
            if ri == rj or (fan, i) in used or (fan, j) in used:
                ok = False
                break
            parent[ri] = rj
            used.add((fan, i))
            used.add((fan, j))
        if not ok:
            continue
        w = (sum(_WEIGHT[f] for f, _ in chosen), sum(_PRIORITY.get(f, 0) for f, _ in chosen))
        if w > best_w:
            best, best_w = tuple(chosen), w
    return best


@lru_cache(maxsize=16384)
def chow_combos(chows: tuple[int, ...]) -> tuple[Combo, ...]:
    """Combination fans of sorted chow tiles (lowest tiles)."""
    return _combine(chows, _chow4, _chow3, _chow2)


@lru_cache(maxsize=16384)
def pung_combos(pungs: tuple[int, ...]) -> tuple[Combo, ...]:
    """Combination fans of sorted pung/kong tiles."""
    return _combine(pungs, _pung4, _pung3, _pung2)
