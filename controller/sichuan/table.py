"""One Sichuan SBR 2025 hand as a pure, event-sourced procedure: ``apply(state, event) -> state``.

The generic engine (``controller/engine``) does not yet run bloody battle, 定缺 or kong money, so this module
plays a whole Sichuan hand with the rules of ``controller.sichuan`` and is what ``simulate.py`` drives.  Events
are JSON dicts (so a journal replays exactly):

``{"type": "void", "seat", "suit"}`` (all four, then a simultaneous reveal, L346-L348) ·
``{"type": "draw", "seat"}`` · ``{"type": "discard", "seat", "tile"}`` · ``{"type": "pass"}`` (claim window
closed with no call: the next player in draws) · ``{"type": "pung", "seat"}`` ·
``{"type": "kong", "seat", "tile", "kind": "called"|"promoted"|"concealed"}`` ·
``{"type": "win", "seats": [...]}`` on the last discard or a promoted kong's tile (一炮多响, L470) ·
``{"type": "tsumo", "seat"}``.

Payments are ledger lines of per-seat deltas that sum to zero; penalties (主动花猪) are recorded apart.
Seats 0..3 play counter-clockwise: seat ``s + 1`` is the 下家.  Pure; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mjtable.tiles import NotationError, Tile, tile

from .fans import SichuanOptions, WinSituation, base_points, score_win, winning_tiles
from .settlement import DrawSeat, KongMoney, KongType, kong_money, refund_all, settle_draw, win_payment
from .shape import counts27
from .tiles_state import SeatTiles, hand_of

Vec = tuple[int, int, int, int]


class IllegalEventError(ValueError):
    """An event the rules do not allow now; the state is unchanged."""


@dataclass(frozen=True, slots=True)
class Ledger:
    """One money line: ``kind`` (kong, kong_refund, win, chajiao...), per-seat ``deltas``, a note."""

    kind: str
    deltas: Vec
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "deltas": list(self.deltas), "note": self.note}


@dataclass(frozen=True, slots=True)
class WinRecord:
    """A win: seat, tile, discarder (None for self-draw), fan, base, order (1st, 2nd, 3rd win event)."""

    seat: int
    tile: Tile
    discarder: int | None
    fan: int
    base: int
    order: int
    fans: tuple[tuple[str, int, int], ...] = ()  # (English name, fan each, count)


@dataclass(frozen=True, kw_only=True, slots=True)
class HandState:
    """Everything about the hand in progress.  ``phase``: void, draw, turn, claim, rob, over."""

    dealer: int
    wall: tuple[Tile, ...]
    seats: tuple[SeatTiles, SeatTiles, SeatTiles, SeatTiles]
    phase: str = "void"
    turn: int = 0
    voids: tuple[str | None, str | None, str | None, str | None] = (None, None, None, None)
    last_discard: tuple[int, Tile] | None = None
    promoted: tuple[int, Tile] | None = None  # a promoted kong's tile, open to 抢杠
    drawn: Tile | None = None  # the tile the turn seat just drew (及时雨, L494)
    after_kong: bool = False  # the turn seat's tile is a kong replacement (杠上花)
    kong_discard: int | None = None  # seat whose discard follows its own kong (杠上炮, L545)
    last_kong: KongMoney | None = None
    won: tuple[WinRecord, ...] = ()
    win_tiles: tuple[Tile, ...] = ()  # discards and robbed tiles taken by ron winners (one per win event)
    win_events: int = 0
    kongs: tuple[KongMoney, ...] = ()
    ledger: tuple[Ledger, ...] = ()
    penalties: tuple[tuple[int, str, int], ...] = ()  # (seat, code, 副分 deducted)
    events: int = 0

    @property
    def winners(self) -> frozenset[int]:
        return frozenset(w.seat for w in self.won)

    @property
    def active(self) -> tuple[int, ...]:
        return tuple(s for s in range(4) if s not in self.winners)

    def next_active(self, seat: int) -> int:
        for k in range(1, 5):
            s = (seat + k) % 4
            if s not in self.winners:
                return s
        return seat

    def totals(self) -> Vec:
        t = [0, 0, 0, 0]
        for line in self.ledger:
            for i, x in enumerate(line.deltas):
                t[i] += x
        return (t[0], t[1], t[2], t[3])


def new_hand(dealer: int, wall: Sequence[Tile]) -> HandState:
    """Deal from ``wall`` (108 tiles in draw order): 4-4-4 x3, then the jump; dealer 14, others 13 (L332)."""
    if len(wall) != 108:
        raise IllegalEventError(f"a Sichuan wall has 108 tiles, got {len(wall)}")
    counts27(wall)
    pos = 0
    hands: list[list[Tile]] = [[], [], [], []]
    for _ in range(3):
        for k in range(4):
            s = (dealer + k) % 4
            hands[s].extend(wall[pos:pos + 4])
            pos += 4
    hands[dealer].extend(wall[pos:pos + 2])
    pos += 2
    for k in range(1, 4):
        hands[(dealer + k) % 4].append(wall[pos])
        pos += 1
    seats = tuple(SeatTiles(concealed=tuple(sorted(h))) for h in hands)
    # the dealer's last jump tile counts as its draw: it may self-draw or kong on the dealt hand (digest App. B 13,
    # not addressed by the seed: [DESIGN] allowed)
    return HandState(dealer=dealer, wall=tuple(wall[pos:]), seats=(seats[0], seats[1], seats[2], seats[3]),
                     turn=dealer, drawn=wall[pos - 4])


def _seat(ev: dict[str, Any], key: str = "seat") -> int:
    s = ev.get(key)
    if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s <= 3:
        raise IllegalEventError(f"{key!r} must be a seat 0..3, got {s!r}")
    return s


def _tile(ev: dict[str, Any]) -> Tile:
    try:
        return tile(str(ev.get("tile")))
    except NotationError as exc:
        raise IllegalEventError(str(exc)) from exc


def _set_seat(st: HandState, s: int, seat: SeatTiles) -> HandState:
    seats = list(st.seats)
    seats[s] = seat
    return replace(st, seats=(seats[0], seats[1], seats[2], seats[3]))


def _pay(st: HandState, kind: str, deltas: Vec, note: str = "") -> HandState:
    if any(deltas):
        return replace(st, ledger=(*st.ledger, Ledger(kind, deltas, note)))
    return st


def apply(st: HandState, ev: dict[str, Any]) -> HandState:
    """Apply one event; raises IllegalEventError (state unchanged) for anything the rules forbid now."""
    if st.phase == "over":
        raise IllegalEventError("the hand is over")
    kind = ev.get("type")
    handler = _HANDLERS.get(str(kind))
    if handler is None:
        raise IllegalEventError(f"unknown event type {kind!r}")
    out = handler(st, ev)
    return replace(out, events=st.events + 1)


def _void(st: HandState, ev: dict[str, Any]) -> HandState:
    if st.phase != "void":
        raise IllegalEventError("定缺 is chosen once, right after the deal (L346)")
    s = _seat(ev)
    suit = ev.get("suit")
    if suit not in ("m", "p", "s"):
        raise IllegalEventError(f"the missing suit is m, p or s, got {suit!r}")
    if st.voids[s] is not None:
        raise IllegalEventError(f"seat {s} already chose")
    if ev.get("tile") is not None:  # no cards: one tile of the suit face down, the first discard (L348)
        shown = _tile(ev)
        if shown.suit != suit or shown not in st.seats[s].concealed:
            raise IllegalEventError(f"the face-down tile must be a held tile of the missing suit {suit}")
        st = _set_seat(st, s, replace(st.seats[s], void_tile=shown))
    voids = list(st.voids)
    voids[s] = str(suit)
    st = replace(st, voids=(voids[0], voids[1], voids[2], voids[3]))
    if all(v is not None for v in st.voids):  # simultaneous reveal (L348): the dealer starts
        st = replace(st, phase="turn", turn=st.dealer)
    return st


def _draw(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    if st.phase != "draw" or s != st.turn:
        raise IllegalEventError(f"seat {s} may not draw now (turn {st.turn}, phase {st.phase})")
    if not st.wall:
        raise IllegalEventError("the wall is empty")
    t = st.wall[0]
    seat = replace(st.seats[s], passed_fan=None)  # drawing ends a passed win (L248)
    return replace(_set_seat(st, s, seat.add(t)), wall=st.wall[1:], phase="turn", drawn=t, after_kong=False,
                   last_discard=None, kong_discard=None)


def _discard(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    t = _tile(ev)
    if st.phase != "turn" or s != st.turn:
        raise IllegalEventError(f"seat {s} may not discard now")
    seat = st.seats[s]
    if t not in seat.concealed:
        raise IllegalEventError(f"seat {s} does not hold {t.code}")
    if seat.void_tile is not None and t != seat.void_tile:
        raise IllegalEventError(f"the face-down 定缺 tile {seat.void_tile.code} must be the first discard (L348)")
    seat = replace(seat, void_tile=None)
    void = st.voids[s]
    if void and t.suit != void and not seat.pig and any(x.suit == void for x in seat.all_tiles):
        # 主动花猪: the discard stands once it reaches the pool (L776); category 2 + 停和陪打 (L352)
        st = replace(st, penalties=(*st.penalties, (s, "active_pig", 24)))
        seat = replace(seat, pig=True, dead=True)
    if void and t.suit != void:
        seat = replace(seat, discarded_other=True)
    seat = seat.remove([t]).discard(t)
    if seat.passed_fan is not None and not _can_win_any(seat, st.voids[s]):
        seat = replace(seat, passed_fan=None)  # after a pong the hand cannot win: no 顺和 (L248 counter-case)
    st = _set_seat(st, s, seat)
    return replace(st, phase="claim", last_discard=(s, t), drawn=None, after_kong=False,
                   kong_discard=s if st.after_kong else None)


def _can_win_any(seat: SeatTiles, void: str | None) -> bool:
    try:
        return bool(winning_tiles(hand_of(seat), void))
    except ValueError:
        return False


def _win_fan(st: HandState, s: int, t: Tile, sit: WinSituation) -> int | None:
    """The fan seat ``s`` would score winning on ``t`` now, or None."""
    seat = st.seats[s]
    if s in st.winners or seat.dead:
        return None
    try:
        return score_win(hand_of(seat), t, sit, void_suit=st.voids[s]).fan
    except ValueError:
        return None


def _mark_passed(st: HandState, t: Tile, skip: frozenset[int]) -> HandState:
    """Everyone who could have won on ``t`` and did not call 和 (the discarder included) records the fan (L248)."""
    sit = WinSituation(self_drawn=False, after_kong=st.kong_discard is not None, last_tile=not st.wall)
    for s in st.active:
        if s in skip:
            continue
        fan = _win_fan(st, s, t, sit)
        if fan is not None:
            seat = st.seats[s]
            st = _set_seat(st, s, replace(seat, passed_fan=max(fan, seat.passed_fan or 0)))
    return st


def _close_window(st: HandState, ev: dict[str, Any]) -> HandState:
    del ev
    if st.phase not in ("claim", "rob"):
        raise IllegalEventError("no claim window is open")
    if st.phase == "rob":  # nobody robbed: the promoted kong stands, is paid, and its owner draws (L494-L500)
        assert st.promoted is not None
        s = st.promoted[0]
        how = KongType.PROMOTED_TIMELY if st.drawn is not None else KongType.PROMOTED_LATE
        money = kong_money(s, how, st.active)
        st = _pay(replace(st, kongs=(*st.kongs, money), last_kong=money, promoted=None), "kong", money.deltas,
                  "加杠 L494" if how is KongType.PROMOTED_TIMELY else "加杠 (not timely) L496")
        return _replacement(st, s)
    assert st.last_discard is not None
    d, t = st.last_discard
    st = _mark_passed(st, t, frozenset())
    nxt = st.next_active(d)
    if not st.wall:
        return _exhaustive(st)
    return replace(st, phase="draw", turn=nxt, kong_discard=None)


def _pung(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    if st.phase != "claim" or st.last_discard is None:
        raise IllegalEventError("no discard to pong")
    d, t = st.last_discard
    seat = st.seats[s]
    if s == d or s in st.winners:
        raise IllegalEventError(f"seat {s} may not pong")
    if st.voids[s] == t.suit:
        raise IllegalEventError(f"no pong on the missing suit {t.suit} (L342)")
    if sum(1 for x in seat.concealed if x.kind == t.kind) < 2:
        raise IllegalEventError(f"seat {s} has no pair of {t.code}")
    after = seat.meld_from(t, 2, claimed_from=d, owner=s)
    if seat.dead and not _tenpai_after_discard(after, st.voids[s]):
        raise IllegalEventError("under 停和陪打 a pong is allowed only to reach tenpai (L654)")
    st = _mark_passed(st, t, frozenset())
    seat = st.seats[s]
    st = _set_seat(st, d, st.seats[d].mark_called())
    st = _set_seat(st, s, seat.meld_from(t, 2, claimed_from=d, owner=s))
    return replace(st, phase="turn", turn=s, last_discard=None, drawn=None, kong_discard=None)


def _tenpai(seat: SeatTiles, void: str | None) -> bool:
    """13-tile hand (kongs count 3) with a winning tile."""
    return _can_win_any(seat, void)


def _tenpai_after_discard(seat: SeatTiles, void: str | None) -> bool:
    """After a pong: some discard leaves the hand tenpai."""
    return any(_tenpai(seat.remove([t]), void) for t in set(seat.concealed))


def _close(st: HandState) -> HandState:
    """The hand ends: 停和陪打 seats give back all their kong money of the hand (L654)."""
    kongs = list(st.kongs)
    for s in range(4):
        if s not in st.winners and st.seats[s].dead:
            deltas, kongs = refund_all(s, kongs)
            st = _pay(st, "kong_refund", deltas, "停和陪打 L654")
    return replace(st, phase="over", kongs=tuple(kongs))


def _replacement(st: HandState, s: int) -> HandState:
    """Kong replacement: the next wall tile in normal order (L403)."""
    if not st.wall:
        return _exhaustive(st)
    t = st.wall[0]
    return replace(_set_seat(st, s, st.seats[s].add(t)), wall=st.wall[1:], phase="turn", turn=s, drawn=t,
                   after_kong=True, last_discard=None)


def _kong(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    t = _tile(ev)
    how = ev.get("kind")
    seat = st.seats[s]
    if st.voids[s] == t.suit:
        raise IllegalEventError(f"no kong on the missing suit {t.suit} (L342)")
    if how == "called":
        if st.phase != "claim" or st.last_discard is None or st.last_discard[1].kind != t.kind:
            raise IllegalEventError("no discard to kong")
        d = st.last_discard[0]
        if s == d or s in st.winners or not st.wall:
            raise IllegalEventError("a called kong is not allowed now (none on the 海底 discard, L406)")
        if sum(1 for x in seat.concealed if x.kind == t.kind) < 3:
            raise IllegalEventError(f"seat {s} has no three {t.code}")
        if seat.dead and not _tenpai(seat.meld_from(t, 3, claimed_from=d, owner=s), st.voids[s]):
            raise IllegalEventError("under 停和陪打 a kong is allowed only to reach tenpai (L654)")
        money = kong_money(s, KongType.CALLED, st.active, d)
        st = _set_seat(st, d, st.seats[d].mark_called())
        st = _set_seat(st, s, seat.meld_from(t, 3, claimed_from=d, owner=s))
        st = _pay(replace(st, kongs=(*st.kongs, money), last_kong=money), "kong", money.deltas, "点杠 L490")
        return _replacement(st, s)
    if st.phase != "turn" or s != st.turn or not st.wall:
        raise IllegalEventError("a self kong needs your own turn and tiles left in the wall (L404, L406)")
    if st.drawn is None:
        raise IllegalEventError("no promoted or concealed kong right after a pong (L404)")
    if how == "concealed":
        if sum(1 for x in seat.concealed if x.kind == t.kind) < 4:
            raise IllegalEventError(f"seat {s} does not hold four {t.code}")
        if seat.dead and not _tenpai(seat.concealed_kong(t), st.voids[s]):
            raise IllegalEventError("under 停和陪打 a kong is allowed only to reach tenpai (L654)")
        money = kong_money(s, KongType.CONCEALED, st.active)
        st = _set_seat(st, s, seat.concealed_kong(t))
        st = _pay(replace(st, kongs=(*st.kongs, money), last_kong=money), "kong", money.deltas, "暗杠 L502")
        return _replacement(st, s)
    if how == "promoted":
        if not seat.has_pung(t) or t not in seat.concealed:
            raise IllegalEventError(f"seat {s} has no pong of {t.code} and the fourth tile")
        if seat.dead and not _tenpai(seat.promote(t), st.voids[s]):
            raise IllegalEventError("under 停和陪打 a kong is allowed only to reach tenpai (L654)")
        st = _set_seat(st, s, seat.promote(t))
        return replace(st, phase="rob", promoted=(s, t), last_discard=None,
                       drawn=st.drawn if st.drawn is not None and st.drawn.kind == t.kind else None,
                       kong_discard=s if st.after_kong else None)
    raise IllegalEventError(f"kong kind must be called, promoted or concealed, got {how!r}")


def _record_win(st: HandState, s: int, t: Tile, discarder: int | None, sit: WinSituation) -> HandState:
    seat = st.seats[s]
    if s in st.winners or seat.dead:
        raise IllegalEventError(f"seat {s} may not win (already won or 停和陪打)")
    hand = hand_of(seat)
    try:
        score = score_win(hand, t, sit, void_suit=st.voids[s], options=SichuanOptions())
    except ValueError as exc:
        raise IllegalEventError(f"seat {s} cannot win on {t.code}: {exc}") from exc
    pay = win_payment(s, score.base, self_drawn=sit.self_drawn, discarder=discarder, active=st.active)
    rec = WinRecord(s, t, discarder, score.fan, base_points(score.fan), st.win_events + 1,
                    tuple((h.fan.en, h.fan.value, h.count) for h in score.fans))
    return _pay(replace(st, won=(*st.won, rec)), "win", pay, f"{'自摸' if sit.self_drawn else '点炮'} {score.fan} fan")


def _win(st: HandState, ev: dict[str, Any]) -> HandState:
    seats = ev.get("seats")
    if not isinstance(seats, list) or not seats:
        raise IllegalEventError("'seats' must list the winners")
    if st.phase == "rob" and st.promoted is not None:
        d, t = st.promoted
        robbing = True
    elif st.phase == "claim" and st.last_discard is not None:
        d, t = st.last_discard
        robbing = False
    else:
        raise IllegalEventError("no tile to win on")
    order = sorted({_seat({"seat": x}) for x in seats}, key=lambda x: (x - d) % 4)
    if d in order:
        raise IllegalEventError("a player cannot win on their own discard")
    after = st.kong_discard == d
    haidi = not st.wall
    sit = WinSituation(self_drawn=False, after_kong=after, robbing_kong=robbing, last_tile=haidi)
    valid: list[int] = []
    for s in order:
        seat = st.seats[s]
        fan = _win_fan(st, s, t, sit)
        if fan is not None and seat.passed_fan is not None and fan <= seat.passed_fan:
            # 顺和: a win on a tile worth no more than one passed since the last draw (L248); treated like
            # 诈和: category 2 (24) and all the seat's kong money refunded (L782-L784); [DESIGN] the seat may not
            # win again this hand
            deltas, kongs = refund_all(s, st.kongs)
            st = _pay(replace(st, kongs=tuple(kongs), penalties=(*st.penalties, (s, "passed_win", 24))),
                      "kong_refund", deltas, "顺和 L784")
            st = _set_seat(st, s, replace(st.seats[s], dead=True))
            continue
        st = _record_win(st, s, t, d, sit)
        valid.append(s)
    if not valid:
        return st  # the tile is still open to the other calls
    order = valid
    if after and st.last_kong is not None and not st.last_kong.refunded:
        # 杠上炮: that kong's money goes back to its payers, not to the winner (L506)
        refund = st.last_kong.refund()
        st = _pay(replace(st, kongs=tuple(refund if k is st.last_kong else k for k in st.kongs)), "kong_refund",
                  st.last_kong.refund_deltas(), "杠上炮 退税 L506")
    # a robbed kong is invalid (L546): the tile leaves the kong owner's meld; a discard leaves the pond
    owner = st.seats[d]
    st = _set_seat(st, d, owner.unpromote(t) if robbing else owner.mark_called())
    st = replace(st, win_tiles=(*st.win_tiles, t))
    st = replace(st, win_events=st.win_events + 1, promoted=None, last_discard=None, kong_discard=None)
    if len(st.won) >= 3:
        return _close(st)
    if not st.wall:
        return _exhaustive(st)
    return replace(st, phase="draw", turn=st.next_active(order[-1]))  # after the last winner (L474)


def _tsumo(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    if st.phase != "turn" or s != st.turn or st.drawn is None:
        raise IllegalEventError("a self-drawn win needs a tile just drawn")
    seat = st.seats[s]
    t = st.drawn
    st = _set_seat(st, s, seat.remove([t]))
    sit = WinSituation(self_drawn=True, kong_replacement=st.after_kong, last_tile=not st.wall)
    st = _record_win(st, s, t, None, sit)
    st = _set_seat(st, s, st.seats[s].add(t))
    st = replace(st, win_events=st.win_events + 1, drawn=None)
    if len(st.won) >= 3:
        return _close(st)
    if not st.wall:
        return _exhaustive(st)
    return replace(st, phase="draw", turn=st.next_active(s))


def _exhaustive(st: HandState) -> HandState:
    """查花猪 + 查大叫 + kong refunds for not-tenpai players (L549-L596), then the hand is over."""
    st = replace(_close(st), phase=st.phase)  # 停和陪打 refunds first (L654)
    kongs = list(st.kongs)
    seats = [DrawSeat(seat=s, hand=hand_of(st.seats[s]), void_suit=st.voids[s] or "m",
                      discarded_other_suit=st.seats[s].discarded_other, active_pig_declared=st.seats[s].pig,
                      no_win=st.seats[s].dead) for s in st.active]
    res = settle_draw(seats, kongs)
    st = _pay(st, "chajiao", res.chajiao, "查花猪/查大叫 L551-L594")
    st = _pay(st, "kong_refund", res.kong_refund, "没叫 退杠 L504")
    pigs = tuple((s, "active_pig_at_draw", 24) for s in res.active_pigs if not st.seats[s].pig)
    return replace(st, phase="over", kongs=tuple(kongs), penalties=(*st.penalties, *pigs))


_HANDLERS = {"void": _void, "draw": _draw, "discard": _discard, "pass": _close_window, "pung": _pung,
             "kong": _kong, "win": _win, "tsumo": _tsumo}


def table_tiles(st: HandState) -> list[Tile]:
    """Every physical tile: wall, hands, melds, uncalled discards, tiles taken by ron (108 if conserved)."""
    out = list(st.wall) + list(st.win_tiles)
    for seat in st.seats:
        out.extend(seat.all_tiles)
        out.extend(t for t, called in seat.pond if not called)
    return out


def next_dealer(st: HandState) -> int:
    """First winner; several first winners on one discard -> the discarder; no winner -> same (L478-L482)."""
    first = [w for w in st.won if w.order == 1]
    if not first:
        return st.dealer
    if len(first) > 1 and first[0].discarder is not None:
        return first[0].discarder
    return first[0].seat
