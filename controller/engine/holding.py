"""Can a seat hold these tiles?  The one check shared by discards, claims, kongs and revealed wins.

Split out of ``claims.py`` (issue 18) so that ``wins.py`` uses it without importing the claims module, which
imports ``wins``: the core's modules now import each other one way.  Pure; thread-safe.
"""

from __future__ import annotations

from dataclasses import replace

from controller.engine.errors import Reject
from controller.engine.query import known_count
from controller.engine.state import HandState, SeatState
from mjtable.tiles import Tile


def check_can_hold(hand: HandState, s: SeatState, seat: int, tiles: list[Tile], *,
                   by_kind: bool = False) -> SeatState:
    """Remove ``tiles`` from ``seat``'s concealed tiles: known ones first, unknown ones when the face is still
    possible (no fifth copy, no red five the set does not have).  Known tiles must match exactly (a red five is
    not a plain five) unless ``by_kind`` (pung/kong on a discard: any copies of the face).  Raises ``not_held``
    / ``impossible_tile``."""
    known = list(s.known)
    unknown = s.unknown
    extra: dict[tuple[int, bool], int] = {}
    for t in tiles:
        if t in known:
            known.remove(t)
            continue
        if by_kind:
            same = next((k for k in known if k.kind == t.kind), None)
            if same is not None:
                known.remove(same)
                continue
        if unknown <= 0:
            raise Reject("not_held", f"seat {seat} does not hold {t.code}")
        key = (t.kind, t.red and not by_kind)
        extra[key] = extra.get(key, 0) + 1
        limit = 1 if t.is_flower else 4
        if known_count(hand, t.kind) + sum(n for (k, _), n in extra.items() if k == t.kind) > limit:
            raise Reject("impossible_tile", f"{t.code}: every copy is already accounted for (a fifth copy)")
        if key[1] and _known_reds(hand, t) + extra[key] > hand.red_fives[t.kind // 9]:
            raise Reject("impossible_tile", f"{t.code}: the tile set has no more red fives of that suit")
        unknown -= 1
    return replace(s, known=tuple(known), unknown=unknown)


def _known_reds(hand: HandState, t: Tile) -> int:
    """Red copies of ``t``'s face the engine already knows about."""
    n = 0
    for s in hand.seats:
        n += sum(1 for p in s.pond if p.tile == t and not p.called)
        n += sum(1 for x in s.known if x == t)
        for m in s.melds:
            n += sum(1 for x in m.tiles if x == t)
    return n
