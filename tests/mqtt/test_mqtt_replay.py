"""Hawk-eye replay: a real journal from a simulated session, folded by the engine, served and exported."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mjtable.replay_server import ReplayError, export_html, load_replay, make_server

sim = pytest.importorskip("controller.engine.simulate")
journal_mod = pytest.importorskip("controller.journal")

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                    "0000000d4944415478da63f8cfc0f01f00050001ff8a2d0b6e0000000049454e44ae426082")


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("journal") / "T1.jsonl"
    j = journal_mod.Journal(path)

    def sink(ev: Any, state: Any, fx: Any) -> None:
        j.append(journal_mod.Record("event", state.seq, ev.to_json()))

    sim.SimRun(seed=11, hands_total=2, sink=sink).play()
    j.close()
    return path


def test_load_replay_groups_hands_and_marks_calls_and_wins(journal: Path) -> None:
    records, _ = journal_mod.read_records(journal)
    discard = next(r.event for r in records if r.event.get("type") == "discard")
    snaps = journal.parent / f"{journal.name}.snapshots"
    snaps.mkdir(exist_ok=True)
    (snaps / f"{discard['id']}.png").write_bytes(PNG)
    rep = load_replay(journal)
    assert len(rep.steps) == len(records)
    assert [h["result"] is not None for h in rep.hands] == [True, True]
    assert rep.hands[0]["first"] == 0 and rep.hands[1]["first"] == rep.hands[0]["last"] + 1
    # one numbering (issue 17 pt 3): every step of the k-th hand reads "hand k", 1-based, as the display does
    assert [h["hand_no"] for h in rep.hands] == [1, 2]
    for h in rep.hands:
        assert {s.view["session"]["hand_no"] for s in rep.steps[h["first"]:h["last"] + 1]} == {h["hand_no"]}
    assert any(s.mark in ("win", "result") for s in rep.steps)
    snap = [s for s in rep.steps if s.snapshot is not None]
    assert [s.event["id"] for s in snap] == [discard["id"]]
    k = next(h["index"] for h in rep.hands if h["first"] <= rep.steps.index(snap[0]) <= h["last"])
    html = export_html(rep, k).decode()
    assert "window.REPLAY_DATA" in html and "data:image/png;base64," in html
    assert 'src="replay.js"' not in html and 'href="style.css"' not in html  # self-contained
    assert 'src="dom.js"' not in html and "function el(" in html  # the shared DOM helper inlined too
    with pytest.raises(ReplayError, match="no journal"):
        load_replay(journal.parent / "missing.jsonl")
    bad = journal.parent / "bad.jsonl"
    bad.write_text('{"rec":"event","n":1,"event":{"type":"discard","id":"x","at_s":1,"seat":0,"tile":"5p"}}\n')
    with pytest.raises(ReplayError, match="session_start"):
        load_replay(bad)


def test_replay_server_api(journal: Path) -> None:
    rep = load_replay(journal)
    server = make_server(rep, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        meta = json.loads(urllib.request.urlopen(f"{base}/api/meta").read())
        assert meta["steps"] == len(rep.steps) and meta["players"] == ["P1", "P2", "P3", "P4"]
        hand = json.loads(urllib.request.urlopen(f"{base}/api/hand/1").read())
        assert hand["hand"]["index"] == 1
        assert hand["steps"][0]["view"]["schema"] == "mjtable.referee_state/1"
        with urllib.request.urlopen(f"{base}/export/1") as resp:
            assert "attachment" in resp.headers["Content-Disposition"]
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/api/hand/99")
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def browser() -> Iterator[Any]:
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip("Debian chromium and chromium-driver are needed")
    from selenium import webdriver

    profile = tempfile.mkdtemp(prefix="mjt-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=DRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_replay_page_steps_jumps_and_exported_file_opens_offline(journal: Path, browser: Any,
                                                                 tmp_path: Path) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    rep = load_replay(journal)
    server = make_server(rep, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/")
        wait = WebDriverWait(browser, 20, ignored_exceptions=[StaleElementReferenceException])
        wait.until(lambda d: d.find_element(By.ID, "step-label").text.startswith("step 1/"))
        browser.find_element(By.ID, "next").click()
        wait.until(lambda d: d.find_element(By.ID, "step-label").text.startswith("step 2/"))
        browser.find_element(By.ID, "next-win").click()
        wait.until(lambda d: d.find_element(By.ID, "event").get_attribute("data-mark") in ("win", "result"))
        wait.until(lambda d: d.find_elements(By.ID, "result-head"))
    finally:
        server.shutdown()
        server.server_close()
    k = next(h["index"] for h in rep.hands if h["result"] is not None)
    exported = tmp_path / "hand.html"
    exported.write_bytes(export_html(rep, k))
    browser.get(exported.as_uri())
    wait = WebDriverWait(browser, 20, ignored_exceptions=[StaleElementReferenceException])
    wait.until(lambda d: d.find_element(By.ID, "step-label").text.startswith("step 1/"))
    browser.find_element(By.ID, "last").click()
    wait.until(lambda d: d.find_elements(By.ID, "result-head"))
    assert browser.find_elements(By.CSS_SELECTOR, "#pond-0 .tile")


def test_mjtable_replay_serve_command(journal: Path) -> None:
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "mjtable.cli", "replay", str(journal), "--serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            cwd=Path(__file__).resolve().parents[2])
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["event"] == "replay_serving" and first["hands"] == 2
        meta = json.loads(urllib.request.urlopen(first["url"] + "api/meta").read())
        assert meta["journal"] == journal.name
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    assert proc.returncode == 0
