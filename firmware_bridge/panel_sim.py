"""Wire a :class:`hw.closed_table.SimulatedClosedTable` to the pins of a :class:`PanelTableConfig`, so the
simulated table sits exactly where the adapter expects the real one (demo and tests)."""

from __future__ import annotations

import random

from firmware_bridge.panel_config import PanelTableConfig
from hw.closed_table import ClosedTablePins, ClosedTableTiming, SimulatedClosedTable
from hw.fake import FakeBackend


def closed_table_pins(config: PanelTableConfig) -> ClosedTablePins:
    """The simulated table's view of the adapter's pin map."""
    return ClosedTablePins(buttons={b.name: (b.pin, b.active_high) for b in config.buttons},
                           lamps={s.name: (s.pin, s.active_low) for s in config.signals})


def simulated_closed_table(backend: FakeBackend, config: PanelTableConfig, timing: ClosedTableTiming | None = None,
                           rng: random.Random | None = None) -> SimulatedClosedTable:
    """A simulated closed table on ``backend`` wired as ``config`` says (call ``start(loop)`` on it)."""
    return SimulatedClosedTable(backend, closed_table_pins(config), timing, rng)


__all__ = ["closed_table_pins", "simulated_closed_table"]
