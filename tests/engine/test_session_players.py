"""A session's four players: records, standings and displays credit each by name, so the names must differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine.events import ENGINE_REV, SessionStart
from controller.engine.step import start_session
from controller.journal import JournaledTable


@pytest.mark.parametrize("players", [("Li", "Wu", "Li", "Zhao"), ("Li", "Wu", "li ", "Zhao")])
def test_two_players_of_one_name_are_refused_before_anything_is_journaled(
    tmp_path: Path, players: tuple[str, ...]
) -> None:
    start = SessionStart(id="s", at_s=0.0, rules="mcr-2006", players=players, engine_rev=ENGINE_REV)
    with pytest.raises(ValueError, match="'Li' twice"):
        start_session(start)
    path = tmp_path / "t.journal.jsonl"
    with pytest.raises(ValueError, match="'Li' twice"):
        JournaledTable(path, start)
    assert not path.exists() or path.read_text() == ""


def test_four_names_that_differ_start_a_session() -> None:
    state, _ = start_session(SessionStart(id="s", at_s=0.0, rules="mcr-2006", players=("Li", "Wu", "Lin", "Zhao")))
    assert state.session.players == ("Li", "Wu", "Lin", "Zhao")


def test_a_journal_started_before_the_check_still_replays() -> None:
    """A session journaled before names were checked (no ``engine_rev``: 0) folds as it was played."""
    state, _ = start_session(SessionStart(id="s", at_s=0.0, rules="mcr-2006", players=("Li", "Wu", "Li", "Zhao")))
    assert state.session.players == ("Li", "Wu", "Li", "Zhao")
