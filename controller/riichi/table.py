"""One HKMA 2025 riichi hand as a pure, event-sourced procedure: ``apply(state, event) -> state``.

Events (JSON dicts): ``draw {seat}`` · ``discard {seat, tile, riichi?}`` · ``pass`` (the call window closes:
players who could have ronned become furiten, an unclaimed riichi tile puts its 1000 deposit down) ·
``chi {seat, tiles: [a, b]}`` (only from the left, L309) · ``pon {seat}`` ·
``kan {seat, tile, kind: called|added|concealed}`` · ``ron {seats}`` (head bump: the claimant nearest the
discarder wins, L415) · ``tsumo {seat}``.

Wall: 136 tiles in draw order; the last 14 are the dead wall (L23): ``dead[0..3]`` replacement tiles, ``dead[4]``
the dora indicator, ``dead[5..8]`` kan-dora indicators revealed at once on each kan (L37, L163), ``dead[9..13]``
the ura indicators under them (L164) [DESIGN physical mapping].  Each kan moves the live wall's last tile into
the dead wall so it stays 14 (digest §2.3).  Payments are ledger lines; riichi deposits go to ``sticks`` so
sum(deltas) + 1000 x change in sticks = 0.  Pure; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mjtable.tiles import Hand, Meld, MeldKind, NotationError, Tile, tile

from .scoring import (
    DEFAULT_OPTIONS,
    Liability,
    NotWinningHand,
    RiichiOptions,
    RiichiSituation,
    payment_split,
    score_hand,
)
from .settlement import noten_payments
from .tenpai import completing_tiles

Vec = tuple[int, int, int, int]
WINDS = tuple(tile(f"{i}z") for i in range(1, 5))


class IllegalEventError(ValueError):
    """An event the rules do not allow now; the state is unchanged."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Seat:
    """One player's tiles and riichi status.  ``pond``: (tile, called) in order."""

    concealed: tuple[Tile, ...] = ()
    melds: tuple[Meld, ...] = ()
    pond: tuple[tuple[Tile, bool], ...] = ()
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    temp_furiten: bool = False
    riichi_furiten: bool = False

    @property
    def closed(self) -> bool:
        return all(m.is_concealed for m in self.melds)

    def hand(self) -> Hand:
        return Hand(self.concealed, self.melds)

    def take(self, tiles: Sequence[Tile]) -> tuple[Tile, ...]:
        rest = list(self.concealed)
        for t in tiles:
            if t not in rest:  # exact tile: a red five is not a plain five (dora, L162)
                raise IllegalEventError(f"does not hold {t.code}")
            rest.remove(t)
        return tuple(rest)


@dataclass(frozen=True, slots=True)
class Ledger:
    kind: str
    deltas: Vec
    to_table: int = 0  # points paid into (+) or taken from (-) the riichi deposits


@dataclass(frozen=True, kw_only=True, slots=True)
class HandState:
    """A riichi hand.  ``phase``: turn, draw, call, rob, over."""

    dealer: int
    round_wind: Tile
    honba: int
    sticks: int
    live: tuple[Tile, ...]
    dead: tuple[Tile, ...]
    seats: tuple[Seat, Seat, Seat, Seat]
    phase: str = "turn"
    turn: int = 0
    drawn: Tile | None = None
    rinshan: bool = False
    last_discard: tuple[int, Tile] | None = None
    added: tuple[int, Tile] | None = None
    kans: int = 0
    calls_made: bool = False
    first_round: tuple[bool, bool, bool, bool] = (True, True, True, True)
    pending_riichi: int | None = None
    pao: tuple[tuple[int, str] | None, ...] = (None, None, None, None)  # per seat: (liable seat, yakuman)
    winner: int | None = None
    tenpai: tuple[bool, bool, bool, bool] | None = None
    ledger: tuple[Ledger, ...] = ()

    def dora_indicators(self) -> tuple[Tile, ...]:
        return self.dead[4:5 + self.kans]

    def ura_indicators(self) -> tuple[Tile, ...]:
        return self.dead[9:10 + self.kans]

    def totals(self) -> Vec:
        t = [0, 0, 0, 0]
        for line in self.ledger:
            for i, x in enumerate(line.deltas):
                t[i] += x
        return (t[0], t[1], t[2], t[3])


