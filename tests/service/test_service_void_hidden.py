"""Sichuan 定缺 from the seat panels never reaches a public topic (docs/sichuan.md): *call* steps a seat's hidden
choice m -> p -> s, so counting a seat's *call* presses, or the steps they cost the engine, would tell everyone its
missing suit before the simultaneous reveal (L346-L348).  Two tables whose players press *call* a different number
of times (other choices, other engine seqs) must publish the same bytes on every public topic until the reveal,
through both entry paths of a press (the GPIO panel and the table MCU), across a restart of the service, and when
a resumed service publishes again what its journal holds and its outbox never recorded."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from controller.engine.effects import Rejected
from controller.engine.events import ButtonPressed, SessionStart, event_from_json
from controller.engine.state import Phase
from controller.journal import JournaledTable
from firmware_bridge.commands import Button
from mjtable.config import parse_config
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.topics import TableTopics
from mjtable.service.events_out import public_event
from mjtable.service.ports import ServicePublisher, published_key, republish_unconfirmed
from tests.engine_sichuan.table_helpers import DICE, Table, stacked_wall
from tests.service.panel_table import PanelTable

R = "sichuan-sbr-2025"
T0 = 1_767_225_600.0
WALL = stacked_wall(R, {})
#: what the public may see of a table, live and through the delayed spectator mirror (status carries no play)
PLAY_TOPICS = tuple(t for t in TableTopics("V1").public_topics() if not t.endswith("/status"))


def test_void_call_presses_publish_no_event_and_the_commit_only_that_it_was_made() -> None:
    t = Table(R)
    t.build(WALL)
    assert t.phase() is Phase.VOID
    published = []
    for button in ("call", "call", "pass"):  # m, p, then put down
        before = t.state
        t.ok({"type": "button", "seat": 2, "button": button})
        published.append(public_event(event_from_json(t.events[-1]), (), before))
    assert published == [[], [], [("button", {"seat": 2, "button": "pass"})]]  # as public as void_chosen
    for seat in (0, 1, 3):
        t.ok({"type": "button", "seat": seat, "button": "call"})
        t.ok({"type": "button", "seat": seat, "button": "pass"})
    assert t.phase() is Phase.TURN  # turned up: a *call* press is public again (claims, riichi)
    press = ButtonPressed(id="later", at_s=T0 + 60, seat=1, button="call")
    assert public_event(press, (), t.state) == [("button", {"seat": 1, "button": "call"})]


class VoidTable(PanelTable):
    """One table service (Sichuan) with the table MCU simulated in process (real codec and link, the stacked wall
    read off it) and a fake GPIO panel, publishing to ``broker``; every press is waited for until the engine took it."""

    ready_what = "the deal, the panel and the MCU link"

    def __init__(self, tmp: Path, broker: MemoryBroker) -> None:
        cfg = parse_config({"table": {"id": "V1", "data_dir": str(tmp), "rules": R, "information": "full"},
                            "serial": {"port": ""}, "camera": {"source": "none"}, "gpio": {"backend": "none"}})
        super().__init__(cfg, broker, build_s=0.05, clock=lambda: T0, wall_reader=lambda build_id: WALL)

    def ready(self) -> bool:
        return super().ready() and self.service.state.phase is Phase.VOID


def _public(broker: MemoryBroker) -> list[tuple[str, bytes]]:
    return [(m.topic, m.payload) for m in broker.log if m.topic in PLAY_TOPICS]


async def _void_phase(tmp: Path, calls: dict[int, int], *, restart: bool) -> tuple[list[tuple[str, bytes]], Any]:
    """Seat 2 picks on its GPIO panel, seat 1 on MCU buttons (``calls`` *call* presses each), both put their
    choice down; optionally the service is restarted while seat 1 has pressed *call* but not put it down."""
    broker = MemoryBroker()
    async with VoidTable(tmp, broker) as table:
        for _ in range(calls[2]):
            await table.panel(2, "call")
        await table.panel(2, "pass")
        for _ in range(calls[1]):
            await table.mcu(1, Button.CALL)
        if not restart:
            await table.mcu(1, Button.PASS)
    if restart:
        async with VoidTable(tmp, broker) as table:
            assert table.service.table.resumed and table.service.state.phase is Phase.VOID
            await table.mcu(1, Button.PASS)
    state = json.loads(broker.retained["mjtable/v1/table/V1/state"])
    referee = json.loads(broker.retained["mjtable/v1/table/V1/referee/state"])
    return _public(broker), (state, referee)


@pytest.mark.parametrize("restart", [False, True])
async def test_how_often_a_seat_pressed_call_is_not_public(tmp_path: Path, restart: bool) -> None:
    one, (state, referee) = await _void_phase(tmp_path / "a", {2: 1, 1: 2}, restart=restart)  # m and p
    other, (_, referee_b) = await _void_phase(tmp_path / "b", {2: 2, 1: 4}, restart=restart)  # p and m
    assert referee["sichuan"]["voids"] == [None, "p", "m", None] and referee_b["sichuan"]["voids"][1:3] == ["m", "p"]
    assert state["sichuan"]["voids"] == [None] * 4 and state["sichuan"]["void_chosen"] == [False, True, True, False]
    events = [json.loads(p) for topic, p in one if topic == "mjtable/v1/table/V1/events"]
    assert [e["type"] for e in events][:3] == ["mcu_link", "table_built", "dice_rolled"]
    assert [(e["type"], e["data"]) for e in events if e["type"] == "button"] == [  # that a seat put its choice down
        ("button", {"seat": 2, "button": "pass"}), ("button", {"seat": 1, "button": "pass"})]  # is public
    assert one == other  # byte for byte: events, states (their seq too), timers, and the spectator mirror


def _journal(tmp: Path, calls: int) -> JournaledTable:
    """A table's journal: built, seat 2 pressed *call* ``calls`` times and put its choice down, seat 1 chose."""
    table = JournaledTable(tmp / "V1.journal.jsonl", SessionStart(id="s", at_s=T0, table_id="V1", rules=R,
                                                                  mode="full"))
    events: list[dict[str, Any]] = [{"type": "table_built", "tiles": list(WALL), "dice": [list(d) for d in DICE]}]
    events += [{"type": "button", "seat": 2, "button": "call"}] * calls
    events += [{"type": "button", "seat": 2, "button": "pass"}, {"type": "void", "seat": 1, "suit": "s"},
               {"type": "referee", "command": "pause"}]
    for k, obj in enumerate(events):
        fx = table.submit(event_from_json({"id": f"e{k}", "at_s": T0 + k, **obj}))
        assert not (fx and isinstance(fx[0], Rejected)), fx
    assert table.state.phase is Phase.VOID
    return table


@pytest.mark.parametrize("calls", [1, 2])
def test_events_published_again_after_a_resume_keep_their_public_ids(tmp_path: Path, calls: int) -> None:
    """The outbox recorded the public events up to the wall; the rest are published again from the journal with
    the ids the live table gives them (seat 2's *call* presses counted in no id)."""
    table = _journal(tmp_path, calls)
    ledger = Outbox(tmp_path / "outbox.sqlite")
    broker = MemoryBroker()
    try:
        channel = TableChannel("V1", FakePublisher(broker), clock=lambda: T0, game_id="g", ledger=ledger)
        built = next(r.n for r in table.journal.records if r.event["type"] == "table_built")
        ledger.mark_published("g", {published_key("g"): str(built)}, prunable="none")
        republish_unconfirmed(table, ServicePublisher(channel, asyncio.Event()))
    finally:
        ledger.close()
        table.close()
    sent = [json.loads(m.payload) for m in broker.messages("mjtable/v1/table/V1/events")]
    assert [(e["id"], e["type"], e["data"]) for e in sent] == [
        (f"g:{built + 1}:0", "button", {"seat": 2, "button": "pass"}),
        (f"g:{built + 3}:0", "referee", {"command": "pause"})]
