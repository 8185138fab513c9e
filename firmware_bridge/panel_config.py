"""The pin map and timing of one closed table model, for :class:`firmware_bridge.panel.PanelTable`.

Pure data (the TOML ``[panel]`` section is parsed by :mod:`mjtable.config_panel`).  Pins are BCM GPIO numbers;
durations are seconds.  Buttons are outputs that close the table's own button contacts through an optocoupler;
signals are inputs read from the table's lamps through opto-isolators (``docs/wiring.md``, "Closed tables").
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.commands import FaultCode

#: buttons the adapter can press; ``build`` is required
BUTTON_NAMES = ("build", "raise", "dice", "stop", "reset")
#: signals the adapter can read; ``ready`` is required
SIGNAL_NAMES = ("ready", "motor", "fault")


@dataclass(frozen=True, slots=True)
class PanelButtonPin:
    """One button of the table's panel.

    Attributes:
        name: one of :data:`BUTTON_NAMES`.
        pin: BCM GPIO driving the optocoupler's LED.
        press_s: how long a press holds the contact closed, seconds (tables ignore very short presses).
        active_high: True when the GPIO drives the opto LED high to press (the circuit in docs/wiring.md).
    """

    name: str
    pin: int
    press_s: float = 0.3
    active_high: bool = True


@dataclass(frozen=True, slots=True)
class PanelSignalPin:
    """One lamp/signal of the table, read through an opto-isolator.

    Attributes:
        name: one of :data:`SIGNAL_NAMES` (``ready``: walls built; ``motor``: a motor is running; ``fault``: the
            fault lamp).
        pin: BCM GPIO of the opto-isolator's output.
        active_low: True when a lit lamp pulls the GPIO low (opto transistor to ground, internal pull-up: the
            circuit in docs/wiring.md); False for an active-high input (internal pull-down).
    """

    name: str
    pin: int
    active_low: bool = True


@dataclass(frozen=True, kw_only=True, slots=True)
class PanelTableConfig:
    """Everything :class:`~firmware_bridge.panel.PanelTable` needs to know about one table model.

    Attributes:
        model: free text naming the table model (health, ``LinkUp.firmware``).
        buttons / signals: the wired buttons and signals (at least ``build`` and ``ready``).
        debounce_s: lock-out debounce of every signal, seconds.
        start_timeout_s: a press of *build*/*raise* must start the motor (``motor`` signal) within this, seconds;
            without a ``motor`` signal the press is not checked.
        build_timeout_s: the ``ready`` lamp must light within this after the *build* press, seconds.
        raise_timeout_s: the motor must stop within this after a *raise* press, seconds.
        clear_timeout_s: the fault lamp must go out within this after a *reset* press, seconds.
        fault_code: what the fault lamp reports (the panel cannot tell a jam from an overcurrent).
    """

    model: str
    buttons: tuple[PanelButtonPin, ...]
    signals: tuple[PanelSignalPin, ...]
    debounce_s: float = 0.05
    start_timeout_s: float = 3.0
    build_timeout_s: float = 120.0
    raise_timeout_s: float = 20.0
    clear_timeout_s: float = 5.0
    fault_code: FaultCode = FaultCode.JAM

    def __post_init__(self) -> None:
        names = [b.name for b in self.buttons] + [s.name for s in self.signals]
        for b in self.buttons:
            if b.name not in BUTTON_NAMES:
                raise ValueError(f"unknown panel button {b.name!r}; known: {', '.join(BUTTON_NAMES)}")
            if b.press_s <= 0:
                raise ValueError(f"panel button {b.name}: press_s must be positive, got {b.press_s!r}")
        for s in self.signals:
            if s.name not in SIGNAL_NAMES:
                raise ValueError(f"unknown panel signal {s.name!r}; known: {', '.join(SIGNAL_NAMES)}")
        if len(set(names)) != len(names):
            raise ValueError("a panel button or signal is named twice")
        if self.button("build") is None or self.signal("ready") is None:
            raise ValueError("a panel needs at least the 'build' button and the 'ready' signal")
        pins = [b.pin for b in self.buttons] + [s.pin for s in self.signals]
        if len(set(pins)) != len(pins):
            raise ValueError(f"two panel buttons/signals share a GPIO: {sorted(pins)}")

    def button(self, name: str) -> PanelButtonPin | None:
        """The button called ``name``, None when the model has none."""
        return next((b for b in self.buttons if b.name == name), None)

    def signal(self, name: str) -> PanelSignalPin | None:
        """The signal called ``name``, None when not wired."""
        return next((s for s in self.signals if s.name == name), None)

    def pins(self) -> list[tuple[str, int]]:
        """``(use, pin)`` for every pin, e.g. ``("panel button build", 17)``."""
        return ([(f"panel button {b.name}", b.pin) for b in self.buttons]
                + [(f"panel signal {s.name}", s.pin) for s in self.signals])


#: The worked example of docs/wiring.md ("Closed tables") and deploy/table.toml.example: a table with build,
#: raise, dice and reset buttons and ready/motor/fault lamps, on pins the seat panel does not use.
EXAMPLE_PANEL = PanelTableConfig(
    model="example four-button table",
    buttons=(PanelButtonPin("build", 17, 0.3), PanelButtonPin("raise", 27, 0.3), PanelButtonPin("dice", 22, 0.2),
             PanelButtonPin("reset", 9, 1.0)),
    signals=(PanelSignalPin("ready", 23), PanelSignalPin("motor", 24), PanelSignalPin("fault", 10)),
)


__all__ = ["BUTTON_NAMES", "EXAMPLE_PANEL", "SIGNAL_NAMES", "PanelButtonPin", "PanelSignalPin", "PanelTableConfig"]
