"""One engine, two modes: a partial-information engine fed only what an overhead camera and the seat buttons
show (face-down wall, unknown draws, hands revealed only at a win) ends every hand exactly like the
full-information engine that played it."""

from __future__ import annotations

from typing import Any

import pytest

from controller.engine.effects import Rejected
from controller.engine.events import Event, SessionStart, event_from_json
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, Phase, SeatState
from controller.engine.step import start_session, step
from mjtable.tiles import MeldKind


class Shadow:
    def __init__(self, start: SessionStart) -> None:
        obj = start.to_json()
        obj.update(mode="partial", fast_claims=False, id="shadow-start")
        ev = event_from_json(obj)
        assert isinstance(ev, SessionStart)
        self.state, _ = start_session(ev)
        self.n = 0

    def send(self, obj: dict[str, Any]) -> None:
        self.n += 1
        obj = {**obj, "id": f"s{self.n}"}
        new, fx = step(self.state, event_from_json(obj))
        assert not (fx and isinstance(fx[0], Rejected)), (obj, fx)
        self.state = new

    def sync(self, full: GameState, at_s: float) -> None:
        """Send the buttons a real table would see: "ready" after each seat's flowers, "pass" to close windows."""
        for _ in range(12):
            p = self.state
            hand = p.hand
            if hand is None:
                return
            fh = full.hand
            if p.phase is Phase.FLOWERS and hand.flower_seat is not None and not (
                    full.phase is Phase.FLOWERS and fh is not None and fh.flower_seat == hand.flower_seat):
                self.send({"type": "button", "at_s": at_s, "seat": hand.flower_seat, "button": "ready"})
                continue
            if p.phase in (Phase.CLAIMS, Phase.ROB_KONG) and hand.claim is not None and not (
                    full.phase is p.phase and fh is not None and fh.claim is not None
                    and fh.claim.tile == hand.claim.tile and fh.claim.discard_seat == hand.claim.discard_seat):
                w = hand.claim
                left = sorted(w.eligible - w.passed - {c.seat for c in w.calls})
                if left:
                    self.send({"type": "button", "at_s": at_s, "seat": left[0], "button": "pass"})
                    continue
            return


def _shown(seat: SeatState) -> list[str]:
    """What a winner lays down: the face-down kongs turned up (four by four, in declaration order), then the
    concealed tiles (the engine's convention for a win in partial information)."""
    kongs = [t.code for m in seat.melds if m.kind is MeldKind.CONCEALED_KONG for t in m.tiles]
    return kongs + [t.code for t in seat.known]


def _translate(full_before: GameState, ev: Event) -> dict[str, Any] | None:
    obj = ev.to_json()
    hand = full_before.hand
    if obj["type"] == "table_built":
        obj["tiles"] = None
    elif obj["type"] == "claim" and obj["kind"] == "win":
        assert hand is not None
        obj["tiles"] = _shown(hand.seats[obj["seat"]])
    elif obj["type"] == "declare_win":
        assert hand is not None and hand.drawn is not None
        obj["tiles"] = _shown(hand.seats[obj["seat"]])
        obj["win_tile"] = hand.drawn.code
    elif obj["type"] == "concealed_kong":
        obj["tile"] = None  # placed face down: an overhead camera sees four backs, never the face
    elif obj["type"] == "button" and obj["button"] == "pass":
        return None  # passes are re-created by sync (the partial window waits for everybody)
    obj.pop("id")
    return obj


@pytest.mark.parametrize(("rules", "seed"), [("mcr-1998", 17), ("mcr-2006", 17), ("mcr-2017", 17),
                                             ("mcr-2017", 29)])
def test_partial_engine_shadows_the_full_one(rules: str, seed: int) -> None:
    run = SimRun(rules=rules, seed=seed, hands_total=16)
    full = run.start()
    shadow = Shadow(run.session_start())
    face_down = 0
    while (ev := run.next_event(full)) is not None:
        obj = _translate(full, ev)
        face_down += obj is not None and obj["type"] == "concealed_kong"
        full, fx = step(full, ev)
        assert not (fx and isinstance(fx[0], Rejected))
        if obj is not None:
            shadow.send(obj)
        shadow.sync(full, ev.at_s)
        assert shadow.state.phase == full.phase, (ev.to_json(), shadow.state.phase, full.phase)
        if full.hand is not None and shadow.state.hand is not None:
            assert [s.hand_size for s in shadow.state.hand.seats] == [s.hand_size for s in full.hand.seats]
    assert face_down >= 1  # the face-down path really ran (a winner among them turns its kong up)
    assert shadow.state.session.scores == full.session.scores
    assert [(r.kind, r.winners, r.total, r.payments) for r in shadow.state.history] == \
        [(r.kind, r.winners, r.total, r.payments) for r in full.history]
