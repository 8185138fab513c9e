"""The pure core: ``step(state, event) -> (state, effects)``.

Called from one thread/loop at a time (the shell's asyncio loop, the simulator, replay).  No I/O, no clock,
no randomness: time comes from ``event.at_s``.  A rejected event returns the *same* state object and a single
:class:`~controller.engine.effects.Rejected` effect.
"""

from __future__ import annotations

from dataclasses import replace

from controller.engine import camera, claims, infractions, penalties, procedure, session, timers, wins
from controller.engine.effects import Buzz, CancelTimer, Effect, McuCommand, Rejected
from controller.engine.errors import Reject
from controller.engine.events import (
    ButtonPressed,
    CameraObserved,
    Claim,
    ClockTick,
    ConcealedKong,
    DeclareWin,
    DiceRolled,
    Discard,
    Event,
    Flower,
    LinkChanged,
    McuFault,
    PromotedKong,
    RefereeCommand,
    SessionStart,
    TableBuilt,
    repeated_name,
)
from controller.engine.ext import ext_of
from controller.engine.query import is_seat, naming_players, player_index, player_name
from controller.engine.registry import UnknownRules, ruleset_for
from controller.engine.ruleset import ClaimKind, InformationMode
from controller.engine.state import Call, EngineConfig, GameState, PenaltyMode, Phase, SessionState

#: the public words of a referee's ``apply_penalty`` and ``dead_hand`` (the referee's own reason stays a note)
REFEREE_PENALTY = "penalty by the referee"
REFEREE_DEAD_HAND = "dead hand (相公) by the referee"
RECENT_IDS = 512  # duplicate ids are caught among this many recent events (the journal checks all)
TIMER_OVERRIDE_NAMES = ("opening_s", "flowers_s", "first_discard_s", "turn_s", "claim_s", "session_s",
                        "session_warning_s")


def start_session(ev: SessionStart) -> tuple[GameState, tuple[Effect, ...]]:
    """The first state, from the journal's first event.  Raises ValueError on bad options."""
    try:
        rules = ruleset_for(ev.rules, ev.seat_rotation)
    except UnknownRules as exc:
        raise ValueError(str(exc)) from exc
    if len(ev.players) != 4:
        raise ValueError("a session needs four players")
    twice = repeated_name(ev.players) if ev.engine_rev >= 1 else None
    if twice is not None:
        raise ValueError(f"the session names {twice!r} twice: records and standings credit players by name")
    for name, _ in ev.timer_overrides:
        if name not in TIMER_OVERRIDE_NAMES:
            raise ValueError(f"unknown timer {name!r}; known: {', '.join(TIMER_OVERRIDE_NAMES)}")
    config = EngineConfig(
        table_id=ev.table_id, rules=ev.rules, mode=InformationMode(ev.mode), seat_rotation=ev.seat_rotation,
        penalty_mode=PenaltyMode(ev.penalty_mode), camera_min_confidence=ev.camera_min_confidence,
        timer_overrides=tuple((n, v) for n, v in ev.timer_overrides),
        hands_total=ev.hands_total or rules.hands_per_session,
        flower_rounds=ev.flower_rounds if ev.flower_rounds is not None else rules.name == "mcr-2017",
        fast_claims=ev.fast_claims, engine_rev=ev.engine_rev)
    sess = SessionState(players=(ev.players[0], ev.players[1], ev.players[2], ev.players[3]), start_s=ev.at_s)
    state = GameState(config=config, session=sess, now_s=ev.at_s, seq=1, recent_ids=(ev.id,))
    fx: list[Effect] = []
    lim = timers.limits(state)
    state = session.start_session_clock(state, lim.session_s, lim.session_warning_s, fx)
    fx.append(McuCommand(name="shuffle_and_build", args={"tile_set": rules.tileset.total}))
    return state, tuple(fx)


def step(state: GameState, event: Event) -> tuple[GameState, tuple[Effect, ...]]:
    """Apply one event.  Returns the new state and the effects to execute, or the unchanged state and a
    ``Rejected`` effect."""
    fx: list[Effect] = []
    try:
        if event.id in state.recent_ids:
            raise Reject("duplicate_id", f"event id {event.id!r} was already applied")
        new = _dispatch(state, event, fx)
        new = ext_of(new).after_step(state, new, event, fx)  # rules extension (ext.py: Sichuan, riichi)
    except Reject as r:
        return state, (Rejected(event_id=event.id, reason=r.reason, message=r.message),)
    ids = (*state.recent_ids[-(RECENT_IDS - 1):], event.id)
    return replace(new, seq=state.seq + 1, recent_ids=ids), tuple(fx)


