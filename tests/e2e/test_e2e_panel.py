"""A whole simulated session through the panel adapter (``mjtable demo --table panel``): the real service drives a
simulated closed table on the fake GPIO backend through ``PanelTable``.  Each panel fault (a stuck build button,
a jam, no ready lamp within the timeout) reaches the engine as an ``mcu_fault`` as the serial faults do, pauses
the game, is cleared on the table through ``clear_fault`` and resumed by the referee over MQTT; the dice the
panel cannot read are entered by the referee (``dice`` command) and the session ends normally."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from mjtable.broker import LocalMosquitto
from mjtable.demo.stack import DemoOptions, DemoStack


def test_a_session_through_the_panel_with_every_fault(mosquitto: LocalMosquitto, tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = []
    opts = DemoOptions(seed=2, hands=1, build_s=0.2, camera="direct", run_dir=tmp_path, display_port=-1,
                       broker=f"127.0.0.1:{mosquitto.port}", table="panel", table_link="panel",
                       panel_faults=["stuck:build", "jam", "no_ready"])
    stack = DemoStack(opts, lines.append)
    stack.start()
    try:
        summary = asyncio.run(stack.play())
    finally:
        stack.close()
    assert summary["ok"] and summary["hands"] == 1, summary
    assert lines[0]["event"] == "started" and lines[0]["table"] == "panel" and lines[0]["mcu_pty"] is None
    assert summary["panel_faults"] == ["stuck:build", "jam", "no_ready"]
    assert summary["panel_builds"] == 3  # the stuck press never started one; jam, no ready, then the good one
    journal = [json.loads(x)["event"] for x in (tmp_path / "panel.journal.jsonl").read_text().splitlines()]
    faults = [e["code"] for e in journal if e["type"] == "mcu_fault"]
    for code in ("sensor_fault", "jam", "lift_timeout"):
        assert code in faults, faults
    resumes = [e for e in journal if e["type"] == "referee" and e["command"] == "resume"]
    assert resumes and all(e["id"].startswith("cmd:demo-") for e in resumes)  # came through MQTT
    types = [e["type"] for e in journal]
    assert types.index("mcu_fault") < types.index("referee") < types.index("table_built")
    dice = [e for e in journal if e["type"] == "dice_rolled"]
    assert len(dice) == 2 and all(e["source"] == "referee" and e["id"].startswith("cmd:demo-dice") for e in dice)
    assert summary["dice_throws"] == 2


def test_demo_arguments_table_kind_and_table_id() -> None:
    import argparse

    import pytest

    from mjtable.demo import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--table", "panel", "--table-id", "T7", "--panel-fault", "jam"])
    assert (args.table, args.table_id, args.panel_fault) == ("panel", "T7", ["jam"])
    assert parser.parse_args([]).table == "serial"
    with pytest.raises(SystemExit):  # the table id moved to --table-id: an old "--table T7" is a usage error
        parser.parse_args(["--table", "T7"])
