"""HKMA 2025 penalty levels (處分, seed 002 L509-L516) for the riichi engine extension (issue 16 points 7, 10).

* Level 1 (一級): a warning on record; "局內若再因同樣原因犯規即處以二級處分".
* Level 2 (二級): 2 points at once; "半莊內若再因同樣原因犯規即處以四級處分" - a repeat of the same infraction in the
  half-game (our session) is level 4, not a per-hand ladder.
* Level 3 (三級): no win this hand (和了禁止), no points.
* Level 4 (四級): 8 points (up to 12, the referee may add the rest) and no win; a repeat is level 5.
* Level 5 (五級): 25 points and no win.

Kuikae (喰替, L564-L566): a discard the player may not make right after his chi/pon.  Caught at once it is taken
back (the engine refuses it and records level 2); "若發現選手錯誤時下家已摸牌並混入手牌,或他家已宣告鳴取該捨牌,則捨牌
成立,該局處以三級處分" [002:L566]: when the tile was not taken back and the next player draws (his *pass*, the
draw signal of the seat panel) or another player calls it, the discard stands and level 3 replaces the level 2
(the level-2 record is waived: the seed sets one or the other).  A waived record does not escalate later ones.
The seed does not say which discards are kuikae (digest §4.6 [UNCLEAR]): the profile option ``kuikae`` picks
``genbutsu_suji`` (default: the called tile's face, and for a chi the tile at the other end of the run),
``genbutsu`` (the called face only) or ``off``.

Pure functions, called from the engine's thread.
"""

from __future__ import annotations

from dataclasses import replace

from controller.engine import penalties
from controller.engine.effects import Effect
from controller.engine.query import player_index
from controller.engine.state import GameState, MeldRec
from mjtable.tiles import MeldKind, Tile

#: level -> (points, no win this hand) [002:L511-L515]
LEVELS: dict[int, tuple[int, bool]] = {1: (0, False), 2: (2, False), 3: (0, True), 4: (8, True), 5: (25, True)}
_REPEAT = {1: 2, 2: 4, 3: 3, 4: 5, 5: 5}


def level_for(state: GameState, seat: int, kind: str, first: int) -> int:
    """The level of ``kind`` for the player at ``seat``: ``first``, escalated by each earlier one this session."""
    p = player_index(state, seat)
    level = first
    for inf in state.infractions:
        if inf.kind == kind and inf.player_index == p and inf.status != "waived":
            level = _REPEAT[level]
    return level


def record_level(state: GameState, seat: int, kind: str, first: int, message: str,  # noqa: PLR0917
                 fx: list[Effect]) -> GameState:
    """Record ``kind`` at its HKMA level (escalated over the half-game); a win ban makes the seat dead."""
    level = level_for(state, seat, kind, first)
    points, ban = LEVELS[level]
    state = penalties.record(state, seat, kind, f"{message}: level {level} [002:L509-L516]", fx, points=points,
                             status="applied")
    hand = state.hand
    if ban and hand is not None:
        s = hand.seats[seat]
        seats = list(hand.seats)
        seats[seat] = replace(s, dead=s.dead or f"{kind}: level {level} (和了禁止)")
        state = replace(state, hand=replace(hand, seats=(seats[0], seats[1], seats[2], seats[3])))
    return state


def kuikae_faces(meld: MeldRec, mode: str) -> frozenset[int]:
    """Tile kinds the caller of ``meld`` may not discard right after it (see module doc)."""
    if mode == "off" or meld.claimed_tile is None or meld.kind not in (MeldKind.CHOW, MeldKind.PUNG):
        return frozenset()
    t = meld.claimed_tile
    out = {t.kind}
    if mode == "genbutsu_suji" and meld.kind is MeldKind.CHOW:
        kinds = sorted(x.kind for x in meld.tiles)
        base = t.kind - t.kind % 9
        if t.kind == kinds[0] and kinds[2] + 1 < base + 9:
            out.add(kinds[2] + 1)  # called the 3 of 3-4-5 with 4-5: the 6 swaps back
        elif t.kind == kinds[2] and kinds[0] - 1 >= base:
            out.add(kinds[0] - 1)
    return frozenset(out)


def is_kuikae(meld: MeldRec, t: Tile, mode: str) -> bool:
    return t.kind in kuikae_faces(meld, mode)


__all__ = ["LEVELS", "is_kuikae", "kuikae_faces", "level_for", "record_level"]
