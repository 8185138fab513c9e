"""GPIO through lgpio (/dev/gpiochipN, the kernel character device): the backend for a Raspberry Pi 5.

lgpio raises ``lgpio.error`` when the chip is missing (``'can not open gpiochip'``); we turn it into
:class:`BackendUnavailableError` saying which device and which fix.  Alerts arrive on lgpio's notification
thread with a nanosecond kernel timestamp.  On a Pi 5 the header is ``gpiochip4`` on older kernels and
``gpiochip0`` on newer ones: set ``gpio.chip`` in the config.
"""

from __future__ import annotations

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


class LgpioBackend:
    """Args: chip: the gpiochip number (``/dev/gpiochip<chip>``).  Raises BackendUnavailableError."""

    name = "lgpio"

    def __init__(self, chip: int = 0) -> None:
        try:
            import lgpio
        except ImportError as exc:
            raise BackendUnavailableError("lgpio is not installed: pip install 'mjtable[pi]' "
                                     "(or apt-get install python3-lgpio)") from exc
        self._lg: Any = lgpio
        try:
            self._handle: int = int(lgpio.gpiochip_open(chip))
        except lgpio.error as exc:
            raise BackendUnavailableError(
                f"cannot open /dev/gpiochip{chip} ({exc}): not a Raspberry Pi, wrong gpio.chip, or the user "
                "is not in the 'gpio' group") from exc
        self._chip = chip
        self._reservations = PinReservations()
        self._callbacks: dict[int, list[Any]] = {}
        self._pull_flags: dict[int, int] = {}
        self._closed = False

    def setup_input(self, pin: int, *, pull: Pull, owner: str) -> None:
        self._reservations.reserve(pin, owner)
        flags = {Pull.UP: self._lg.SET_PULL_UP, Pull.DOWN: self._lg.SET_PULL_DOWN, Pull.NONE: self._lg.SET_PULL_NONE}
        self._pull_flags[pin] = flags[pull]
        try:
            self._call(self._lg.gpio_claim_input, self._handle, pin, flags[pull])
        except GpioError:
            self._reservations.free(pin)
            raise

    def setup_output(self, pin: int, *, initial: int, owner: str) -> None:
        check_level(initial)
        self._reservations.reserve(pin, owner)
        try:
            self._call(self._lg.gpio_claim_output, self._handle, pin, initial)
        except GpioError:
            self._reservations.free(pin)
            raise

    def read(self, pin: int) -> int:
        self._reservations.require(pin)
        return int(self._call(self._lg.gpio_read, self._handle, pin))

    def write(self, pin: int, level: int) -> None:
        check_level(level)
        self._reservations.require(pin)
        self._call(self._lg.gpio_write, self._handle, pin, level)

    def set_pwm(self, pin: int, frequency_hz: float, duty: float) -> None:
        check_duty(duty)
        self._reservations.require(pin)
        self._call(self._lg.tx_pwm, self._handle, pin, frequency_hz if duty else 0, duty * 100.0)

    def watch(self, pin: int, callback: EdgeCallback) -> None:
        self._reservations.require(pin)
        self._call(self._lg.gpio_claim_alert, self._handle, pin, self._lg.BOTH_EDGES, self._pull_flags[pin])

        def on_alert(chip: int, gpio: int, level: int, timestamp_ns: int) -> None:  # lgpio thread
            if level in (0, 1):  # 2 = watchdog timeout
                callback(PinEdge(gpio, level, timestamp_ns / 1e9))

        cb = self._lg.callback(self._handle, pin, self._lg.BOTH_EDGES, on_alert)
        self._callbacks.setdefault(pin, []).append(cb)

    def release(self, pin: int) -> None:
        for cb in self._callbacks.pop(pin, []):
            cb.cancel()
        if self._reservations.owner(pin) is not None:
            self._call(self._lg.gpio_free, self._handle, pin)
        self._reservations.free(pin)

    def close(self) -> None:
        if self._closed:
            return
        for pin in self._reservations.pins():
            try:
                self.release(pin)
            except GpioError:
                self._reservations.free(pin)
        self._closed = True
        self._lg.gpiochip_close(self._handle)

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self._closed:
            raise GpioError("the lgpio backend is closed")
        try:
            return fn(*args)
        except self._lg.error as exc:
            raise GpioError(f"lgpio {fn.__name__} on gpiochip{self._chip} {args[1:]}: {exc}") from exc
