"""Riichi tenpai, waits and furiten checks (HKMA 2025, seed ``002_40e04c10307d973b.txt``).

Shape checks use the ``mahjong`` package's :class:`~mahjong.agari.Agari`.  Pure; thread-safe.
"""

from __future__ import annotations

from collections.abc import Iterable

from mahjong.agari import Agari

from mjtable.tiles import NUM_FACES, Hand, Tile, tile_counts


def completing_tiles(hand: Hand) -> list[Tile]:
    """Faces that complete a 13-tile ``hand`` into a winning shape (yaku not checked).

    A face of which the hand and its melds already hold all four copies is left out: a wait only on
    such tiles is a pure empty wait, which is not tenpai (純空聽, L428).
    """
    held = tile_counts(hand.all_tiles)
    concealed = tile_counts(hand.concealed)
    out: list[Tile] = []
    for k in range(NUM_FACES):
        if held[k] >= 4:
            continue
        concealed[k] += 1
        if Agari.is_agari(concealed):
            out.append(Tile(k))
        concealed[k] -= 1
    return out


def is_tenpai(hand: Hand) -> bool:
    """Tenpai for the exhaustive-draw declaration (L427-L428): yakuless tenpai counts."""
    return bool(completing_tiles(hand))


def discard_furiten(waits: Iterable[Tile], own_discards: Iterable[Tile]) -> bool:
    """捨牌振聽: one of the waits is among the player's own discards, called ones included (L392)."""
    kinds = {t.kind for t in own_discards}
    return any(t.kind in kinds for t in waits)