def _advance(state: GameState, at_s: float, fx: list[Effect]) -> GameState:
    """Move the clock to ``at_s`` and fire every timer due by then, earliest first."""
    if at_s > state.now_s:
        state = replace(state, now_s=at_s)
    if state.paused:
        return state
    while True:
        due = [t for t in state.timers if t.deadline_s <= state.now_s and not t.expired]
        if not due:
            return state
        t = min(due, key=lambda x: (x.deadline_s, x.name))
        state = replace(state, timers=tuple(x for x in state.timers if x is not t))
        if t.name not in ("claim", "session", "session_warning"):
            # a turn limit stays on show at zero until the seat acts (display countdown at zero)
            state = replace(state, timers=(*state.timers, replace(t, expired=True)))
        state = _fire(state, t.name, t.seat, fx)


def _fire(state: GameState, name: str, seat: int | None, fx: list[Effect]) -> GameState:
    if name == "claim":
        hand = state.hand
        if hand is None or hand.claim is None:
            return state
        if not hand.claim.pending:  # MCR: pung/kong's 3 s are over, chow (and win) may wait for the draw
            return infractions.on_claim_deadline(state, fx)
        # a seat pressed *call* in time but its claim's details have not come: the referee decides
        seats = sorted(hand.claim.pending)
        callers = ", ".join(player_name(state, s) for s in seats)
        return camera.raise_alert(state, "call_pending", f"{callers} called but the claim is not shown yet",
                                  {"seats": seats}, fx)
    if name == "session_warning":
        return session.session_warning(state, fx)
    if name == "session":
        return session.session_time_up(state, fx)
    # a turn / opening / flowers limit ran out: buzzer, countdown at zero, infraction on the ladder
    if name == "flowers" and seat is None and state.hand is not None:
        seat = state.hand.flower_seat  # V1998's 30 s is for all four [000:L472]: the seat still replacing is late
    fx.append(Buzz(duration_s=1.0))
    return infractions.overrun(state, name, seat, fx)  # alert; the ladder only where the rules set one


def _need_hand(state: GameState) -> None:
    if state.hand is None:
        raise Reject("wrong_phase", "no hand in progress")


def _seat_of(ev: Event) -> int:
    seat = getattr(ev, "seat", None)
    if not is_seat(seat):
        raise Reject("bad_seat", f"seat must be 0..3, got {seat!r}")
    return seat


def _dispatch(state: GameState, ev: Event, fx: list[Effect]) -> GameState:
    if isinstance(ev, SessionStart):
        raise Reject("bad_event", "the session has already started")
    if state.phase is Phase.SESSION_OVER and not isinstance(ev, ClockTick | RefereeCommand):
        raise Reject("session_over", "the session is over")
    state = _advance(state, ev.at_s, fx)
    if isinstance(ev, ClockTick):
        return state
    if isinstance(ev, RefereeCommand):
        return _referee(state, ev, fx)
    if isinstance(ev, LinkChanged):
        if not ev.up:
            state = camera.raise_alert(state, "link_down", "the table MCU link is down", {}, fx)
        return replace(state, link_up=ev.up)
    if isinstance(ev, McuFault):
        state = camera.raise_alert(state, "mcu_fault", f"table fault {ev.code}: {ev.message}",
                                   {"code": ev.code}, fx)
        return _pause(state, fx)
    if state.paused:
        raise Reject("paused", "the game is paused by the referee")
    if isinstance(ev, TableBuilt):
        if state.phase not in (Phase.BUILDING, Phase.HAND_OVER):
            raise Reject("wrong_phase", f"a wall cannot be built during {state.phase}")
        state = procedure.start_hand(state, ev.tiles, fx)
        for d in ev.dice:
            state = procedure.on_dice(state, d, fx)
        if not ev.dice:
            fx.append(McuCommand(name="roll_dice", args={"throw": 1}))
        return state
    if isinstance(ev, DiceRolled):
        if state.phase is not Phase.DICE:
            raise Reject("wrong_phase", "no dice are expected now")
        return procedure.on_dice(state, ev.dice, fx)
    if isinstance(ev, CameraObserved):
        return _camera(state, ev, fx)
    if isinstance(ev, Claim):  # a seat's own claim: a call it cannot make is a wrong/empty call (MCR)
        return infractions.claim_event(state, ev, fx, lambda: _player(state, ev, fx))
    return _player(state, ev, fx)


