"""Whole sessions played by bots through the real engine (``mjtable sim``, the bench, property tests).

Deterministic: one ``random.Random(seed)`` drives the walls, the dice and the bots; the simulated clock moves
``tick_s`` per event.  Optional ``sink`` receives every (event, state, effects) — the journal plugs in there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.bots import Action, Bot, claim_order
from controller.engine.effects import Effect, Rejected
from controller.engine.events import ENGINE_REV, ButtonPressed, Event, SessionStart, TableBuilt, event_from_json
from controller.engine.ext import ext_of
from controller.engine.query import ruleset_of
from controller.engine.state import GameState, Phase
from controller.engine.step import start_session, step
from controller.views import named_result

Sink = Callable[[Event, GameState, tuple[Effect, ...]], None]
START_S = 1_767_225_600.0  # 2026-01-01T00:00:00Z: simulated sessions start here


class BotError(RuntimeError):
    """A bot produced an event the engine rejected: a bug in the bot (or the engine)."""


@dataclass
class SimRun:
    """One simulated session's driver; ``events`` counts accepted events."""

    rules: str = "mcr-2006"
    seed: int = 0
    game: int = 0
    players: tuple[str, str, str, str] = ("P1", "P2", "P3", "P4")
    tick_s: float = 0.5
    hands_total: int | None = None
    fast_claims: bool = True
    sink: Sink | None = None
    events: int = 0
    now_s: float = START_S
    rng: random.Random = field(init=False)
    bots: list[Bot] = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"{self.seed}:{self.game}")
        self.bots = [Bot(s, self.rng) for s in range(4)]

    def _reseed(self, state: GameState) -> None:
        """Every random choice is a function of (seed, game, seq): a resumed run continues identically."""
        self.rng.seed(f"{self.seed}:{self.game}:{state.seq}")
        self.now_s = START_S + state.seq * self.tick_s
        self.events = state.seq

    def _next_id(self) -> str:
        self.events += 1
        return f"g{self.game}-e{self.events}"

    def session_start(self) -> SessionStart:
        return SessionStart(id=f"g{self.game}-e1", at_s=START_S, table_id=f"sim{self.game}", rules=self.rules,
                            players=self.players, hands_total=self.hands_total, fast_claims=self.fast_claims,
                            engine_rev=ENGINE_REV)

    def start(self) -> GameState:
        ev = self.session_start()
        state, fx = start_session(ev)
        if self.sink:
            self.sink(ev, state, fx)
        return state

    def next_event(self, state: GameState) -> Event | None:
        """The next event the table or a bot produces, or None when the session is over (a pure function of
        the state, the seed and the game number)."""
        self._reseed(state)
        if state.phase is Phase.SESSION_OVER:
            return None
        if state.phase in (Phase.BUILDING, Phase.HAND_OVER):
            tiles = ruleset_of(state).tileset.all_tiles()
            self.rng.shuffle(tiles)
            dice = tuple((self.rng.randint(1, 6), self.rng.randint(1, 6)) for _ in range(2))
            return TableBuilt(id=self._next_id(), at_s=self.now_s, tiles=tuple(t.code for t in tiles), dice=dice)
        hand = state.hand
        assert hand is not None
        seats: list[int]
        if state.phase is Phase.FLOWERS:
            seats = [hand.flower_seat] if hand.flower_seat is not None else []
        elif state.phase is Phase.TURN:
            seats = [hand.turn] if hand.turn is not None else []
        elif state.phase is Phase.VOID:  # ext_sichuan: Sichuan 定缺, every seat that has not chosen yet
            seats = [0, 1, 2, 3]
        else:
            seats = list(claim_order(state))
        for seat in seats:
            act = self.bots[seat].decide(state)
            if act is not None:
                return self._event(seat, act)
        raise BotError(f"nobody can act in phase {state.phase} (seq {state.seq})")

    def _event(self, seat: int, act: Action) -> Event:
        obj: dict[str, Any] = {"type": act.kind, "id": self._next_id(), "at_s": self.now_s, "seat": seat}
        obj.update({k: list(v) if isinstance(v, tuple) else v for k, v in act.fields})
        return event_from_json(obj)

    def play(self, state: GameState | None = None, *, max_events: int = 1_000_000) -> GameState:
        """Play until the session is over (or ``max_events``)."""
        if state is None:
            state = self.start()
        for _ in range(max_events):
            ev = self.next_event(state)
            if ev is None:
                break
            new, fx = step(state, ev)
            if fx and isinstance(fx[0], Rejected):
                raise BotError(f"rejected {ev.to_json()}: {fx[0].reason} {fx[0].message}")
            if self.sink:
                self.sink(ev, new, fx)
            state = new
        return state


def summary(state: GameState, *, game: int, seed: int,
            seatings: Sequence[Sequence[str]] | None = None) -> dict[str, Any]:
    """One JSON line per game: hands, wins, draws, per-player scores (registration order), infractions.

    Each hand keeps its seat numbers (``winners``, ``discarder``, ``payments``); with ``seatings`` (who sat where
    in each hand, :class:`controller.views.HandSeatings`) it also names the players in that hand's seating
    (``seating``, ``winner_players``, ``discarder_player``, ``payments_by_player``): MCR moves the players to
    other seats every round, so a seat number does not index ``players``."""
    sess = state.session
    hands = []
    for i, r in enumerate(state.history):
        hand: dict[str, Any] = {"hand": i + 1, "kind": r.kind, "winners": list(r.winners), "discarder": r.discarder,
                                "self_drawn": r.self_drawn, "total": r.total, "payments": list(r.payments),
                                "fans": [f"{n} {p}x{c}" for n, p, c in r.fans]}
        hands.append(named_result(hand, seatings[i]) if seatings is not None else hand)
    net = [sess.scores[p] - sess.penalties[p] for p in range(4)]
    return {
        "game": game, "seed": seed, "rules": state.config.rules, "players": list(sess.players),
        "hands": len(state.history), "wins": sess.wins, "draws": sess.draws,
        "scores": list(sess.scores), "penalties": list(sess.penalties), "net": net,
        "ranking_points": ext_of(state).ranking_points(state, net),  # ext_riichi: riichi leftover sticks + uma
        "infractions": [i.to_json() for i in state.infractions], "hand_results": hands,
        "events": state.seq,
    }


__all__ = ["BotError", "ButtonPressed", "SimRun", "summary"]
