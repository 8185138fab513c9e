"""Rules options in the profile name (``controller/engine/profile_options.py``): ``<profile>:key=value,...`` for both
non-MCR rulesets — the configurable fan cap and session length of Sichuan (L290, L516) and the riichi division, uma and
claim window (L16-L19, L33; digest Appendix B)."""

from __future__ import annotations

import pytest

from controller.engine.events import SessionStart
from controller.engine.registry import ruleset_for
from controller.engine.simulate import SimRun
from controller.engine.step import start_session
from controller.riichi.ruleset import RiichiRuleset
from controller.sichuan.ruleset import SichuanRuleset
from controller.views import public_view


def test_sichuan_cap_and_session_length() -> None:
    r = ruleset_for("sichuan-sbr-2025:cap_fan=4,hands=16,session_s=2700")
    assert isinstance(r, SichuanRuleset)
    assert r.options.cap_fan == 4 and r.hands_per_session == 16 and r.timers.session_s == 2700.0
    state, _ = start_session(SessionStart(id="e1", at_s=0.0, rules="sichuan-sbr-2025:session_s=2700"))
    assert {t.name for t in state.timers} == {"session", "session_warning"}
    with pytest.raises(ValueError, match="35-80"):
        ruleset_for("sichuan-sbr-2025:session_s=600")


def test_riichi_division_b_start_points_in_a_live_half_game() -> None:
    r = ruleset_for("riichi-hkma-2025:division=B,claim_window_s=5")
    assert isinstance(r, RiichiRuleset) and r.start_points() == 25000 and r.timers.claim_s == 5.0
    final = SimRun(rules="riichi-hkma-2025:division=B", seed=2, hands_total=2).play()
    out = public_view(final)["riichi"]["final"]
    assert sum(out["raw"]) == 4 * 25000


@pytest.mark.parametrize("name", ["riichi-hkma-2025:division=C", "riichi-hkma-2025:colour=red",
                                  "sichuan-sbr-2025:cap_fan", "sichuan-sbr-2025:cap_fan=x"])
def test_bad_options_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        start_session(SessionStart(id="e1", at_s=0.0, rules=name))
