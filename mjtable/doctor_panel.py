"""``mjtable doctor``'s check of a closed table's panel adapter (``[panel]``): claim every configured pin, read
the table's lamps, release everything.  Read-only: no button is pressed (outputs are set up released).

``ok``: every pin claimed, the lamps read as expected at rest; ``warn``: the fault lamp is lit or a motor runs
(a table not at rest, or a signal wired with the wrong polarity); ``fail``: the backend is missing, a pin is
taken or outside the header.
"""

from __future__ import annotations

from collections.abc import Callable

from hw.backend import BackendUnavailableError, GpioError, PinBackend
from hw.devices import Button
from hw.factory import open_backend
from mjtable.config import Config
from mjtable.doctor import Check


def check_panel(cfg: Config, opener: Callable[[], PinBackend] | None = None) -> Check:
    """Claim the panel pins on the configured GPIO backend (or ``opener()``) and read the lamps."""
    panel = cfg.panel
    if panel is None:
        return Check("panel", "ok", "no [panel]: the table is driven over serial")
    g = cfg.gpio
    try:
        backend = opener() if opener is not None else open_backend(g.backend, host=g.pigpiod_host,
                                                                     port=g.pigpiod_port, chip=g.chip)
    except BackendUnavailableError as exc:
        return Check("panel", "fail", f"panel of {panel.model}: {exc}")
    lamps: dict[str, bool] = {}
    claimed: list[int] = []
    try:
        for b in panel.buttons:
            backend.setup_output(b.pin, initial=int(not b.active_high), owner=f"panel.{b.name}")
            claimed.append(b.pin)
        for s in panel.signals:
            device = Button(backend, s.pin, name=f"panel.{s.name}", active_low=s.active_low)
            claimed.append(s.pin)
            lamps[s.name] = device.is_pressed
    except GpioError as exc:
        return Check("panel", "fail", f"panel of {panel.model}: {exc}")
    finally:
        for pin in claimed:
            backend.release(pin)
        backend.close()
    buttons = ", ".join(f"{b.name} GPIO{b.pin}" for b in panel.buttons)
    reading = ", ".join(f"{name} {'lit' if lit else 'dark'}" for name, lit in lamps.items())
    detail = f"{g.backend}: panel of {panel.model}: buttons {buttons}; lamps {reading}"
    if lamps.get("fault"):
        return Check("panel", "warn", detail + " (the table shows a fault: clear it at the table, or check the "
                     "fault signal's polarity, active_low)")
    if lamps.get("motor"):
        return Check("panel", "warn", detail + " (a motor runs: wait until the table is at rest, or check the "
                     "motor signal's polarity)")
    return Check("panel", "ok", detail)


__all__ = ["check_panel"]
