"""tenhou.net/6 and mjai exports of riichi half-games played by the bots of ``controller.riichi.simulate``
through the real procedure."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mjtable.recorder.riichi_export import (
    ExportError,
    RiichiGameLog,
    RiichiHandLog,
    export,
    main,
    tenhou_tile,
)
from mjtable.tiles import tile

rsim = pytest.importorskip("controller.riichi.simulate")


@pytest.fixture(scope="module", params=[3, 8])
def played(request: pytest.FixtureRequest) -> tuple[Any, RiichiGameLog]:
    g = rsim.play_half_game(request.param, check=False)
    game = RiichiGameLog(("Ann", "Bo", "Cy", "Di"), tuple(RiichiHandLog.from_run(r) for r in g.hands))
    return g, game


def test_mjai_stream_is_consistent_and_ends_with_the_real_scores(played: tuple[Any, RiichiGameLog]) -> None:
    g, game = played
    _, mj = export(game)
    assert mj[0] == {"type": "start_game", "names": ["Ann", "Bo", "Cy", "Di"]}
    assert mj[-1] == {"type": "end_game", "scores": list(g.points)}
    size = [0, 0, 0, 0]
    melds = [0, 0, 0, 0]
    kyoku = 0
    for e in mj:
        t = e["type"]
        if t == "start_kyoku":
            kyoku += 1
            assert [len(h) for h in e["tehais"]] == [13] * 4
            size, melds = [13] * 4, [0] * 4
        elif t == "tsumo":
            size[e["actor"]] += 1
        elif t == "dahai":
            size[e["actor"]] -= 1
        elif t in ("chi", "pon", "daiminkan"):
            size[e["actor"]] -= len(e["consumed"])
            melds[e["actor"]] += 1
            assert e["target"] != e["actor"]
        elif t == "ankan":
            size[e["actor"]] -= 4
            melds[e["actor"]] += 1
        elif t == "kakan":
            size[e["actor"]] -= 1
        elif t in ("hora", "ryukyoku"):
            assert sum(e["deltas"]) >= 0
        elif t == "end_kyoku":
            for k in range(4):
                assert size[k] + 3 * melds[k] in (13, 14), (k, size, melds)
    assert kyoku == len(g.hands)
    counts = Counter(e["type"] for e in mj)
    assert counts["hora"] + counts["ryukyoku"] == len(g.hands)
    assert counts["reach_accepted"] <= counts["reach"]


def test_tenhou6_log_shape(played: tuple[Any, RiichiGameLog]) -> None:
    g, game = played
    doc, mj = export(game)
    assert doc["name"] == ["Ann", "Bo", "Cy", "Di"] and len(doc["log"]) == len(g.hands)
    tsumogiri = sum(1 for e in mj if e["type"] == "dahai" and e["tsumogiri"])
    sixty = 0
    for entry in doc["log"]:
        assert len(entry) == 4 + 12 + 1
        assert all(len(entry[4 + 3 * k]) == 13 for k in range(4))
        for k in range(4):
            for x in entry[6 + 3 * k]:
                sixty += x in {60, "r60"}
        assert entry[-1][0] in ("和了", "流局")
        if entry[-1][0] == "和了":
            assert entry[-1][2][0] in range(4) and "点" in entry[-1][2][3]
    assert sixty == tsumogiri
    assert doc["sc"][0::2] == list(g.points)
    json.dumps(doc)


def test_tile_codes_and_bad_logs(tmp_path: Path) -> None:
    assert [tenhou_tile(tile(c)) for c in ("1m", "9p", "5s", "0m", "0p", "0s", "1z", "7z")] == \
        [11, 29, 35, 51, 52, 53, 41, 47]
    g = rsim.play_half_game(3, check=False, max_hands=1)
    h = RiichiHandLog.from_run(g.hands[0])
    broken = RiichiHandLog(h.dealer, h.round_wind, h.honba, h.sticks, h.wall,
                           ({"type": "discard", "seat": (h.dealer + 1) % 4, "tile": "1m"},))
    with pytest.raises(ExportError, match="event 0"):
        export(RiichiGameLog(("a", "b", "c", "d"), (broken,)))
    with pytest.raises(ExportError, match="before the hand is over"):
        export(RiichiGameLog(("a", "b", "c", "d"), (replace(h, events=h.events[:3]),)))
    game = RiichiGameLog(("a", "b", "c", "d"), (h,))
    src = tmp_path / "game.json"
    src.write_text(json.dumps(game.to_json()))
    assert RiichiGameLog.from_json(game.to_json()) == game
    assert main([str(src), "--tenhou", str(tmp_path / "t.json"), "--mjai", str(tmp_path / "m.jsonl")]) == 0
    lines = (tmp_path / "m.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "start_game" and json.loads(lines[-1])["type"] == "end_game"
    (tmp_path / "bad.json").write_text('{"players": ["a"]}')
    assert main([str(tmp_path / "bad.json")]) == 1