def _player(state: GameState, ev: Event, fx: list[Effect]) -> GameState:
    _need_hand(state)
    hand = state.hand
    assert hand is not None
    seat = _seat_of(ev)
    ph = state.phase
    handled = ext_of(state).before_player(state, ev, fx)  # rules extension (ext.py: 定缺, riichi checks)
    if handled is not None:
        return handled
    drawn = infractions.next_player_draws(state, ev, fx)  # MCR: the next player's draw ends a slow window
    if drawn is not None:
        if isinstance(ev, ButtonPressed):
            return drawn
        state, ph = drawn, drawn.phase
        hand = state.hand
        assert hand is not None
    if isinstance(ev, ButtonPressed):
        if ev.button not in ("call", "pass", "ready"):
            raise Reject("bad_event", f"unknown button {ev.button!r}")
        if ph in (Phase.CLAIMS, Phase.ROB_KONG):
            if ev.button == "call":
                return claims.add_pending(state, seat)
            return claims.add_pass(state, seat, fx)
        if ph is Phase.FLOWERS and ev.button in ("pass", "ready"):
            if seat != hand.flower_seat:
                raise Reject("out_of_turn", f"it is seat {hand.flower_seat}'s turn to replace flowers")
            return procedure.end_flower_turn(state, seat, fx)
        raise Reject("wrong_phase", f"button {ev.button} means nothing during {ph}")
    if isinstance(ev, Claim):
        try:
            kind = ClaimKind(ev.kind)
        except ValueError as exc:
            raise Reject("bad_event", f"unknown claim {ev.kind!r}") from exc
        tiles = tuple(procedure.parse_tile(c) for c in ev.tiles)
        if ph in (Phase.CLAIMS, Phase.ROB_KONG):
            slow = infractions.slow_window_call(state, Call(seat, kind, tiles, ev.at_s), fx)
            if slow is not None:
                return slow
            return claims.add_call(state, Call(seat, kind, tiles, ev.at_s), fx)
        if ph is Phase.TURN and hand.last_discard is not None and hand.turn != hand.last_discard[0] \
                and seat != hand.last_discard[0] and kind is not ClaimKind.CHOW:
            # a call after the window closed is void, recorded where the seed says so (infractions.py)
            return infractions.late_call(state, seat, kind, fx)
        raise Reject("no_window", "no discard is open to claims")
    if isinstance(ev, Flower):
        t = procedure.parse_tile(ev.tile)
        if ph is Phase.FLOWERS:
            if seat != hand.flower_seat:
                raise Reject("out_of_turn", f"it is seat {hand.flower_seat}'s turn to replace flowers")
            state = procedure.flower(state, seat, t, fx)
            return procedure.advance_flowers(state, fx)
        if ph is Phase.TURN and seat == hand.turn:
            state = procedure.flower(state, seat, t, fx)
            assert state.hand is not None
            return replace(state, hand=replace(state.hand, after_kong=False))
        raise Reject("out_of_turn" if ph is Phase.TURN else "wrong_phase", "not your turn to replace a flower")
    if ph is not Phase.TURN:
        raise Reject("wrong_phase", f"{ev.type} is not possible during {ph}")
    if seat != hand.turn:
        raise Reject("out_of_turn", f"it is seat {hand.turn}'s turn, not seat {seat}'s")
    if isinstance(ev, Discard):
        return claims.discard(state, seat, procedure.parse_tile(ev.tile), fx)
    if isinstance(ev, ConcealedKong):
        face = procedure.parse_tile(ev.tile) if ev.tile else None
        return claims.concealed_kong(state, seat, face, fx)
    if isinstance(ev, PromotedKong):
        return claims.promoted_kong(state, seat, procedure.parse_tile(ev.tile), fx)
    if isinstance(ev, DeclareWin):
        return wins.self_draw_win(state, seat, ev.tiles, ev.win_tile, fx)
    raise Reject("bad_event", f"unhandled event {ev.type}")


