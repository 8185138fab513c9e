"""Issue 16, the table of infractions: rows that pointed at broad test groups get an exact test each - 相公 (a
hand with the wrong number of tiles) raised from the hand camera under every rulebook, and MCR 和错牌 (ready,
wrong tile) with its exact penalty."""

from __future__ import annotations

import pytest

from controller.engine.effects import Alert
from controller.engine.state import Phase
from tests.engine.engine_helpers import PRIORITY_HANDS, Table, pass_all
from tests.engine_sichuan.table_helpers import Table as ExtTable
from tests.engine_sichuan.table_helpers import stacked_wall


def _hand_seen(seat: int, tiles: list[str]) -> dict[str, object]:
    return {"type": "hand_seen", "seat": seat, "tiles": tiles, "claimed_from": None, "position": 0,
            "confidence": 0.99, "frame_id": 11}


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006", "mcr-2017"])
def test_mcr_xianggong_is_raised_with_the_hand_cameras_reading(rules: str) -> None:
    """牌张数目错误 (相公) [000:L818-L820; 004:L466]: the hand camera sees 12 tiles where the seat holds 13: a
    ``camera_mismatch`` alert (referee-only data: the reading names concealed tiles), nothing else changes; the
    referee then makes the hand dead (``dead_hand``)."""
    t = Table(rules=rules)
    t.deal(PRIORITY_HANDS)
    held = [x.code for x in t.seat(1).known]
    before = t.state.hand
    fx = t.ok("camera", observation=_hand_seen(1, held[:-1]))
    (alert,) = [e for e in fx if isinstance(e, Alert)]
    assert alert.kind == "camera_mismatch" and alert.data["reason"] == "bad_hand" and alert.data["referee_only"]
    assert t.state.hand == before
    t.ok("referee", command="dead_hand", seat=1, reason="相公 (12 tiles) [000:L820]")
    assert t.seat(1).dead is not None


@pytest.mark.parametrize(("rules", "line"), [("sichuan-sbr-2025", "001 L704"), ("riichi-hkma-2025", "002 L582")])
def test_sichuan_and_hkma_xianggong_is_raised_with_the_hand_cameras_reading(rules: str, line: str) -> None:
    """七 相公 [001:L704-L708] / A-X 相公 [002:L582-L603]: the same alert from the hand camera (``line``)."""
    assert line
    t = ExtTable(rules)
    t.build(stacked_wall(rules, {0: "123456789m2345p1z"} if rules.startswith("riichi") else
                         {0: "123456789m12345p"}, draws="9m"))
    if rules.startswith("sichuan"):
        for seat, suit in enumerate("sspp"):
            t.ok({"type": "void", "seat": seat, "suit": suit})
    hand = t.state.hand
    assert hand is not None and t.phase() is Phase.TURN
    held = [x.code for x in hand.seats[2].known]
    fx = t.ok({"type": "camera", "observation": _hand_seen(2, [*held, "9p"])})  # 14 for 13: 大相公 shape
    (alert,) = [e for e in fx if isinstance(e, Alert)]
    assert alert.kind == "camera_mismatch" and alert.data["reason"] == "bad_hand"
    assert t.state.hand == hand


@pytest.mark.parametrize("rules", ["mcr-1998", "mcr-2006", "mcr-2017"])
def test_mcr_win_on_a_tile_the_hand_does_not_wait_for_pays_10_each(rules: str) -> None:
    """和错牌 [000:L803 "和错牌…按错和处理"; 004:L459; 003:L45@3679]: seat 3 is ready on 5p only and calls a win on
    1m: ``false_win_wrong_tile``, 10 to each of the three others, 停和陪打, and the hand goes on."""
    hands = dict(PRIORITY_HANDS)
    hands[0] = "1m5p1m2m2m7m7m9m3z3z4z4z6z7z"
    t = Table(rules=rules)
    t.deal(hands)
    t.ok("discard", seat=0, tile="1m")
    t.ok("claim", seat=3, kind="win")
    pass_all(t)
    (inf,) = t.state.infractions
    assert inf.kind == "false_win_wrong_tile" and inf.seat == 3
    assert t.state.session.scores == (10, 10, 10, -30)
    assert t.seat(3).dead is not None and t.state.phase is not Phase.HAND_OVER
