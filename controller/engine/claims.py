"""Discards, claim windows and their arbitration, melds and kongs (MCR digest §2.8, §2.9, §4)."""

from __future__ import annotations

from dataclasses import replace

from controller.engine.effects import Effect, SetLed
from controller.engine.errors import Reject
from controller.engine.holding import check_can_hold
from controller.engine.procedure import sorted_tiles, take, with_seat
from controller.engine.query import ruleset_of
from controller.engine.ruleset import ClaimKind
from controller.engine.state import Call, ClaimWindow, GameState, MeldRec, Phase, PondTile, SeatState
from controller.engine.timers import cancel, limits, start
from controller.engine.turn_clock import check_discard, start_turn
from mjtable.tiles import MeldKind, Tile, is_chow


def discard(state: GameState, seat: int, t: Tile, fx: list[Effect]) -> GameState:
    """``seat`` shows ``t``; the claim window opens [000:L496; 004:L244]."""
    hand = state.hand
    assert hand is not None
    if hand.promoted is not None:
        raise Reject("wrong_phase", "a promoted kong is waiting for its rob window")
    s = check_can_hold(hand, check_discard(state, seat, t), seat, [t])  # turn_clock: 1998 flowers, 罚张
    s = replace(s, pond=(*s.pond, PondTile(t)))
    hand = with_seat(hand, seat, s)
    hand = replace(hand, last_discard=(seat, t), drawn=None, drew=False, after_kong=False, first_turn=False,
                   turn=None, discard_s=state.now_s)
    state = replace(state, hand=hand)
    state = cancel(state, "turn", fx)
    state = cancel(state, "opening", fx)
    fx.append(SetLed(seat=seat, on=False))
    return open_window(state, seat, t, fx, robbing=False)


def eligible_claims(state: GameState, seat: int, discarder: int, t: Tile, *, robbing: bool) -> set[ClaimKind]:
    """What ``seat`` could call on ``t`` (full information: exact; partial: anything not ruled out)."""
    hand = state.hand
    assert hand is not None
    rules = ruleset_of(state)
    kinds = rules.claim_kinds()
    s = hand.seats[seat]
    out: set[ClaimKind] = set()
    if t.is_flower:
        return out
    from controller.engine.wins import can_win_on

    if ClaimKind.WIN in kinds and s.dead is None and can_win_on(state, seat, t, discarder, robbing=robbing):
        out.add(ClaimKind.WIN)
    last = hand.wall_remaining <= 0
    if robbing or (last and not pung_on_last(state)):
        return out  # only a win on the last discard or a robbed kong
    n = sum(1 for k in s.known if k.kind == t.kind) + s.unknown
    if ClaimKind.PUNG in kinds and n >= 2:
        out.add(ClaimKind.PUNG)
    if last:
        return out  # Sichuan: a pung on the last discard, nothing else (L383)
    if ClaimKind.KONG in kinds and n >= 3:
        out.add(ClaimKind.KONG)
    if ClaimKind.CHOW in kinds and seat == (discarder + 1) % 4 and t.is_suited and chow_options(s, t):
        out.add(ClaimKind.CHOW)
    return out


def pung_on_last(state: GameState) -> bool:
    """The rules allow a pung on the last discard (Sichuan 海底牌允许碰, L383); MCR/riichi only a win."""
    hook = getattr(ruleset_of(state), "pung_on_last_discard", None)
    return bool(hook()) if callable(hook) else False


def _may_change(state: GameState, w: ClaimWindow, prior: Call, new: Call) -> bool:
    """改报: the rules let a caller change to a higher call when the situation changed (Sichuan L432-L438,
    HKMA L421); MCR does not ("报吃、碰、杠又改报和牌者…此轮不准和牌" [004:L476])."""
    hook = getattr(ruleset_of(state), "may_change_call", None)
    others = frozenset(c.kind for c in w.calls if c.seat != prior.seat)
    return bool(hook(prior.kind, new.kind, others)) if callable(hook) else False


