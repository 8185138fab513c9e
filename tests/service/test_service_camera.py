"""The camera part's worker-thread hand-off, with frames rendered by the simulated camera (``vision.simcam``).

The pipeline here is a scripted stand-in that reports one event per frame showing a new tile count (the real
pipeline, ``vision.pipeline``, is exercised by ``mjtable demo --camera sim``); what is tested is ours: frames are
grabbed and processed on the worker thread, events reach the loop in order, a failing pipeline or an ended
source ends ``observations`` with a clear error, and the camera part reports it as down.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.engine.events import CameraObserved
from mjtable.service.camera import ThreadedPipelineSource
from mjtable.service.health import Health
from mjtable.service.parts import CameraPart
from mjtable.snapshots import SnapshotStore
from vision.scene import SeatScene, TableScene
from vision.simcam import SimCamera


class CountingPipeline:
    """Reports one event per frame (worker thread); raises after ``fail_after`` frames."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.calls = 0
        self.fail_after = fail_after

    def process(self, frame: Any) -> list[dict[str, Any]]:
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise ValueError("classifier crashed")
        assert np.asarray(frame).shape == (720, 1280, 3)
        return [{"type": "uncertain", "seat": 0, "tiles": [], "claimed_from": None, "position": self.calls,
                 "confidence": 0.5, "frame_id": self.calls}]


async def test_frames_cross_to_the_loop_in_order() -> None:
    cam = SimCamera(seed=1)
    scenes = [TableScene(), TableScene().with_seat(0, SeatScene(pond=("1m", "2m"))),
              TableScene().with_seat(0, SeatScene(pond=("1m", "2m", "3z")))]
    frames = iter([cam.render(s) for s in scenes for _ in range(2)])
    src = ThreadedPipelineSource(lambda: next(frames, None), CountingPipeline(), fps=200.0)
    got = [ev async for ev in src.observations()]
    await src.aclose()
    assert [ev["frame_id"] for ev in got] == [1, 2, 3, 4, 5, 6]  # every frame's events, in frame order
    assert src.frames == 6


async def test_a_failing_pipeline_marks_the_camera_down(tmp_path: Path) -> None:
    cam = SimCamera(seed=2)
    frame = cam.render(TableScene())
    health = Health(tmp_path / "h.json", clock=lambda: 0.0)
    emitted: list[tuple[type[Any], dict[str, Any]]] = []

    def open_source() -> ThreadedPipelineSource:
        return ThreadedPipelineSource(lambda: frame, CountingPipeline(fail_after=3), fps=500.0)

    def emit(cls: type[Any], **fields: Any) -> Any:
        emitted.append((cls, fields))
        return cls(id=f"cam-{len(emitted)}", at_s=1.0, **fields)

    snapshots = SnapshotStore(tmp_path / "T.journal.jsonl")
    part = CameraPart(open_source, emit, health, describe="camera sim", retry_s=60.0, snapshots=snapshots)
    task = asyncio.create_task(part.run())
    for _ in range(500):
        if health.parts["camera"].startswith("down"):
            break
        await asyncio.sleep(0.01)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert health.parts["camera"] == "down: camera sim: camera pipeline failed: classifier crashed"
    assert emitted and emitted[0][0] is CameraObserved
    assert "_frame" not in emitted[0][1]["observation"]  # the frame never reaches the engine or the journal
    jpg = snapshots.path_for("cam-1")
    assert jpg.exists() and jpg.read_bytes().startswith(b"\xff\xd8")  # the hawk-eye snapshot of that event


def test_missing_pipeline_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from mjtable.service import camera

    real = importlib.import_module

    def no_pipeline(name: str, package: str | None = None) -> Any:
        if name == "vision.pipeline.table":
            raise ImportError("No module named 'vision.pipeline.table'")
        return real(name, package)

    monkeypatch.setattr("mjtable.service.camera.importlib.import_module", no_pipeline)
    with pytest.raises(RuntimeError, match="the vision pipeline is not available"):
        camera.default_pipeline()


