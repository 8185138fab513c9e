"""Rulebook infractions and claim timing, seed by seed (issue 16; the table is ``docs/infractions.md``).

Called from :mod:`controller.engine.step` at fixed points; pure, the engine's thread.

**Claim windows (point 1).** Pung/kong must be called within 3 s ("碰牌要快,要在3秒之内报出" [000:L504];
"碰(杠)牌要快,要在 3 秒之内报出" [004:L247]); a chow is called "slowly" ("报吃应稍慢些" [000:L500];
"报吃牌应稍慢些" [004:L246]) and in 1998/2006 a win has no 3 s limit; the rights to chow, pung/kong and win end
when the next player reaches into the wall ("已伸手进入牌池抓牌者,即为放弃吃牌、碰牌(杠)、和牌的权利" [004:L478]).
2017 puts the win with pung/kong: "报碰、杠、和牌者要快(在3秒之内)" [003:L45@1972].  So the window's 3 s
(``claim_s``) closes pung/kong (and the 2017 win); after it the window stays open (``ClaimWindow.slow``) for
the slow calls until the next player's draw, which the table sees as that player's *pass* button or any
action of his turn (discard, kong, flower, self-drawn win; from the seat buttons or the camera), or his hand
camera showing one tile more than he held (``hand_camera_draw``).  Robbing a kong
(抢杠和, a win on the added tile [000:L626; 004:L274]) is a win: under 1998/2006 its window has no 3 s either and
ends with the next action, the kong player's replacement draw ("报开杠后应即在牌墙最后补进一张牌" [000:L508;
004:L248]; seen as his *pass* or any action of his turn); under 2017 it closes at 3 s.  A pung or
kong after the 3 s is void and laddered ("超过3秒钟碰牌,即为犯规" [000:L797]; [004:L457] 5 碰牌), so is a 2017 win
("再报碰、杠、和牌时无效,而且违规" [003:L45@2059]); a 1998/2006 win or a chow after the draw is refused
(``no_window``: the right is gone, the seeds set no penalty).  Sichuan and riichi keep one window.

**Turn overruns (point 7).** No MCR seed sets a penalty for a slow discard (the only timed infraction is the
late pung): an overrun raises a ``timer_zero`` alert with its evidence and records nothing, unless the venue
asks for the ladder (profile option ``mcr-2006:overrun_penalty=true``, :class:`McrVenue`).  Sichuan times only the
calls and the draw ("应在 3 秒内摸牌" [001:L428, L430], no penalty: a late call is void) and HKMA sets no thinking
time at all (only the reaction time of a call [002:L202-L206]): a discard limit a venue sets for them (timer
override) is an alert only, like MCR's.

**Wrong and empty calls (point 8).** 错吃/错碰/错杠: the seat loses the right to win this hand ("在该盘中不得和牌"
[000:L785]; "判该盘停和陪打" [004:L454]; 2017 also "由此导致其他家和牌,则包付三家应付的分" [003:L45@2059]: raised to
the referee, who alone can tell whether it caused the win) and the tiles it showed become penalty tiles
(罚张, [000:L808; 004:L462]).  空吃/空碰/空杠 (calling without the tiles): the call is void and laddered
(warning, 5, 10, 20 [000:L789; 004:L455; 003:L45@2102]).

**Intentional false win, 2017 (point 9).** 有意诈和 (two or more tiles from ready) and a dead seat's win call pay 20
to each (as before) and get a warning; a repeat in the session proposes disqualification
("如以后再发生此情况,则取消比赛资格" [003:L45@3775]).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from controller.engine import camera, claims, holding, penalties, procedure
from controller.engine.effects import Effect, SetLed
from controller.engine.errors import Reject
from controller.engine.events import (
    ButtonPressed,
    Claim,
    ConcealedKong,
    DeclareWin,
    Discard,
    Event,
    Flower,
    PromotedKong,
    RefereeCommand,
)
from controller.engine.ext import ext_of
from controller.engine.mcr_ruleset import McrVenue
from controller.engine.query import is_seat, known_count, naming_players, next_active, player_name, ruleset_of
from controller.engine.ruleset import ClaimKind, InformationMode
from controller.engine.state import Call, GameState, MeldRec, Phase
from mjtable.tiles import MeldKind, Tile, is_chow


def _is_mcr(state: GameState) -> bool:
    return ruleset_of(state).name.startswith("mcr-")


def _venue(state: GameState) -> McrVenue:
    v = getattr(ruleset_of(state), "venue", None)
    return v if isinstance(v, McrVenue) else McrVenue()


def evidence(state: GameState, **extra: object) -> dict[str, object]:
    """What a referee alert carries: the journal position of the event being applied, the time, extras."""
    return {"journal_seq": state.seq + 1, "at_s": state.now_s, **extra}


# --- claim timing (point 1) ---------------------------------------------------------------------------


def slow_kinds(state: GameState) -> frozenset[ClaimKind]:
    """Calls that stay open after the 3 s until the next player's draw."""
    name = ruleset_of(state).name
    if name in ("mcr-1998", "mcr-2006"):
        return frozenset({ClaimKind.CHOW, ClaimKind.WIN})
    if name == "mcr-2017":
        return frozenset({ClaimKind.CHOW})
    return frozenset()