def chow_options(s: SeatState, t: Tile) -> list[tuple[Tile, Tile]]:
    """Pairs of concealed tiles making a chow with ``t`` (unknown tiles could be anything)."""
    if not t.is_suited:
        return []
    base = t.kind - t.kind % 9
    have = {k.kind: k for k in s.known}
    out: list[tuple[Tile, Tile]] = []
    for a, b in ((-2, -1), (-1, 1), (1, 2)):
        ka, kb = t.kind + a, t.kind + b
        if not (base <= ka < base + 9 and base <= kb < base + 9):
            continue
        if s.unknown >= 2 or (ka in have and kb in have) or (s.unknown >= 1 and (ka in have or kb in have)):
            out.append((have.get(ka, Tile(ka)), have.get(kb, Tile(kb))))
    return out


def open_window(state: GameState, seat: int, t: Tile, fx: list[Effect], *, robbing: bool) -> GameState:
    hand = state.hand
    assert hand is not None
    playing = [o for o in range(4) if o != seat and not hand.seats[o].out]
    able = frozenset(o for o in playing if eligible_claims(state, o, seat, t, robbing=robbing))
    # On a real table the window always waits for every other player (closing early would tell them that
    # nobody can claim: hidden information).  Simulations may close it as soon as nobody can claim.
    eligible = able if state.config.fast_claims or t.is_flower else frozenset(playing)  # nobody claims a flower
    lim = limits(state)
    win = ClaimWindow(discard_seat=seat, tile=t, opened_s=state.now_s, deadline_s=state.now_s + lim.claim_s,
                      eligible=eligible, robbing=robbing)
    state = replace(state, hand=replace(hand, claim=win), phase=Phase.ROB_KONG if robbing else Phase.CLAIMS)
    if not eligible:
        return close_window(state, fx)
    return start(state, "claim", None, lim.claim_s, fx)


def add_call(state: GameState, call: Call, fx: list[Effect]) -> GameState:
    """Record a call in the open window (validated against what the seat can hold)."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    seat = call.seat
    if seat == w.discard_seat:
        raise Reject("illegal_claim", "a player cannot claim his own discard")
    if hand.seats[seat].out:
        raise Reject("illegal_claim", f"seat {seat} has already won and left this hand")
    prior = next((c for c in w.calls if c.seat == seat), None)
    if seat in w.passed or prior is not None:
        if prior is None or not _may_change(state, w, prior, call):
            raise Reject("already_acted", f"seat {seat} already passed or called on this discard")
        w = replace(w, calls=tuple(c for c in w.calls if c.seat != seat))  # 改报: the higher call replaces it
    if w.robbing and call.kind is not ClaimKind.WIN:
        raise Reject("illegal_claim", "only a win may rob a kong [000:L626]")
    if call.kind not in ruleset_of(state).claim_kinds():
        raise Reject("illegal_claim", f"{call.kind} does not exist in {state.config.rules}")
    if call.kind is not ClaimKind.WIN and hand.wall_remaining <= 0 \
            and not (call.kind is ClaimKind.PUNG and pung_on_last(state)):
        raise Reject("illegal_claim", "only a win may be called on the last discard")
    s = hand.seats[seat]
    if call.kind is ClaimKind.CHOW:
        if seat != (w.discard_seat + 1) % 4:
            raise Reject("illegal_claim", "a chow may only be claimed from the player on the left (上家)")
        if len(call.tiles) != 2:
            raise Reject("illegal_claim", "a chow names the two tiles from the hand")
        if not is_chow((w.tile, *call.tiles)):
            raise Reject("illegal_claim", "those tiles do not make a chow with the discard")
        check_can_hold(hand, s, seat, list(call.tiles))
    elif call.kind in (ClaimKind.PUNG, ClaimKind.KONG):
        need = 2 if call.kind is ClaimKind.PUNG else 3
        check_can_hold(hand, s, seat, [w.tile.plain] * need, by_kind=True)
    elif not s.fully_known:  # a win in partial information: the laid-down tiles must fit what is known
        from controller.engine.wins import reveal_kongs  # face-down kongs come first, turned up

        shown, rest = reveal_kongs(state, seat, tuple(t.code for t in call.tiles))
        if len(rest) != len(s.known) + s.unknown:
            raise Reject("bad_hand", f"seat {seat} holds {len(s.known) + s.unknown} concealed tiles, "
                         f"{len(rest)} were shown")
        assert shown.hand is not None
        check_can_hold(shown.hand, s, seat, list(call.tiles[len(call.tiles) - len(rest):]))
    w = replace(w, calls=(*w.calls, call), pending=w.pending - {seat})
    state = replace(state, hand=replace(hand, claim=w))
    return maybe_close(state, fx)


def add_pass(state: GameState, seat: int, fx: list[Effect]) -> GameState:
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    if seat == w.discard_seat:
        raise Reject("illegal_claim", "the discarder has nothing to pass on")
    if (seat in w.passed or any(c.seat == seat for c in w.calls)) and seat not in w.pending:
        raise Reject("already_acted", f"seat {seat} already passed or called on this discard")
    w = replace(w, passed=w.passed | {seat}, pending=w.pending - {seat})
    return maybe_close(replace(state, hand=replace(hand, claim=w)), fx)


def add_pending(state: GameState, seat: int) -> GameState:
    """The seat pressed *call*: the window waits for the claim's details (camera or referee)."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    if seat == w.discard_seat or seat in w.passed or any(c.seat == seat for c in w.calls):
        raise Reject("already_acted", f"seat {seat} cannot call now")
    return replace(state, hand=replace(hand, claim=replace(w, pending=w.pending | {seat})))


