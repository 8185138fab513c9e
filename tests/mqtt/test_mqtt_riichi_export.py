"""The riichi export's tile codes and its command line's refusal of anything but an engine journal.

The mjai/tenhou.net/6 stream checks of the retired standalone procedure's export (deleted in issue
18) were duplicates of ``test_mqtt_riichi_live.py``'s checks on the live engine's export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjtable.recorder.riichi_export import main, mjai_tile, tenhou_tile
from mjtable.tiles import tile


def test_tile_codes() -> None:
    codes = ("1m", "9p", "5s", "0m", "0p", "0s", "1z", "7z")
    assert [tenhou_tile(tile(c)) for c in codes] == [11, 29, 35, 51, 52, 53, 41, 47]
    assert [mjai_tile(tile(c)) for c in codes] == ["1m", "9p", "5s", "5mr", "5pr", "5sr", "E", "C"]


def test_a_log_of_the_retired_procedure_is_refused_with_a_clear_error(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "game.json"
    src.write_text(json.dumps({"schema": "mjtable.riichi_log/1", "players": ["a", "b", "c", "d"], "hands": []}))
    assert main([str(src)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["event"] == "error" and "not an engine journal" in out["error"]