async def _all_observations(src: ThreadedPipelineSource) -> list[dict[str, Any]]:
    got = [ev async for ev in src.observations()]
    await src.aclose()
    return got


async def test_a_configured_file_camera_runs_the_real_pipeline(tmp_path: Path) -> None:
    """``mjtable run``'s camera as configured (``source = "file:<dir>"``): frames read from the directory, their
    images through the table pipeline with the committed classifier; a tile laid in seat 0's pond becomes a
    discard event carrying its frame for the hawk-eye snapshot."""
    import cv2

    from mjtable.config import DEFAULT_SIM_MIN_CONFIDENCE, parse_config
    from mjtable.service.camera import FRAME_KEY, open_camera_source

    pytest.importorskip("onnxruntime")
    cam = SimCamera(seed=4)
    scenes = [TableScene()] * 3 + [TableScene().with_seat(0, SeatScene(pond=("7z",)))] * 5
    for i, scene in enumerate(scenes):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), cam.render(scene))
    # the files are renders, not photographs: they are read at the simulated camera's threshold (mjtable.config)
    cfg = parse_config({"camera": {"source": f"file:{tmp_path}", "fps": 50.0,
                                   "min_confidence": DEFAULT_SIM_MIN_CONFIDENCE}})
    got = await _all_observations(open_camera_source(cfg))
    discards = [ev for ev in got if ev["type"] == "discard"]
    assert [(ev["seat"], ev["tiles"], ev["position"]) for ev in discards] == [(0, ["7z"], 0)], got
    assert discards[0][FRAME_KEY].shape == (720, 1280, 3)


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("sim", "mjtable demo --camera sim"),
        ("opencv:front", "device index"),
        ("file:/etc/hostname", "directory of images or a video"),
        ("file:/nonexistent/dir/", "does not exist"),
    ],
)
def test_an_unusable_camera_source_is_a_clear_error(source: str, error: str) -> None:
    from mjtable.config import parse_config
    from mjtable.service.camera import open_camera_source

    pytest.importorskip("onnxruntime")
    cfg = parse_config({"camera": {"source": source}})
    with pytest.raises(RuntimeError, match=error):
        open_camera_source(cfg)


async def test_a_source_closed_before_it_was_read_releases_the_camera() -> None:
    """``aclose`` before ``observations`` (the service stopping between the two): the frame source (a camera
    device) is still released, once."""
    closed: list[int] = []
    src = ThreadedPipelineSource(lambda: None, CountingPipeline(), fps=10.0, close=lambda: closed.append(1))
    await src.aclose()
    await src.aclose()
    assert closed == [1]
    read = ThreadedPipelineSource(lambda: None, CountingPipeline(), fps=10.0, close=lambda: closed.append(2))
    assert [ev async for ev in read.observations()] == []  # the source ended at once: the worker closed it
    await read.aclose()
    assert closed == [1, 2]


async def test_a_camera_part_stopped_while_opening_closes_what_it_opened(tmp_path: Path) -> None:
    """The camera opens on a worker thread (loading and checking a model takes a second); a service stopping
    meanwhile must not leave the device open behind it."""
    import threading

    health = Health(tmp_path / "h.json", clock=lambda: 0.0)
    opening, release = threading.Event(), threading.Event()
    closed: list[str] = []

    def slow_open() -> ThreadedPipelineSource:
        opening.set()
        release.wait(10)
        return ThreadedPipelineSource(lambda: None, CountingPipeline(), fps=10.0, close=lambda: closed.append("x"))

    part = CameraPart(slow_open, lambda cls, **f: None, health, describe="camera slow", retry_s=60.0)
    task = asyncio.create_task(part.run())
    await asyncio.to_thread(opening.wait, 10)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    release.set()
    for _ in range(200):
        if closed:
            break
        await asyncio.sleep(0.01)
    assert closed == ["x"]
