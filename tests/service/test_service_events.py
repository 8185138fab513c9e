"""What the service puts on the public event stream: never a concealed tile."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from controller.engine.effects import Alert
from controller.engine.events import ButtonPressed, ConcealedKong, Discard, TableBuilt
from hw.fake import FakeBackend, FakeClock
from hw.panel import TablePanel
from mjtable.config import DEFAULT_PINOUT
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.service.events_out import public_event
from mjtable.service.health import Health
from mjtable.service.parts import GpioPart
from mjtable.service.ports import ServicePublisher

FACES = tuple(f"{n}p" for n in range(1, 10)) * 16


def test_hidden_tiles_never_reach_public_events() -> None:
    assert public_event(ConcealedKong(id="a", at_s=1.0, seat=2, tile="5p"), ()) == [("concealed_kong", {"seat": 2})]
    assert public_event(TableBuilt(id="b", at_s=1.0, tiles=FACES), ()) == [("table_built", {})]
    assert public_event(Discard(id="c", at_s=1.0, seat=1, tile="7s"), ()) == [("discard", {"seat": 1, "tile": "7s"})]
    secret = Alert(id="al1", kind="camera_mismatch", message="camera sees 5m, seat 1 holds 5m 6m 7m",
                   data={"seat": 1, "tiles": ["5m"]})
    assert public_event(Discard(id="d", at_s=1.0, seat=1, tile="7s"), (secret,)) == [
        ("discard", {"seat": 1, "tile": "7s"}), ("alert", {"id": "al1", "kind": "camera_mismatch", "seat": 1})]


def test_service_publisher_ids_are_deterministic_per_seq() -> None:
    broker = MemoryBroker()
    pub = FakePublisher(broker)
    channel = TableChannel("T1", pub, clock=lambda: 5.0, game_id="T1-5", validate=False)
    sp = ServicePublisher(channel, asyncio.Event())
    sp.publish_events([("discard", {"seat": 0, "tile": "1m"})], seq=17, ts_s=5.0)
    asyncio.run(sp.publish_effect({"type": "alert", "id": "al-1", "kind": "timer_zero", "message": "seat 2 holds 5m",
                                   "data": {"seat": 2}}))
    asyncio.run(sp.publish_effect({"type": "rejected", "event_id": "e9", "reason": "not_held",
                                   "message": "seat 2 does not hold 4p"}))
    sent = [json.loads(m.payload) for m in broker.messages("mjtable/v1/table/T1/events")]
    assert [d["id"] for d in sent] == ["T1-5:17:0", "T1-5:0:fx1"]
    assert sent[1]["data"]["kind"] == "timer_zero" and "5m" not in json.dumps(sent[1])  # redacted in public
    referee = [json.loads(m.payload) for m in broker.messages("mjtable/v1/table/T1/referee/events")]
    assert [(d["type"], d["id"]) for d in referee] == [("alert", "T1-5:0:fx1:referee"),
                                                       ("rejected", "T1-5:0:fx2:referee")]
    assert referee[1]["data"]["message"] == "seat 2 does not hold 4p"  # in full, for the referee only


async def test_pass_button_means_ready_between_hands(tmp_path: Path) -> None:
    """*pass* is *ready* while the wall is built (and the dice, the flowers), but a seat's own word once a hand is
    over: HKMA riichi's 「不聽」 after an exhaustive draw (tests/service/test_service_riichi_declaration.py)."""
    fake = FakeBackend(FakeClock())
    emitted: list[dict[str, Any]] = []
    phase = ["building"]
    part = GpioPart(lambda: TablePanel(fake, DEFAULT_PINOUT), lambda cls, **f: emitted.append({"cls": cls, **f}),
                    Health(None, clock=lambda: 0.0), lambda: phase[0])
    task = asyncio.create_task(part.run())
    for _ in range(100):
        if part.panel is not None:
            break
        await asyncio.sleep(0)

    async def until(n: int) -> None:
        for _ in range(100):
            if len(emitted) >= n:
                return
            await asyncio.sleep(0)

    fake.press(DEFAULT_PINOUT.seats[1].pass_ready, 0.1)
    await until(1)
    phase[0] = "claims"
    fake.press(DEFAULT_PINOUT.seats[2].pass_ready, 0.1)
    fake.press(DEFAULT_PINOUT.seats[3].call, 0.1)
    await until(3)
    phase[0] = "hand_over"
    fake.press(DEFAULT_PINOUT.seats[0].pass_ready, 0.1)
    await until(4)
    assert [(e["cls"], e["seat"], e["button"]) for e in emitted] == [
        (ButtonPressed, 1, "ready"), (ButtonPressed, 2, "pass"), (ButtonPressed, 3, "call"),
        (ButtonPressed, 0, "pass")]
    part.set_led(3, True)
    assert fake.history[DEFAULT_PINOUT.seats[3].led][-1][1] == 1
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
