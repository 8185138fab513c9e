"""PyMahjongGB (MIT; a test-only dependency, imported lazily) called on our ``Hand``/``WinContext``.

Used by the differential test and ``bench/score_mcr.py`` as the reference implementation of the 2006 rules;
never used to score at run time.  Returns ``{English name: (points, count)}``.
"""

from __future__ import annotations

from typing import Any

from controller.mcr.model import WinContext
from mjtable.tiles import Hand, MeldKind, Relative, Tile

_SUIT = {"m": "W", "p": "B", "s": "T"}
_DRAGON = {5: "J3", 6: "J2", 7: "J1"}  # MahjongGB: J1 Red (中), J2 Green (发), J3 White (白)
_OFFER = {Relative.LEFT: 3, Relative.OPPOSITE: 2, Relative.RIGHT: 1}


def gb_code(t: Tile) -> str:
    """PyMahjongGB's tile code (W characters, B dots, T bamboo, F winds, J dragons)."""
    if t.is_suited:
        return f"{_SUIT[t.suit]}{t.rank}"
    if t.is_wind:
        return f"F{t.rank}"
    return _DRAGON[t.rank]


def gb_packs(hand: Hand) -> tuple[tuple[str, str, int], ...]:
    """The declared melds as PyMahjongGB packs (offer 0 = concealed kong)."""
    out: list[tuple[str, str, int]] = []
    for m in hand.melds:
        if m.kind is MeldKind.CHOW:
            out.append(("CHI", gb_code(m.tiles[1]), 1))
        elif m.kind is MeldKind.PUNG:
            out.append(("PENG", gb_code(m.tiles[0]), _OFFER.get(m.claimed_from or Relative.LEFT, 1)))
        elif m.kind is MeldKind.KONG:
            out.append(("GANG", gb_code(m.tiles[0]), _OFFER.get(m.claimed_from or Relative.LEFT, 1)))
        else:
            out.append(("GANG", gb_code(m.tiles[0]), 0))
    return tuple(out)


def gb_score(hand: Hand, ctx: WinContext) -> dict[str, tuple[int, int]] | None:
    """PyMahjongGB's fans for the win, or None when it says the hand is not a win."""
    import MahjongGB

    try:
        raw: Any = MahjongGB.MahjongFanCalculator(
            pack=gb_packs(hand), hand=tuple(gb_code(t) for t in hand.concealed), winTile=gb_code(ctx.win_tile),
            flowerCount=ctx.flowers, isSelfDrawn=ctx.self_drawn, is4thTile=ctx.last_of_kind,
            isAboutKong=ctx.kong, isWallLast=ctx.last_tile, seatWind=ctx.seat_wind.rank - 1,
            prevalentWind=ctx.round_wind.rank - 1, verbose=True)
    except TypeError:
        return None
    out: dict[str, tuple[int, int]] = {}
    for pts, cnt, _zh, en in raw:
        out[str(en)] = (int(pts), int(cnt))
    return out
