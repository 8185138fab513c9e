"""JSON views of the engine state for MQTT, displays, the recorder and the demo.

* :func:`public_view` — ``mjtable.public_state/1``: what a spectator may see.  It never contains a concealed
  tile: no standing tiles, no face-down kong faces, no drawn tile, no alert data, and no referee's own words
  (a penalty's or a dead hand's reason).
* :func:`referee_view` — ``mjtable.referee_state/1``: the same plus, per seat, ``concealed`` (codes, or None
  when the engine does not know them all: partial information), ``waits`` with fan totals and ``dead_reason``,
  and each infraction's ``referee_note``.

Both are pure functions of the state, called by the shell after each accepted step (asyncio loop thread).
The shapes are fixed by the JSON Schemas in mjtable/schemas/ (public_state, referee_state).

:func:`seated_players`, :class:`HandSeatings` and :func:`named_result` say who sat where in a hand and name the
players of a hand result beside its seat numbers (``mjtable sim``, ``mjtable replay``, the demo's hand lines).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from controller.engine.ext import ext_of
from controller.engine.query import (
    hand_round,
    meld_of,
    player_index,
    round_wind_tile,
    seat_wind_letter,
    seat_wind_tile,
)
from controller.engine.registry import ruleset_for
from controller.engine.session import result_json
from controller.engine.state import WIND_LETTERS, GameState, HandState, Infraction, MeldRec, Phase, SeatState
from mjtable.tiles import Hand, MeldKind, Tile

PUBLIC_SCHEMA = "mjtable.public_state/1"
REFEREE_SCHEMA = "mjtable.referee_state/1"
RECENT = 20  # infractions and alerts kept in a view


def _meld_json(m: Any, *, reveal: bool) -> dict[str, Any]:
    concealed = m.kind is MeldKind.CONCEALED_KONG
    tiles = [t.code for t in m.tiles] if m.tiles and (reveal or not concealed) else None
    return {"type": str(m.kind), "tiles": tiles, "claimed_from": m.claimed_from}


def shown_round(state: GameState) -> int:
    """The round (0..3 = E S W N) of the hand on the table: the session already counts the next hand once a
    result is in (``session.round_no`` moves on with it), but names, winds and scores are shown for the seating
    in which the hand was played until the next deal."""
    return hand_round(state)


def shown_player_index(state: GameState, seat: int) -> int:
    """Index into ``session.players`` of whoever sits (or sat, for a finished hand) at ``seat`` in the shown hand."""
    return player_index(state, seat)


def seated_players(state: GameState) -> list[str]:
    """The players' names per physical seat in the shown hand: the seating it is (or, once over, was) played in."""
    return [state.session.players[shown_player_index(state, seat)] for seat in range(4)]


class HandSeatings:
    """Who sat where in each finished hand, gathered while a session is stepped (or folded from its journal):
    :meth:`observe` every state from the session's start on; ``seatings[i]`` names the players per seat of hand
    ``i + 1``, read when its result came in (before the players move to their next round's seats)."""

    def __init__(self) -> None:
        self.seatings: list[list[str]] = []

    def observe(self, state: GameState) -> None:
        """Note the seating of a hand that has just ended; raises ``ValueError`` if hands were skipped."""
        if len(state.history) > len(self.seatings) + 1:
            raise ValueError(f"hands {len(self.seatings) + 1}..{len(state.history) - 1} ended unobserved: "
                             "observe every step from the session's start")
        if len(state.history) > len(self.seatings):
            self.seatings.append(seated_players(state))


def named_result(result: Mapping[str, Any], seating: Sequence[str]) -> dict[str, Any]:
    """A hand result whose seats (``winners``, ``discarder``, ``payments``, each of ``wins``) are kept for machines,
    with the names of the players who sat there beside them: ``seating`` (names per seat in that hand),
    ``winner_players``, ``discarder_player``, ``payments_by_player`` and, per win, ``winner_player`` and
    ``discarder_player``.  People read names: the seats rotate between rounds (MCR)."""

    def name(seat: object) -> str | None:
        return seating[seat] if isinstance(seat, int) else None

    out = dict(result)
    out["seating"] = list(seating)
    out["winner_players"] = [seating[w] for w in result.get("winners") or []]
    out["discarder_player"] = name(result.get("discarder"))
    if isinstance(result.get("payments"), list):
        out["payments_by_player"] = {seating[s]: p for s, p in enumerate(result["payments"])}
    if isinstance(result.get("wins"), list):
        out["wins"] = [{**w, "winner_player": name(w.get("winner")), "discarder_player": name(w.get("discarder"))}
                       for w in result["wins"]]
    return out


def shown_hand_no(state: GameState) -> int:
    """The 1-based number of the hand on the table (in play, just finished, or about to be dealt): the one
    numbering people read ("hand 3/16") in every view, record and line of output."""
    hand = state.hand
    return hand.hand_no + 1 if hand is not None else state.session.hand_no + 1


def _seat_json(state: GameState, hand: HandState | None, seat: int, *, reveal: bool) -> dict[str, Any]:
    p = shown_player_index(state, seat)
    dealer = hand.dealer if hand is not None else state.session.dealer
    s: SeatState = hand.seats[seat] if hand is not None else SeatState()
    reveal_kongs = reveal or (hand is not None and hand.result is not None)
    return {
        "seat": seat,
        "player": state.session.players[p],
        "wind": seat_wind_letter(dealer, seat),
        "score": state.session.scores[p] - state.session.penalties[p],
        "hand_size": s.hand_size if hand is not None else 0,
        "flowers": [t.code for t in s.flowers],
        "melds": [_meld_json(m, reveal=reveal_kongs) for m in s.melds],
        "pond": [{"tile": d.tile.code, "called": d.called} for d in s.pond],
        "penalties": state.session.penalties[p],
        "dead": s.dead is not None,
    }