def on_claim_deadline(state: GameState, fx: list[Effect]) -> GameState:
    """The claim window's 3 s are up (no call pending): arbitrate, or keep it open for the slow calls."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    slow = slow_kinds(state)
    if w.calls or w.slow or not slow or state.config.fast_claims:
        return claims.close_window(state, fx)
    if w.robbing:  # only a win robs a kong: it waits for the kong player's replacement draw (1998/2006)
        if ClaimKind.WIN not in slow or not w.eligible - w.passed:
            return claims.close_window(state, fx)
        fx.append(SetLed(seat=w.discard_seat, on=True))  # the kong player may take his replacement now
        return replace(state, hand=replace(hand, claim=replace(w, slow=True)))
    nxt = next_active(hand, w.discard_seat)
    waiting = w.eligible - w.passed
    if not waiting or (ClaimKind.WIN not in slow and nxt not in waiting):
        return claims.close_window(state, fx)
    fx.append(SetLed(seat=nxt, on=True))  # the next player may draw now
    return replace(state, hand=replace(hand, claim=replace(w, slow=True)))


def slow_window_call(state: GameState, call: Call, fx: list[Effect]) -> GameState | None:
    """A call in a window past its 3 s: a slow call is taken at once, a fast one is late.  None: not slow."""
    hand = state.hand
    if hand is None or hand.claim is None or not hand.claim.slow:
        return None
    w = hand.claim
    if call.seat == w.discard_seat or call.seat in w.passed or any(c.seat == call.seat for c in w.calls):
        return None  # the core's own rejections
    if w.robbing and call.kind is not ClaimKind.WIN:
        return None  # only a win may rob a kong [000:L626]: refused by the core, not a late call
    if call.kind in slow_kinds(state):
        state = claims.add_call(state, call, fx)
        hand = state.hand
        if hand is not None and hand.claim is not None and state.phase in (Phase.CLAIMS, Phase.ROB_KONG):
            return claims.close_window(state, fx)  # nobody else is waiting for the 3 s any more
        return state
    state = late_call(state, call.seat, call.kind, fx)
    hand = state.hand
    assert hand is not None and hand.claim is not None
    state = replace(state, hand=replace(hand, claim=replace(hand.claim, passed=hand.claim.passed | {call.seat})))
    return claims.maybe_close(state, fx)


_TURN_ACTIONS = (Discard, ConcealedKong, PromotedKong, DeclareWin, Flower)


def next_player_draws(state: GameState, ev: Event, fx: list[Effect]) -> GameState | None:
    """In a slow window, the next player's pass or turn action is his draw: the window ends.  In a slow robbing
    window the next action is the kong player's replacement draw ("报开杠后应即在牌墙最后补进一张牌" [000:L508;
    004:L248]): his pass or turn action ends it and the kong stands.  Returns the state after the draw (the caller
    then handles a turn action as usual), or None when ``ev`` is not that."""
    hand = state.hand
    if hand is None or hand.claim is None or not hand.claim.slow \
            or state.phase not in (Phase.CLAIMS, Phase.ROB_KONG):
        return None
    seat = getattr(ev, "seat", None)
    w = hand.claim
    if seat != (w.discard_seat if w.robbing else next_active(hand, w.discard_seat)):
        return None
    if not (isinstance(ev, _TURN_ACTIONS) or (isinstance(ev, ButtonPressed) and ev.button == "pass")):
        return None
    w = hand.claim
    everyone = w.passed | (w.eligible - {c.seat for c in w.calls})
    state = replace(state, hand=replace(hand, claim=replace(w, passed=everyone)))
    return claims.close_window(state, fx)


def hand_camera_draw(state: GameState, obs: dict[str, object], ev: Event, fx: list[Effect]) -> GameState | None:
    """A ``hand_seen`` reading of the seat whose draw ends a slow window, with one tile more than it holds: the
    hand camera saw the draw (point 1: "a camera, hand-camera or button event").  Returns the state after the
    draw (the caller then checks the reading against it), or None when the reading is not that."""
    hand = state.hand
    seat, codes = obs.get("seat"), obs.get("tiles")
    if hand is None or hand.claim is None or not hand.claim.slow or not is_seat(seat) or not isinstance(codes, list):
        return None
    s = hand.seats[seat]
    if len(codes) != len(s.known) + s.unknown + 1:
        return None
    return next_player_draws(state, ButtonPressed(id=ev.id, at_s=ev.at_s, seat=seat, button="pass"), fx)


def late_call(state: GameState, seat: int, kind: ClaimKind, fx: list[Effect]) -> GameState:
    """A call after its time: void; laddered where the seed says it is an infraction."""
    handled = ext_of(state).late_call(state, seat, kind, fx)  # Sichuan: void; HKMA: levels (the extensions)
    if handled is not None:
        return handled
    name = ruleset_of(state).name
    if kind is ClaimKind.CHOW or (kind is ClaimKind.WIN and name in ("mcr-1998", "mcr-2006")):
        raise Reject("no_window", f"the right to {kind} ended with the next player's draw [004:L478]")
    cite = "[003:L45@2059]" if name == "mcr-2017" else "[000:L797; 004:L457]"
    return penalties.record(state, seat, "late_call", f"{kind} called after its time: void {cite}", fx,
                            ladder="ladder")


# --- wrong and empty calls (point 8) --------------------------------------------------------------------


_BAD_CALL_REASONS = ("not_held", "impossible_tile", "illegal_claim")


def claim_event(state: GameState, ev: Claim, fx: list[Effect], handle: Callable[[], GameState]) -> GameState:
    """A ``claim`` event from a seat (not a camera reading): a call that cannot be made is an infraction under
    MCR (wrong or empty call) instead of a plain rejection; other rulebooks record it through their extension's
    ``bad_call`` hook (Sichuan 001 L740/L762, HKMA 002 L560/L570)."""
    try:
        return handle()
    except Reject as r:
        if r.reason not in _BAD_CALL_REASONS or ev.kind == ClaimKind.WIN.value:
            raise
        hand = state.hand
        if hand is None or hand.claim is None or state.phase not in (Phase.CLAIMS, Phase.ROB_KONG):
            raise
        w = hand.claim
        seat = ev.seat
        kind = ClaimKind(ev.kind)
        last_pung = kind is ClaimKind.PUNG and claims.pung_on_last(state)  # Sichuan: a right [001:L383]
        if w.robbing or (hand.wall_remaining <= 0 and not last_pung):
            raise  # no such right at all (robbing, the last discard): refused, as the seeds set no penalty
        if seat == w.discard_seat or hand.seats[seat].out or seat in w.passed \
                or any(c.seat == seat for c in w.calls):
            raise
        if kind is ClaimKind.CHOW and len(ev.tiles) != 2:
            raise  # a malformed chow event (the two tiles are not named): the sender's error, not the player's
        shown = _shown_tiles(state, seat, kind, ev.tiles)
        why = naming_players(state, r.message)  # the infraction's words name the player
        fx_here: list[Effect] = []
        if not _is_mcr(state):  # Sichuan: category 4; HKMA: 取消鳴牌 level 2, 搭子誤鳴 raised (the extensions)
            handled = ext_of(state).bad_call(state, seat, kind, shown, why=why, fx=fx_here)
            if handled is None:
                raise
            new, void = handled
            if void:
                new = _as_passed(new, seat, fx_here)
            fx.extend(fx_here)
            return new
        if shown is None:
            new = penalties.record(state, seat, "empty_call", f"empty {kind} (空{_CN[kind]}): {why}; the call "
                                   "is void [000:L789; 004:L455; 003:L45@2102]", fx_here, ladder="ladder")
        else:
            new = _wrong_call(state, seat, kind, shown, why, fx_here)
        new = _as_passed(new, seat, fx_here)
        fx.extend(fx_here)
        return new


_CN = {ClaimKind.CHOW: "吃", ClaimKind.PUNG: "碰", ClaimKind.KONG: "杠", ClaimKind.WIN: "和"}


def _shown_tiles(state: GameState, seat: int, kind: ClaimKind, codes: tuple[str, ...]) -> tuple[Tile, ...] | None:
    """The tiles the caller lays out from his hand, when he holds them (a wrong call); None: he does not (an
    empty call)."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    try:
        if kind is ClaimKind.CHOW:
            tiles = [procedure.parse_tile(c) for c in codes]
            if len(tiles) != 2:
                return None
        else:
            tiles = [hand.claim.tile.plain] * (2 if kind is ClaimKind.PUNG else 3)
        holding.check_can_hold(hand, hand.seats[seat], seat, tiles, by_kind=kind is not ClaimKind.CHOW)
    except Reject:
        return None
    return tuple(tiles)


