"""HKMA riichi: after an exhaustive draw a tenpai seat that has not declared riichi may say 「不聽」 by pressing *pass*
on its panel (002 L427, ``controller.engine.ext_riichi_tenpai``), from either entry path of a press: the GPIO panel
(``mjtable.service.parts.GpioPart``) and a button wired to the table MCU (``mjtable.service.mcu.McuPart``).  The
service resumes a journal that stands at the draw (the default settled every tenpai hand as declared); the next wall
is being built all along (the simulated MCU takes a minute), and the re-settled draw reaches the hand results the
organisers' records are built from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.engine.effects import Rejected
from controller.engine.events import SessionStart, event_from_json
from controller.engine.ext_riichi_state import riichi_of
from controller.engine.state import Phase
from controller.journal import JournaledTable
from firmware_bridge.commands import Button
from mjtable.config import parse_config
from mjtable.mqtt.fake import MemoryBroker
from mjtable.records import game_records_from_events
from tests.riichi_records.games import PLAYERS, RULES, play
from tests.riichi_records.test_riichi_records_declaration import first_declarable_draw
from tests.service.panel_table import PanelTable


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


class DrawTable(PanelTable):
    """The table service (riichi, full information) resumed at the draw, with a fake GPIO panel and the table MCU
    simulated in process (real codec and link; its build takes 60 s, so the hand stays over)."""

    ready_what = "the panel, the MCU link and the next build"

    def __init__(self, tmp: Path, broker: MemoryBroker, now_s: float) -> None:
        cfg = parse_config({"table": {"id": "R1", "data_dir": str(tmp), "rules": RULES, "information": "full",
                                      "players": list(PLAYERS)},
                            "serial": {"port": ""}, "camera": {"source": "none"}, "gpio": {"backend": "none"}})
        super().__init__(cfg, broker, build_s=60.0, clock=lambda: now_s)

    def ready(self) -> bool:
        return super().ready() and self.service.mcu is not None and self.service.mcu.busy("shuffle_and_build")

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
