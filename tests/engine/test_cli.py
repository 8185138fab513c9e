"""``mjtable sim`` and ``mjtable replay`` end to end (in-process through the CLI registry)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mjtable.cli import main


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_sim_is_deterministic_and_zero_sum(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--rules", "mcr-2017", "--games", "2", "--seed", "3", "--hands", "4"]) == 0
    first = _lines(capsys)
    assert main(["sim", "--rules", "mcr-2017", "--games", "2", "--seed", "3", "--hands", "4"]) == 0
    assert _lines(capsys) == first
    assert len(first) == 2
    for line in first:
        assert line["hands"] == 4
        assert sum(line["scores"]) == 0
        assert sorted(line["ranking_points"]) in ([0.0, 1.0, 2.0, 4.0], sorted(line["ranking_points"]))


def test_sim_bad_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--rules", "nope"]) == 2


def test_replay_rebuilds_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--games", "1", "--seed", "2", "--hands", "2", "--journal-dir", str(tmp_path)]) == 0
    sim = _lines(capsys)[0]
    assert main(["replay", str(tmp_path / "game-0.jsonl")]) == 0
    lines = _lines(capsys)
    final = lines[-1]
    assert final["record"] == "final" and final["scores"] == sim["scores"]
    assert len([x for x in lines if x["record"] == "hand"]) == 2
    assert final["view"]["schema"] == "mjtable.public_state/1"


def test_replay_missing_journal(tmp_path: Path) -> None:
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2


def test_replay_is_read_only_and_reports_a_corrupt_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--games", "1", "--seed", "2", "--hands", "1", "--journal-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    path = tmp_path / "game-0.jsonl"
    torn = path.read_bytes() + b'{"rec":"event","n":99,"ev'
    path.write_bytes(torn)
    assert main(["replay", str(path)]) == 0
    assert path.read_bytes() == torn  # nothing truncated or rewritten
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"rec":"event","n":1,"event":{"type":"discard","id":"x","at_s":1,"seat":0,"tile":"1m"}}\n')
    assert main(["replay", str(bad)]) == 1
