"""The fake backend's device-side hooks: ``on_output`` (a simulated device sees what the Pi drives) and ``hold``
(the outside world holds an input level across setups of the pin)."""

from __future__ import annotations

from hw.backend import PinEdge, Pull
from hw.fake import FakeBackend, FakeClock


def test_on_output_sees_setup_writes_and_release_low() -> None:
    b = FakeBackend(FakeClock())
    seen: list[tuple[int, float]] = []
    b.on_output(17, lambda level, t_s: seen.append((level, t_s)))  # before the pin is set up
    b.setup_output(17, initial=0, owner="x")
    b.clock.advance(1.0)  # type: ignore[union-attr]
    b.write(17, 1)
    b.write(17, 1)  # no change, no call
    b.clock.advance(0.5)  # type: ignore[union-attr]
    b.release(17)
    assert seen == [(0, 0.0), (1, 1.0), (0, 1.5)]


def test_hold_keeps_the_level_across_setups_and_fires_watchers() -> None:
    b = FakeBackend(FakeClock())
    b.hold(23, 0)  # a lit lamp pulls the line low before anyone reads it
    b.setup_input(23, pull=Pull.UP, owner="lamp")
    assert b.read(23) == 0
    edges: list[PinEdge] = []
    b.watch(23, edges.append)
    b.hold(23, 1)
    assert [e.level for e in edges] == [1]
    b.release(23)
    b.setup_input(23, pull=Pull.UP, owner="lamp again")
    assert b.read(23) == 1
