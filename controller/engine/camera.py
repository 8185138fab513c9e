"""Camera observations (vision event dicts) checked against what is legal now.

A confident observation that matches the game is applied as the action it shows (or acknowledged when the
engine already knows it); anything uncertain, below ``camera_min_confidence`` or contradicting the state
becomes an open referee alert and changes nothing else.  ``hand_seen`` (hand cameras, referee-only) turns full
information on for that seat.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from controller.engine.effects import Alert, Effect
from controller.engine.errors import Reject
from controller.engine.events import Claim, ConcealedKong, DeclareWin, Discard, Event, PromotedKong
from controller.engine.procedure import parse_tile, sorted_tiles, with_seat
from controller.engine.query import is_seat, known_count, player_name
from controller.engine.state import AlertRec, GameState, Phase, SeatState
from mjtable.tiles import MeldKind

VISION_TYPES = ("discard", "meld", "concealed_kong", "win_shown", "uncertain", "hand_seen",
                "dora_indicator")  # dora_indicator: riichi, handled by ext_riichi (issue 16 point 15)


def raise_alert(state: GameState, kind: str, message: str, data: dict[str, Any], fx: list[Effect]) -> GameState:
    """Open an alert for the referee; one about a seat also names the player sitting there now (``data.player``:
    seats rotate, so a later display of the alert must not look the name up again)."""
    obs = data.get("observation")
    seat = data.get("seat", obs.get("seat") if isinstance(obs, dict) else None)
    if is_seat(seat) and "player" not in data:
        data = {**data, "player": player_name(state, seat)}
    a = AlertRec(id=f"alert-{len(state.alerts) + 1}", kind=kind, message=message, data=tuple(data.items()),
                 at_s=state.now_s, hand_no=state.hand.hand_no if state.hand is not None else None)
    fx.append(Alert(id=a.id, kind=kind, message=message, data=data))
    return replace(state, alerts=(*state.alerts, a))


def _seat(obs: dict[str, Any]) -> int:
    seat = obs.get("seat")
    if not is_seat(seat):
        raise Reject("bad_seat", f"camera event without a seat 0..3: {seat!r}")
    return seat


def translate(state: GameState, obs: dict[str, Any], ev: Event) -> Event | None:
    """The action an observation shows, or None when the engine already has it.  Raises Reject on mismatch."""
    kind = obs.get("type")
    seat = _seat(obs)
    codes = obs.get("tiles") or []
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise Reject("bad_event", "camera 'tiles' must be a list of codes")
    hand = state.hand
    if hand is None:
        raise Reject("wrong_phase", "no hand in progress")
    s = hand.seats[seat]
    if kind == "discard":
        if len(codes) != 1:
            raise Reject("bad_event", "a discard shows one tile")
        t = parse_tile(codes[0])
        pos = obs.get("position")
        if isinstance(pos, int) and 0 <= pos < len(s.pond):
            if s.pond[pos].tile.kind != t.kind:
                raise Reject("not_held", f"camera sees {t.code} at seat {seat} pond position {pos}, "
                             f"the engine has {s.pond[pos].tile.code}")
            return None
        return Discard(id=ev.id, at_s=ev.at_s, seat=seat, tile=t.code)
    if kind == "meld":
        return _meld(state, obs, ev, seat, codes)
    if kind == "concealed_kong":
        faces = [c for c in codes if c != "back"]
        n_kongs = sum(1 for m in s.melds if m.kind is MeldKind.CONCEALED_KONG)
        if n_kongs and state.phase is not Phase.TURN:
            return None
        return ConcealedKong(id=ev.id, at_s=ev.at_s, seat=seat, tile=faces[0] if faces else _hidden_kong_face(s, seat))
    if kind == "win_shown":
        tiles = [parse_tile(c) for c in codes]
        if hand.claim is not None:
            rest = list(tiles)
            match = next((t for t in rest if t.kind == hand.claim.tile.kind), None)
            if match is not None:
                rest.remove(match)
            return Claim(id=ev.id, at_s=ev.at_s, seat=seat, kind="win", tiles=tuple(t.code for t in rest))
        return DeclareWin(id=ev.id, at_s=ev.at_s, seat=seat, tiles=tuple(t.code for t in tiles))
    raise Reject("bad_event", f"unknown camera event type {kind!r}")


def _meld(state: GameState, obs: dict[str, Any], ev: Event, seat: int, codes: list[str]) -> Event | None:
    """A meld the camera sees in ``seat``'s meld area.

    With a slot (``position``, the meld's index in the order laid, concealed kongs included): a slot the
    engine already has must show that meld (or its pung promoted to a kong on the seat's own turn); the next
    slot is a new meld, even when it repeats an earlier one (a second identical chow).  Without a slot, a meld
    equal to one the seat has is taken as already known.  A new meld is a claim of the open discard and must
    contain it: a pung or kong of the discard's face, or a chow through it."""
    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    tiles = [parse_tile(c) for c in codes if c != "back"]
    seen = list(sorted_tiles(tiles))
    raw = obs.get("position")
    pos = raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0 else None
    slotted = pos is not None
    if pos is not None and pos < len(s.melds):
        have = s.melds[pos]
        if seen == list(have.tiles):
            return None
        kinds = {t.kind for t in tiles}
        if (have.kind is MeldKind.PUNG and len(tiles) == 4 and kinds == {have.tiles[0].kind}
                and hand.turn == seat and state.phase is Phase.TURN):
            return PromotedKong(id=ev.id, at_s=ev.at_s, seat=seat, tile=have.tiles[0].code)
        raise Reject("not_held", f"camera sees {' '.join(codes)} at seat {seat} meld slot {pos}, the engine "
                     f"has {' '.join(t.code for t in have.tiles)}")
    if not slotted and any(seen == list(m.tiles) for m in s.melds):
        return None
    if hand.claim is None:
        raise Reject("no_window", f"camera sees a new meld at seat {seat} but no discard is open to claim")
    d = hand.claim.tile
    kinds = {t.kind for t in tiles}
    if len(tiles) in (3, 4) and len(kinds) == 1:
        if kinds != {d.kind}:
            raise Reject("illegal_claim", f"camera meld {' '.join(codes)} is not of the discard {d.code}")
        return Claim(id=ev.id, at_s=ev.at_s, seat=seat, kind="kong" if len(tiles) == 4 else "pung")
    rest = list(tiles)
    match = next((t for t in rest if t.kind == d.kind), None)
    if match is None or len(tiles) != 3:
        raise Reject("illegal_claim", f"camera meld {codes} does not contain the discard {d.code}")
    rest.remove(match)
    return Claim(id=ev.id, at_s=ev.at_s, seat=seat, kind="chow", tiles=tuple(t.code for t in rest))


def _hidden_kong_face(s: SeatState, seat: int) -> str:
    """The face of a kong laid all face down: unknown ("") while the seat holds four unseen tiles (partial
    information); with the seat's tiles known, the one kind it holds four of; two such kinds is for the referee."""
    if s.unknown >= 4:
        return ""
    counts = Counter(t.kind for t in s.known)
    fours = sorted(k for k, n in counts.items() if n >= 4)
    if len(fours) == 1:
        return next(t.plain.code for t in s.known if t.kind == fours[0])
    if not fours:
        raise Reject("not_held", f"camera sees a face-down kong at seat {seat}, who holds no four alike")
    raise Reject("ambiguous", f"camera sees a face-down kong at seat {seat}, who holds more than one four alike")


def hand_seen(state: GameState, obs: dict[str, Any]) -> GameState:
    """A hand camera read ``seat``'s concealed tiles: they must agree in number and with every known tile."""
    seat = _seat(obs)
    hand = state.hand
    if hand is None:
        raise Reject("wrong_phase", "no hand in progress")
    codes = obs.get("tiles") or []
    tiles = [parse_tile(c) for c in codes]
    s = hand.seats[seat]
    if len(tiles) != len(s.known) + s.unknown:
        raise Reject("bad_hand", f"seat {seat} should hold {len(s.known) + s.unknown} concealed tiles, "
                     f"the hand camera sees {len(tiles)}")
    rest = list(tiles)
    for k in s.known:
        m = next((t for t in rest if t.kind == k.kind), None)
        if m is None:
            raise Reject("bad_hand", f"the hand camera does not see {k.code}, which seat {seat} holds")
        rest.remove(m)
    for t in {t.kind for t in rest}:
        extra = sum(1 for x in rest if x.kind == t)
        if known_count(hand, t) + extra > (1 if t >= 34 else 4):
            raise Reject("impossible_tile", "the hand camera reading implies a fifth copy")
    new = replace(s, known=sorted_tiles(tiles), unknown=0)
    return replace(state, hand=with_seat(hand, seat, new))