def _camera(state: GameState, ev: CameraObserved, fx: list[Effect], *, confirmed: bool = False) -> GameState:
    obs = ev.observation
    conf = obs.get("confidence", 0.0)
    kind = obs.get("type")
    if kind not in camera.VISION_TYPES:
        raise Reject("bad_event", f"unknown camera event type {kind!r}")
    if confirmed and kind == "uncertain":  # the referee confirms what the camera was unsure about: its "about"
        about = obs.get("about")
        if about not in camera.VISION_TYPES or about == "uncertain":
            raise Reject("bad_event", f"an uncertain reading about {about!r} cannot be confirmed as it is: send the "
                         "corrected event (or correct_tile) instead")
        obs = {**obs, "type": about}
        kind = about
    if kind == "uncertain" or (not confirmed and (not isinstance(conf, int | float)
                                                 or conf < state.config.camera_min_confidence)):
        what = obs.get("about", kind) if kind == "uncertain" else kind
        return camera.raise_alert(state, "camera_uncertain", f"camera unsure about a {what} (confidence {conf})",
                                  {"observation": obs, "referee_only": "hand_seen" in (kind, what)}, fx)
    try:
        if kind == "hand_seen":  # the next player's hand camera may show his draw: a slow window ends
            drew: list[Effect] = []  # kept only if the reading then fits the hand after the draw
            drawn = infractions.hand_camera_draw(state, obs, ev, drew)
            read = camera.hand_seen(state if drawn is None else drawn, obs)
            fx.extend(drew)
            return read
        seen = ext_of(state).camera_observation(state, obs, fx)  # rules extension: riichi dora indicators
        if seen is not None:
            return seen
        action = camera.translate(state, obs, ev)
        if action is None:
            return state
        return _player(state, action, fx)
    except Reject as r:
        if confirmed:
            raise
        if kind in ("hand_seen", "concealed_kong"):  # details may name concealed tiles: referee-only data
            seat = obs.get("seat")
            who = player_name(state, seat) if is_seat(seat) else f"seat {seat!r}"
            message = f"camera {kind} reading for {who} does not fit the game"
        else:
            message = f"camera {kind} does not fit the game: {naming_players(state, r.message)}"
        return camera.raise_alert(state, "camera_mismatch", message,
                                  {"observation": obs, "reason": r.reason, "detail": r.message,
                                   "referee_only": kind in ("hand_seen", "concealed_kong")}, fx)


def _pause(state: GameState, fx: list[Effect]) -> GameState:
    if state.paused:
        return state
    for t in state.timers:
        if not t.expired:
            fx.append(CancelTimer(name=t.name))
    return replace(state, paused=True, paused_at_s=state.now_s)


def _check_player(state: GameState, ev: RefereeCommand) -> None:
    """A command naming the ``player`` it means at ``seat``: refused when somebody else sits there now (seats
    rotate between hands, and a display's form may have been filled in before the seating changed)."""
    seat = _seat_of(ev)
    now = state.session.players[player_index(state, seat)]
    if now != ev.player:
        raise Reject("bad_seat", f"seat {seat} is now {now}'s, not {ev.player}'s (the seating changed): "
                                 "choose the player again")