def _result_json(state: GameState) -> dict[str, Any] | None:
    hand = state.hand
    if hand is None or hand.result is None:
        return None
    return dict(result_json(hand.result))


def public_view(state: GameState, table_id: str | None = None) -> dict[str, Any]:
    """The spectator view (``mjtable.public_state/1``).  No concealed tile, ever."""
    hand = state.hand
    sess = state.session
    dealer = hand.dealer if hand is not None else sess.dealer
    claim = hand.claim if hand is not None else None
    view: dict[str, Any] = {
        "schema": PUBLIC_SCHEMA,
        "table": table_id if table_id is not None else state.config.table_id,
        "rules": state.config.rules,
        "seq": state.seq,
        "paused": state.paused,
        "phase": str(state.phase),
        "session": {
            "hand_no": shown_hand_no(state),  # 1-based: the hand on the table, in play or just finished
            "round_wind": WIND_LETTERS[shown_round(state) % 4],
            "dealer": dealer,
            "hands_total": state.config.hands_total,
            "players": list(sess.players),  # registration order (round-1 seats): records are kept per player
        },
        "turn": hand.turn if hand is not None and state.phase in (Phase.TURN, Phase.FLOWERS) else None,
        "wall_remaining": hand.wall_remaining if hand is not None else None,
        "last_discard": ({"seat": hand.last_discard[0], "tile": hand.last_discard[1].code}
                         if hand is not None and hand.last_discard is not None else None),
        "seats": [_seat_json(state, hand, s, reveal=False) for s in range(4)],
        "timers": [{"name": t.name, "seat": t.seat, "deadline_s": t.deadline_s, "limit_s": t.limit_s}
                   for t in state.timers],  # an expired turn limit stays listed (deadline in the past = at zero)
        "claim_window": ({"discard_seat": claim.discard_seat, "tile": claim.tile.code, "deadline_s": claim.deadline_s}
                         if claim is not None else None),
        "result": _result_json(state),
        "infractions": [i.public_json() for i in state.infractions[-RECENT:]],  # no referee's note
        "alerts": [{"id": a.id, "kind": a.kind, "message": a.message, "open": a.open, "at_s": a.at_s}
                   for a in state.alerts[-RECENT:]],
    }
    view.update(ext_of(state).view_extra(state, referee=False))  # rules extension: public Sichuan/riichi extras
    return view


def referee_view(state: GameState, table_id: str | None = None, *, with_waits: bool = True) -> dict[str, Any]:
    """The referee view (``mjtable.referee_state/1``): public view plus concealed hands and waits."""
    view = public_view(state, table_id)
    view["schema"] = REFEREE_SCHEMA
    hand = state.hand
    view["alerts"] = [a.to_json() for a in state.alerts[-RECENT:]]
    view["infractions"] = [_referee_infraction(i) for i in state.infractions[-RECENT:]]
    seats = []
    for seat in range(4):
        sj = _seat_json(state, hand, seat, reveal=True)
        s = hand.seats[seat] if hand is not None else None
        if s is None or not s.fully_known:
            sj["concealed"] = None
            sj["waits"] = []
        else:
            sj["concealed"] = [t.code for t in s.known]
            sj["waits"] = _waits(state, seat) if with_waits else []
        sj["dead_reason"] = (None if s is None or s.dead is None
                             else f"{s.dead}: {s.dead_note}" if s.dead_note else s.dead)
        seats.append(sj)
    view["seats"] = seats
    if hand is not None:
        view["wall_known"] = bool(hand.wall)
    view.update(ext_of(state).view_extra(state, referee=True))  # rules extension: referee Sichuan/riichi extras
    return view


def _referee_infraction(inf: Infraction) -> dict[str, Any]:
    """An infraction for the referee: its ``referee_note`` (a referee's own words) also in the ``message`` the
    referee display shows."""
    doc: dict[str, Any] = inf.to_json()
    if inf.note:
        doc["message"] = f"{inf.message}: {inf.note}"
    return doc


def _waits(state: GameState, seat: int) -> list[dict[str, Any]]:
    hand = state.hand
    if hand is None or hand.result is not None:
        return []
    s = hand.seats[seat]
    if len(s.known) + 3 * len(s.melds) != 13 or any(not m.tiles for m in s.melds):
        return []
    found = _cached_waits(state.config.rules, state.config.seat_rotation, seat, s.known, s.melds, s.flowers,
                          seat_wind_tile(hand.dealer, seat), round_wind_tile(state.session.round_no))
    return [{"tile": code, "total": total} for code, total in found]


@lru_cache(maxsize=256)
def _cached_waits(rules_name: str, rotation: str, seat: int, known: tuple[Tile, ...], melds: tuple[MeldRec, ...],  # noqa: PLR0917
                  flowers: tuple[Tile, ...], seat_wind: Tile, round_wind: Tile) -> tuple[tuple[str, int], ...]:
    """Waits depend only on the seat's tiles and winds: cached, since a hand changes one tile per turn and
    the views are rebuilt after every event."""
    rules = ruleset_for(rules_name, rotation)
    h = Hand(known, tuple(meld_of(seat, m) for m in melds), flowers)
    try:
        found = rules.waits(h, seat_wind=seat_wind, round_wind=round_wind, flowers=len(flowers))
    except ValueError:
        return ()
    return tuple((t.code, total) for t, total in found)
