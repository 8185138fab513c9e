"""Devices on top of a :class:`hw.backend.PinBackend`: debounced buttons, LEDs and a buzzer.

Debouncing is ours (backends report raw edges): a *lock-out* debouncer accepts the first edge that changes
the stable level at once — a claim button must not wait — and then ignores every edge for ``bounce_s``
seconds.  An edge after the lock-out that leaves the level where it already is (the tail of a bounce) is
ignored too.  Pure and clock-free: it only uses edge timestamps, so tests drive it with a fake clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from hw.backend import PinBackend, PinEdge, Pull, check_level


class Debouncer:
    """Lock-out debounce on a stream of ``(level, t_s)`` raw edges.

    The first edge that changes the stable level is accepted at once; edges in the following ``bounce_s``
    seconds only update the raw level.  If the raw level at the end of a lock-out differs from the stable
    level (a tap shorter than ``bounce_s``), that change is accepted, time-stamped at the end of the
    lock-out, when the next edge arrives — so a short tap followed by another press is two presses.

    Args:
        initial: the stable level before the first edge.
        bounce_s: lock-out after an accepted change, seconds (>= 0).
    """

    def __init__(self, initial: int, bounce_s: float) -> None:
        if bounce_s < 0:
            raise ValueError(f"bounce_s must be >= 0, got {bounce_s!r}")
        self.level = check_level(initial)
        self.bounce_s = bounce_s
        self._raw = initial
        self._locked_until_s: float | None = None

    def feed(self, level: int, t_s: float) -> list[tuple[int, float]]:
        """One raw edge; returns the accepted changes of the stable level as ``(level, t_s)``, oldest first."""
        accepted: list[tuple[int, float]] = []
        until = self._locked_until_s
        if until is not None and t_s >= until and self._raw != self.level:
            self._accept(self._raw, until, accepted)
        self._raw = level
        if self._locked_until_s is not None and t_s < self._locked_until_s:
            return accepted
        if level != self.level:
            self._accept(level, t_s, accepted)
        return accepted

    def _accept(self, level: int, t_s: float, out: list[tuple[int, float]]) -> None:
        self.level = level
        self._locked_until_s = t_s + self.bounce_s
        out.append((level, t_s))


@dataclass(frozen=True, slots=True)
class ButtonChange:
    """A debounced press or release.  ``t_s`` is the backend clock time of the accepted edge."""

    name: str
    pressed: bool
    t_s: float


class Button:
    """A push button between ``pin`` and ground (internal pull-up, active low) unless ``active_low=False``.

    Args:
        backend: the pin backend; the pin is reserved at construction (:class:`hw.backend.PinInUseError`).
        pin: BCM GPIO number.
        name: owner name for reservations and events, e.g. ``"seat0.call"``.
        bounce_s: debounce lock-out in seconds.
    """

    def __init__(self, backend: PinBackend, pin: int, *, name: str, bounce_s: float = 0.02,
                 active_low: bool = True) -> None:
        self.backend = backend
        self.pin = pin
        self.name = name
        self.active_low = active_low
        backend.setup_input(pin, pull=Pull.UP if active_low else Pull.DOWN, owner=name)
        self._debouncer = Debouncer(backend.read(pin), bounce_s)

    @property
    def is_pressed(self) -> bool:
        """The debounced state."""
        return (self._debouncer.level == 0) == self.active_low

    def process(self, edge: PinEdge) -> list[ButtonChange]:
        """Debounce one raw edge of this button's pin (call from one thread only: the asyncio loop)."""
        if edge.pin != self.pin:
            return []
        return [ButtonChange(self.name, (level == 0) == self.active_low, t_s)
                for level, t_s in self._debouncer.feed(edge.level, edge.t_s)]

    def close(self) -> None:
        self.backend.release(self.pin)


class Led:
    """An LED (through a resistor) from ``pin`` to ground; starts off."""

    def __init__(self, backend: PinBackend, pin: int, *, name: str) -> None:
        self.backend = backend
        self.pin = pin
        self.name = name
        backend.setup_output(pin, initial=0, owner=name)
        self.is_lit = False

    def set(self, on: bool) -> None:
        if on != self.is_lit:
            self.backend.write(self.pin, 1 if on else 0)
            self.is_lit = on

    def close(self) -> None:
        self.backend.release(self.pin)


class Buzzer:
    """A buzzer on ``pin``: a passive piezo driven with PWM at ``frequency_hz``, or an active buzzer
    (``frequency_hz=None``) switched on and off."""

    def __init__(self, backend: PinBackend, pin: int, *, name: str = "buzzer",
                 frequency_hz: float | None = 2000.0) -> None:
        if frequency_hz is not None and frequency_hz <= 0:
            raise ValueError(f"buzzer frequency must be positive, got {frequency_hz!r}")
        self.backend = backend
        self.pin = pin
        self.name = name
        self.frequency_hz = frequency_hz
        backend.setup_output(pin, initial=0, owner=name)
        self.is_on = False

    def set(self, on: bool) -> None:
        if on == self.is_on:
            return
        if self.frequency_hz is None:
            self.backend.write(self.pin, 1 if on else 0)
        else:
            self.backend.set_pwm(self.pin, self.frequency_hz, 0.5 if on else 0.0)
        self.is_on = on

    def close(self) -> None:
        self.set(False)
        self.backend.release(self.pin)
