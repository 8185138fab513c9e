"""Shared helpers of the reliability suite: a short journaled session played by the simulator's bots."""

from __future__ import annotations

from pathlib import Path

from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from controller.journal import JournaledTable


def journaled_game(path: Path, *, seed: int = 3, hands: int = 1, stop_after: int | None = None) -> GameState:
    """Play ``hands`` hands (or ``stop_after`` events) into a journal at ``path``; returns the final state."""
    run = SimRun(seed=seed, hands_total=hands)
    table = JournaledTable(path, run.session_start())
    try:
        n = 0
        while stop_after is None or n < stop_after:
            ev = run.next_event(table.state)
            if ev is None:
                break
            table.submit(ev)
            n += 1
        return table.state
    finally:
        table.close()
