"""A table fault during the demo: the MCU simulator resets in the middle of the first shuffle; the service
reports one fault and pauses, the (demo) referee resumes over MQTT, the table builds again and the hand is
played to the end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from mjtable.broker import LocalMosquitto
from mjtable.demo.stack import DemoOptions, DemoStack


def test_reset_mid_shuffle_then_referee_resume_over_mqtt(mosquitto: LocalMosquitto, tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = []
    opts = DemoOptions(seed=4, hands=1, build_s=0.4, camera="direct", run_dir=tmp_path, display_port=-1,
                       broker=f"127.0.0.1:{mosquitto.port}", table="fault",
                       mcu_control=[{"op": "reset_during_build"}])
    stack = DemoStack(opts, lines.append)
    stack.start()
    try:
        summary = asyncio.run(stack.play())
    finally:
        stack.close()
    assert summary["ok"] and summary["hands"] == 1, summary
    assert summary["referee_commands"] >= 1
    journal = [json.loads(x)["event"] for x in (tmp_path / "fault.journal.jsonl").read_text().splitlines()]
    types = [e["type"] for e in journal]
    assert types.count("mcu_fault") == 1
    resume = next(e for e in journal if e["type"] == "referee")
    assert resume["command"] == "resume" and resume["id"].startswith("cmd:demo-")  # came through MQTT
    assert types.index("mcu_fault") < types.index("referee") < types.index("table_built")
    assert lines[0] == {"event": "mcu_control", "command": {"op": "reset_during_build"},
                        "reply": {"ok": True, "op": "reset_during_build"}}
