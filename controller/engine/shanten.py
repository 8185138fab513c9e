"""Shanten (tiles short of ready) on 34-face count vectors, for bots and false-win grading.

Covers the standard shape (4 sets + pair, with declared melds), seven pairs and thirteen orphans.  The
knitted MCR shapes (全不靠, 组合龙) are left to the scorer's ``is_complete``.  Pure, cached, thread-safe.
``shanten == -1`` means complete; ``0`` means ready (听牌).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

_ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)

# One option per decomposition of a group: (sets, partial sets, pair used as head: 0/1).
_Option = tuple[int, int, int]


def _prune(options: set[_Option]) -> tuple[_Option, ...]:
    """Keep only options not dominated in every coordinate by another."""
    out = [o for o in options
           if not any(p != o and p[0] >= o[0] and p[1] >= o[1] and p[2] >= o[2] for p in options)]
    return tuple(sorted(out))


@lru_cache(maxsize=65536)
def _suit_options(counts: tuple[int, ...], honors: bool) -> tuple[_Option, ...]:
    found: set[_Option] = set()

    def walk(c: list[int], i: int, m: int, t: int, p: int) -> None:
        while i < len(c) and c[i] == 0:
            i += 1
        if i >= len(c):
            found.add((m, t, p))
            return
        if c[i] >= 3:
            c[i] -= 3
            walk(c, i, m + 1, t, p)
            c[i] += 3
        if not honors and i + 2 < len(c) and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            walk(c, i, m + 1, t, p)
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1
        if c[i] >= 2:
            c[i] -= 2
            if not p:
                walk(c, i, m, t, 1)
            walk(c, i, m, t + 1, p)
            c[i] += 2
        if not honors:
            for d in (1, 2):
                if i + d < len(c) and c[i + d]:
                    c[i] -= 1
                    c[i + d] -= 1
                    walk(c, i, m, t + 1, p)
                    c[i] += 1
                    c[i + d] += 1
        c[i] -= 1
        walk(c, i, m, t, p)
        c[i] += 1

    walk(list(counts), 0, 0, 0, 0)
    return _prune(found)


def standard_shanten(counts: Sequence[int], melds: int = 0) -> int:
    """Shanten of the standard shape for concealed ``counts`` (34 entries) plus ``melds`` declared sets."""
    groups = (
        _suit_options(tuple(counts[0:9]), False),
        _suit_options(tuple(counts[9:18]), False),
        _suit_options(tuple(counts[18:27]), False),
        _suit_options(tuple(counts[27:34]), True),
    )
    best = 8
    combos: set[_Option] = {(melds, 0, 0)}
    for g in groups:
        nxt: set[_Option] = set()
        for m, t, p in combos:
            for gm, gt, gp in g:
                if p and gp:
                    continue
                nxt.add((m + gm, t + gt, p | gp))
        combos = set(_prune(nxt))
    for m, t, p in combos:
        m_c = min(m, 4)
        t_c = min(t, 4 - m_c)
        best = min(best, 8 - 2 * m_c - t_c - p)
    return best


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Shanten of seven pairs (only with 13/14 concealed tiles; four of a kind counts as one pair)."""
    pairs = sum(1 for c in counts if c >= 2)
    kinds = sum(1 for c in counts if c >= 1)
    return 6 - pairs + max(0, 7 - kinds)


def orphans_shanten(counts: Sequence[int]) -> int:
    """Shanten of thirteen orphans."""
    kinds = sum(1 for k in _ORPHANS if counts[k])
    pair = any(counts[k] >= 2 for k in _ORPHANS)
    return 13 - kinds - (1 if pair else 0)


def shanten(counts: Sequence[int], melds: int = 0) -> int:
    """Best shanten over the standard shape, and seven pairs / thirteen orphans when nothing is declared."""
    s = standard_shanten(counts, melds)
    if melds == 0 and sum(counts) >= 13:
        s = min(s, seven_pairs_shanten(counts), orphans_shanten(counts))
    return s


_KNITTED_PERMS = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))


def maybe_knitted(counts: Sequence[int]) -> bool:
    """Cheap necessary condition for the knitted MCR shapes (组合龙 with a set and a pair, or 全不靠):
    some assignment of 147/258/369 to the three suits has all nine knitted tiles, or (14 singles) every suited
    tile fits one assignment.  False means neither shape is possible, so the scorer need not be asked.
    Cached per count vector (asked for every seat on every discard)."""
    return _maybe_knitted(tuple(counts))


@lru_cache(maxsize=16384)
def _maybe_knitted(counts: tuple[int, ...]) -> bool:
    for perm in _KNITTED_PERMS:
        knitted = [suit * 9 + perm[suit] + 3 * i for suit in range(3) for i in range(3)]
        if all(counts[k] for k in knitted):
            return True
        if sum(counts) == 14 and all(c <= 1 for c in counts):
            allowed = set(knitted)
            if all(counts[k] == 0 or k in allowed for k in range(27)):
                return True
    return False


@lru_cache(maxsize=65536)
def _sets_only(counts: tuple[int, ...], honors: bool) -> bool:
    """Can this group be split into pungs (and chows, when suited) with nothing left?"""
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:
        return True
    c = list(counts)
    if c[i] >= 3:
        c[i] -= 3
        if _sets_only(tuple(c), honors):
            return True
        c[i] += 3
    if not honors and i + 2 < len(c) and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        return _sets_only(tuple(c), honors)
    return False


@lru_cache(maxsize=65536)
def _group(counts: tuple[int, ...], honors: bool) -> tuple[bool, bool]:
    """(sets only, sets plus exactly one pair) for one suit or the honours."""
    plain = sum(counts) % 3 == 0 and _sets_only(counts, honors)
    with_pair = False
    if sum(counts) % 3 == 2:
        for k, n in enumerate(counts):
            if n >= 2:
                c = list(counts)
                c[k] -= 2
                if _sets_only(tuple(c), honors):
                    with_pair = True
                    break
    return plain, with_pair


def is_complete(counts: Sequence[int], melds: int = 0) -> bool:
    """Fast exact test for shanten == -1 (standard shape, seven pairs, thirteen orphans)."""
    pairs = 0
    for lo, hi, honors in ((0, 9, False), (9, 18, False), (18, 27, False), (27, 34, True)):
        plain, with_pair = _group(tuple(counts[lo:hi]), honors)
        if with_pair:
            pairs += 1
        elif not plain:
            pairs = -9
            break
    if pairs == 1:
        return True
    if melds == 0 and sum(counts) == 14:
        if all(c in (0, 2, 4) for c in counts) and sum(1 for c in counts if c) >= 4:
            return sum(c // 2 for c in counts) == 7
        return orphans_shanten(counts) == -1
    return False


@lru_cache(maxsize=16384)
def completing_kinds(counts: tuple[int, ...], melds: int = 0) -> frozenset[int]:
    """Faces ``k`` (0..33) for which ``counts`` plus one ``k`` passes :func:`is_complete` (the shape's waits).

    Cached per count vector: between two discards most seats' concealed tiles do not change, so the waits of
    a 13-tile hand are computed once and every later claim check or furiten test is a set lookup.  Pure."""
    c = list(counts)
    out = []
    for k in range(34):
        c[k] += 1
        if is_complete(c, melds):
            out.append(k)
        c[k] -= 1
    return frozenset(out)
