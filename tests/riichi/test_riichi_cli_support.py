"""The JSON-lines contract of ``mjtable score|waits --rules riichi-hkma-2025``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.riichi.cli_support import score_line, waits_line


def test_score_line_tsumo_with_honba_and_sticks() -> None:
    out = score_line({"id": "a", "hand": "123456789m234p5z", "win": "5z", "self_drawn": True, "riichi": True,
                      "dora_indicators": ["1p"], "honba": 1, "riichi_sticks": 1})
    assert out["ok"] is True and out["id"] == "a"
    assert (out["han"], out["fu"], out["points"], out["limit"]) == (5, 30, 8000, "mangan")
    assert [y["name"] for y in out["yaku"]] == ["Menzen Tsumo", "Riichi", "Ittsu", "Dora"]
    assert out["payments"] == {"dealer": 4100, "non_dealer": 2100}
    assert out["deposits"] == 1000 and out["total"] == 4100 + 2 * 2100 + 1000
    json.dumps(out)


def test_score_line_dealer_ron_red_five() -> None:
    out = score_line({"hand": "[234m]567m234p0p5p88s", "win": "8s", "dealer": True})
    assert out["ok"] and {y["name"] for y in out["yaku"]} == {"Tanyao", "Aka Dora"}
    assert out["payments"] == {"discarder": 2900}  # dealer 2 han 30 fu (L934)


def test_score_line_dealer_tsumo() -> None:
    out = score_line({"hand": "123m456m789p23s55s", "win": "4s", "dealer": True, "self_drawn": True,
                      "riichi": True})
    assert out["payments"] == {"non_dealer": 1300}  # riichi + tsumo + pinfu, 3 han 20 fu: 1300 all


@pytest.mark.parametrize(
    ("obj", "needle"),
    [
        ({"hand": "123m456m234p789p3z", "win": "3z"}, "not a winning hand"),  # no yaku (一飜縛, L391)
        ({"hand": "123456789m234p5z"}, "required"),
        ({"hand": "123456789m234p5z", "win": "5z", "seat_wind": "X"}, "seat_wind"),
        ({"hand": "123456789m234p5z", "win": "5z", "dealer": True, "seat_wind": "S"}, "dealer"),
        ({"hand": "123456789m234p5z", "win": "5z", "honba": -1}, "non-negative"),
        ({"hand": "123456789m234p5z", "win": "1f"}, "not in the riichi tile set"),
        ({"hand": "123456789m234p5z", "win": "5z", "self_drawn": True, "chankan": True}, "ron wins"),
        ({"hand": "[234m]567m234p00p88s", "win": "8s"}, "red fives"),
        ({"hand": "123456789m234p5z", "win": "5z", "extra": 1}, "unknown field"),
    ],
)
def test_score_line_errors(obj: dict[str, Any], needle: str) -> None:
    out = score_line(obj)
    assert out["ok"] is False and needle in out["error"]


def test_waits_line_with_yakuless_wait() -> None:
    out = waits_line({"hand": "[234m]567m234p678s5p"})
    assert out["ok"] and out["tenpai"]
    # 2345p: a two-way single wait on 2p or 5p, open tanyao 1 han 30 fu
    assert out["waits"] == [{"tile": "2p", "han": 1, "fu": 30, "points": 1000, "yaku": True},
                            {"tile": "5p", "han": 1, "fu": 30, "points": 1000, "yaku": True}]
    out2 = waits_line({"hand": "[123m]567m234p678s5p"})
    assert [w["yaku"] for w in out2["waits"]] == [False, False]


def test_waits_line_pure_empty_wait_is_not_tenpai_L428() -> None:
    out = waits_line({"hand": "1111m234p567p789s"})
    assert out["ok"] and out["tenpai"] is False
