"""``mjtable replay JOURNAL`` prints the public view by default: nothing in it may name a concealed tile or carry a
referee's own words, exactly as on the public MQTT topics (:mod:`mjtable.mqtt.guard`); ``--referee`` keeps it all.

Before the fix the default output copied the raw alert and infraction words (``public_view`` leaves their
redaction to the MQTT channel), every infraction's ``referee_note`` and every rejection's message, which can name
a concealed tile ("after riichi the drawn tile 5p must be discarded", "seat 1 does not hold 5p").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.engine.effects import Effect, Rejected
from controller.engine.events import SessionStart, event_from_json
from controller.journal import JournaledTable
from mjtable.cli import main
from mjtable.mqtt.guard import check_public
from tests.engine.engine_helpers import PRIORITY_HANDS, T0, stacked_wall
from tests.engine_sichuan import table_helpers as ext_helpers

PLAYERS = ("Ann", "Bo", "Cy", "Di")
REFEREE_WORDS = "showed his hand 123m456p to seat 3"


class _Journaled:
    """A table whose every event (accepted or rejected) goes into a journal, as the service keeps it."""

    def __init__(self, path: Path, start: SessionStart) -> None:
        self.table = JournaledTable(path, start)
        self.n = 1

    def send(self, obj: dict[str, Any]) -> tuple[Effect, ...]:
        self.n += 1
        return self.table.submit(event_from_json({"id": f"e{self.n}", "at_s": T0 + self.n * 0.01, **obj}))

    def ok(self, obj: dict[str, Any]) -> tuple[Effect, ...]:
        fx = self.send(obj)
        assert not (fx and isinstance(fx[0], Rejected)), fx
        return fx

    def rejected(self, obj: dict[str, Any]) -> Rejected:
        fx = self.send(obj)
        assert fx and isinstance(fx[0], Rejected), fx
        return fx[0]

    def pass_all(self) -> None:
        hand = self.table.state.hand
        assert hand is not None and hand.claim is not None
        w = hand.claim
        for s in sorted(w.eligible - w.passed - {c.seat for c in w.calls}):
            if self.table.state.phase.value in ("claims", "rob_kong"):
                self.ok({"type": "button", "seat": s, "button": "pass"})


def _mcr_journal(path: Path) -> None:
    """A camera reading that names a tile seat 0 does not hold (alert), a discard of it (rejection), a referee's
    penalty with his words, and an empty pung (an infraction whose words name the tile seat 1 lacks)."""
    t = _Journaled(path, SessionStart(id="start", at_s=T0, rules="mcr-2006", players=PLAYERS))
    t.ok({"type": "table_built", "tiles": list(stacked_wall(PRIORITY_HANDS)), "dice": [[1, 1], [1, 1]]})
    t.ok({"type": "camera", "observation": {"type": "discard", "seat": 0, "tiles": ["9s"], "claimed_from": None,
                                            "position": 0, "confidence": 0.99, "frame_id": 1}})
    assert "9s" in t.table.state.alerts[-1].message
    assert "9s" in t.rejected({"type": "discard", "seat": 0, "tile": "9s"}).message
    t.ok({"type": "referee", "command": "apply_penalty", "seat": 2, "points": 5, "reason": REFEREE_WORDS})
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "claim", "seat": 1, "kind": "pung"})
    assert "does not hold 5p" in t.table.state.infractions[-1].message
    t.table.close()


def _riichi_journal(path: Path) -> str:
    """Seat 0 in riichi tries to keep its drawn tile: the rejection names that concealed tile; returns it."""
    rules = "riichi-hkma-2025"
    t = _Journaled(path, SessionStart(id="start", at_s=T0, rules=rules, players=PLAYERS, fast_claims=False))
    wall = ext_helpers.stacked_wall(rules, {0: "123456789m2345p1z"}, draws="9s9s4m5p",
                                    dead="1s2s3s4s8p2z2z2z2z3z3z3z3z8s")
    t.ok({"type": "table_built", "tiles": list(wall), "dice": [[1, 1], [1, 1]]})
    t.ok({"type": "discard", "seat": 0, "tile": "1z", "riichi": True})
    t.pass_all()
    for seat, tile in ((1, "9s"), (2, "9s"), (3, "4m")):
        t.ok({"type": "discard", "seat": seat, "tile": tile})
        t.pass_all()
    hand = t.table.state.hand
    assert hand is not None and hand.drawn is not None
    drawn = hand.drawn.code
    assert drawn in t.rejected({"type": "discard", "seat": 0, "tile": "1m"}).message
    t.table.close()
    return drawn


def _replay(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert main(["replay", *args]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def _assert_public(lines: list[dict[str, Any]]) -> None:
    """What the guard asks of every public MQTT payload holds for every line (the view checked on its own, as
    the public state it is: the hand-over rules of the guard look at the view's own ``result``)."""
    for line in lines:
        check_public({k: v for k, v in line.items() if k != "view"})
        if "view" in line:
            check_public(line["view"])
    text = json.dumps(lines, ensure_ascii=False)
    assert "referee_note" not in text and "showed his hand" not in text
    assert "does not hold" not in text


def test_replay_by_default_redacts_as_the_public_topics_do(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.journal.jsonl"
    _mcr_journal(path)
    lines = _replay(capsys, str(path))
    _assert_public(lines)
    final = lines[-1]
    assert [r["reason"] for r in final["rejections"]] == ["not_held"]  # the reason code only, never the words
    assert all(set(r) == {"n", "id", "reason"} for r in final["rejections"])
    assert [i["kind"] for i in final["infractions"]] == ["referee", "empty_call"]
    assert final["infractions"][0]["message"] == "penalty by the referee"
    assert [a["kind"] for a in final["view"]["alerts"]] == ["camera_mismatch"]
    assert final["view"]["schema"] == "mjtable.public_state/1"


def test_replay_for_the_referee_keeps_every_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.journal.jsonl"
    _mcr_journal(path)
    final = _replay(capsys, str(path), "--referee")[-1]
    assert final["view"]["schema"] == "mjtable.referee_state/1"
    assert "seat 0 does not hold 9s" in final["rejections"][0]["message"]
    assert final["infractions"][0]["referee_note"] == REFEREE_WORDS
    assert "does not hold 5p" in final["infractions"][1]["message"]
    assert "9s" in final["view"]["alerts"][0]["message"]


def test_replay_never_prints_a_concealed_drawn_tile_named_by_a_rejection(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "riichi.journal.jsonl"
    drawn = _riichi_journal(path)
    lines = _replay(capsys, str(path))
    _assert_public(lines)
    assert "after riichi the drawn tile" not in json.dumps(lines, ensure_ascii=False)
    referee = _replay(capsys, str(path), "--referee")[-1]
    assert f"after riichi the drawn tile {drawn} must be discarded" in referee["rejections"][0]["message"]
