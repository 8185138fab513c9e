"""Wire a :class:`hw.closed_table.SimulatedClosedTable` to the pins of a :class:`PanelTableConfig`, so the
simulated table sits exactly where the adapter expects the real one (demo and tests)."""

from __future__ import annotations

import functools
import random

from firmware_bridge.panel_config import PanelTableConfig
from firmware_bridge.simulator import seeded_dice
from hw.closed_table import ClosedTablePins, ClosedTableTiming, SimulatedClosedTable
from hw.fake import FakeBackend


def closed_table_pins(config: PanelTableConfig) -> ClosedTablePins:
    """The simulated table's view of the adapter's pin map."""
    return ClosedTablePins(buttons={b.name: (b.pin, b.active_high) for b in config.buttons},
                           lamps={s.name: (s.pin, s.active_low) for s in config.signals})


def simulated_closed_table(backend: FakeBackend, config: PanelTableConfig, timing: ClosedTableTiming | None = None,
                           rng: random.Random | None = None, *, dice_seed: int | None = None,
                           first_throw: int = 0) -> SimulatedClosedTable:
    """A simulated closed table on ``backend`` wired as ``config`` says (call ``start(loop)`` on it).  With
    ``dice_seed`` its n-th throw is ``seeded_dice(dice_seed, n)``, as on the MCU simulator, starting at
    ``first_throw``."""
    dice = None if dice_seed is None else functools.partial(seeded_dice, dice_seed)
    return SimulatedClosedTable(backend, closed_table_pins(config), timing, rng, dice=dice, first_throw=first_throw)


__all__ = ["closed_table_pins", "simulated_closed_table"]
