"""A simulated session with mistakes: :class:`ChaosRun` plays the bots of :class:`SimRun` and, at random
events chosen by a seeded RNG, injects what careless players and a referee do - false win declarations on
one's own turn, false win calls in claim windows, turn-limit overruns (a clock tick past the limit) and
referee penalties - so the property tests check zero-sum scores and the penalty ledger with penalties in play.

Deterministic like :class:`SimRun`: every choice is a function of (seed, game, seq), so a run resumed from a
truncated journal injects exactly the same events as the uninterrupted one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from controller.engine.events import Claim, ClockTick, DeclareWin, Event, RefereeCommand
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, Phase
from controller.engine.timers import limits


@dataclass
class ChaosRun(SimRun):
    """:class:`SimRun` plus injected mistakes; ``rate`` scales every injection probability (per event)."""

    rate: float = 1.0
    injected: int = 0

    def next_event(self, state: GameState) -> Event | None:
        ev = self._mistake(state)
        if ev is not None:
            self.injected += 1
            return ev
        return super().next_event(state)

    def _mistake(self, state: GameState) -> Event | None:
        hand = state.hand
        if hand is None or state.paused or state.phase is Phase.SESSION_OVER:
            return None
        self._reseed(state)
        rng = random.Random(f"chaos:{self.seed}:{self.game}:{state.seq}")
        roll = rng.random() / self.rate
        if state.phase is Phase.TURN and hand.turn is not None:
            seat = hand.turn
            if roll < 0.004:  # "和!" on one's own turn, usually with a hand that is not complete
                return DeclareWin(id=self._next_id(), at_s=self.now_s, seat=seat)
            if roll < 0.008:  # the player dawdles past the turn limit: the shell's tick fires the timer
                limit_s = limits(state).turn_s or limits(state).first_discard_s or limits(state).opening_s
                if limit_s is not None and not any(t.expired for t in state.timers if t.name != "session"):
                    return ClockTick(id=self._next_id(), at_s=max(self.now_s, state.now_s) + limit_s + 1.0)
            if roll < 0.010:
                return RefereeCommand(id=self._next_id(), at_s=self.now_s, command="apply_penalty",
                                      seat=rng.randrange(4), points=rng.choice((5, 10, 20)),
                                      reason="chaos: exposed tile")
        if state.phase in (Phase.CLAIMS, Phase.ROB_KONG) and hand.claim is not None and roll < 0.02:
            w = hand.claim
            free = sorted(w.eligible - w.passed - {c.seat for c in w.calls} - w.excluded_winners)
            if free:  # a seat misreads the discard as its winning tile
                return Claim(id=self._next_id(), at_s=self.now_s, seat=rng.choice(free), kind="win")
        return None
