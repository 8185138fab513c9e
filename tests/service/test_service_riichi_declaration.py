"""HKMA riichi: after an exhaustive draw a tenpai seat that has not declared riichi may say 「不聽」 by pressing *pass*
on its panel (002 L427, ``controller.engine.ext_riichi_tenpai``), from either entry path of a press: the GPIO panel
(``mjtable.service.parts.GpioPart``) and a button wired to the table MCU (``mjtable.service.mcu.McuPart``).  The
service resumes a journal that stands at the draw (the default settled every tenpai hand as declared); the next wall
is being built all along (the simulated MCU takes a minute), and the re-settled draw reaches the hand results the
organisers' records are built from."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.engine.effects import Rejected
from controller.engine.events import SessionStart, event_from_json
from controller.engine.ext_riichi_state import riichi_of
from controller.engine.state import Phase
from controller.journal import JournaledTable
from firmware_bridge.commands import Button
from firmware_bridge.session import LinkTiming, TableLink
from firmware_bridge.simulator import SimulatedMcu
from firmware_bridge.transport import Transport, memory_pair
from hw.fake import FakeBackend, FakeClock
from mjtable.config import DEFAULT_PINOUT, parse_config
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.records import game_records_from_events
from mjtable.service import Injected, TableService, build_service
from mjtable.service.notify import RecordingNotifier
from tests.riichi_records.games import PLAYERS, RULES, play
from tests.riichi_records.test_riichi_records_declaration import first_declarable_draw


def journal_at_the_draw(tmp: Path) -> tuple[float, int]:
    """A riichi journal (bot game, seed 2) up to its first exhaustive draw: (time of its last event, the dealer)."""
    events = play(2)
    at, _ = first_declarable_draw(events)
    start = event_from_json(events[0])
    assert isinstance(start, SessionStart)
    table = JournaledTable(tmp / "R1.journal.jsonl", start)
    try:
        for obj in events[1:at]:
            fx = table.submit(event_from_json(obj))
            assert not (fx and isinstance(fx[0], Rejected)), fx
        assert table.state.phase is Phase.HAND_OVER and table.state.hand is not None
        return float(events[at - 1]["at_s"]), table.state.hand.dealer
    finally:
        table.close()


class DrawTable:
    """The table service (riichi, full information) resumed at the draw, with a fake GPIO panel and the table MCU
    simulated in process (real codec and link; its build takes 60 s, so the hand stays over)."""

    def __init__(self, tmp: Path, broker: MemoryBroker, now_s: float) -> None:
        cfg = parse_config({"table": {"id": "R1", "data_dir": str(tmp), "rules": RULES, "information": "full",
                                      "players": list(PLAYERS)},
                            "serial": {"port": ""}, "camera": {"source": "none"}, "gpio": {"backend": "none"}})
        self.gpio = FakeBackend(FakeClock())
        self.sim: SimulatedMcu | None = None
        self._sims: list[asyncio.Task[None]] = []
        self.service: TableService = build_service(cfg, Injected(
            notifier=RecordingNotifier(), publisher=FakePublisher(broker), gpio_backend=self.gpio,
            clock=lambda: now_s, mcu_link=self._link, link_timing=LinkTiming(connect_timeout_s=5.0)))
        self.taken = 0
        self.service.listeners.append(lambda ev, st, fx: self._took())
        self._run: asyncio.Task[None] | None = None

    def _link(self) -> TableLink:
        host, device = memory_pair()
        self.sim = SimulatedMcu(device, rng=random.Random(4), build_s=60.0, boot_s=0.01)
        self._sims.append(asyncio.get_running_loop().create_task(self.sim.run()))

        async def factory() -> Transport:
            return host

        return TableLink(factory, timing=LinkTiming(connect_timeout_s=5.0))

    def _took(self) -> None:
        self.taken += 1

    async def __aenter__(self) -> DrawTable:
        self._run = asyncio.create_task(self.service.run())
        await self.service.ready.wait()
        await self._until(lambda: self.service.gpio is not None and self.service.gpio.panel is not None
                          and self.service.mcu is not None and self.service.mcu.busy("shuffle_and_build"),
                          "the panel, the MCU link and the next build")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.service.stop()
        assert self._run is not None
        await self._run
        self.service.table.close()
        for task in self._sims:
            task.cancel()
        await asyncio.gather(*self._sims, return_exceptions=True)

    async def _until(self, pred: Callable[[], bool], what: str) -> None:
        for _ in range(1000):
            if pred():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}")

    async def panel(self, seat: int, button: str) -> None:
        pins = DEFAULT_PINOUT.seats[seat]
        n = self.taken + 1
        await asyncio.to_thread(self.gpio.press, pins.call if button == "call" else pins.pass_ready, 0.1)
        await self._until(lambda: self.taken >= n, f"seat {seat}'s {button} from the panel")

    async def mcu(self, seat: int, button: Button) -> None:
        assert self.sim is not None
        n = self.taken + 1
        self.sim.press_button(seat, button)
        await self._until(lambda: self.taken >= n, f"seat {seat}'s {button.name} from the MCU")

    def tenpai(self) -> tuple[bool, ...]:
        ext = riichi_of(self.service.state.hand)
        assert ext is not None and ext.tenpai is not None
        return ext.tenpai


async def test_noten_is_declared_from_the_gpio_panel_and_from_mcu_buttons(tmp_path: Path) -> None:
    now, dealer = journal_at_the_draw(tmp_path)
    broker = MemoryBroker()
    gpio_seat, mcu_seat = [s for s in range(4) if s != dealer][:2]
    async with DrawTable(tmp_path, broker, now) as table:
        state = table.service.state
        assert state.phase is Phase.HAND_OVER and table.tenpai() == (True, True, True, True)
        assert state.history[-1].payments == (0, 0, 0, 0)  # everybody tenpai: nobody pays
        await table.panel(gpio_seat, "pass")
        assert table.tenpai()[gpio_seat] is False, "the GPIO panel's pass is 「不聽」"
        await table.mcu(mcu_seat, Button.PASS)
        assert table.tenpai()[mcu_seat] is False, "the MCU button's pass is 「不聽」"
        state = table.service.state
        assert state.phase is Phase.HAND_OVER
        settled = state.history[-1].payments
        noten = {gpio_seat, mcu_seat}
        assert settled == tuple(1500 if s not in noten else -1500 for s in range(4))  # L429-L433
    events = [json.loads(m.payload) for m in broker.messages("mjtable/v1/table/R1/events")]
    presses = [(e["data"]["seat"], e["data"]["button"]) for e in events if e["type"] == "button"]
    assert presses == [(gpio_seat, "pass"), (mcu_seat, "pass")]
    (record,) = game_records_from_events(events)
    assert record["hands"][-1]["payments"] == list(settled)  # the records hold the final settlement
    results: list[Any] = [e for e in events if e["type"] == "hand_result"]
    assert results[-1]["data"]["result"]["payments"] == list(settled)
