"""The asyncio shell with fake ports: journal before effects, timers via an injected clock, resume."""

from __future__ import annotations

from pathlib import Path

from controller.engine.events import SessionStart, event_from_json
from controller.engine.simulate import START_S
from controller.engine.state import Phase
from controller.journal import JournaledTable
from controller.shell import (
    EngineShell,
    FakeClock,
    ManualTimers,
    RecordingIndicators,
    RecordingMcu,
    RecordingPublisher,
)
from tests.engine.engine_helpers import PRIORITY_HANDS, stacked_wall


def _shell(path: Path, clock: FakeClock) -> tuple[EngineShell, ManualTimers, RecordingMcu, RecordingPublisher,
                                                   RecordingIndicators]:
    timers = ManualTimers(clock)
    mcu = RecordingMcu()
    pub = RecordingPublisher()
    ind = RecordingIndicators()
    table = JournaledTable(path, SessionStart(id="start", at_s=clock.now_s(), rules="mcr-2006"))
    return EngineShell(table, clock=clock, mcu=mcu, indicators=ind, publisher=pub, timers=timers), timers, mcu, pub, ind


async def test_shell_runs_effects_and_timers(tmp_path: Path) -> None:
    clock = FakeClock(START_S)
    shell, timers, mcu, pub, ind = _shell(tmp_path / "j.jsonl", clock)
    await shell.resume()
    assert mcu.commands == [("shuffle_and_build", {"tile_set": 144})]
    assert "session" in timers.armed()
    await shell.submit(shell.stamp({"type": "table_built", "tiles": list(stacked_wall(PRIORITY_HANDS)),
                                    "dice": [[1, 1], [1, 1]]}))
    assert ("led", 0.0, True) in ind.history
    assert "opening" in timers.armed()
    assert pub.last_public is not None and pub.last_public["phase"] == "turn"
    assert pub.last_referee is not None and pub.last_referee["seats"][0]["concealed"]
    clock.advance(25.0)
    assert await timers.fire_due() >= 1
    assert ("buzz", 1.0, True) in ind.history
    # an MCR overrun is a referee alert, no penalty (the seeds set none; issue 16 point 7)
    assert any(e["type"] == "alert" and e["kind"] == "timer_zero" for e in pub.effects)
    fx = await shell.submit(shell.stamp({"type": "discard", "seat": 3, "tile": "1z"}))
    assert fx[0].type == "rejected" and pub.effects[-1]["reason"] == "out_of_turn"
    shell.table.close()


async def test_shell_resume_rearms_timers_from_wall_clock(tmp_path: Path) -> None:
    clock = FakeClock(START_S)
    path = tmp_path / "j.jsonl"
    shell, timers, _, _, _ = _shell(path, clock)
    await shell.resume()
    await shell.submit(shell.stamp({"type": "table_built", "tiles": list(stacked_wall(PRIORITY_HANDS)),
                                    "dice": [[1, 1], [1, 1]]}))
    await shell.submit(shell.stamp({"type": "discard", "seat": 0, "tile": "5p"}))
    deadline = timers.armed()["claim"]
    shell.table.close()  # the process dies here
    clock.advance(10.0)  # ... and restarts 10 s later: the 3 s claim window is long over
    shell2, _, _, pub2, _ = _shell(path, clock)
    assert shell2.table.resumed and shell2.state.phase is Phase.CLAIMS
    await shell2.resume()
    # the overdue 3 s ran out at once on resume: pung/kong are over; MCR 2006 keeps chow and win open until the
    # next player's draw (issue 16 point 1, [004:L478])
    hand = shell2.state.hand
    assert hand is not None and hand.claim is not None and hand.claim.slow
    assert shell2.state.now_s >= deadline
    assert pub2.last_public is not None
    ev = event_from_json({"type": "button", "id": "draw", "at_s": clock.now_s(), "seat": 1, "button": "pass"})
    await shell2.submit(ev)  # the next player reaches into the wall: the window is over
    assert shell2.state.phase is not Phase.CLAIMS
    ev = event_from_json({"type": "button", "id": "late", "at_s": clock.now_s(), "seat": 2, "button": "pass"})
    fx = await shell2.submit(ev)
    assert fx[0].type == "rejected"
    shell2.table.close()


async def test_asyncio_timers_fire_overdue_deadlines_on_the_loop() -> None:
    import asyncio

    from controller.shell import AsyncioTimers

    clock = FakeClock(START_S)
    timers = AsyncioTimers(clock)
    fired: list[str] = []

    async def fire() -> None:
        fired.append("x")

    timers.arm("x", START_S - 1.0, fire)  # already due: fires on the next loop turns, no waiting
    timers.arm("y", START_S + 3600.0, fire)
    for _ in range(5):
        await asyncio.sleep(0)
    assert fired == ["x"] and set(timers.armed()) == {"y"}
    timers.cancel_all()
    assert timers.armed() == {}
