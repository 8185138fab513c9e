"""Riichi tenpai, waits and furiten checks (HKMA 2025, seed ``002_40e04c10307d973b.txt``).

Shape checks use the ``mahjong`` package's :class:`~mahjong.agari.Agari`.  Pure; thread-safe.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from mahjong.agari import Agari

from mjtable.tiles import NUM_FACES, Hand, Tile, tile_counts


def completing_tiles(hand: Hand) -> list[Tile]:
    """Faces that complete a 13-tile ``hand`` into a winning shape (yaku not checked).

    A face of which the hand and its melds already hold all four copies is left out: a wait only on
    such tiles is a pure empty wait, which is not tenpai (純空聽, L428).  Cached per (concealed counts,
    faces held four times): the engine asks this for the same hand at every discard it could ron.
    """
    held = tile_counts(hand.all_tiles)
    full = tuple(k for k in range(NUM_FACES) if held[k] >= 4)
    return [Tile(k) for k in _completing_kinds(tuple(tile_counts(hand.concealed)), full)]


@lru_cache(maxsize=8192)
def _completing_kinds(concealed: tuple[int, ...], full: tuple[int, ...]) -> tuple[int, ...]:
    counts = list(concealed)
    out: list[int] = []
    for k in range(NUM_FACES):
        if k in full:
            continue
        counts[k] += 1
        if Agari.is_agari(counts):
            out.append(k)
        counts[k] -= 1
    return tuple(out)


def is_tenpai(hand: Hand) -> bool:
    """Tenpai for the exhaustive-draw declaration (L427-L428): yakuless tenpai counts."""
    return bool(completing_tiles(hand))


def discard_furiten(waits: Iterable[Tile], own_discards: Iterable[Tile]) -> bool:
    """捨牌振聽: one of the waits is among the player's own discards, called ones included (L392)."""
    kinds = {t.kind for t in own_discards}
    return any(t.kind in kinds for t in waits)