def maybe_close(state: GameState, fx: list[Effect]) -> GameState:
    """Close when every eligible seat has called or passed and no call is pending."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    acted = w.passed | {c.seat for c in w.calls}
    if w.pending or not w.eligible <= acted:
        return state
    return close_window(state, fx)


def _distance(discarder: int, seat: int) -> int:
    return (seat - discarder) % 4


def close_window(state: GameState, fx: list[Effect]) -> GameState:
    """Arbitrate: highest priority, then nearest counter-clockwise from the discarder [000:L548; 004:L275]."""
    from controller.engine.wins import next_player_draws, win_on_discard

    state = cancel(state, "claim", fx)
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    rules = ruleset_of(state)
    calls = sorted(w.calls, key=lambda c: (-rules.claim_priority(c.kind), _distance(w.discard_seat, c.seat)))
    if rules.multiple_winners() and sum(1 for c in calls if c.kind is ClaimKind.WIN) > 1:
        from controller.engine.wins import several_win_on_discard

        state, won = several_win_on_discard(state, [c for c in calls if c.kind is ClaimKind.WIN], fx)
        if won:
            return state
        hand = state.hand
        assert hand is not None and hand.claim is not None
        w = hand.claim
        calls = [c for c in calls if c.kind is not ClaimKind.WIN]
    for c in calls:
        if c.kind is ClaimKind.WIN:
            if c.seat in w.excluded_winners:
                continue
            state, won = win_on_discard(state, c, fx)
            if won:
                return state
            hand = state.hand
            assert hand is not None and hand.claim is not None
            w = hand.claim
            continue
        return make_meld(state, c, fx)
    state = replace(state, hand=replace(hand, claim=None))
    if w.robbing:
        return finish_promoted_kong(state, fx)
    return next_player_draws(state, w.discard_seat, fx)


def make_meld(state: GameState, c: Call, fx: list[Effect]) -> GameState:
    """Execute a chow, pung or kong on the discard; the claimant's turn starts (kong: replacement first)."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    s = hand.seats[c.seat]
    if c.kind is ClaimKind.CHOW:
        used = list(c.tiles)
        kind = MeldKind.CHOW
    else:
        used = [w.tile.plain] * (2 if c.kind is ClaimKind.PUNG else 3)
        kind = MeldKind.PUNG if c.kind is ClaimKind.PUNG else MeldKind.KONG
    before = s
    s = check_can_hold(hand, s, c.seat, used, by_kind=c.kind is not ClaimKind.CHOW)
    real = _taken_faces(before, s, used)
    meld = MeldRec(kind, sorted_tiles([*real, w.tile]), w.discard_seat, w.tile)
    s = replace(s, melds=(*s.melds, meld))
    d = hand.seats[w.discard_seat]
    pond = (*d.pond[:-1], replace(d.pond[-1], called=True))
    hand = with_seat(with_seat(hand, c.seat, s), w.discard_seat, replace(d, pond=pond))
    hand = replace(hand, claim=None, turn=c.seat, drew=False, drawn=None, after_kong=False)
    state = replace(state, hand=hand, phase=Phase.TURN)
    fx.append(SetLed(seat=c.seat, on=True))
    if kind is MeldKind.KONG:
        state = take(state, c.seat, from_back=True)
        assert state.hand is not None
        state = replace(state, hand=replace(state.hand, after_kong=True))
    return start_turn(state, c.seat, fx)  # MCR 1998: from the discard [000:L496]