def _referee(state: GameState, ev: RefereeCommand, fx: list[Effect]) -> GameState:
    cmd = ev.command
    if ev.player is not None:
        _check_player(state, ev)
    if cmd == "pause":
        return _pause(state, fx)
    if cmd == "resume":
        if not state.paused:
            raise Reject("wrong_phase", "the game is not paused")
        state = replace(state, paused=False)
        state = timers.shift(state, state.now_s - state.paused_at_s, fx)
        return _advance(state, state.now_s, fx)
    if cmd in ("confirm", "reject"):
        idx = next((i for i, a in enumerate(state.alerts) if a.id == ev.alert_id), None)
        if idx is None:
            raise Reject("unknown_alert", f"no alert {ev.alert_id!r}")
        alert = state.alerts[idx]
        if not alert.open:
            raise Reject("already_acted", f"alert {alert.id} is already closed")
        state = replace(state, alerts=(*state.alerts[:idx], replace(alert, open=False), *state.alerts[idx + 1:]))
        obs = dict(alert.data).get("observation")
        if cmd == "confirm" and isinstance(obs, dict):
            if state.paused:
                raise Reject("paused", "resume before confirming a camera event")
            now = state.hand.hand_no if state.hand is not None else None
            if alert.hand_no is not None and now != alert.hand_no and state.config.engine_rev >= 1:
                # its seat and position meant that hand's tiles (a rule of ENGINE_REV 1)
                raise Reject("wrong_phase", f"alert {alert.id} is about hand {alert.hand_no + 1}, not the hand on the "
                                            "table: reject it (and enter the tile by hand if it is missing)")
            return _camera(state, CameraObserved(id=ev.id, at_s=ev.at_s, observation=obs), fx, confirmed=True)
        return state
    if cmd in ("waive_penalty", "confirm_penalty"):
        try:
            return penalties.set_status(state, str(ev.infraction_id),
                                        "waived" if cmd == "waive_penalty" else "applied")
        except KeyError as exc:
            raise Reject("unknown_infraction", f"no infraction {ev.infraction_id!r}") from exc
    # a referee's free text (and the "referee <user>" the MQTT intake puts in its place) is the referee's alone: it
    # is kept as a note (referee view and events, the journal has the event); the public words are the engine's
    if cmd == "apply_penalty":
        seat = _seat_of(ev)
        return penalties.record(state, seat, "referee", REFEREE_PENALTY, fx, points=int(ev.points or 0),
                                status="applied", note=ev.reason)
    if cmd == "dead_hand":
        _need_hand(state)
        seat = _seat_of(ev)
        hand = state.hand
        assert hand is not None
        s = replace(hand.seats[seat], dead=REFEREE_DEAD_HAND, dead_note=ev.reason or None)
        return replace(state, hand=procedure.with_seat(hand, seat, s))
    if cmd == "correct_tile":
        return _correct_tile(state, ev)
    if cmd == "correct_meld":  # seat, position (meld index), tiles (issue 16 point 13)
        return infractions.correct_meld(state, ev)
    if cmd == "void_call":  # a *call* whose claim never came is void: that seat passes
        _need_hand(state)
        seat = _seat_of(ev)
        hand = state.hand
        assert hand is not None
        if hand.claim is None or seat not in hand.claim.pending:
            raise Reject("no_window", f"seat {seat} has no pending call")
        state = claims.add_pass(state, seat, fx)
        hand = state.hand
        if hand is not None and hand.claim is not None and state.now_s >= hand.claim.deadline_s \
                and not hand.claim.pending:
            return claims.close_window(state, fx)
        return state
    if cmd == "end_session":
        if state.phase is Phase.SESSION_OVER:
            raise Reject("session_over", "the session is already over")
        return session.session_time_up(replace(state, paused=False), fx)
    raise Reject("bad_event", f"unknown referee command {cmd!r}")


def _correct_tile(state: GameState, ev: RefereeCommand) -> GameState:
    """The referee fixes a pond tile the camera (or a player) got wrong: seat, position, tile."""
    _need_hand(state)
    hand = state.hand
    assert hand is not None
    seat = _seat_of(ev)
    t = procedure.parse_tile(ev.tile)
    s = hand.seats[seat]
    pos = ev.position
    if not isinstance(pos, int) or not 0 <= pos < len(s.pond):
        raise Reject("bad_event", f"seat {seat} has no pond position {pos!r}")
    old = s.pond[pos]
    pond = (*s.pond[:pos], replace(old, tile=t), *s.pond[pos + 1:])
    new = procedure.with_seat(hand, seat, replace(s, pond=pond))
    if state.config.mode is InformationMode.PARTIAL:
        from controller.engine.query import known_count

        if known_count(new, t.kind) > (1 if t.is_flower else 4):
            raise Reject("impossible_tile", f"{t.code} would be a fifth copy")
    else:
        raise Reject("bad_event", "with full information the tiles are known; corrections are not needed")
    if hand.last_discard is not None and hand.last_discard[0] == seat and pos == len(s.pond) - 1:
        new = replace(new, last_discard=(seat, t))
    return replace(state, hand=new)


__all__ = ["start_session", "step"]
