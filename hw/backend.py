"""The GPIO boundary: one small ``PinBackend`` protocol that every backend (pigpio, lgpio, fake) implements.

Pins are BCM GPIO numbers.  Levels are ``0``/``1``.  A backend reports every level change on a watched input
as a frozen :class:`PinEdge` through a callback; real backends call it **on their own thread** (pigpio's
notification thread, lgpio's alert thread), the fake calls it synchronously in the caller's thread.  Nothing
above ``hw/`` sees those threads: :class:`hw.panel.TablePanel` hands each edge to the asyncio loop with
``loop.call_soon_threadsafe``.

Backends reserve pins: configuring a pin twice (two devices on one pin) raises :class:`PinInUseError` naming both
owners, before any hardware is touched.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

#: BCM GPIO numbers usable on the 40-pin header of every Raspberry Pi since the B+.
HEADER_GPIOS = frozenset(range(2, 28))


class GpioError(RuntimeError):
    """Base of every GPIO error raised by ``hw``."""


class BackendUnavailableError(GpioError):
    """The backend's library, daemon or device is missing; the message says what to install or start."""


class PinInUseError(GpioError):
    """Two devices were wired to one pin."""

    def __init__(self, pin: int, owner: str, wanted_by: str) -> None:
        super().__init__(f"GPIO{pin} is already used by {owner!r}; {wanted_by!r} cannot use it too")
        self.pin = pin
        self.owner = owner
        self.wanted_by = wanted_by


class InvalidPinError(GpioError, ValueError):
    """A pin number outside the header, or an operation the pin is not set up for."""


class Pull(enum.Enum):
    """Input bias resistor."""

    UP = "up"
    DOWN = "down"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class PinEdge:
    """One level change seen on an input.

    Attributes:
        pin: BCM GPIO number.
        level: the new level, 0 or 1.
        t_s: when it happened, seconds on the backend's monotonic clock (pigpio/lgpio hardware ticks,
            the fake's injected clock).  Only differences between edges of one backend are meaningful.
    """

    pin: int
    level: int
    t_s: float


EdgeCallback = Callable[[PinEdge], None]


class PinBackend(Protocol):
    """What a GPIO backend must do.  Every method may raise :class:`GpioError`.

    ``watch`` callbacks run on the backend's thread (or synchronously for the fake); they must be quick and
    must not block.  ``close`` is idempotent.
    """

    name: str

    def setup_input(self, pin: int, *, pull: Pull, owner: str) -> None:
        """Reserve ``pin`` for ``owner`` and make it an input with the given bias."""
        ...

    def setup_output(self, pin: int, *, initial: int, owner: str) -> None:
        """Reserve ``pin`` for ``owner`` and make it an output driven to ``initial``."""
        ...

    def read(self, pin: int) -> int:
        """The current level of a set-up pin."""
        ...

    def write(self, pin: int, level: int) -> None:
        """Drive an output pin (stops any PWM on it)."""
        ...

    def set_pwm(self, pin: int, frequency_hz: float, duty: float) -> None:
        """Software/hardware PWM on an output pin; ``duty`` in [0, 1], 0 stops it (pin low)."""
        ...

    def watch(self, pin: int, callback: EdgeCallback) -> None:
        """Call ``callback(PinEdge)`` on every level change of input ``pin`` (backend thread)."""
        ...

    def release(self, pin: int) -> None:
        """Stop watching, drive outputs low, and free the reservation of ``pin``."""
        ...

    def close(self) -> None:
        """Release every pin and disconnect.  Safe to call twice."""
        ...


class PinReservations:
    """Which owner holds which pin; shared by every backend.  Thread-safe."""

    def __init__(self, allowed: frozenset[int] = HEADER_GPIOS) -> None:
        self._owners: dict[int, str] = {}
        self._allowed = allowed
        self._lock = threading.Lock()

    def reserve(self, pin: int, owner: str) -> None:
        """Claim ``pin`` for ``owner``; raises :class:`PinInUseError` or :class:`InvalidPinError`."""
        if pin not in self._allowed:
            raise InvalidPinError(f"GPIO{pin} ({owner!r}) is not a header GPIO; use BCM numbers "
                             f"{min(self._allowed)}..{max(self._allowed)}")
        with self._lock:
            held = self._owners.get(pin)
            if held is not None:
                raise PinInUseError(pin, held, owner)
            self._owners[pin] = owner

    def owner(self, pin: int) -> str | None:
        with self._lock:
            return self._owners.get(pin)

    def require(self, pin: int) -> str:
        """The owner of ``pin``; raises :class:`InvalidPinError` when the pin was never set up."""
        owner = self.owner(pin)
        if owner is None:
            raise InvalidPinError(f"GPIO{pin} is not set up")
        return owner

    def free(self, pin: int) -> None:
        with self._lock:
            self._owners.pop(pin, None)

    def pins(self) -> list[int]:
        with self._lock:
            return sorted(self._owners)


def check_level(level: int) -> int:
    """Validate a level argument (0 or 1)."""
    if level not in (0, 1):
        raise ValueError(f"level must be 0 or 1, got {level!r}")
    return level


def check_duty(duty: float) -> float:
    """Validate a PWM duty cycle in [0, 1]."""
    if not 0.0 <= duty <= 1.0:
        raise ValueError(f"duty must be within [0, 1], got {duty!r}")
    return duty