def _taken_faces(before: SeatState, after: SeatState, used: list[Tile]) -> list[Tile]:
    """The actual tiles removed (keeps a red five red); unknown ones take the named face."""
    rest = list(after.known)
    out = []
    for t in before.known:
        if t in rest:
            rest.remove(t)
        else:
            out.append(t)
    while len(out) < len(used):
        out.append(used[len(out)])
    return out


def concealed_kong(state: GameState, seat: int, t: Tile | None, fx: list[Effect]) -> GameState:
    """A concealed kong in one's own turn, placed face down; replacement from the back [000:L511; 004:L250].
    ``t`` None: a face-down kong whose face nobody has seen (partial information)."""
    hand = state.hand
    assert hand is not None
    if not hand.drew:
        raise Reject("wrong_phase", "a kong may only be declared after a draw [000:L508]")
    if hand.wall_remaining <= 0:
        raise Reject("wall_empty", "no replacement tile left for a kong")
    s = hand.seats[seat]
    before = s
    if t is None:
        if s.unknown < 4:
            raise Reject("not_held", f"seat {seat} cannot hold four unseen tiles")
        s = replace(s, unknown=s.unknown - 4)
        tiles: tuple[Tile, ...] = ()
    else:
        s = check_can_hold(hand, s, seat, [t.plain] * 4, by_kind=True)
        tiles = sorted_tiles(_taken_faces(before, s, [t.plain] * 4))
    s = replace(s, melds=(*s.melds, MeldRec(MeldKind.CONCEALED_KONG, tiles)))
    state = replace(state, hand=with_seat(hand, seat, s))
    state = take(state, seat, from_back=True)
    assert state.hand is not None
    state = replace(state, hand=replace(state.hand, after_kong=True))
    return start_turn(state, seat, fx, kong=True)  # MCR 1998: a kong does not restart the 15 s [000:L496]


def promoted_kong(state: GameState, seat: int, t: Tile, fx: list[Effect]) -> GameState:
    """Add ``t`` to one's exposed pung (加杠); the others may rob it before the replacement [000:L626]."""
    hand = state.hand
    assert hand is not None
    if not hand.drew:
        raise Reject("wrong_phase", "a kong may only be declared after a draw [000:L508]")
    if hand.wall_remaining <= 0:
        raise Reject("wall_empty", "no replacement tile left for a kong")
    s = hand.seats[seat]
    if not any(m.kind is MeldKind.PUNG and m.tiles[0].kind == t.kind for m in s.melds):
        raise Reject("illegal_claim", f"seat {seat} has no exposed pung of {t.code}")
    before = s
    s = check_can_hold(hand, s, seat, [t.plain], by_kind=True)
    t = _taken_faces(before, s, [t.plain])[0]
    hand = replace(with_seat(hand, seat, s), promoted=(seat, t), turn=None)
    state = cancel(replace(state, hand=hand), "turn", fx)
    return open_window(state, seat, t, fx, robbing=True)


def finish_promoted_kong(state: GameState, fx: list[Effect]) -> GameState:
    """Nobody robbed: the pung becomes a kong and the player takes a replacement."""
    hand = state.hand
    assert hand is not None and hand.promoted is not None
    seat, t = hand.promoted
    s = hand.seats[seat]
    melds = tuple(replace(m, kind=MeldKind.KONG, tiles=sorted_tiles([*m.tiles, t]))
                  if m.kind is MeldKind.PUNG and m.tiles[0].kind == t.kind else m for m in s.melds)
    hand = replace(with_seat(hand, seat, replace(s, melds=melds)), promoted=None, turn=seat)
    state = replace(state, hand=hand, phase=Phase.TURN)
    state = take(state, seat, from_back=True)
    assert state.hand is not None
    state = replace(state, hand=replace(state.hand, after_kong=True))
    return start_turn(state, seat, fx, kong=True)  # MCR 1998: a kong does not restart the 15 s [000:L496]