def _wrong_call(state: GameState, seat: int, kind: ClaimKind, shown: tuple[Tile, ...], why: str,  # noqa: PLR0917
                fx: list[Effect]) -> GameState:
    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    s = replace(s, dead=s.dead or f"wrong {kind} (错{_CN[kind]})", penalty_tiles=(*s.penalty_tiles, *shown))
    state = replace(state, hand=procedure.with_seat(hand, seat, s))
    codes = " ".join(t.code for t in shown)
    state = penalties.record(state, seat, "wrong_call", f"wrong {kind} (错{_CN[kind]}): {why}; no win this hand "
                             f"(停和陪打), penalty tiles {codes} [000:L785, L808; 004:L454, L462]", fx, points=0,
                             status="applied")
    if ruleset_of(state).name == "mcr-2017":
        player = player_name(state, seat)
        state = camera.raise_alert(state, "wrong_call", f"{player} made a wrong {kind}: if it leads to another "
                                   "player's win, the offender pays for all three (包付) [003:L45@2059]",
                                   evidence(state, seat=seat, player=player, kind=str(kind), tiles=codes.split()), fx)
    return state


def _as_passed(state: GameState, seat: int, fx: list[Effect]) -> GameState:
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    state = replace(state, hand=replace(hand, claim=replace(w, passed=w.passed | {seat}, pending=w.pending - {seat})))
    return claims.maybe_close(state, fx)


