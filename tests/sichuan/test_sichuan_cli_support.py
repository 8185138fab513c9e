"""The JSON-lines contract of ``mjtable score|waits --rules sichuan-sbr-2025``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.sichuan.cli_support import score_line, waits_line


def test_score_line_ron() -> None:
    out = score_line({"id": 7, "hand": "[111m]12345678m99m", "win": "9m", "void_suit": "p"})
    assert out["ok"] is True and out["id"] == 7
    assert [(f["zh"], f["fan"]) for f in out["fans"]] == [("根", 1), ("清一色", 2)]
    assert (out["fan"], out["capped_fan"], out["points"]) == (3, 3, 8)
    assert out["payments"] == {"discarder": 8}
    json.dumps(out, ensure_ascii=False)


def test_score_line_self_draw_pays_base_plus_one_L520() -> None:
    out = score_line({"hand": "123m456m789m11p23p", "win": "4p", "self_drawn": True})
    assert out["payments"] == {"each": 2}


def test_score_line_kong_replacement_is_a_self_draw_L544() -> None:
    out = score_line({"hand": "[1111m]345p678p99p22p", "win": "2p", "kong_replacement": True})
    assert out["ok"] and out["payments"] == {"each": 5}


def test_cap_fan_option() -> None:
    out = score_line({"hand": "1133557799m224m", "win": "4m", "cap_fan": 4})
    assert (out["fan"], out["points"]) == (4, 16)


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ({"hand": "123m456m789m11p23p"}, "required"),
        ({"hand": "123m456m789m11p23p", "win": "4p", "void_suit": "z"}, "void_suit"),
        ({"hand": "123m456m789m11p23p", "win": "4p", "void_suit": "p"}, "missing suit"),
        ({"hand": "123m456m789m11p23p", "win": "4x"}, "unknown suit"),
        ({"hand": "123m456m789m11p23p", "win": "1z"}, "not in the Sichuan tile set"),
        ({"hand": "123m456m789m11p23p", "win": "4p", "self_drawn": "yes"}, "true or false"),
        ({"hand": "123m456m789m11p23p", "win": "4p", "bogus": 1}, "unknown field"),
        ({"hand": "123m456m789m11p23p", "win": "4p", "self_drawn": True, "robbing_kong": True}, "not self-draws"),
        ({"hand": "1111m456m789m11p3p", "win": "1m"}, "fifth copy"),
    ],
)
def test_score_line_errors(obj: dict[str, Any], needle: str) -> None:
    out = score_line(obj)
    assert out["ok"] is False
    assert needle in out["error"]


def test_waits_line() -> None:
    out = waits_line({"hand": "111m222m333p44p55p", "void_suit": "s"})
    assert out["ok"] and out["tenpai"] is True
    # 3p: 33 + 345 345 with four 3p (根); 4p/5p: 大对子; 6p: 33 345 456 (no fan)
    assert out["waits"] == [{"tile": "3p", "fan": 1, "points": 2}, {"tile": "4p", "fan": 1, "points": 2},
                            {"tile": "5p", "fan": 1, "points": 2}, {"tile": "6p", "fan": 0, "points": 1}]
    assert out["max_fan"] == 1


def test_waits_line_not_tenpai_and_errors() -> None:
    assert waits_line({"hand": "123m456m789m11p29p"})["tenpai"] is False
    assert waits_line({"hand": "123m"})["ok"] is False
