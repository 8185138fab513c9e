"""The ``[panel]`` section of ``table.toml``: a closed table driven through its control panel (instead of
``[serial]``).  Parsed into :class:`firmware_bridge.panel_config.PanelTableConfig`; every error names the key.

Example (the worked example of docs/wiring.md, "Closed tables")::

    [panel]
    model = "example four-button table"
    debounce_s = 0.05
    start_timeout_s = 3.0       # the motor must start this soon after a build/raise press
    build_timeout_s = 120.0     # the ready lamp must light this soon after the build press
    raise_timeout_s = 20.0
    clear_timeout_s = 5.0
    fault_code = "jam"          # what the fault lamp reports

    [panel.buttons]             # BCM pin, how long a press holds the contact (s), output polarity
    build = { pin = 17, press_s = 0.3 }
    raise = { pin = 27, press_s = 0.3 }
    dice  = { pin = 22, press_s = 0.2 }
    reset = { pin = 9, press_s = 1.0, active_high = true }

    [panel.signals]             # BCM pin, polarity (lit lamp pulls the line low: active_low = true)
    ready = { pin = 23 }
    motor = { pin = 24 }
    fault = { pin = 10, active_low = true }
"""

from __future__ import annotations

from typing import Any

from firmware_bridge.commands import FaultCode
from firmware_bridge.panel_config import (
    BUTTON_NAMES,
    SIGNAL_NAMES,
    PanelButtonPin,
    PanelSignalPin,
    PanelTableConfig,
)
from mjtable.config import ConfigError, _Section


def parse_panel(source: str, data: Any) -> PanelTableConfig:
    """Validate the ``[panel]`` table.  Raises :class:`ConfigError`."""
    p = _Section(source, "panel", data)
    model = p.get("model", str, "")
    if not model.strip() or len(model) > 64:
        raise ConfigError(f"{p.where('model')} must name the table model (1-64 characters)")
    buttons_raw = p.get("buttons", dict, {})
    signals_raw = p.get("signals", dict, {})
    buttons: list[PanelButtonPin] = []
    for name, raw in buttons_raw.items():
        if name not in BUTTON_NAMES:
            raise ConfigError(f"{p.where('buttons')}: unknown button {name!r}; known: {', '.join(BUTTON_NAMES)}")
        b = _Section(source, f"panel.buttons.{name}", raw)
        if "pin" not in b.data:
            raise ConfigError(f"{b.where('pin')} is missing")
        buttons.append(PanelButtonPin(name, b.number("pin", int, 0, 2, 27),
                                      b.number("press_s", float, 0.3, 0.01, 10.0),
                                      b.get("active_high", bool, True)))
        b.finish()
    signals: list[PanelSignalPin] = []
    for name, raw in signals_raw.items():
        if name not in SIGNAL_NAMES:
            raise ConfigError(f"{p.where('signals')}: unknown signal {name!r}; known: {', '.join(SIGNAL_NAMES)}")
        s = _Section(source, f"panel.signals.{name}", raw)
        if "pin" not in s.data:
            raise ConfigError(f"{s.where('pin')} is missing")
        signals.append(PanelSignalPin(name, s.number("pin", int, 0, 2, 27), s.get("active_low", bool, True)))
        s.finish()
    if not any(b.name == "build" for b in buttons):
        raise ConfigError(f"{p.where('buttons')}.build is missing: the adapter must be able to start a build")
    if not any(s.name == "ready" for s in signals):
        raise ConfigError(f"{p.where('signals')}.ready is missing: the adapter must see when the walls are built")
    code_name = p.get("fault_code", str, "jam")
    try:
        fault_code = FaultCode[code_name.upper()]
    except KeyError:
        raise ConfigError(f"{p.where('fault_code')} must be one of "
                          f"{', '.join(c.name.lower() for c in FaultCode)}; got {code_name!r}") from None
    try:
        cfg = PanelTableConfig(
            model=model, buttons=tuple(buttons), signals=tuple(signals),
            debounce_s=p.number("debounce_s", float, 0.05, 0.0, 1.0),
            start_timeout_s=p.number("start_timeout_s", float, 3.0, 0.05, 60.0),
            build_timeout_s=p.number("build_timeout_s", float, 120.0, 0.1, 1800.0),
            raise_timeout_s=p.number("raise_timeout_s", float, 20.0, 0.05, 600.0),
            clear_timeout_s=p.number("clear_timeout_s", float, 5.0, 0.05, 120.0),
            fault_code=fault_code)
    except ValueError as exc:
        raise ConfigError(f"{source}: [panel]: {exc}") from exc
    p.finish()
    return cfg


__all__ = ["parse_panel"]
