"""GPIO through the pigpio daemon (Raspberry Pi 3/4; pigpiod does not run on a Pi 5 — use lgpio there).

``pigpio.pi()`` never raises when the daemon is missing: it prints a banner and returns an object with
``connected == False`` whose every later call fails with ``AttributeError``.  We pass ``show_errors=False``,
check ``connected`` and raise :class:`BackendUnavailableError` with the fix.  Edge callbacks arrive on pigpio's
notification thread with a 32-bit microsecond tick that wraps every ~71.6 minutes; we unwrap it into
monotonic seconds.
"""

from __future__ import annotations

import contextlib
import struct
import threading
from collections.abc import Callable
from typing import Any

from hw.backend import (
    BackendUnavailableError,
    EdgeCallback,
    GpioError,
    PinEdge,
    PinReservations,
    Pull,
    check_duty,
    check_level,
)

_TICK_WRAP = 1 << 32


class TickUnwrapper:
    """Turns pigpio's wrapping 32-bit microsecond ticks into monotonic seconds.  Thread-safe."""

    def __init__(self) -> None:
        self._last: int | None = None
        self._wraps = 0
        self._lock = threading.Lock()

    def seconds(self, tick_us: int) -> float:
        with self._lock:
            if self._last is not None and tick_us < self._last and self._last - tick_us > _TICK_WRAP // 2:
                self._wraps += 1
            self._last = tick_us
            return (self._wraps * _TICK_WRAP + tick_us) / 1e6


class PigpioBackend:
    """A client of pigpiod over its socket protocol.

    Args:
        host: pigpiod host (default the local daemon).
        port: pigpiod TCP port (8888 by default).
        connect: factory ``(host, port) -> pigpio.pi``-like object (tests pass a client of a fake daemon;
            by default the real ``pigpio.pi`` with ``show_errors=False``).

    Raises:
        BackendUnavailableError: the ``pigpio`` module is not installed or the daemon is unreachable.
    """

    name = "pigpio"

    def __init__(self, host: str = "127.0.0.1", port: int = 8888,
                 connect: Callable[[str, int], Any] | None = None) -> None:
        try:
            import pigpio
        except ImportError as exc:
            raise BackendUnavailableError("the pigpio client is not installed: pip install 'mjtable[pi]' "
                                     "(or apt-get install python3-pigpio)") from exc
        self._pigpio: Any = pigpio
        if connect is None:
            def connect(h: str, p: int) -> Any:
                return pigpio.pi(h, p, show_errors=False)
        pi = connect(host, port)
        if not getattr(pi, "connected", False):
            raise BackendUnavailableError(
                f"cannot reach the pigpio daemon at {host}:{port}: start it with 'sudo systemctl enable --now "
                "pigpiod' (Raspberry Pi 3/4 only; on a Pi 5 set gpio.backend = \"lgpio\")")
        self._pi: Any = pi
        self._reservations = PinReservations()
        self._callbacks: dict[int, list[Any]] = {}
        self._pwm: set[int] = set()
        self._ticks = TickUnwrapper()
        self._closed = False

    def setup_input(self, pin: int, *, pull: Pull, owner: str) -> None:
        self._reservations.reserve(pin, owner)
        pud = {Pull.UP: self._pigpio.PUD_UP, Pull.DOWN: self._pigpio.PUD_DOWN, Pull.NONE: self._pigpio.PUD_OFF}
        self._call(self._pi.set_mode, pin, self._pigpio.INPUT)
        self._call(self._pi.set_pull_up_down, pin, pud[pull])

    def setup_output(self, pin: int, *, initial: int, owner: str) -> None:
        check_level(initial)
        self._reservations.reserve(pin, owner)
        self._call(self._pi.set_mode, pin, self._pigpio.OUTPUT)
        self._call(self._pi.write, pin, initial)

    def read(self, pin: int) -> int:
        self._reservations.require(pin)
        return int(self._call(self._pi.read, pin))

    def write(self, pin: int, level: int) -> None:
        check_level(level)
        self._reservations.require(pin)
        self._pwm.discard(pin)
        self._call(self._pi.write, pin, level)

    def set_pwm(self, pin: int, frequency_hz: float, duty: float) -> None:
        check_duty(duty)
        self._reservations.require(pin)
        if duty == 0:
            self._call(self._pi.set_PWM_dutycycle, pin, 0)
            self._pwm.discard(pin)
            return
        self._call(self._pi.set_PWM_frequency, pin, round(frequency_hz))
        self._call(self._pi.set_PWM_dutycycle, pin, round(duty * 255))
        self._pwm.add(pin)

    def watch(self, pin: int, callback: EdgeCallback) -> None:
        self._reservations.require(pin)

        def on_edge(gpio: int, level: int, tick: int) -> None:  # pigpio notification thread
            if level in (0, 1):  # 2 = watchdog timeout, not an edge
                callback(PinEdge(gpio, level, self._ticks.seconds(tick)))

        cb = self._pi.callback(pin, self._pigpio.EITHER_EDGE, on_edge)
        self._callbacks.setdefault(pin, []).append(cb)

    def release(self, pin: int) -> None:
        for cb in self._callbacks.pop(pin, []):
            with contextlib.suppress(AttributeError, OSError, struct.error):  # a vanished daemon has no callbacks
                cb.cancel()
        if pin in self._pwm:
            self._pwm.discard(pin)
            self._call(self._pi.set_PWM_dutycycle, pin, 0)
        self._reservations.free(pin)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for pin in self._reservations.pins():
            try:
                self.release(pin)
            except GpioError:
                self._reservations.free(pin)
        with contextlib.suppress(AttributeError, OSError, struct.error):
            self._pi.stop()

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self._closed:
            raise GpioError("the pigpio backend is closed")
        try:
            return fn(*args)
        except self._pigpio.error as exc:
            raise GpioError(f"pigpio {fn.__name__}{args}: {exc}") from exc
        except (AttributeError, OSError, struct.error) as exc:  # the daemon went away: socket gone, short reply
            raise BackendUnavailableError(f"lost the pigpio daemon during {fn.__name__}{args}: {exc}") from exc
