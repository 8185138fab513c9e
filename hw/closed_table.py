"""A simulated closed automatic table on the fake GPIO backend: the device on the other side of
:class:`firmware_bridge.panel.PanelTable`, for ``mjtable demo --table panel`` and the tests.

It watches the Pi's button outputs (``FakeBackend.on_output``) and answers on the lamp inputs
(``FakeBackend.hold``), as the table's own controller would:

* a button counts when it has been held at least ``min_press_s`` and is released (shorter: ignored);
* *build* (idle, built or raised): the ready lamp goes out, the motor starts after ``start_delay_s``, runs
  ``build_s``, stops, and the ready lamp lights (walls built, below the top);
* *raise* (built): the motor runs ``raise_s`` (the lift), the walls are up;
* *dice*: the dice pop; :attr:`dice` holds the values (a referee reads them off the table);
* *stop*: the motor stops, a build is abandoned;  *reset*: motion stops and the fault lamp goes out (an
  attendant cleared the jam), stuck contacts come free.

Faults, selected with :meth:`inject` (each acts on the next build, except ``stuck``):
``jam`` (the motor stops at 40 % and the fault lamp lights), ``no_ready`` (the build runs but the ready lamp
never lights), ``lift_stuck`` (the lift motor keeps running after *raise*), ``stuck:<button>`` (that button's
contact sticks closed at its next press: the controller sees it held and ignores it until *reset*).

Delays run on the asyncio loop given to :meth:`start` (the service loop in the demo); output changes may arrive
from any thread.  Levels follow the adapter's circuit: lamps pull the input low when lit (active low).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from hw.fake import FakeBackend

LOGGER = logging.getLogger(__name__)

FAULTS = ("jam", "no_ready", "lift_stuck", "stuck")


@dataclass(frozen=True, kw_only=True, slots=True)
class ClosedTablePins:
    """Where the adapter is wired (BCM).  Buttons: ``name -> (pin, active_high)``; lamps: ``name -> (pin,
    active_low)`` for ``ready``, ``motor``, ``fault``."""

    buttons: dict[str, tuple[int, bool]]
    lamps: dict[str, tuple[int, bool]]


@dataclass(frozen=True, kw_only=True, slots=True)
class ClosedTableTiming:
    """Seconds.  A real table: build about 60, raise about 5; the demo and the tests use fractions."""

    build_s: float = 2.0
    raise_s: float = 0.2
    start_delay_s: float = 0.05
    min_press_s: float = 0.03


@dataclass
class ClosedTableStats:
    presses: dict[str, int] = field(default_factory=dict)  #: presses the controller took, per button
    ignored: int = 0  #: presses it did not take (too short, stuck, wrong state)
    builds: int = 0
    faults: list[str] = field(default_factory=list)


class SimulatedClosedTable:
    """The state machine of a closed table controller behind its panel.

    Args:
        backend: the fake backend the adapter uses.
        pins: its pin map.  timing: delays.  rng: the dice, unless ``dice`` is given.
        dice: the dice of throw number n (0-based) of the session, a function of n only (so a table simulated
            again for a resumed session throws what an undisturbed one would have).
        first_throw: the number of this simulation's first throw (a resumed session's journaled throws).
    """

    def __init__(self, backend: FakeBackend, pins: ClosedTablePins, timing: ClosedTableTiming | None = None,
                 rng: random.Random | None = None, *, dice: Callable[[int], tuple[int, int]] | None = None,
                 first_throw: int = 0) -> None:
        self.backend = backend
        self.pins = pins
        self.timing = timing or ClosedTableTiming()
        self.rng = rng or random.Random()
        self._dice_of = dice
        self._first_throw = first_throw
        self.state = "idle"  #: idle, building, built, raised, fault
        self.dice: tuple[int, int] | None = None  #: the last throw (None before the first)
        self.dice_throws = 0  #: throws by this simulation (not counting ``first_throw``)
        self.stats = ClosedTableStats()
        self.lamps: dict[str, bool] = dict.fromkeys(pins.lamps, False)
        self.faults: list[str] = []  #: injected faults still to act
        self.stuck: set[str] = set()  #: buttons whose contact is stuck closed
        self.on_change: Callable[[], None] | None = None  #: called (loop) after each state change
        self._pressed_at: dict[str, float] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._motion: asyncio.TimerHandle | None = None
        self._by_pin = {pin: (name, active_high) for name, (pin, active_high) in pins.buttons.items()}

    def start(self, loop: asyncio.AbstractEventLoop) -> SimulatedClosedTable:
        """Attach to the backend (lamps off, buttons watched); delays run on ``loop``."""
        self._loop = loop
        for name in self.lamps:
            self._lamp(name, False)
        for pin in self._by_pin:
            self.backend.on_output(pin, self._output_watcher(pin))
        return self

    def _output_watcher(self, pin: int) -> Callable[[int, float], None]:
        def watcher(level: int, t_s: float) -> None:
            self._on_output(pin, level, t_s)

        return watcher

    def inject(self, fault: str) -> None:
        """Select a fault: ``jam``, ``no_ready``, ``lift_stuck`` or ``stuck:<button>``."""
        kind, _, button = fault.partition(":")
        if kind not in FAULTS or (kind == "stuck") != bool(button):
            raise ValueError(f"unknown fault {fault!r}; one of jam, no_ready, lift_stuck, stuck:<button>")
        if kind == "stuck" and button not in self.pins.buttons:
            raise ValueError(f"no {button!r} button on this table; buttons: {', '.join(self.pins.buttons)}")
        self.faults.append(fault)

    # --- the panel side -------------------------------------------------------------------------------
    def _on_output(self, pin: int, level: int, t_s: float) -> None:
        """A button output changed (any thread): hand it to the loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._on_button, pin, level, t_s)

    def _on_button(self, pin: int, level: int, t_s: float) -> None:
        name, active_high = self._by_pin[pin]
        pressed = level == int(active_high)
        if pressed:
            self._pressed_at[name] = t_s
            if f"stuck:{name}" in self.faults:
                self.faults.remove(f"stuck:{name}")
                self.stuck.add(name)
                self.stats.faults.append(f"stuck:{name}")
                LOGGER.info("closed table: the %s contact sticks", name)
            return
        started = self._pressed_at.pop(name, None)
        if started is None:
            return  # a release without a press (the output set up released)
        if name in self.stuck:
            self.stats.ignored += 1  # the controller still sees the contact closed
            return
        if t_s - started < self.timing.min_press_s:
            self.stats.ignored += 1
            return
        if self._act(name):
            self.stats.presses[name] = self.stats.presses.get(name, 0) + 1
        else:
            self.stats.ignored += 1
        self._changed()

    def _act(self, name: str) -> bool:
        """One press the controller took; False when it ignores it in this state."""
        if name == "reset":  # the controller's reset: motion stops, the fault lamp goes out
            self.stuck.clear()
            self._cancel_motion()
            self._lamp("motor", False)
            self._lamp("fault", False)
            if self.state in ("fault", "building"):
                self.state = "idle"
            return True
        if name == "stop":
            if self.state == "building":
                self._cancel_motion()
                self._lamp("motor", False)
                self.state = "idle"
            return True
        if self.state == "fault":
            return False
        if name == "build" and self.state != "building":
            self.state = "building"
            self.stats.builds += 1
            self._lamp("ready", False)
            self._later(self.timing.start_delay_s, self._build_running)
            return True
        if name == "raise" and self.state == "built":
            self._lamp("motor", True)
            stuck = "lift_stuck" in self.faults
            if stuck:
                self.faults.remove("lift_stuck")
                self.stats.faults.append("lift_stuck")
            else:
                self._later(self.timing.raise_s, self._raised)
            return True
        if name == "dice" and self.state != "building":
            n = self._first_throw + self.dice_throws
            self.dice = (self.rng.randint(1, 6), self.rng.randint(1, 6)) if self._dice_of is None else self._dice_of(n)
            self.dice_throws += 1
            return True
        return False

    # --- motion ---------------------------------------------------------------------------------------
    def _build_running(self) -> None:
        self._lamp("motor", True)
        fault = next((f for f in self.faults if f in ("jam", "no_ready")), None)
        if fault is not None:
            self.faults.remove(fault)
            self.stats.faults.append(fault)
        if fault == "jam":
            self._later(self.timing.build_s * 0.4, self._jammed)
        else:
            self._later(self.timing.build_s, lambda: self._built(ready=fault is None))

    def _jammed(self) -> None:
        self._lamp("motor", False)
        self._lamp("fault", True)
        self.state = "fault"
        LOGGER.info("closed table: jam")
        self._changed()

    def _built(self, *, ready: bool) -> None:
        self._lamp("motor", False)
        if ready:
            self._lamp("ready", True)
            self.state = "built"
        else:
            self.state = "idle"  # the walls did not come up and the controller says nothing
        self._changed()

    def _raised(self) -> None:
        self._lamp("motor", False)
        self.state = "raised"
        self._changed()

    def _later(self, delay_s: float, fn: Callable[[], None]) -> None:
        assert self._loop is not None
        self._cancel_motion()
        self._motion = self._loop.call_later(delay_s, fn)

    def _cancel_motion(self) -> None:
        if self._motion is not None:
            self._motion.cancel()
            self._motion = None

    def _lamp(self, name: str, lit: bool) -> None:
        if name not in self.pins.lamps:
            return
        self.lamps[name] = lit
        pin, active_low = self.pins.lamps[name]
        self.backend.hold(pin, int(lit != active_low))

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def close(self) -> None:
        """Stop any motion in progress."""
        self._cancel_motion()


__all__ = ["FAULTS", "ClosedTablePins", "ClosedTableStats", "ClosedTableTiming", "SimulatedClosedTable"]
