"""The demo stack plays one hand of every rulebook family through the real service (Sichuan's 定缺 phase and
riichi declarations included); scores of the hand sum to zero."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mjtable.broker import LocalMosquitto
from mjtable.demo.stack import DemoOptions, DemoStack


@pytest.mark.parametrize("rules", ["mcr-2017", "sichuan-sbr-2025", "riichi-hkma-2025"])
def test_one_hand_of_each_rulebook(mosquitto: LocalMosquitto, tmp_path: Path, rules: str) -> None:
    lines: list[dict[str, Any]] = []
    opts = DemoOptions(rules=rules, seed=3, hands=1, build_s=0.2, camera="direct", run_dir=tmp_path,
                       display_port=-1, broker=f"127.0.0.1:{mosquitto.port}", table="rules", recorder=False)
    stack = DemoStack(opts, lines.append)
    stack.start()
    try:
        summary = asyncio.run(stack.play())
    finally:
        stack.close()
    assert summary["ok"] and summary["hands"] == 1 and summary["events_rejected"] == 0, summary
    assert summary["stalls"] == 0 and summary["rules"] == rules
    (hand,) = [ln for ln in lines if ln["event"] == "hand"]
    assert sum(hand["scores"]) == 0
