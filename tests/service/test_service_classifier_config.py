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
