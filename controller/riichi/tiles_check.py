"""Tile-multiset check for the riichi set (136 tiles, one red five per suit, L106-L110).

Works around ``TileSet.check`` indexing ``red_fives`` with honour kinds (reported in docs/handoff/requests.md):
suited tiles go through :meth:`mjtable.tiles.TileSet.check`, honours and flowers are checked here.  Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from mjtable.tiles import RIICHI_TILESET, Hand, NotationError, Tile


def check_riichi_tiles(tiles: Iterable[Tile], *, text: str = "") -> None:
    """Raise NotationError for a flower, a fifth copy or a second red five of a suit."""
    suited: list[Tile] = []
    honours: Counter[int] = Counter()
    for t in tiles:
        if t.is_flower:
            raise NotationError(f"{t.code} is not in the riichi tile set (no flowers, L106)", -1, text)
        if t.is_honor:
            honours[t.kind] += 1
            if honours[t.kind] > 4:
                raise NotationError(f"fifth copy of {t.code}: the riichi set has 4", -1, text)
        else:
            suited.append(t)
    RIICHI_TILESET.check(suited, text=text)


def check_riichi_hand(hand: Hand, extra: Iterable[Tile] = ()) -> None:
    """:func:`check_riichi_tiles` over a hand's tiles, flowers and ``extra`` (e.g. the win tile)."""
    check_riichi_tiles([*hand.all_tiles, *hand.flowers, *extra], text=hand.code)
