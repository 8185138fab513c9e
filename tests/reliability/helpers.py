"""Shared helpers of the reliability suite: a short journaled session played by the simulator's bots."""

from __future__ import annotations

from pathlib import Path

from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from tests.engine.engine_helpers import play_into_journal


def journaled_game(path: Path, *, seed: int = 3, hands: int = 1, stop_after: int | None = None) -> GameState:
    """Play ``hands`` hands (or ``stop_after`` events) into a journal at ``path``; returns the final state."""
    return play_into_journal(path, SimRun(seed=seed, hands_total=hands), stop_after)
