"""Winning shapes for Sichuan SBR 2025 (seed ``001_2f25afa9281b00ab.txt``).

Pure functions over 27-entry count vectors (kinds 0..26 = ``1m``..``9s``; Sichuan has no honours,
L64).  A winning hand is either the basic shape, one pair plus four sets of runs or triplets (L444-L446),
or seven pairs where four identical tiles not declared as a kong count as two pairs (L448).  The hand
may hold at most two suits (L450).  Thread-safe; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from mjtable.tiles import Hand, Tile

NUM_SUITED = 27
SUIT_LETTERS = "mps"


def counts27(tiles: Iterable[Tile]) -> list[int]:
    """27-entry count vector; raises ValueError on an honour or a flower (not in the Sichuan set, L64)."""
    c = [0] * NUM_SUITED
    for t in tiles:
        if not t.is_suited:
            raise ValueError(f"{t.code} is not a Sichuan tile: the set has only 万/饼/条 1-9 (L64)")
        c[t.kind] += 1
    return c


@cache
def _sets_only(key: tuple[int, ...]) -> bool:
    """True when the counts split into runs and triplets only (no pair)."""
    c = list(key)
    i = next((k for k, v in enumerate(c) if v), -1)
    if i < 0:
        return True
    if c[i] >= 3:
        c[i] -= 3
        if _sets_only(tuple(c)):
            return True
        c[i] += 3
    if i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        if _sets_only(tuple(c)):
            return True
    return False


def is_basic_complete(concealed: Sequence[int]) -> bool:
    """Concealed counts (melds removed) form one pair plus sets (L444)."""
    total = sum(concealed)
    if total % 3 != 2:
        return False
    c = list(concealed)
    for i in range(NUM_SUITED):
        if c[i] >= 2:
            c[i] -= 2
            if _sets_only(tuple(c)):
                return True
            c[i] += 2
    return False


def is_all_triplets(concealed: Sequence[int]) -> bool:
    """Concealed counts are triplets plus exactly one pair (the 大对子 reading, L531)."""
    if sum(concealed) % 3 != 2:
        return False
    pairs = sum(1 for v in concealed if v == 2)
    return pairs == 1 and all(v in (0, 2, 3) for v in concealed)


def is_seven_pairs(concealed: Sequence[int]) -> bool:
    """Fourteen concealed tiles in seven pairs; a four counts as two pairs (L448)."""
    return sum(concealed) == 14 and all(v % 2 == 0 for v in concealed)


def suits_of(tiles: Iterable[Tile]) -> set[str]:
    """The set of suit letters among ``tiles``."""
    return {t.suit for t in tiles}


def hand_counts(hand: Hand, extra: Iterable[Tile] = ()) -> list[int]:
    """Concealed counts of ``hand`` plus ``extra`` (e.g. the winning tile)."""
    return counts27([*hand.concealed, *extra])


def is_winning_shape(hand: Hand, win_tile: Tile) -> bool:
    """Shape only (no suit or 定缺 check): basic or seven pairs, melds counted as sets."""
    c = hand_counts(hand, [win_tile])
    if is_basic_complete(c):
        return True
    return not hand.melds and is_seven_pairs(c)
