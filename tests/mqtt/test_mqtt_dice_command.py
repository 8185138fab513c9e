"""The referee's ``dice`` command: the values of a throw the table cannot read (a closed table driven through its
panel) become the engine's ``dice_rolled`` event with ``source: referee``; bad values are refused at intake."""

from __future__ import annotations

import json

import pytest

from controller.engine.events import DiceRolled, event_from_json
from mjtable.mqtt.commands import CommandError, engine_event_json, parse_command


def _payload(**fields: object) -> bytes:
    return json.dumps({"schema": "mjtable.command/1", "id": "d-1", "command": "dice", **fields}).encode()


def test_dice_command_becomes_a_referee_dice_rolled_event() -> None:
    cmd = parse_command(_payload(dice=[3, 5], referee="ana"))
    ev = event_from_json(engine_event_json(cmd, 100.0))
    assert isinstance(ev, DiceRolled)
    assert (ev.id, ev.at_s, ev.dice, ev.source) == ("cmd:d-1", 100.0, (3, 5), "referee")


@pytest.mark.parametrize("fields", [{}, {"dice": [0, 3]}, {"dice": [7, 1]}, {"dice": [1, 2, 3]}, {"dice": [1]},
                                    {"dice": ["1", 2]}, {"dice": [1, 2], "seat": 0}])
def test_bad_dice_are_refused_at_intake(fields: dict[str, object]) -> None:
    with pytest.raises(CommandError):
        parse_command(_payload(**fields))
