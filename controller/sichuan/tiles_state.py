"""One seat's tiles during a Sichuan hand (immutable): concealed tiles, melds, pond and status flags.

Used by :mod:`controller.sichuan.table`.  Pure; thread-safe.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from mjtable.tiles import Hand, Meld, MeldKind, Relative, Tile

_REL = {3: Relative.LEFT, 2: Relative.OPPOSITE, 1: Relative.RIGHT}


def relative(owner: int, source: int) -> Relative:
    """Where ``source`` sits seen from ``owner`` (seat s + 1 is the 下家, on the right)."""
    return _REL[(source - owner) % 4]


@dataclass(frozen=True, kw_only=True, slots=True)
class SeatTiles:
    """``pond`` holds (tile, called) in discard order; ``dead`` = 停和陪打; ``pig`` = judged 主动花猪;
    ``discarded_other`` = has discarded a tile not of the missing suit (for 查花猪, L574); ``void_tile`` = the
    face-down tile showing the missing suit, which must be the first discard (L348); ``passed_fan`` = the best
    fan of a winning tile this seat let pass since its last draw (顺和, L248)."""

    concealed: tuple[Tile, ...] = ()
    melds: tuple[Meld, ...] = ()
    pond: tuple[tuple[Tile, bool], ...] = ()
    dead: bool = False
    pig: bool = False
    discarded_other: bool = False
    void_tile: Tile | None = None
    passed_fan: int | None = None

    @property
    def all_tiles(self) -> list[Tile]:
        return [*self.concealed, *(t for m in self.melds for t in m.tiles)]

    def add(self, t: Tile) -> SeatTiles:
        return replace(self, concealed=tuple(sorted((*self.concealed, t))))

    def remove(self, tiles: Iterable[Tile]) -> SeatTiles:
        rest = list(self.concealed)
        for t in tiles:
            rest.remove(t)
        return replace(self, concealed=tuple(rest))

    def discard(self, t: Tile) -> SeatTiles:
        return replace(self, pond=(*self.pond, (t, False)))

    def mark_called(self) -> SeatTiles:
        t, _ = self.pond[-1]
        return replace(self, pond=(*self.pond[:-1], (t, True)))

    def meld_from(self, t: Tile, n: int, *, claimed_from: int, owner: int | None = None) -> SeatTiles:
        """Pong (n=2) or called kong (n=3) of discard ``t`` using ``n`` of our copies."""
        mine = [x for x in self.concealed if x.kind == t.kind][:n]
        kind = MeldKind.PUNG if n == 2 else MeldKind.KONG
        rel = None if owner is None else relative(owner, claimed_from)
        meld = Meld(kind, tuple(sorted((*mine, t))), rel, t)
        return replace(self.remove(mine), melds=(*self.melds, meld))

    def concealed_kong(self, t: Tile) -> SeatTiles:
        mine = [x for x in self.concealed if x.kind == t.kind][:4]
        return replace(self.remove(mine), melds=(*self.melds, Meld(MeldKind.CONCEALED_KONG, tuple(mine))))

    def has_pung(self, t: Tile) -> bool:
        return any(m.kind is MeldKind.PUNG and m.first.kind == t.kind for m in self.melds)

    def promote(self, t: Tile) -> SeatTiles:
        melds = tuple(Meld(MeldKind.KONG, tuple(sorted((*m.tiles, t))), m.claimed_from, m.claimed_tile)
                      if m.kind is MeldKind.PUNG and m.first.kind == t.kind else m for m in self.melds)
        return replace(self.remove([t]), melds=melds)

    def unpromote(self, t: Tile) -> SeatTiles:
        """A robbed promoted kong goes back to a pong; the robbed tile left with the winner(s) (L546)."""
        out: list[Meld] = []
        for m in self.melds:
            if m.kind is MeldKind.KONG and m.first.kind == t.kind:
                rest = list(m.tiles)
                rest.remove(t) if t in rest else rest.pop()
                out.append(Meld(MeldKind.PUNG, tuple(rest), m.claimed_from, m.claimed_tile))
            else:
                out.append(m)
        return replace(self, melds=tuple(out))


def hand_of(seat: SeatTiles) -> Hand:
    """The seat's hand for scoring (concealed + melds)."""
    return Hand(seat.concealed, seat.melds)
