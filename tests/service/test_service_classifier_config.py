"""``mjtable run``'s camera reads with the classifier the configuration names: ``[camera] model`` (an ONNX file, its
card beside it) and ``[camera] enrollment`` (a venue's adapted head from ``mjtable vision enroll``).  A file that is
missing, unreadable or made for another model is a clear error that keeps the camera down (the referee enters
what it would have read), never a silent fall-back to the shipped head; a model this CPU does not compute as its
graph says is refused the same way (``vision.classifier.selfcheck``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mjtable.config import ConfigError, parse_config

pytest.importorskip("onnxruntime")

from vision.classifier.enroll import Enrollment, trained_head
from vision.classifier.model import DEFAULT_MODEL_PATH, OnnxTileClassifier
from vision.classifier.selfcheck import KernelCheck


def _classifier_of(source: Any) -> OnnxTileClassifier:
    clf = source.pipeline.pipeline.classifier
    assert isinstance(clf, OnnxTileClassifier)
    return clf


def _venue_enrollment(path: Path, *, classes: tuple[str, ...] | None = None) -> Enrollment:
    """An adapted head that differs from the trained one in one row (7z's weights doubled)."""
    clf = OnnxTileClassifier.load()
    w, b = trained_head(clf)
    w = w.copy()
    w[clf.classes.index("7z")] *= 2.0
    enrollment = Enrollment(classes or clf.classes, ("7z",), w, b, temperature=0.9)
    enrollment.save(path)
    return enrollment


def _cfg(tmp_path: Path, **camera: Any) -> Any:
    import cv2

    frames = tmp_path / "frames"
    frames.mkdir(exist_ok=True)
    cv2.imwrite(str(frames / "000.png"), np.full((72, 128, 3), 90, np.uint8))
    return parse_config({"camera": {"source": f"file:{frames}", **camera}})


def test_the_camera_section_names_an_enrollment() -> None:
    assert parse_config({}).camera.enrollment == ""
    assert parse_config({"camera": {"enrollment": "/var/lib/mjtable/venue.npz"}}).camera.enrollment == (
        "/var/lib/mjtable/venue.npz")
    with pytest.raises(ConfigError, match="enrollment"):
        parse_config({"camera": {"enrollment": 3}})


def test_the_service_reads_with_the_configured_enrollment(tmp_path: Path) -> None:
    from mjtable.service.camera import open_camera_source

    enrollment = _venue_enrollment(tmp_path / "venue.npz")
    clf = _classifier_of(open_camera_source(_cfg(tmp_path, enrollment=str(tmp_path / "venue.npz"))))
    assert clf.enrollment is not None, "the configured enrollment was not applied"
    assert np.array_equal(clf.enrollment.weight, enrollment.weight)
    assert clf.temperature == 0.9, "the enrollment's own temperature is the one the camera reads with"
    plain = _classifier_of(open_camera_source(_cfg(tmp_path)))
    assert plain.enrollment is None


def test_the_service_reads_with_the_configured_model(tmp_path: Path) -> None:
    from mjtable.service.camera import open_camera_source

    model_dir = tmp_path / "venue-model"
    model_dir.mkdir()
    for name in ("tile_classifier.onnx", "tile_classifier.json", "tile_classifier.head.npz"):
        shutil.copy(DEFAULT_MODEL_PATH.parent / name, model_dir / name)
    clf = _classifier_of(open_camera_source(_cfg(tmp_path, model=str(model_dir / "tile_classifier.onnx"))))
    assert clf.model_dir == model_dir


@pytest.mark.parametrize(
    ("camera", "error"),
    [
        ({"model": "/nonexistent/tile_classifier.onnx"}, "/nonexistent/tile_classifier.onnx"),
        ({"enrollment": "/nonexistent/venue.npz"}, "/nonexistent/venue.npz"),
        ({"enrollment": "NOT-AN-NPZ"}, "not-an-enrollment"),
        ({"enrollment": "OTHER-MODEL"}, "enroll again"),
    ],
)
def test_a_classifier_file_the_camera_cannot_use_is_a_clear_error(tmp_path: Path, camera: dict[str, str],
                                                                  error: str) -> None:
    from mjtable.service.camera import open_camera_source

    if camera.get("enrollment") == "NOT-AN-NPZ":
        (tmp_path / "not-an-enrollment.npz").write_bytes(b"these are not the weights you are looking for")
        camera = {"enrollment": str(tmp_path / "not-an-enrollment.npz")}
    elif camera.get("enrollment") == "OTHER-MODEL":
        clf = OnnxTileClassifier.load()
        _venue_enrollment(tmp_path / "other.npz", classes=tuple(reversed(clf.classes)))
        camera = {"enrollment": str(tmp_path / "other.npz")}
    with pytest.raises(RuntimeError, match=error):
        open_camera_source(_cfg(tmp_path, **camera))


def test_a_model_this_cpu_miscomputes_keeps_the_camera_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself is ``vision.classifier.selfcheck``'s (tested there against a real bad model's
    arithmetic); here its verdict on this CPU is given, and the service must act on it."""
    from mjtable.service import camera as service_camera

    checked: list[Path] = []

    def disagreeing(path: Path) -> KernelCheck:
        checked.append(path)
        return KernelCheck(crops=32, max_logit_gap=6.2, reads_differ=2, ms_per_crop=1.0)

    monkeypatch.setattr(service_camera, "kernel_check", disagreeing)
    with pytest.raises(RuntimeError, match="does not compute"):
        service_camera.open_camera_source(_cfg(tmp_path))
    assert checked == [DEFAULT_MODEL_PATH]


async def test_the_camera_part_opens_the_configured_camera_off_the_loop(tmp_path: Path) -> None:
    """The service's camera part with ``mjtable run``'s own opener: the model is loaded and checked on a worker
    thread, the venue's enrollment read; a tile laid in a pond becomes an event.  A bad enrollment keeps the
    camera down with the file named in the health, and the part tries again later."""
    import asyncio

    import cv2

    from controller.engine.events import CameraObserved
    from mjtable.config import DEFAULT_SIM_MIN_CONFIDENCE
    from mjtable.service.camera import open_camera_source
    from mjtable.service.health import Health
    from mjtable.service.parts import CameraPart
    from vision.scene import SeatScene, TableScene
    from vision.simcam import SimCamera

    frames = tmp_path / "frames"
    frames.mkdir()
    cam = SimCamera(seed=4)
    scenes = [TableScene()] * 3 + [TableScene().with_seat(0, SeatScene(pond=("7z",)))] * 5
    for i, scene in enumerate(scenes):
        cv2.imwrite(str(frames / f"{i:03d}.png"), cam.render(scene))
    _venue_enrollment(tmp_path / "venue.npz")
    (tmp_path / "broken.npz").write_bytes(b"not a head")

    async def run_part(enrollment: str) -> tuple[str, list[dict[str, Any]]]:
        cfg = parse_config({"camera": {"source": f"file:{frames}", "fps": 50.0, "enrollment": enrollment,
                                       "min_confidence": DEFAULT_SIM_MIN_CONFIDENCE}})
        health = Health(tmp_path / "h.json", clock=lambda: 0.0)
        seen: list[dict[str, Any]] = []

        def emit(cls: type[Any], **fields: Any) -> Any:
            assert cls is CameraObserved
            seen.append(fields["observation"])
            return None

        part = CameraPart(lambda: open_camera_source(cfg), emit, health, describe="camera file", retry_s=60.0)
        task = asyncio.create_task(part.run())
        for _ in range(3000):
            if health.parts.get("camera", "").startswith("down"):
                break
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return health.parts["camera"], seen

    state, seen = await run_part(str(tmp_path / "venue.npz"))
    assert state == "down: camera file: the source ended", state  # every frame read
    assert [(ev["seat"], ev["tiles"]) for ev in seen if ev["type"] == "discard"] == [(0, ["7z"])], seen
    state, seen = await run_part(str(tmp_path / "broken.npz"))
    assert state.startswith("down: camera file:") and "camera.enrollment:" in state and "broken.npz" in state, state
    assert seen == []