def new_hand(dealer: int, wall: Sequence[Tile], *, round_wind: Tile = WINDS[0], honba: int = 0,
             sticks: int = 0) -> HandState:
    """Deal 4-4-4 x3 then the jump tiles (dealer 14, others 13, L236-L244) from a 136-tile wall."""
    if len(wall) != 136:
        raise IllegalEventError(f"a riichi wall has 136 tiles, got {len(wall)}")
    live, dead = list(wall[:-14]), tuple(wall[-14:])
    hands: list[list[Tile]] = [[], [], [], []]
    pos = 0
    for _ in range(3):
        for k in range(4):
            hands[(dealer + k) % 4].extend(live[pos:pos + 4])
            pos += 4
    hands[dealer].extend(live[pos:pos + 2])
    pos += 2
    for k in range(1, 4):
        hands[(dealer + k) % 4].append(live[pos])
        pos += 1
    seats = [Seat(concealed=tuple(sorted(h))) for h in hands]
    # the dealer's second jump tile is its first draw (L243): tenhou or a first-turn kan use it
    return HandState(dealer=dealer, round_wind=round_wind, honba=honba, sticks=sticks, live=tuple(live[pos:]),
                     dead=dead, seats=(seats[0], seats[1], seats[2], seats[3]), turn=dealer, drawn=live[pos - 4])


def _seat(ev: dict[str, Any], key: str = "seat") -> int:
    s = ev.get(key)
    if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s <= 3:
        raise IllegalEventError(f"{key!r} must be a seat 0..3, got {s!r}")
    return s


def _tile(code: object) -> Tile:
    try:
        return tile(str(code))
    except NotationError as exc:
        raise IllegalEventError(str(exc)) from exc


def _put(st: HandState, s: int, seat: Seat) -> HandState:
    seats = list(st.seats)
    seats[s] = seat
    return replace(st, seats=(seats[0], seats[1], seats[2], seats[3]))


def _all(st: HandState, **changes: bool) -> HandState:
    return replace(st, seats=tuple(replace(x, **changes) for x in st.seats))  # type: ignore[arg-type]


def seat_wind(st: HandState, s: int) -> Tile:
    return WINDS[(s - st.dealer) % 4]


def furiten(st: HandState, s: int) -> bool:
    """Any of the three furiten kinds (L392-L394)."""
    seat = st.seats[s]
    if seat.temp_furiten or seat.riichi_furiten:
        return True
    waits = {t.kind for t in completing_tiles(seat.hand())}
    return any(t.kind in waits for t, _ in seat.pond)


def apply(st: HandState, ev: dict[str, Any]) -> HandState:
    """Apply one event; raises IllegalEventError (state unchanged) for anything the rules forbid now."""
    if st.phase == "over":
        raise IllegalEventError("the hand is over")
    handler = _HANDLERS.get(str(ev.get("type")))
    if handler is None:
        raise IllegalEventError(f"unknown event type {ev.get('type')!r}")
    return handler(st, ev)


