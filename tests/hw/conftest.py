"""Backends for the hw contract suite: the fake, pigpio against a fake pigpiod, lgpio when a chip exists."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from hw.backend import PinBackend
from hw.fake import FakeBackend, FakeClock
from tests.hw.fake_pigpiod import FakePigpiod


@dataclass
class BackendRig:
    """A backend plus a way for the test to play the outside world on an input pin."""

    backend: PinBackend
    drive_input: Callable[[int, int], None]
    output_level: Callable[[int], int]
    edges_are_threaded: bool


@pytest.fixture(params=["fake", "pigpio", "lgpio"])
def rig(request: pytest.FixtureRequest) -> Iterator[BackendRig]:
    if request.param == "fake":
        fake = FakeBackend(FakeClock())
        yield BackendRig(fake, fake.drive, fake.read, edges_are_threaded=False)
        fake.close()
    elif request.param == "pigpio":
        pytest.importorskip("pigpio", reason="pigpio client not installed (pip install 'mjtable[pi]')")
        from hw.pigpio_backend import PigpioBackend

        daemon = FakePigpiod()
        backend = PigpioBackend("127.0.0.1", daemon.port)
        yield BackendRig(backend, daemon.set_input, daemon.level, edges_are_threaded=True)
        backend.close()
        daemon.close()
    else:
        pytest.importorskip("lgpio", reason="lgpio not installed (pip install 'mjtable[pi]')")
        if not os.path.exists("/dev/gpiochip0"):
            pytest.skip("no /dev/gpiochip0: lgpio contract runs on a Raspberry Pi bench rig only")
        pytest.skip("lgpio contract needs a wired loop-back rig (MJT_LGPIO_RIG); not present")


class EdgeSink:
    """Collects edges from any thread; ``wait(n)`` blocks until n arrived (bounded, not a timing assertion)."""

    def __init__(self) -> None:
        self.edges: list[tuple[int, int]] = []
        self._cond = threading.Condition()

    def __call__(self, edge: object) -> None:
        from hw.backend import PinEdge

        assert isinstance(edge, PinEdge)
        with self._cond:
            self.edges.append((edge.pin, edge.level))
            self._cond.notify_all()

    def wait(self, n: int, timeout_s: float = 10.0) -> list[tuple[int, int]]:
        with self._cond:
            self._cond.wait_for(lambda: len(self.edges) >= n, timeout=timeout_s)
            return list(self.edges)
