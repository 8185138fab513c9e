"""Infractions: the per-hand escalation ladder, applied at once or proposed to the referee."""

from __future__ import annotations

from dataclasses import replace

from controller.engine.effects import Effect, InfractionEffect
from controller.engine.query import player_index, ruleset_of
from controller.engine.ruleset import FalseWinKind
from controller.engine.state import GameState, HandState, Infraction, PenaltyMode, SeatState


def _with_seat(hand: HandState, seat: int, s: SeatState) -> HandState:
    seats = list(hand.seats)
    seats[seat] = s
    return replace(hand, seats=(seats[0], seats[1], seats[2], seats[3]))


def record(state: GameState, seat: int, kind: str, message: str, fx: list[Effect], *,
           ladder: str | None = None, points: int = 0, status: str | None = None,
           note: str | None = None) -> GameState:
    """Record an infraction by ``seat``.  ``message`` goes public (the engine's words); ``note``, a referee's free
    text, stays the referee's (:class:`~controller.engine.state.Infraction`).

    ``ladder`` names the seat's per-hand counter to escalate (``"ladder"`` for claims, ``"timer_ladder"`` for
    overruns): the points come from the ruleset's ladder (warning, 5, 10, 20, ...) and the counter resets each
    hand [000:L797; 004:L455].  Otherwise ``points`` is used.  Deductions are applied at once or proposed,
    per ``config.penalty_mode``; ``status`` forces one.
    """
    hand = state.hand
    if ladder is not None and hand is not None:
        s = hand.seats[seat]
        count = getattr(s, ladder)
        steps = ruleset_of(state).penalty_ladder()
        points = steps[min(count, len(steps) - 1)]
        state = replace(state, hand=_with_seat(hand, seat, replace(s, **{ladder: count + 1})))
    if status is None:
        status = "applied" if state.config.penalty_mode is PenaltyMode.APPLY else "proposed"
    p = player_index(state, seat)
    hand_no = state.hand.hand_no + 1 if state.hand is not None else state.session.hand_no + 1  # 1-based, as shown
    inf = Infraction(id=f"inf-{len(state.infractions) + 1}", hand_no=hand_no, seat=seat,
                     player=state.session.players[p], player_index=p, kind=kind, points=points, status=status,
                     message=message, at_s=state.now_s, note=note or None)
    state = replace(state, infractions=(*state.infractions, inf))
    if status == "applied" and points:
        state = deduct(state, p, points)
    fx.append(InfractionEffect(infraction=inf.to_json()))
    return state


def deduct(state: GameState, player: int, points: int) -> GameState:
    pen = list(state.session.penalties)
    pen[player] += points
    return replace(state, session=replace(state.session, penalties=(pen[0], pen[1], pen[2], pen[3])))


def set_status(state: GameState, infraction_id: str, status: str) -> GameState:
    """Referee decision on a proposed infraction: ``applied`` deducts it, ``waived`` refunds an applied one."""
    out = []
    found = None
    for inf in state.infractions:
        if inf.id == infraction_id:
            found = inf
            out.append(replace(inf, status=status))
        else:
            out.append(inf)
    if found is None:
        raise KeyError(infraction_id)
    state = replace(state, infractions=tuple(out))
    p = found.player_index
    if status == "applied" and found.status != "applied":
        state = deduct(state, p, found.points)
    elif status == "waived" and found.status == "applied":
        state = deduct(state, p, -found.points)
    return state


def after_false_win(state: GameState, seat: int, kind: FalseWinKind, fx: list[Effect]) -> GameState:
    """MCR 2017 有意诈和 / a dead seat's win call: a warning; the player's second one proposes disqualification."""
    if ruleset_of(state).name != "mcr-2017" or kind not in (FalseWinKind.FAR_SHORT, FalseWinKind.DEAD_HAND):
        return state
    p = player_index(state, seat)
    before = sum(1 for i in state.infractions if i.kind == "intentional_false_win" and i.player_index == p)
    state = record(state, seat, "intentional_false_win", "intentional false win (有意诈和): warning "
                   "[003:L45@3775]", fx, points=0, status="applied")
    if before:
        state = record(state, seat, "disqualified", "a second intentional false win: disqualification "
                       "(取消比赛资格) [003:L45@3775]", fx, status="proposed")
    return state
