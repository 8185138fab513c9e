"""The organisers' penalty sheet (处罚记录表) holds every infraction of the session with its final status, whatever
restarts happened: the ``game_end`` event it is built from carried only the infractions the channel had seen in the
public states of its own process, and a state lists the last 20 (``controller.views.RECENT``), so after a restart
the older ones were missing, and a waive or confirm of one older than the last 20 never reached the sheet (the
scores changed).

The table service runs as ``mjtable run`` builds it (``build_service``: the journal, the outbox ledger, the paho
publisher) with its broker out of reach, so every public event stays in the outbox in the order a broker would get
it; the referee's commands come in as MQTT commands do (``emit_json``).  The service is stopped and started again
on the same files in the middle of the session."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

from mjtable.config import Config, parse_config
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.topics import TableTopics
from mjtable.records import game_records_from_events, penalty_sheet_csv
from mjtable.service import Injected, TableService, build_service
from mjtable.service.notify import RecordingNotifier

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
T0 = 1_767_225_600.0
NOTE = "kept talking about 5p"  # a referee's own words: never on a public topic


def config(tmp: Path) -> Config:
    return parse_config({"table": {"id": "P1", "data_dir": str(tmp), "rules": "mcr-2006", "players": PLAYERS},
                         "serial": {"port": ""}, "camera": {"source": "none"}, "gpio": {"backend": "none"},
                         "mqtt": {"host": "127.0.0.1", "port": 1}})  # nothing listens on port 1: the outbox keeps all


async def referee(service: TableService, n: int, command: str, **fields: Any) -> None:
    """One referee command through the service's inbox; it must be accepted."""
    done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
    service.emit_json({"type": "referee", "id": f"cmd-{command}-{n}", "at_s": T0 + n, "command": command,
                       **fields}, done.set_result)
    assert await asyncio.wait_for(done, 10) is None, (command, fields)


async def session_part(cfg: Config, commands: list[tuple[str, dict[str, Any]]], first: int) -> None:
    """Start the service (a new session, or the journal's), give it ``commands``, stop it."""
    service = build_service(cfg, Injected(notifier=RecordingNotifier(), clock=lambda: T0))
    run = asyncio.create_task(service.run())
    try:
        await service.ready.wait()
        for k, (command, fields) in enumerate(commands, first):
            await referee(service, k, command, **fields)
    finally:
        service.stop()
        await run
        assert service.mqtt is not None
        service.mqtt.publisher.close()  # and its outbox, as ``mjtable run`` does
        service.table.close()


def penalties(first: int, n: int) -> list[tuple[str, dict[str, Any]]]:
    """``n`` referee penalties, 1 to 4 points, round the seats."""
    return [("apply_penalty", {"seat": k % 4, "points": 1 + k % 4, "reason": NOTE}) for k in range(first, first + n)]


async def test_the_penalty_sheet_has_every_infraction_with_its_last_status_across_a_restart(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    await session_part(cfg, penalties(0, 25), 0)
    later = [*penalties(25, 5),
             ("waive_penalty", {"infraction_id": "inf-1"}),  # older than the last 20 the state shows
             ("waive_penalty", {"infraction_id": "inf-2"}), ("confirm_penalty", {"infraction_id": "inf-2"}),
             ("end_session", {})]
    await session_part(cfg, later, 100)

    ledger = Outbox(cfg.table.data_dir / "P1.outbox.sqlite")
    try:
        topics = TableTopics("P1")
        public = [m for m in ledger.pending() if m.topic in topics.public_topics()]
        events = [json.loads(m.payload) for m in public if m.topic == topics.events]
    finally:
        ledger.close()
    assert all(NOTE.encode() not in m.payload for m in public)
    (end,) = [e for e in events if e["type"] == "game_end"]
    infractions = end["data"]["infractions"]
    assert [i["id"] for i in infractions] == [f"inf-{k}" for k in range(1, 31)]
    assert end["data"]["infractions_total"] == 30
    status = {i["id"]: i["status"] for i in infractions}
    assert status.pop("inf-1") == "waived" and set(status.values()) == {"applied"}
    assert all(i["player"] == PLAYERS[i["seat"]] and i["message"] == "penalty by the referee" for i in infractions)
    deducted = [sum(1 + k % 4 for k in range(30) if k % 4 == seat and k != 0) for seat in range(4)]
    assert end["data"]["scores"] == [-d for d in deducted]

    (record,) = game_records_from_events(events)
    rows = list(csv.DictReader(io.StringIO(penalty_sheet_csv(record))))
    assert len(rows) == 30
    assert [r["player 姓名"] for r in rows] == [PLAYERS[k % 4] for k in range(30)]
    assert rows[0]["penalty 处罚方法"] == "1 points (waived)"
    assert rows[1]["penalty 处罚方法"] == "2 points (applied)" and rows[29]["penalty 处罚方法"] == "2 points (applied)"