# --- turn overruns (point 7) ----------------------------------------------------------------------------


def overrun(state: GameState, name: str, seat: int | None, fx: list[Effect]) -> GameState:
    """A turn / opening / flowers limit ran out: the alert always; the ladder where the rules set one."""
    data = evidence(state, timer=name, seat=seat)
    if seat is not None:
        data["player"] = player_name(state, seat)
    state = camera.raise_alert(state, "timer_zero", f"{name} time is up" + (f" for {data['player']}" if seat is not None
                               else ""), data, fx)
    if seat is None or not _venue(state).overrun_penalty:  # no seed sets one (MCR, Sichuan, HKMA)
        return state
    return penalties.record(state, seat, f"{name}_overrun", f"{name} limit exceeded", fx, ladder="timer_ladder")


# --- referee: correct a meld (point 13) -----------------------------------------------------------------


def correct_meld(state: GameState, ev: RefereeCommand) -> GameState:
    """``correct_meld``: the referee replaces meld ``position`` of ``seat`` with ``tiles`` (partial information:
    the camera misread a meld).  The meld keeps its kind family and its source; the claimed tile must stay in it
    (correct the pond tile first with ``correct_tile`` otherwise); no fifth copy."""
    hand = state.hand
    if hand is None:
        raise Reject("wrong_phase", "no hand in progress")
    seat = ev.seat
    if not is_seat(seat):
        raise Reject("bad_seat", f"seat must be 0..3, got {seat!r}")
    if state.config.mode is not InformationMode.PARTIAL:
        raise Reject("bad_event", "with full information the tiles are known; corrections are not needed")
    s = hand.seats[seat]
    pos = ev.position
    if not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos < len(s.melds):
        raise Reject("bad_event", f"seat {seat} has no meld {pos!r}")
    old = s.melds[pos]
    tiles = procedure.sorted_tiles([procedure.parse_tile(c) for c in ev.tiles])
    kind = _meld_kind(tiles, old)
    if old.claimed_tile is not None and all(t.kind != old.claimed_tile.kind for t in tiles):
        raise Reject("bad_event", f"the meld must keep the claimed {old.claimed_tile.code}; correct the pond tile "
                     "first (correct_tile)")
    new = MeldRec(kind, tiles, old.claimed_from, old.claimed_tile)
    melds = (*s.melds[:pos], new, *s.melds[pos + 1:])
    out = procedure.with_seat(hand, seat, replace(s, melds=melds))
    for t in {x.kind for x in tiles}:
        if known_count(out, t) > 4:
            raise Reject("impossible_tile", f"{Tile(t).code} would be a fifth copy")
    return replace(state, hand=out)


def _meld_kind(tiles: tuple[Tile, ...], old: MeldRec) -> MeldKind:
    kinds = [t.kind for t in tiles]
    same = len(set(kinds)) == 1 and not tiles[0].is_flower
    if len(tiles) == 4 and same:
        return MeldKind.CONCEALED_KONG if old.kind is MeldKind.CONCEALED_KONG else MeldKind.KONG
    if old.kind is MeldKind.CONCEALED_KONG:
        raise Reject("bad_event", "a concealed kong is corrected to four of one tile")
    if len(tiles) == 3 and same:
        return MeldKind.PUNG
    if is_chow(tiles):
        if old.kind is not MeldKind.CHOW:
            raise Reject("bad_event", f"a {old.kind} cannot become a chow (claimed from another seat)")
        return MeldKind.CHOW
    raise Reject("bad_event", "the tiles do not make a chow, pung or kong")


__all__ = ["McrVenue", "claim_event", "correct_meld", "hand_camera_draw", "late_call", "next_player_draws",
           "on_claim_deadline", "overrun", "slow_kinds", "slow_window_call"]
