"""A scriptable GPIO backend for tests and ``mjtable demo``: a simulator, not a call recorder.

Inputs are driven by the test (``press``, ``drive``, ``bounce``); watchers fire **synchronously in the
caller's thread**, with timestamps from an injected :class:`FakeClock`.  Outputs keep a full
``(t_s, level)`` history per pin so tests compare whole sequences.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hw.backend import (
    EdgeCallback,
    InvalidPinError,
    PinEdge,
    PinReservations,
    Pull,
    check_duty,
    check_level,
)

#: ``callback(level, t_s)`` for a change of an output pin (see :meth:`FakeBackend.on_output`).
OutputCallback = Callable[[int, float], None]


class FakeClock:
    """A manual monotonic clock in seconds; ``advance`` moves it forward."""

    def __init__(self, start_s: float = 0.0) -> None:
        self._now_s = start_s
        self._lock = threading.Lock()

    def now_s(self) -> float:
        with self._lock:
            return self._now_s

    def advance(self, dt_s: float) -> float:
        """Move the clock forward by ``dt_s`` seconds (never backwards); returns the new time."""
        if dt_s < 0:
            raise ValueError("a clock does not run backwards")
        with self._lock:
            self._now_s += dt_s
            return self._now_s


class WallClock:
    """``time.monotonic`` as a clock object (for the demo, where fake buttons run in real time)."""

    def now_s(self) -> float:
        return time.monotonic()


@dataclass
class _FakePin:
    owner: str
    is_output: bool
    level: int
    pull: Pull = Pull.NONE
    watchers: list[EdgeCallback] = field(default_factory=list)


class FakeBackend:
    """In-memory pins.  Thread-safe; watchers run in the thread that drives the input.

    Args:
        clock: anything with ``now_s() -> float`` (a :class:`FakeClock` in tests).
    """

    name = "fake"

    def __init__(self, clock: FakeClock | WallClock | None = None) -> None:
        self.clock: FakeClock | WallClock = clock if clock is not None else FakeClock()
        self._pins: dict[int, _FakePin] = {}
        self._reservations = PinReservations()
        self._lock = threading.RLock()
        #: pin -> [(t_s, level)] for every output change, starting with the initial level.
        self.history: dict[int, list[tuple[float, int]]] = {}
        #: pin -> [(t_s, frequency_hz, duty)] for every PWM change.
        self.pwm_history: dict[int, list[tuple[float, float, float]]] = {}
        self.closed = False
        #: pin -> level the outside world holds on it (see :meth:`hold`), kept across setups of the pin.
        self._held: dict[int, int] = {}
        self._output_watchers: dict[int, list[OutputCallback]] = {}

    # --- PinBackend -----------------------------------------------------------------------------------
    def setup_input(self, pin: int, *, pull: Pull, owner: str) -> None:
        self._reservations.reserve(pin, owner)
        idle = 0 if pull is Pull.DOWN else 1
        with self._lock:
            level = self._held.get(pin, idle)
            self._pins[pin] = _FakePin(owner=owner, is_output=False, level=level, pull=pull)

    def setup_output(self, pin: int, *, initial: int, owner: str) -> None:
        check_level(initial)
        self._reservations.reserve(pin, owner)
        with self._lock:
            self._pins[pin] = _FakePin(owner=owner, is_output=True, level=initial)
            self.history[pin] = [(self.clock.now_s(), initial)]
        self._output_changed(pin, initial)

    def read(self, pin: int) -> int:
        return self._pin(pin).level

    def write(self, pin: int, level: int) -> None:
        check_level(level)
        p = self._output(pin)
        with self._lock:
            if p.level == level:
                return
            p.level = level
            self.history[pin].append((self.clock.now_s(), level))
        self._output_changed(pin, level)

    def set_pwm(self, pin: int, frequency_hz: float, duty: float) -> None:
        check_duty(duty)
        if frequency_hz <= 0:
            raise ValueError(f"PWM frequency must be positive, got {frequency_hz!r}")
        p = self._output(pin)
        with self._lock:
            self.pwm_history.setdefault(pin, []).append((self.clock.now_s(), frequency_hz, duty))
            p.level = 1 if duty > 0 else 0

    def watch(self, pin: int, callback: EdgeCallback) -> None:
        p = self._pin(pin)
        if p.is_output:
            raise InvalidPinError(f"GPIO{pin} ({p.owner!r}) is an output and cannot be watched")
        with self._lock:
            p.watchers.append(callback)

    def release(self, pin: int) -> None:
        with self._lock:
            p = self._pins.pop(pin, None)
        if p is not None and p.is_output and p.level:
            self.history[pin].append((self.clock.now_s(), 0))
            self._output_changed(pin, 0)
        self._reservations.free(pin)

    def close(self) -> None:
        for pin in self._reservations.pins():
            self.release(pin)
        self.closed = True

    # --- scripting ------------------------------------------------------------------------------------
    def on_output(self, pin: int, callback: OutputCallback) -> None:
        """Call ``callback(level, t_s)`` whenever output ``pin`` changes level (set up, written, released low),
        synchronously in the writer's thread: how a simulated device sees what the Pi drives.  The pin need not
        be set up yet; the callback stays across setups."""
        with self._lock:
            self._output_watchers.setdefault(pin, []).append(callback)

    def hold(self, pin: int, level: int) -> None:
        """The outside world holds ``pin`` at ``level`` (a lamp lit, a switch closed) whether or not the pin is set
        up: a set-up input changes now (watchers fire), and a later ``setup_input`` starts at this level."""
        check_level(level)
        with self._lock:
            self._held[pin] = level
            p = self._pins.get(pin)
        if p is not None and not p.is_output:
            self.drive(pin, level)

    def _output_changed(self, pin: int, level: int) -> None:
        with self._lock:
            watchers = list(self._output_watchers.get(pin, ()))
        t_s = self.clock.now_s()
        for w in watchers:
            w(level, t_s)

    def drive(self, pin: int, level: int) -> None:
        """Set an input's level now (as the outside world would) and fire watchers if it changed."""
        check_level(level)
        p = self._pin(pin)
        if p.is_output:
            raise InvalidPinError(f"GPIO{pin} ({p.owner!r}) is an output; drive inputs only")
        with self._lock:
            if p.level == level:
                return
            p.level = level
            watchers = list(p.watchers)
            edge = PinEdge(pin, level, self.clock.now_s())
        for w in watchers:
            w(edge)

    def press(self, pin: int, duration_s: float = 0.1, *, bounces: int = 0, bounce_interval_s: float = 0.001,
              sleep: Callable[[float], None] | None = None) -> None:
        """Press an active-low button for ``duration_s`` seconds, with ``bounces`` contact bounces at each end.

        Time passes on the backend clock: a :class:`FakeClock` is advanced; with a wall clock ``sleep``
        (default ``time.sleep``) waits instead.
        """
        pressed, released = (0, 1) if self._pin(pin).pull is not Pull.DOWN else (1, 0)
        self._bouncy_transition(pin, pressed, released, bounces, bounce_interval_s, sleep=sleep)
        self._wait(max(duration_s - 2 * bounces * bounce_interval_s, 0.0), sleep)
        self._bouncy_transition(pin, released, pressed, bounces, bounce_interval_s, sleep=sleep)

    def _bouncy_transition(self, pin: int, to: int, back: int, bounces: int, interval_s: float, *,
                           sleep: Callable[[float], None] | None) -> None:
        self.drive(pin, to)
        for _ in range(bounces):
            self._wait(interval_s, sleep)
            self.drive(pin, back)
            self._wait(interval_s, sleep)
            self.drive(pin, to)

    def _wait(self, dt_s: float, sleep: Callable[[float], None] | None) -> None:
        if isinstance(self.clock, FakeClock):
            self.clock.advance(dt_s)
        else:
            (sleep or time.sleep)(dt_s)

    def owner(self, pin: int) -> str | None:
        """Who reserved ``pin`` (None when free)."""
        return self._reservations.owner(pin)

    # --- helpers --------------------------------------------------------------------------------------
    def _pin(self, pin: int) -> _FakePin:
        with self._lock:
            p = self._pins.get(pin)
        if p is None:
            raise InvalidPinError(f"GPIO{pin} is not set up")
        return p

    def _output(self, pin: int) -> _FakePin:
        p = self._pin(pin)
        if not p.is_output:
            raise InvalidPinError(f"GPIO{pin} ({p.owner!r}) is an input; it cannot be driven")
        return p
