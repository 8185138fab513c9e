"""Tile-multiset check for the riichi set (136 tiles, one red five per suit, L106-L110).

Flowers get a riichi-specific message; everything else is :meth:`mjtable.tiles.TileSet.check` (fixed for
honours, so the old workaround is gone).  Pure.
"""

from __future__ import annotations

from collections.abc import Iterable

from mjtable.tiles import RIICHI_TILESET, Hand, NotationError, Tile


def check_riichi_tiles(tiles: Iterable[Tile], *, text: str = "") -> None:
    """Raise NotationError for a flower, a fifth copy or a second red five of a suit."""
    listed = list(tiles)
    for t in listed:
        if t.is_flower:
            raise NotationError(f"{t.code} is not in the riichi tile set (no flowers, L106)", -1, text)
    RIICHI_TILESET.check(listed, text=text)


def check_riichi_hand(hand: Hand, extra: Iterable[Tile] = ()) -> None:
    """:func:`check_riichi_tiles` over a hand's tiles, flowers and ``extra`` (e.g. the win tile)."""
    check_riichi_tiles([*hand.all_tiles, *hand.flowers, *extra], text=hand.code)
