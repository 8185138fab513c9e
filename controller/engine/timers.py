"""Timer bookkeeping inside the pure core: timers are state plus Start/Cancel effects; nothing sleeps."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from controller.engine.effects import CancelTimer, Effect, StartTimer
from controller.engine.query import ruleset_of
from controller.engine.ruleset import TimerProfile
from controller.engine.state import EngineConfig, GameState, Timer


@lru_cache(maxsize=64)
def _limits(config: EngineConfig, base: TimerProfile) -> TimerProfile:
    if not config.timer_overrides:
        return base
    return replace(base, **dict(config.timer_overrides))  # type: ignore[arg-type]


def limits(state: GameState) -> TimerProfile:
    """The ruleset's timer profile with the session's overrides applied (seconds)."""
    return _limits(state.config, ruleset_of(state).timers)


def start(state: GameState, name: str, seat: int | None, limit_s: float | None, fx: list[Effect]) -> GameState:
    """(Re)start timer ``name`` for ``limit_s`` seconds from ``state.now_s``; ``None`` means untimed."""
    state = cancel(state, name, fx)
    if limit_s is None:
        return state
    t = Timer(name=name, seat=seat, deadline_s=state.now_s + limit_s, limit_s=limit_s)
    fx.append(StartTimer(name=name, seat=seat, duration_s=limit_s, deadline_s=t.deadline_s))
    return replace(state, timers=(*state.timers, t))


def cancel(state: GameState, name: str, fx: list[Effect]) -> GameState:
    if not any(t.name == name for t in state.timers):
        return state
    if any(t.name == name and not t.expired for t in state.timers):
        fx.append(CancelTimer(name=name))
    return replace(state, timers=tuple(t for t in state.timers if t.name != name))


def cancel_hand_timers(state: GameState, fx: list[Effect]) -> GameState:
    """Cancel every timer except the session clock ones."""
    for t in state.timers:
        if not t.name.startswith("session"):
            state = cancel(state, t.name, fx)
    return state


def shift(state: GameState, delta_s: float, fx: list[Effect]) -> GameState:
    """Push every deadline ``delta_s`` later (after a pause) and re-arm them."""
    moved = tuple(t if t.expired else replace(t, deadline_s=t.deadline_s + delta_s) for t in state.timers)
    for t in moved:
        if t.expired:
            continue
        fx.append(StartTimer(name=t.name, seat=t.seat, duration_s=t.limit_s, deadline_s=t.deadline_s))
    return replace(state, timers=moved)
