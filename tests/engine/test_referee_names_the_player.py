"""A referee command aimed at a seat may name the player it means (``player``): seats rotate between hands
(MCR), so a form filled in before the seating changed would otherwise hit whoever sits there now.  The engine
refuses a command whose player no longer sits at its seat, and the state is untouched."""

from __future__ import annotations

import json

import pytest

from mjtable.mqtt.commands import CommandError, engine_event_json, parse_command
from tests.engine.engine_helpers import TWO_WINNERS_HANDS, Table


def test_a_penalty_for_a_player_no_longer_at_the_seat_is_refused() -> None:
    t = Table(options={"players": ("Ann", "Bo", "Cy", "Di")})
    t.deal(TWO_WINNERS_HANDS)
    rej = t.rejected("referee", command="apply_penalty", seat=1, player="Cy", points=10)
    assert rej.reason == "bad_seat" and "Bo" in rej.message and "Cy" in rej.message
    rej = t.rejected("referee", command="dead_hand", seat=2, player="Ann")
    assert rej.reason == "bad_seat"
    t.ok("referee", command="apply_penalty", seat=1, player="Bo", points=10)
    assert [(i.player, i.points) for i in t.state.infractions] == [("Bo", 10)]
    t.ok("referee", command="apply_penalty", seat=3, points=5)  # without a name: the seat, as before
    assert t.state.infractions[-1].player == "Di"


def test_the_command_carries_the_player_to_the_engine_and_its_size_is_bounded() -> None:
    doc = {"schema": "mjtable.command/1", "id": "c1", "command": "apply_penalty", "seat": 1, "points": 10,
           "player": "Bo"}
    cmd = parse_command(json.dumps(doc).encode())
    assert engine_event_json(cmd, 5.0)["player"] == "Bo"
    pause = {"schema": "mjtable.command/1", "id": "c2", "command": "pause", "player": "Bo"}  # aims at no seat
    for bad in ({**doc, "player": ""}, {**doc, "player": "x" * 65}, {**doc, "player": 7}, pause):
        with pytest.raises(CommandError):
            parse_command(json.dumps(bad).encode())
