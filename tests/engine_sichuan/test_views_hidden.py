"""Views of Sichuan and riichi tables (``controller/engine/ext_*.py``): the public view never shows a concealed tile, an
unrevealed 定缺 or a dead-wall tile other than the dora indicators; both views match the MQTT JSON Schemas
(``mjtable/schemas``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.engine.ext_riichi import kans, riichi_of
from controller.engine.ext_sichuan import sichuan_of
from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from controller.engine.step import step
from controller.views import public_view, referee_view

RULES = ("sichuan-sbr-2025", "riichi-hkma-2025")


def _states(rules: str, seed: int, hands: int) -> list[GameState]:
    run = SimRun(rules=rules, seed=seed, hands_total=hands)
    state = run.start()
    out = [state]
    while (ev := run.next_event(state)) is not None:
        state, _ = step(state, ev)
        out.append(state)
    return out


def _codes(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj] if len(obj) == 2 and obj[0].isdigit() and obj[1] in "mpszf" else []
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _codes(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _codes(v)]
    return []


@pytest.mark.parametrize("rules", RULES)
def test_public_view_hides_concealed_tiles_voids_and_the_dead_wall(rules: str) -> None:
    for state in _states(rules, seed=4, hands=2):
        view = public_view(state)
        json.dumps(view)
        hand = state.hand
        if hand is None or hand.result is not None:
            continue
        for seat in view["seats"]:
            assert "concealed" not in seat and "waits" not in seat
        shown = _codes(view["seats"])
        visible = sum(len(s.pond) + len(s.flowers) + sum(len(m.tiles) for m in s.melds if m.kind != "concealed_kong")
                      for s in hand.seats)
        assert len(shown) == visible
        if rules.startswith("sichuan"):
            ext = sichuan_of(hand)
            assert ext is not None
            assert _codes(view["sichuan"]) == []  # no tile at all (the face-down 定缺 tile is referee-only)
            if not ext.revealed:
                assert view["sichuan"]["voids"] == [None, None, None, None]
        else:
            assert riichi_of(hand) is not None
            assert len(_codes(view["riichi"])) == 1 + kans(hand)  # the indicators, nothing else of the dead wall


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("name", ["public_state", "referee_state"])
def test_views_match_area7_schemas(rules: str, name: str) -> None:
    schemas = pytest.importorskip("mjtable.schemas")
    for state in _states(rules, seed=6, hands=2)[::5]:
        view = public_view(state) if name == "public_state" else referee_view(state, with_waits=False)
        schemas.validate(name, view)


def test_sichuan_referee_waits_honour_the_void() -> None:
    """Referee waits never list a tile of the seat's missing suit (no win on it, L342)."""
    found = 0
    for state in _states("sichuan-sbr-2025", seed=5, hands=2)[::2]:
        ext = sichuan_of(state.hand)
        if ext is None or not ext.revealed:
            continue
        for seat, waits in enumerate(referee_view(state, with_waits=False)["sichuan"]["waits"]):
            assert all(w["tile"][1] != ext.voids[seat] for w in waits)
            found += len(waits)
    assert found > 0
