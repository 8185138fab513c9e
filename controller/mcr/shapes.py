"""Hand shapes on 34-count vectors: regular decompositions (4 sets + pair), Seven Pairs, Thirteen Orphans,
Honors and Knitted Tiles, Knitted Straight, and the tiles a 13-tile hand waits on.

Tiles are the kind numbers of :mod:`mjtable.tiles` (0-8 characters, 9-17 dots, 18-26 bamboo, 27-33 honors).
A *set* here is a tuple ``(kind, tile)`` with ``kind`` one of :data:`CHOW` (``tile`` is the lowest tile),
:data:`PUNG`, :data:`KONG` or :data:`PAIR`.  Decompositions are cached per suit (a 9-count key) and per hand,
so the per-discard claim check of the engine mostly hits the caches.  Pure functions, thread-safe
(``functools.lru_cache`` is).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement, product

CHOW = 0
PUNG = 1
KONG = 2
PAIR = 3

Set = tuple[int, int]
Division = tuple[Set, ...]

#: The 13 terminal and honor kinds of Thirteen Orphans.
ORPHANS: tuple[int, ...] = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_ORPHAN_SET = frozenset(ORPHANS)
#: The six knitted sequences 147/258/369, one suit each, as kind tuples of 9 tiles.
KNITTED: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(s * 9 + r for s, start in zip(perm, (0, 1, 2), strict=True) for r in (start, start + 3, start + 6)))
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
)


@lru_cache(maxsize=1 << 16)
def _suit_divisions(counts: tuple[int, ...]) -> tuple[tuple[bool, tuple[Set, ...]], ...]:
    """All ways to split one suit (9 counts) into chows/pungs and at most one pair; ranks 0-8.

    Returns ``(has_pair, sets)`` tuples with sets sorted; empty when the suit cannot be split.
    """
    out: set[tuple[bool, tuple[Set, ...]]] = set()

    def rec(c: list[int], start: int, pair: bool, acc: list[Set]) -> None:
        i = start
        while i < 9 and c[i] == 0:
            i += 1
        if i == 9:
            out.add((pair, tuple(sorted(acc))))
            return
        if c[i] >= 3:
            c[i] -= 3
            acc.append((PUNG, i))
            rec(c, i, pair, acc)
            acc.pop()
            c[i] += 3
        if not pair and c[i] >= 2:
            c[i] -= 2
            acc.append((PAIR, i))
            rec(c, i, True, acc)
            acc.pop()
            c[i] += 2
        if i <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            acc.append((CHOW, i))
            rec(c, i, pair, acc)
            acc.pop()
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1

    if sum(counts) % 3 != 1:  # a suit holds 3n tiles, or 3n+2 with the pair
        rec(list(counts), 0, False, [])
    return tuple(sorted(out))


@lru_cache(maxsize=16384)
def divisions(counts: tuple[int, ...]) -> tuple[Division, ...]:
    """Every split of concealed ``counts`` (34 entries, 3n+2 tiles) into n sets and one pair.

    Each division is a sorted tuple of ``(kind, tile)``; the result is empty if there is none.
    """
    per_suit: list[tuple[tuple[bool, tuple[Set, ...]], ...]] = []
    for s in range(3):
        key = counts[s * 9 : s * 9 + 9]
        if not any(key):
            per_suit.append(((False, ()),))
            continue
        opts = tuple((p, tuple((k, t + s * 9) for k, t in sets)) for p, sets in _suit_divisions(key))
        if not opts:
            return ()
        per_suit.append(opts)
    honor_sets: list[Set] = []
    honor_pairs = 0
    for t in range(27, 34):
        n = counts[t]
        if n == 0:
            continue
        if n == 3:
            honor_sets.append((PUNG, t))
        elif n == 2:
            honor_sets.append((PAIR, t))
            honor_pairs += 1
        else:
            return ()
    if honor_pairs > 1:
        return ()
    out: list[Division] = []
    for combo in product(*per_suit):
        if sum(p for p, _ in combo) + honor_pairs != 1:
            continue
        sets: list[Set] = [*honor_sets]
        for _, ss in combo:
            sets.extend(ss)
        out.append(tuple(sorted(sets)))
    return tuple(out)


def build_complete_suits() -> dict[tuple[int, ...], int]:
    """Every complete one-suit pattern a hand can hold (9 counts, at most 4 of a rank, at most 4 sets and one
    pair), mapped to 0 (sets only) or 1 (sets and one pair): 21,743 patterns.

    Built once at import (:data:`COMPLETE_SUITS`) by listing every multiset of up to four sets (about 10 ms
    on a desktop core); after that every suit check is one dict lookup, so even the first hands a process
    scores, and its first waits query, run at full speed."""
    sets = [(r, r + 1, r + 2) for r in range(7)] + [(r, r, r) for r in range(9)]
    out: dict[tuple[int, ...], int] = {}
    for k in range(5):
        for combo in combinations_with_replacement(range(16), k):
            c = [0] * 9
            for i in combo:
                for r in sets[i]:
                    c[r] += 1
            if max(c) > 4:
                continue
            out[tuple(c)] = 0
            for r in range(9):
                if c[r] <= 2:
                    c[r] += 2
                    out[tuple(c)] = 1
                    c[r] -= 2
    return out


#: :func:`build_complete_suits`, built at import.  Read-only.
COMPLETE_SUITS: dict[tuple[int, ...], int] = build_complete_suits()


def complete_suits() -> dict[tuple[int, ...], int]:
    """The table of complete one-suit patterns (:data:`COMPLETE_SUITS`)."""
    return COMPLETE_SUITS


def _suit_ok(counts: tuple[int, ...]) -> bool:
    """Whether one suit (9 counts) splits into sets and at most one pair (a pair iff 3n+2 tiles).

    A lookup in :func:`complete_suits`; counts outside it (a fifth copy, more than 14 tiles: only the
    ``allow_fifth`` wait variant builds them) fall back to a search."""
    if counts in COMPLETE_SUITS:
        return True
    if max(counts) <= 4 and sum(counts) <= 14:
        return False
    n = sum(counts)
    if n % 3 == 1:
        return False
    return _can_split(list(counts), 0, n % 3 == 2)


def _can_split(c: list[int], i: int, need_pair: bool) -> bool:
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        return not need_pair
    if need_pair and c[i] >= 2:
        c[i] -= 2
        ok = _can_split(c, i, False)
        c[i] += 2
        if ok:
            return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _can_split(c, i, need_pair)
        c[i] += 3
        if ok:
            return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _can_split(c, i, need_pair)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        return ok
    return False


def is_regular(counts: tuple[int, ...]) -> bool:
    """Fast yes/no: do ``counts`` (3n+2 tiles) split into sets and exactly one pair?"""
    pairs = 0
    for s in (0, 9, 18):
        key = counts[s : s + 9]
        r = sum(key) % 3
        if r == 1:
            return False
        if r == 2:
            pairs += 1
        if (r or any(key)) and not _suit_ok(key):
            return False
    for t in range(27, 34):
        n = counts[t]
        if n == 2:
            pairs += 1
        elif n not in (0, 3):
            return False
    return pairs == 1


def _suit_state(key: tuple[int, ...]) -> int:
    """-1: the suit is not complete; 0: it splits into sets; 1: into sets and one pair."""
    st = COMPLETE_SUITS.get(key)
    if st is not None:
        return st
    n = sum(key)
    if n == 0:
        return 0
    r = n % 3
    if r == 1 or not _suit_ok(key):
        return -1
    return 1 if r == 2 else 0


@lru_cache(maxsize=1 << 16)
def _suit_completers(key: tuple[int, ...], allow_fifth: bool) -> tuple[tuple[int, int], ...]:
    """Ranks whose addition completes this suit, each with the resulting state (0 no pair, 1 pair)."""
    out: list[tuple[int, int]] = []
    c = list(key)
    for r in range(9):
        if c[r] >= 4 and not allow_fifth:
            continue
        if not (c[r] or (r > 0 and c[r - 1]) or (r < 8 and c[r + 1]) or (r > 1 and c[r - 2]) or (r < 7 and c[r + 2])):
            continue
        c[r] += 1
        st = _suit_state(tuple(c))
        c[r] -= 1
        if st >= 0:
            out.append((r, st))
    return tuple(out)


@lru_cache(maxsize=16384)
def wait_count(counts13: tuple[int, ...], with_seven_pairs: bool, allow_fifth: bool = False, limit: int = 2) -> int:
    """How many kinds complete ``counts13`` as 4 sets + pair (or Seven Pairs), counting up to ``limit``.

    ``wait_count(...) == 1`` is the unique-wait test behind Edge/Closed/Single Wait.  Kinds held four times
    are skipped unless ``allow_fifth``.  Works suit by suit: the suit that takes the new tile must become
    complete and all the others must already be, with exactly one pair overall.
    """
    waits: set[int] = set()
    states: list[int] = []
    keys: list[tuple[int, ...]] = []
    for s in (0, 9, 18):
        key = counts13[s : s + 9]
        keys.append(key)
        states.append(_suit_state(key))
    for t in range(27, 34):
        n = counts13[t]
        states.append(0 if n in (0, 3) else 1 if n == 2 else -1)
    bad = [g for g, st in enumerate(states) if st < 0]
    if len(bad) <= 1:
        all_pairs = states.count(1)
        for g in bad or range(len(states)):
            pairs_elsewhere = all_pairs - (states[g] == 1)
            if g < 3:
                for r, st in _suit_completers(keys[g], allow_fifth):
                    if st + pairs_elsewhere == 1:
                        waits.add(g * 9 + r)
            else:
                t = 24 + g
                n = counts13[t]
                if (n == 1 and pairs_elsewhere == 0) or (n == 2 and pairs_elsewhere == 1):
                    waits.add(t)
    if with_seven_pairs and sum(counts13) == 13:
        odd = [t for t in range(34) if counts13[t] % 2]
        if len(odd) == 1 and (counts13[odd[0]] < 4 or allow_fifth):
            waits.add(odd[0])
    return min(len(waits), limit)


def is_seven_pairs(counts: tuple[int, ...]) -> bool:
    """14 concealed tiles in seven pairs (four of a kind counts as two pairs)."""
    return not counts.count(1) and not counts.count(3) and sum(counts) == 14


def is_thirteen_orphans(counts: tuple[int, ...]) -> bool:
    """One of each terminal and honor plus a duplicate of one of them."""
    if not (counts[0] and counts[8] and counts[33]):
        return False
    return sum(counts) == 14 and all(counts[t] >= 1 for t in ORPHANS) and all(
        n == 0 for t, n in enumerate(counts) if t not in _ORPHAN_SET
    )


def knitted_pattern(counts: tuple[int, ...]) -> tuple[int, ...] | None:
    """The knitted sequence (9 kinds) whose tiles are all present in ``counts``, or None."""
    for pat in KNITTED:
        if all(counts[t] for t in pat):
            return pat
    return None


def honors_and_knitted(counts: tuple[int, ...]) -> tuple[int, ...] | None:
    """For 14 single tiles of one knitted pattern plus honors, return that pattern (else None)."""
    if max(counts) > 1 or sum(counts) != 14:
        return None
    suited = [t for t in range(27) if counts[t]]
    for pat in KNITTED:
        if all(t in pat for t in suited):
            return pat
    return None


def knitted_straight_divisions(counts: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], Division], ...]:
    """Splits of concealed ``counts`` into a knitted straight plus the rest (sets and one pair)."""
    c = counts
    if not ((c[0] and c[3] and c[6]) or (c[1] and c[4] and c[7]) or (c[2] and c[5] and c[8])):
        return ()
    out: list[tuple[tuple[int, ...], Division]] = []
    for pat in KNITTED:
        if all(counts[t] for t in pat):
            rest = list(counts)
            for t in pat:
                rest[t] -= 1
            out.extend((pat, d) for d in divisions(tuple(rest)))
    return tuple(out)


def is_complete_counts(counts: tuple[int, ...], melds: int) -> bool:
    """Whether concealed ``counts`` (with the winning tile) plus ``melds`` declared sets form any winning shape."""
    if is_regular(counts):
        return True
    if melds == 0 and (is_seven_pairs(counts) or is_thirteen_orphans(counts) or honors_and_knitted(counts)):
        return True
    return melds <= 1 and bool(knitted_straight_divisions(counts))


@lru_cache(maxsize=4096)
def waiting_tiles(counts13: tuple[int, ...], melds: int, allow_fifth: bool = False) -> tuple[int, ...]:
    """Kinds that complete the concealed ``counts13`` (3n+1 tiles) in any shape, ignoring copies left.

    A kind already held four times in the concealed tiles is not listed (there is no fifth copy) unless
    ``allow_fifth``.
    """
    out: list[int] = []
    c = list(counts13)
    for t in range(34):
        if c[t] >= 4 and not allow_fifth:
            continue
        c[t] += 1
        if is_complete_counts(tuple(c), melds):
            out.append(t)
        c[t] -= 1
    return tuple(out)
