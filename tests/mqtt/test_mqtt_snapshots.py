"""Camera snapshots written by :class:`mjtable.snapshots.SnapshotStore` and shown by the hawk-eye replay."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from mjtable.replay_server import export_html, load_replay, make_server
from mjtable.snapshots import SnapshotError, SnapshotStore

sim = pytest.importorskip("controller.engine.simulate")
journal_mod = pytest.importorskip("controller.journal")


def frame(seed: int, w: int = 1600, h: int = 1200) -> np.ndarray:
    """A camera-sized BGR frame: green cloth, a few tile-like rectangles, sensor noise."""
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (40, 110, 30)
    for k in range(12):
        x, y = 100 + 110 * k, 300 + 40 * (k % 3)
        cv2.rectangle(img, (x, y), (x + 80, y + 110), (235, 235, 230), -1)
        cv2.putText(img, str(k % 9 + 1), (x + 20, y + 70), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (20, 20, 160), 3)
    noise = rng.integers(-6, 7, img.shape, dtype=np.int16)
    out: np.ndarray = np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    return out


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "T1.jsonl"
    j = journal_mod.Journal(path)

    def sink(ev: Any, state: Any, fx: Any) -> None:
        j.append(journal_mod.Record("event", state.seq, ev.to_json()))

    sim.SimRun(seed=3, hands_total=1, sink=sink).play()
    j.close()
    return path


def test_saved_snapshots_are_shown_served_and_exported_by_the_replay(journal: Path) -> None:
    records, _ = journal_mod.read_records(journal)
    discards = [r.event for r in records if r.event.get("type") == "discard"][:3]
    store = SnapshotStore(journal)
    written = {ev["id"]: store.save_frame(ev["id"], frame(i)) for i, ev in enumerate(discards)}
    assert store.event_ids() == sorted(written)
    assert all(p.parent == journal.parent / "T1.jsonl.snapshots" for p in written.values())
    rep = load_replay(journal)
    with_snap = {s.event["id"]: s for s in rep.steps if s.snapshot is not None}
    assert set(with_snap) == set(written)
    server = make_server(rep, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for eid, step in with_snap.items():
            body = urllib.request.urlopen(f"{base}/snapshot/{step.n}").read()
            assert body == written[eid].read_bytes() == store.load(eid)
            img = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
            assert img is not None and img.shape == (960, 1280, 3)  # downscaled to max_width
        hand = json.loads(urllib.request.urlopen(f"{base}/api/hand/0").read())
        shown = [s for s in hand["steps"] if s["snapshot"]]
        assert [s["event"]["id"] for s in shown] == [ev["id"] for ev in discards]
    finally:
        server.shutdown()
        server.server_close()
    html = export_html(rep, 0).decode()
    assert html.count("data:image/jpeg;base64,") == 3


def test_bad_snapshots_are_refused_and_nothing_is_left_behind(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "T1.jsonl")
    ok, buf = cv2.imencode(".jpg", frame(1, 64, 48))
    assert ok
    jpeg = buf.tobytes()
    for bad_id in ("../escape", "a/b", ".hidden", "", "x" * 200):
        with pytest.raises(SnapshotError):
            store.save(bad_id, jpeg)
    with pytest.raises(SnapshotError, match="not a complete JPEG"):
        store.save("e1", b"\x89PNG....")
    with pytest.raises(SnapshotError, match="not a complete JPEG"):
        store.save("e1", jpeg[: len(jpeg) // 2])  # torn
    with pytest.raises(SnapshotError, match="more than"):
        SnapshotStore(tmp_path / "T1.jsonl", max_bytes=100).save("e1", jpeg)
    with pytest.raises(SnapshotError, match="BGR uint8"):
        store.save_frame("e1", np.zeros((10, 10), np.uint8))
    assert store.event_ids() == [] and store.load("e1") is None
    store.save("e1", jpeg)
    store.save("e1", jpeg)  # replacing is fine
    assert store.event_ids() == ["e1"] and store.load("e1") == jpeg
    assert sorted(p.name for p in store.folder.iterdir()) == ["e1.jpg"]  # no temporary files
