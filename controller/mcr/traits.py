"""Fans that depend only on *which* kinds a hand contains (suits, honors, terminals, ranks, tile traits),
computed with bit masks over the 34 kinds.  Pure, thread-safe."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from controller.mcr.fans import FanId

#: Fan ids as plain ints: attribute access on an IntEnum class costs ~6x more in the hot path.
F: Any = SimpleNamespace(**{m.name: m.value for m in FanId})

GREEN = frozenset((19, 20, 21, 23, 25, 32))  # 23468s and Green [004:L292]
REVERSIBLE = frozenset((9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 31))  # 1234589p 245689s White [004:L337]
TERMINALS = frozenset((0, 8, 9, 17, 18, 26))


def _bits(kinds: frozenset[int] | range | tuple[int, ...]) -> int:
    out = 0
    for t in kinds:
        out |= 1 << t
    return out


_M, _P, _S = 0x1FF, 0x1FF << 9, 0x1FF << 18
_HON = _bits(range(27, 34))
_WIND = _bits(range(27, 31))
_DRAGON = _bits(range(31, 34))
_TERM = _bits(TERMINALS)
_TOH = _TERM | _HON
_GREEN_BITS = _bits(GREEN)
_REV_BITS = _bits(REVERSIBLE)
#: rank masks (bit r-1 for rank r) -> (fan, explanation); first match wins, ordered tightest first
_RANK_FANS = ((0b000000111, F.LOWER_TILES, "ranks 1-3 only"), (0b000001111, F.LOWER_FOUR, "ranks 1-4 only"),
              (0b111000000, F.UPPER_TILES, "ranks 7-9 only"), (0b111100000, F.UPPER_FOUR, "ranks 6-9 only"),
              (0b000111000, F.MIDDLE_TILES, "ranks 4-6 only"))


def hand_fans(present: int) -> tuple[tuple[int, str], ...]:
    """Fans that depend only on which kinds are in the hand (suits, ranks, tile traits).

    ``present`` has bit ``t`` set for every kind ``t`` in the hand; all tests are bit masks."""
    out: list[tuple[int, str]] = []
    has = (bool(present & _M), bool(present & _P), bool(present & _S))
    honors = bool(present & _HON)
    voids = 3 - sum(has)
    if not honors:
        out.append((F.NO_HONORS, "no winds or dragons"))
    if voids == 1:
        out.append((F.ONE_VOIDED_SUIT, f"no {'mps'[has.index(False)]} tiles"))
    elif voids == 2:
        out.append((F.HALF_FLUSH, "one suit plus honors") if honors else (F.FULL_FLUSH, "one suit only"))
    if voids == 0 and present & _WIND and present & _DRAGON:
        out.append((F.ALL_TYPES, "three suits, a wind and a dragon"))
    simples = not present & _TOH
    if simples:
        out.append((F.ALL_SIMPLES, "no terminals or honors"))
    if not present & ~_REV_BITS:
        out.append((F.REVERSIBLE_TILES, "only 1234589p 245689s and White"))
    if not present & ~_GREEN_BITS:
        out.append((F.ALL_GREEN, "only 23468s and Green"))
    if not simples:
        if not present & ~_HON:
            out.append((F.ALL_HONORS, "honors only"))
        elif not present & ~_TERM:
            out.append((F.ALL_TERMINALS, "terminals only"))
        elif not present & ~_TOH:
            out.append((F.ALL_TERMINALS_AND_HONORS, "terminals and honors only"))
    if not honors:
        ranks = (present | present >> 9 | present >> 18) & 0x1FF
        for mask, fan, why in _RANK_FANS:
            if not ranks & ~mask:
                out.append((fan, why))
                break
    return tuple(out)