def _draw(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    if st.phase != "draw" or s != st.turn or not st.live:
        raise IllegalEventError(f"seat {s} may not draw now")
    t = st.live[0]
    seat = replace(st.seats[s], concealed=tuple(sorted((*st.seats[s].concealed, t))), temp_furiten=False)
    return replace(_put(st, s, seat), live=st.live[1:], phase="turn", drawn=t, rinshan=False)


def _discard(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    t = _tile(ev.get("tile"))
    declare = ev.get("riichi", False) is True
    if st.phase != "turn" or s != st.turn:
        raise IllegalEventError(f"seat {s} may not discard now")
    seat = st.seats[s]
    if seat.riichi and st.drawn is not None and t != st.drawn:
        raise IllegalEventError("after riichi the drawn tile must be discarded (L367)")
    rest = seat.take([t])
    pending = None
    if declare:
        if seat.riichi or not seat.closed or not st.live:
            raise IllegalEventError("riichi needs a closed hand and a live tile left (L363)")
        if not completing_tiles(Hand(rest, seat.melds)):
            raise IllegalEventError("riichi needs tenpai after the declaration tile (L363)")
        double = st.first_round[s] and not st.calls_made
        seat = replace(seat, riichi=True, double_riichi=double, ippatsu=True)
        pending = s
    elif seat.ippatsu:
        seat = replace(seat, ippatsu=False)  # one go-around has passed (L769)
    first = list(st.first_round)
    first[s] = False
    seat = replace(seat, concealed=rest, pond=(*seat.pond, (t, False)))
    return replace(_put(st, s, seat), phase="call", last_discard=(s, t), drawn=None, rinshan=False,
                   pending_riichi=pending, first_round=(first[0], first[1], first[2], first[3]))


def _deposit(st: HandState) -> HandState:
    if st.pending_riichi is None:
        return st
    s = st.pending_riichi
    d = [0, 0, 0, 0]
    d[s] = -1000  # L366, L374: the stick goes down once nobody rons the declaration tile
    return replace(st, pending_riichi=None, sticks=st.sticks + 1,
                   ledger=(*st.ledger, Ledger("riichi", (d[0], d[1], d[2], d[3]), 1000)))


def _missed(st: HandState, discarder: int, t: Tile, skip: int | None = None) -> HandState:
    """Players waiting on ``t`` who did not ron: temporary furiten; in riichi: for the hand (L393-L394)."""
    for s in range(4):
        if s in (discarder, skip):
            continue
        seat = st.seats[s]
        if any(w.kind == t.kind for w in completing_tiles(seat.hand())):
            st = _put(st, s, replace(seat, temp_furiten=True, riichi_furiten=seat.riichi_furiten or seat.riichi))
    return st


def _pass(st: HandState, ev: dict[str, Any]) -> HandState:
    del ev
    if st.phase == "rob" and st.added is not None:
        s, t = st.added
        st = _missed(replace(st, added=None), s, t)
        return _kan_stands(st, s)
    if st.phase != "call" or st.last_discard is None:
        raise IllegalEventError("no call window is open")
    d, t = st.last_discard
    st = _deposit(_missed(st, d, t))
    if not st.live:
        return _exhaustive(st)
    return replace(st, phase="draw", turn=(d + 1) % 4)


PAO_YAKU = {"dragons": "Daisangen", "winds": "Dai Suushii", "kans": "Suu Kantsu"}


def _pao(st: HandState, s: int, d: int) -> HandState:
    """Responsibility (包牌, L730-L738): the discarder whose tile completes the third dragon set, the fourth
    wind set or the fourth kan of ``s``; only the first liable player counts (包先不包後)."""
    if st.pao[s] is not None:
        return st
    melds = st.seats[s].melds
    sets = [m.first.kind for m in melds if m.kind is not MeldKind.CHOW]
    liable = None
    if sum(1 for k in sets if k >= 31) == 3:
        liable = PAO_YAKU["dragons"]
    elif sum(1 for k in sets if 27 <= k <= 30) == 4:
        liable = PAO_YAKU["winds"]
    elif sum(1 for m in melds if m.is_kong) == 4:
        liable = PAO_YAKU["kans"]
    if liable is None:
        return st
    pao = list(st.pao)
    pao[s] = (d, liable)
    return replace(st, pao=tuple(pao))


def _called(st: HandState, s: int, meld: Meld, used: Sequence[Tile]) -> HandState:
    d, _ = st.last_discard or (s, None)
    seat = st.seats[s]
    disc = st.seats[d]
    st = _put(st, d, replace(disc, pond=(*disc.pond[:-1], (disc.pond[-1][0], True))))
    if st.last_discard is not None:  # the others who could have ronned it let it go (L393)
        st = _missed(st, d, st.last_discard[1], skip=s)
    st = _deposit(st)  # a called declaration tile keeps the riichi (L370)
    st = _all(st, ippatsu=False)  # any call ends every ippatsu (L769)
    st = _put(st, s, replace(st.seats[s], concealed=seat.take(used), melds=(*seat.melds, meld), temp_furiten=False,
                             ippatsu=False))
    st = _pao(st, s, d) if d != s else st
    return replace(st, phase="turn", turn=s, drawn=None, last_discard=None, calls_made=True)


def _chi(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    if st.phase != "call" or st.last_discard is None or not st.live:
        raise IllegalEventError("no discard to chi (none on the last discard, L283)")
    d, t = st.last_discard
    if s != (d + 1) % 4:
        raise IllegalEventError("chi only from the left player (L309)")
    if st.seats[s].riichi:
        raise IllegalEventError("no calls after riichi")
    raw = ev.get("tiles")
    if not isinstance(raw, list) or len(raw) != 2:
        raise IllegalEventError("'tiles' must name the two tiles from the hand")
    used = [_tile(x) for x in raw]
    kinds = sorted([t.kind, *(u.kind for u in used)])
    if not (t.is_suited and all(k // 9 == kinds[0] // 9 for k in kinds) and kinds[1] == kinds[0] + 1
            and kinds[2] == kinds[0] + 2 and all(u.is_suited for u in used)):
        raise IllegalEventError("not a run")
    meld = Meld(MeldKind.CHOW, tuple(sorted((*used, t))), None, t)
    return _called(st, s, meld, used)


def _pon(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    if st.phase != "call" or st.last_discard is None or not st.live:
        raise IllegalEventError("no discard to pon (none on the last discard, L283)")
    d, t = st.last_discard
    if s == d or st.seats[s].riichi:
        raise IllegalEventError(f"seat {s} may not pon")
    used = [x for x in st.seats[s].concealed if x.kind == t.kind][:2]
    if len(used) < 2:
        raise IllegalEventError(f"seat {s} has no pair of {t.code}")
    return _called(st, s, Meld(MeldKind.PUNG, tuple(sorted((*used, t))), None, t), used)


def _kan_stands(st: HandState, s: int) -> HandState:
    """A kan exists: reveal its kan-dora at once, then the replacement from the dead wall (L37, L348-L349)."""
    if st.kans >= 4:
        raise IllegalEventError("no fifth kan (L319)")
    repl = st.dead[st.kans]
    dead = (*st.dead, st.live[-1])  # the live wall's last tile joins the dead wall: it stays 14
    seat = st.seats[s]
    st = _all(st, ippatsu=False)
    st = _put(st, s, replace(st.seats[s], concealed=tuple(sorted((*seat.concealed, repl)))))
    return replace(st, kans=st.kans + 1, live=st.live[:-1], dead=dead, phase="turn", turn=s, drawn=repl,
                   rinshan=True, calls_made=True)


def _kan(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    t = _tile(ev.get("tile"))
    how = ev.get("kind")
    seat = st.seats[s]
    if st.kans >= 4 or len(st.live) < 1:
        raise IllegalEventError("no kan now (four kans or no live tile, L319)")
    if how == "called":
        if st.phase != "call" or st.last_discard is None or st.last_discard[1].kind != t.kind or seat.riichi:
            raise IllegalEventError("no discard to kan")
        used = [x for x in seat.concealed if x.kind == t.kind][:3]
        if len(used) < 3 or s == st.last_discard[0]:
            raise IllegalEventError(f"seat {s} has no three {t.code}")
        st = _called(st, s, Meld(MeldKind.KONG, tuple(sorted((*used, t))), None, t), used)
        return _kan_stands(st, s)
    if st.phase != "turn" or s != st.turn or st.drawn is None:
        raise IllegalEventError("a concealed or added kan is made in your own arrange stage (L320, L326)")
    if how == "concealed":
        used = [x for x in seat.concealed if x.kind == t.kind]
        if len(used) < 4:
            raise IllegalEventError(f"seat {s} does not hold four {t.code}")
        new = replace(seat, concealed=seat.take(used), melds=(*seat.melds, Meld(MeldKind.CONCEALED_KONG,
                                                                                  tuple(sorted(used)))))
        if seat.riichi and (st.drawn.kind != t.kind or {w.kind for w in completing_tiles(new.hand())}
                            != {w.kind for w in completing_tiles(Hand(seat.take([st.drawn]), seat.melds))}):
            raise IllegalEventError("after riichi a concealed kan may not change the waits (L368)")
        return _kan_stands(_put(st, s, new), s)
    if how == "added":
        pons = [m for m in seat.melds if m.kind is MeldKind.PUNG and m.first.kind == t.kind]
        if not pons or t.kind not in {x.kind for x in seat.concealed}:
            raise IllegalEventError(f"seat {s} has no pon of {t.code} and the fourth tile")
        added = next(x for x in seat.concealed if x.kind == t.kind)
        melds = tuple(Meld(MeldKind.KONG, tuple(sorted((*m.tiles, added))), None, m.claimed_tile) if m is pons[0]
                      else m for m in seat.melds)
        st = _put(st, s, replace(seat, concealed=seat.take([added]), melds=melds))
        return replace(st, phase="rob", added=(s, added), drawn=None)  # chankan window (L352-L356)
    raise IllegalEventError(f"kan kind must be called, added or concealed, got {how!r}")


def _score(st: HandState, s: int, t: Tile, *, tsumo: bool, chankan: bool, options: RiichiOptions) -> Any:
    seat = st.seats[s]
    hand = Hand(seat.take([t]) if tsumo else seat.concealed, seat.melds)
    riichi = seat.riichi
    sit = RiichiSituation(
        self_drawn=tsumo, seat_wind=seat_wind(st, s), round_wind=st.round_wind, riichi=riichi,
        double_riichi=seat.double_riichi, ippatsu=seat.ippatsu and riichi, rinshan=tsumo and st.rinshan,
        chankan=chankan, haitei=tsumo and not st.live and not st.rinshan, houtei=not tsumo and not st.live,
        tenhou=tsumo and s == st.dealer and st.first_round[s] and not st.calls_made,
        chiihou=tsumo and s != st.dealer and st.first_round[s] and not st.calls_made,
        dora_indicators=st.dora_indicators(), ura_indicators=st.ura_indicators() if riichi else ())
    try:
        return score_hand(hand, t, sit, options)
    except NotWinningHand as exc:
        raise IllegalEventError(f"seat {s} cannot win on {t.code}: {exc}") from exc


def _settle_win(st: HandState, s: int, score: Any, *, tsumo: bool, discarder: int | None) -> HandState:
    pao = st.pao[s]
    liable = Liability(pao[0]) if pao is not None and any(name == pao[1] for name, _ in score.yaku) else None
    deltas = payment_split(score, winner=s, dealer=st.dealer, self_drawn=tsumo, discarder=discarder,
                           honba=st.honba, riichi_sticks=st.sticks, pao=liable)
    line = Ledger("win", deltas, -1000 * st.sticks)
    return replace(st, phase="over", winner=s, sticks=0, ledger=(*st.ledger, line), pending_riichi=None)


def _ron(st: HandState, ev: dict[str, Any], options: RiichiOptions = DEFAULT_OPTIONS) -> HandState:
    raw = ev.get("seats")
    if not isinstance(raw, list) or not raw:
        raise IllegalEventError("'seats' must list the ron claimants")
    if st.phase == "rob" and st.added is not None:
        d, t = st.added
        chankan = True
    elif st.phase == "call" and st.last_discard is not None:
        d, t = st.last_discard
        chankan = False
    else:
        raise IllegalEventError("no tile to ron")
    claimants = sorted({_seat({"seat": x}) for x in raw} - {d}, key=lambda x: (x - d) % 4)
    if not claimants:
        raise IllegalEventError("a player cannot ron their own tile")
    s = claimants[0]  # head bump: nearest to the discarder in turn order (L415)
    if furiten(st, s):
        raise IllegalEventError(f"seat {s} is furiten and may not ron (L391)")
    score = _score(st, s, t, tsumo=False, chankan=chankan, options=options)
    if chankan:  # the robbed tile leaves the kan owner's meld; the kan never existed (L349)
        owner = st.seats[d]
        melds = tuple(Meld(MeldKind.PUNG, _without(m.tiles, t), None, m.claimed_tile)
                      if m.kind is MeldKind.KONG and m.first.kind == t.kind else m for m in owner.melds)
        st = _put(st, d, replace(owner, melds=melds))
    else:
        owner = st.seats[d]
        st = _put(st, d, replace(owner, pond=(*owner.pond[:-1], (owner.pond[-1][0], True))))
    st = replace(st, pending_riichi=None)  # a ronned declaration tile voids the riichi deposit (L371)
    winner = st.seats[s]
    st = _put(st, s, replace(winner, concealed=tuple(sorted((*winner.concealed, t)))))
    return _settle_win(st, s, score, tsumo=False, discarder=d)


def _without(tiles: tuple[Tile, ...], t: Tile) -> tuple[Tile, ...]:
    rest = list(tiles)
    rest.remove(t)
    return tuple(rest)


def _tsumo(st: HandState, ev: dict[str, Any]) -> HandState:
    s = _seat(ev)
    if st.phase != "turn" or s != st.turn or st.drawn is None:
        raise IllegalEventError("tsumo needs a tile just drawn")
    score = _score(st, s, st.drawn, tsumo=True, chankan=False, options=DEFAULT_OPTIONS)
    return _settle_win(st, s, score, tsumo=True, discarder=None)


def _exhaustive(st: HandState) -> HandState:
    """14 tiles left: noten payments of 3000 in total (L426-L433); deposits carry over (L434)."""
    tenpai = tuple(bool(completing_tiles(x.hand())) for x in st.seats)
    deltas = noten_payments(tenpai)
    t4 = (tenpai[0], tenpai[1], tenpai[2], tenpai[3])
    return replace(st, phase="over", tenpai=t4, ledger=(*st.ledger, Ledger("noten", deltas)))


_HANDLERS = {"draw": _draw, "discard": _discard, "pass": _pass, "chi": _chi, "pon": _pon, "kan": _kan,
             "ron": _ron, "tsumo": _tsumo}


def table_tiles(st: HandState) -> list[Tile]:
    """Every physical tile (136 when conserved): live and dead wall, hands, melds, uncalled discards."""
    out = [*st.live, *st.dead[st.kans:]]
    for seat in st.seats:
        out.extend(seat.concealed)
        out.extend(t for m in seat.melds for t in m.tiles)
        out.extend(t for t, called in seat.pond if not called)
    return out
