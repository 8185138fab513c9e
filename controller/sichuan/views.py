"""``mjtable.public_state/1`` and ``mjtable.referee_state/1`` views of a Sichuan hand run by
:mod:`controller.sichuan.table` (same shapes as ``controller/views.py``, plus a ``sichuan`` object).

Hidden information: the public view never holds a concealed tile, a face-down kong's faces before the hand
ends, or a 定缺 choice before all four are down (simultaneous reveal, L346-L348).  Pure; called from the
thread or loop that owns the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mjtable.tiles import MeldKind, Relative

from .fans import WinSituation, score_win, winning_tiles
from .table import HandState
from .tiles_state import SeatTiles, hand_of

PUBLIC_SCHEMA = "mjtable.public_state/1"
REFEREE_SCHEMA = "mjtable.referee_state/1"
WINDS = ("E", "S", "W", "N")
_REL = {Relative.LEFT: 3, Relative.OPPOSITE: 2, Relative.RIGHT: 1}


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What the view needs beyond the hand: table id, players, 副分 before this hand, hand number."""

    table: str = "t1"
    players: tuple[str, str, str, str] = ("P1", "P2", "P3", "P4")
    scores: tuple[int, int, int, int] = (0, 0, 0, 0)
    penalties: tuple[int, int, int, int] = (0, 0, 0, 0)
    hand_no: int = 0
    hands_total: int = 8
    seq: int = 0


def _meld(m: Any, owner: int, reveal: bool) -> dict[str, Any]:
    hidden = m.kind is MeldKind.CONCEALED_KONG and not reveal
    src = None if m.claimed_from is None else (owner + _REL[m.claimed_from]) % 4
    return {"type": str(m.kind), "tiles": None if hidden else [t.code for t in m.tiles], "claimed_from": src}


def _seat(st: HandState, info: SessionInfo, s: int) -> dict[str, Any]:
    seat: SeatTiles = st.seats[s]
    over = st.phase == "over"
    pen = sum(p for who, _c, p in st.penalties if who == s) + info.penalties[s]
    return {
        "seat": s, "player": info.players[s], "wind": WINDS[(s - st.dealer) % 4],
        "score": info.scores[s] + st.totals()[s] - pen,
        "hand_size": len(seat.concealed) + 3 * len(seat.melds),
        "flowers": [], "melds": [_meld(m, s, over) for m in seat.melds],
        "pond": [{"tile": t.code, "called": c} for t, c in seat.pond],
        "penalties": pen, "dead": seat.dead,
    }


def _result(st: HandState) -> dict[str, Any] | None:
    if st.phase != "over":
        return None
    fans: list[dict[str, Any]] = []
    for w in st.won:
        fans.extend({"name": f"{name} (seat {w.seat})", "points": value, "count": count}
                    for name, value, count in w.fans)
    return {"kind": "win" if st.won else "draw", "winners": [w.seat for w in st.won],
            "fans": fans, "total": sum(w.base for w in st.won), "payments": list(st.totals()),
            "hands": {str(s): hand_of(st.seats[s]).code for s in range(4)}}


def public_view(st: HandState, info: SessionInfo = SessionInfo()) -> dict[str, Any]:
    """What spectators may see (no concealed tile ever)."""
    revealed = all(v is not None for v in st.voids)
    last = st.last_discard
    return {
        "schema": PUBLIC_SCHEMA, "table": info.table, "rules": "sichuan-sbr-2025", "seq": info.seq,
        "paused": False, "phase": st.phase,
        "session": {"hand_no": info.hand_no, "round_wind": "E", "dealer": st.dealer,
                    "hands_total": info.hands_total},
        "turn": None if st.phase == "over" else st.turn, "wall_remaining": len(st.wall),
        "last_discard": None if last is None else {"seat": last[0], "tile": last[1].code},
        "seats": [_seat(st, info, s) for s in range(4)], "timers": [], "claim_window": None,
        "result": _result(st), "infractions": [
            {"seat": s, "kind": code, "points": pts} for s, code, pts in st.penalties],
        "alerts": [],
        "sichuan": {"voids": list(st.voids) if revealed else None,
                    "winners": [{"seat": w.seat, "tile": w.tile.code, "discarder": w.discarder, "fan": w.fan,
                                 "points": w.base, "order": w.order} for w in st.won],
                    "ledger": [line.to_json() for line in st.ledger]},
    }


def referee_view(st: HandState, info: SessionInfo = SessionInfo()) -> dict[str, Any]:
    """The public view plus every seat's concealed tiles, its 定缺 and its waits with fan on a discard."""
    view = public_view(st, info)
    view["schema"] = REFEREE_SCHEMA
    view["sichuan"]["voids"] = list(st.voids)
    for s, seat_json in enumerate(view["seats"]):
        seat = st.seats[s]
        seat_json["concealed"] = [t.code for t in seat.concealed]
        seat_json["melds"] = [_meld(m, s, True) for m in seat.melds]
        waits: list[dict[str, Any]] = []
        hand = hand_of(seat)
        if hand.size == 13 and s not in st.winners:
            try:
                for t in winning_tiles(hand, st.voids[s]):
                    fan = score_win(hand, t, WinSituation(self_drawn=False), void_suit=st.voids[s]).fan
                    waits.append({"tile": t.code, "total": fan})
            except ValueError:
                waits = []
        seat_json["waits"] = waits
    return view
