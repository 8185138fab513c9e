"""``mjtable.public_state/1`` and ``mjtable.referee_state/1`` views of a riichi hand run by
:mod:`controller.riichi.table`, plus a ``riichi`` object (dora indicators, honba, deposits, riichi flags).

Hidden information: the public view never holds a concealed tile, a concealed kan's faces before the hand
ends, the ura indicators before a riichi win, or any other dead-wall tile.  Pure; called from the thread or
loop that owns the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mjtable.tiles import MeldKind

from .scoring import RULES_NAME, NotWinningHand, RiichiSituation, score_hand
from .table import HandState, seat_wind
from .tenpai import completing_tiles

PUBLIC_SCHEMA = "mjtable.public_state/1"
REFEREE_SCHEMA = "mjtable.referee_state/1"
WINDS = ("E", "S", "W", "N")


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Table id, players, points before this hand, hand number (0-based) and session length in hands."""

    table: str = "t1"
    players: tuple[str, str, str, str] = ("P1", "P2", "P3", "P4")
    points: tuple[int, int, int, int] = (30000, 30000, 30000, 30000)
    hand_no: int = 0
    hands_total: int = 8
    seq: int = 0


def _seat(st: HandState, info: SessionInfo, s: int, reveal: bool) -> dict[str, Any]:
    seat = st.seats[s]
    melds = [{"type": str(m.kind),
              "tiles": None if m.kind is MeldKind.CONCEALED_KONG and not reveal else [t.code for t in m.tiles],
              "claimed_from": None} for m in seat.melds]
    return {"seat": s, "player": info.players[s], "wind": WINDS[(s - st.dealer) % 4],
            "score": info.points[s] + st.totals()[s], "hand_size": len(seat.concealed) + 3 * len(seat.melds),
            "flowers": [], "melds": melds, "pond": [{"tile": t.code, "called": c} for t, c in seat.pond],
            "penalties": 0, "riichi": seat.riichi}


def public_view(st: HandState, info: SessionInfo = SessionInfo()) -> dict[str, Any]:
    """What spectators may see."""
    over = st.phase == "over"
    last = st.last_discard
    winner_riichi = st.winner is not None and st.seats[st.winner].riichi
    result = None
    if over:
        result = {"kind": "win" if st.winner is not None else "draw",
                  "winners": [] if st.winner is None else [st.winner], "fans": [], "total": 0,
                  "payments": list(st.totals()), "hands": {str(s): st.seats[s].hand().code for s in range(4)}}
    return {
        "schema": PUBLIC_SCHEMA, "table": info.table, "rules": RULES_NAME, "seq": info.seq, "paused": False,
        "phase": st.phase,
        "session": {"hand_no": info.hand_no, "round_wind": WINDS[st.round_wind.kind - 27], "dealer": st.dealer,
                    "hands_total": info.hands_total},
        "turn": None if over else st.turn, "wall_remaining": len(st.live),
        "last_discard": None if last is None else {"seat": last[0], "tile": last[1].code},
        "seats": [_seat(st, info, s, over) for s in range(4)], "timers": [], "claim_window": None,
        "result": result, "infractions": [], "alerts": [],
        "riichi": {"dora_indicators": [t.code for t in st.dora_indicators()],
                   "ura_indicators": [t.code for t in st.ura_indicators()] if winner_riichi else None,
                   "honba": st.honba, "deposits": st.sticks},
    }


def referee_view(st: HandState, info: SessionInfo = SessionInfo()) -> dict[str, Any]:
    """The public view plus concealed tiles and waits (ron value, 0 when yakuless) per seat."""
    view = public_view(st, info)
    view["schema"] = REFEREE_SCHEMA
    view["riichi"]["ura_indicators"] = [t.code for t in st.ura_indicators()]
    for s, seat_json in enumerate(view["seats"]):
        seat = st.seats[s]
        hand = seat.hand()
        seat_json["concealed"] = [t.code for t in seat.concealed]
        seat_json["melds"] = _seat(st, info, s, True)["melds"]
        waits: list[dict[str, Any]] = []
        if hand.size == 13:
            sit = RiichiSituation(self_drawn=False, seat_wind=seat_wind(st, s), round_wind=st.round_wind,
                                  riichi=seat.riichi, dora_indicators=st.dora_indicators())
            for t in completing_tiles(hand):
                try:
                    waits.append({"tile": t.code, "total": score_hand(hand, t, sit).value})
                except NotWinningHand:
                    waits.append({"tile": t.code, "total": 0})
        seat_json["waits"] = waits
    return view
