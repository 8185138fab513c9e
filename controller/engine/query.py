"""Read-only questions about a :class:`GameState` shared by the core, the views and the bots."""

from __future__ import annotations

import re
from typing import TypeGuard

from controller.engine.registry import ruleset_for
from controller.engine.ruleset import Ruleset
from controller.engine.state import WIND_LETTERS, GameState, HandState, MeldRec, SeatState
from mjtable.tiles import Hand, Meld, MeldKind, Relative, Tile, format_tiles, make_meld

_WIND_TILES = (Tile(27), Tile(28), Tile(29), Tile(30))


def is_seat(value: object) -> TypeGuard[int]:
    """``value`` is a seat number 0..3 (an int, not a bool), as an event or a camera reading must give it."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3


def ruleset_of(state: GameState) -> Ruleset:
    """The ruleset named in the state's config (cached)."""
    return ruleset_for(state.config.rules, state.config.seat_rotation)


def active_seats(hand: HandState) -> tuple[int, ...]:
    """Seats still playing (all four, except winners who left a bloody-battle hand)."""
    return tuple(s for s in range(4) if not hand.seats[s].out)


def next_active(hand: HandState, seat: int) -> int:
    """The next seat counter-clockwise after ``seat`` that is still playing."""
    for i in range(1, 5):
        s = (seat + i) % 4
        if not hand.seats[s].out:
            return s
    return (seat + 1) % 4


def player_index(state: GameState, seat: int) -> int:
    """Index into ``session.players`` of whoever sits at physical ``seat`` in the hand on the table (in play or
    just finished: the players move to their next round's seats only when the next hand is dealt, although the
    session already counts that round once the result is in)."""
    return ruleset_of(state).seat_arrangement(hand_round(state))[seat]


def player_name(state: GameState, seat: int) -> str:
    """The name of whoever sits at physical ``seat`` in the hand on the table (see :func:`player_index`): the
    words people read (alerts, infractions) name players, not seats, as the seats rotate."""
    return state.session.players[player_index(state, seat)]


_SEAT_WORDS = re.compile(r"\bseat ([0-3])\b")


def naming_players(state: GameState, text: str) -> str:
    """Engine words worded for seats (a rejection's reason: "seat 2 does not hold 5p", "it is seat 1's turn") as
    people read them in an alert or an infraction: each "seat N" replaced by the name of who sits there now."""
    return _SEAT_WORDS.sub(lambda m: player_name(state, int(m.group(1))), text)


def hand_round(state: GameState) -> int:
    """The round (0..3 = E S W N) of the hand on the table, else the session's (before the first deal)."""
    hand = state.hand
    return hand.round_wind.kind - 27 if hand is not None else state.session.round_no


def seat_wind_index(dealer: int, seat: int) -> int:
    """0..3 = E S W N: the dealer is East, his 下家 South, and so on [000:L292]."""
    return (seat - dealer) % 4


def seat_wind_letter(dealer: int, seat: int) -> str:
    return WIND_LETTERS[seat_wind_index(dealer, seat)]


def seat_wind_tile(dealer: int, seat: int) -> Tile:
    return _WIND_TILES[seat_wind_index(dealer, seat)]


def round_wind_tile(round_no: int) -> Tile:
    return _WIND_TILES[round_no % 4]


def relative(owner: int, source: int) -> Relative:
    """Where ``source`` sits as seen from ``owner``: 上家 (left), 对家 (opposite) or 下家 (right)."""
    d = (source - owner) % 4
    return {3: Relative.LEFT, 2: Relative.OPPOSITE, 1: Relative.RIGHT}[d]


def meld_of(owner: int, rec: MeldRec) -> Meld:
    """A :class:`mjtable.tiles.Meld` for scoring (raises if the tiles are unknown)."""
    rel = relative(owner, rec.claimed_from) if rec.claimed_from is not None else None
    m = make_meld(rec.tiles, concealed=rec.kind is MeldKind.CONCEALED_KONG, claimed_from=rel)
    if rec.kind is MeldKind.KONG and m.kind is not MeldKind.KONG:
        raise ValueError("kong record without four tiles")
    return Meld(m.kind, m.tiles, rel, rec.claimed_tile)


def scoring_hand(hand: HandState, seat: int, concealed: tuple[Tile, ...]) -> Hand:
    """The seat's hand as the scorer wants it: ``concealed`` tiles, its melds and flowers."""
    s = hand.seats[seat]
    return Hand(concealed, tuple(meld_of(seat, m) for m in s.melds), s.flowers)


def compact_hand(seat_state: SeatState, *, extra: Tile | None = None) -> str:
    """``[123m]{5555p}11z`` style text of a fully known seat (plus ``extra`` win tile at the end)."""
    parts = []
    for m in seat_state.melds:
        body = format_tiles(m.tiles) if m.tiles else "????"
        parts.append(f"{{{body}}}" if m.kind is MeldKind.CONCEALED_KONG else f"[{body}]")
    text = "".join(parts) + format_tiles(seat_state.known)
    if seat_state.unknown:
        text += "?" * seat_state.unknown
    if extra is not None:
        text += " " + extra.code
    return text


def visible_copies(hand: HandState, t: Tile, *, exclude_seat: int | None = None) -> int:
    """Face-up copies of ``t``'s face: ponds (uncalled), melds (face-up ones) and nothing concealed."""
    n = 0
    for s in hand.seats:
        n += sum(1 for p in s.pond if p.tile.kind == t.kind and not p.called)
        for m in s.melds:
            if m.kind is not MeldKind.CONCEALED_KONG:
                n += sum(1 for x in m.tiles if x.kind == t.kind)
    return n


def known_count(hand: HandState, kind: int) -> int:
    """Copies of face ``kind`` the engine knows the position of (ponds, melds, flowers, known concealed)."""
    n = 0
    for s in hand.seats:
        n += sum(1 for p in s.pond if p.tile.kind == kind and not p.called)
        n += sum(1 for x in s.known if x.kind == kind)
        n += sum(1 for x in s.flowers if x.kind == kind)
        for m in s.melds:
            n += sum(1 for x in m.tiles if x.kind == kind)
    return n
