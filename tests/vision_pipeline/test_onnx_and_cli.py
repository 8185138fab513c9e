"""The real ONNX classifier on rendered frames, and the ``mjtable vision calibrate|watch`` functions."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import cv2
import pytest

from tests.vision_pipeline.conftest import Runner, needs_model
from vision.classifier import OnnxTileClassifier
from vision.pipeline.capture import known_crops, layout_tiles
from vision.pipeline.cli_support import add_calibrate_arguments, add_watch_arguments, calibrate_main, watch_main
from vision.pipeline.table import TablePipeline
from vision.scene import SceneMeld, SeatScene, TableScene
from vision.simcam import SimCamera

POND = ("1p", "9s", "4p", "1s", "6z", "2z", "0p", "7p", "3s", "8p", "5z", "9m")


@needs_model
def test_onnx_classifier_reads_rendered_discards_and_melds(cam: SimCamera) -> None:
    runner = Runner(cam, TablePipeline(OnnxTileClassifier.load(threads=1)))
    melds = (SceneMeld("pung", ("5p",) * 3, claimed_from=2), SceneMeld("chow", ("3s", "4s", "5s"), claimed_from=3))
    scene = TableScene(seats=(SeatScene(pond=POND, melds=melds), SeatScene(), SeatScene(pond=POND[:6]), SeatScene()))
    events = runner.show(scene, 4)
    discards = [e for e in events if e["type"] == "discard" or e.get("about") == "discard"]
    # every tile is reported at its slot, as a discard or (if the model is unsure) as uncertain
    assert sorted((e["seat"], e["position"]) for e in discards) == sorted(
        [(0, i) for i in range(len(POND))] + [(2, i) for i in range(6)]
    )
    right = [e for e in discards if e["tiles"] == [scene.seats[e["seat"]].pond[e["position"]]]]
    assert len(right) >= 0.8 * len(discards), [(e["tiles"], e["position"]) for e in discards]
    meld_events = [e for e in events if e["type"] == "meld" or e.get("about") == "meld"]
    assert {e["claimed_from"] for e in meld_events if e["type"] == "meld"} <= {2, 3}
    assert len(meld_events) == 2


@needs_model
def test_the_table_reads_a_crop_as_the_model_card_was_calibrated(cam: SimCamera) -> None:
    """The card's ``min_confidence`` (the service's threshold) is fitted on one read of each crop (with its mirror,
    as the card says).  The pipeline must report that read's confidence, not a vote over quarter turns, whose
    averaged probabilities the threshold was never fitted on."""
    clf = OnnxTileClassifier.load(threads=1)
    pipe = TablePipeline(clf)
    scene = TableScene(seats=(SeatScene(pond=POND[:4]), SeatScene(), SeatScene(), SeatScene()))
    frame = cam.render(scene)
    pipe.process(frame, 0)
    crops = [crop for _, crop, _ in known_crops(pipe, frame, layout_tiles(pipe.geometry, ((*POND[:4],), (), (), ())))]
    assert len(crops) == 4
    table, own = pipe.classify_crops(crops), clf.classify(crops)
    assert [(p.code, p.confidence) for p in table] == [(p.code, p.confidence) for p in own]


def test_calibrate_main_prints_calibration_or_missing_markers(tmp_path: Path, cam: SimCamera) -> None:
    good, bad = tmp_path / "good.png", tmp_path / "bad.png"
    frame = cam.render(TableScene())
    cv2.imwrite(str(good), frame)
    frame[:300, 800:] = 0  # hide the top-right marker (id 2)
    cv2.imwrite(str(bad), frame)
    out = io.StringIO()
    parser = argparse.ArgumentParser()
    add_calibrate_arguments(parser)
    assert calibrate_main(parser.parse_args([str(good)]), out) == 0
    assert calibrate_main(parser.parse_args([str(bad)]), out) == 2
    assert calibrate_main(parser.parse_args([str(tmp_path / "none.png")]), out) == 2
    assert calibrate_main(parser.parse_args([str(good), "--hfov", "75"]), out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["calibration"]["error_px"] < 1.0
    # the camera's place: its nadir within 15 mm, its height within 1 % (the simulated camera is 66 degrees wide)
    u, v, height = lines[0]["calibration"]["camera_mm"]
    true_u, true_v, true_height = cam.camera.centre()
    assert abs(u - true_u) < 15 and abs(v - true_v) < 15 and abs(height - true_height) < 0.01 * true_height
    # a wider field of view assumed: the camera is found nearer the table
    assert lines[3]["calibration"]["camera_mm"][2] < 0.9 * height and lines[3]["calibration"]["hfov_deg"] == 75
    assert lines[1]["missing"] == [2] and "top-right" in lines[1]["error"]
    assert "cannot read image" in lines[2]["error"]


def _watch(tmp_path: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    """``watch_main`` on the simulated camera filming 1p and 9s in seat 0's pond: (exit code, JSON lines)."""
    scene = TableScene(seats=(SeatScene(pond=("1p", "9s")), SeatScene(), SeatScene(), SeatScene()))
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene.to_json()))
    parser = argparse.ArgumentParser()
    add_watch_arguments(parser)
    out = io.StringIO()
    code = watch_main(parser.parse_args([f"sim:{path}", "--frames", "4", *extra]), out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


@needs_model
def test_watch_main_runs_the_simulated_camera(tmp_path: Path) -> None:
    code, events = _watch(tmp_path)
    assert code == 0
    assert sorted(e["position"] for e in events) == [0, 1]


def test_watch_main_reports_a_missing_source_as_json(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_watch_arguments(parser)
    out = io.StringIO()
    code = watch_main(parser.parse_args([str(tmp_path / "missing.mp4")]), out)
    assert code == 2
    assert "error" in json.loads(out.getvalue())


@needs_model
def test_watch_reads_with_the_card_threshold_and_a_venue_enrollment(tmp_path: Path) -> None:
    """``watch`` is the venue's check after ``enroll`` (docs/vision.md): it must read as the service will, with the
    enrollment and the card's threshold (the simulated camera's for ``sim:``), unless told otherwise."""
    from vision.classifier.enroll import Enrollment, trained_head
    from vision.pipeline.cli_support import watch_threshold

    clf = OnnxTileClassifier.load(threads=1)
    card = clf.meta["calibration"]
    assert watch_threshold(None, "picamera2", clf) == card["min_confidence"]
    assert watch_threshold(None, "sim:scene.json", clf) == card["simulated_camera"]["min_confidence"]
    assert watch_threshold(0.5, "picamera2", clf) == 0.5
    w, b = trained_head(clf)
    Enrollment(clf.classes, ("1p",), w, b).save(tmp_path / "venue.npz")
    (tmp_path / "broken.npz").write_bytes(b"not a head")
    code, events = _watch(tmp_path, "--enrollment", str(tmp_path / "venue.npz"))
    assert code == 0
    assert sorted((e["position"], e["tiles"]) for e in events) == [(0, ["1p"]), (1, ["9s"])]
    code, lines = _watch(tmp_path, "--enrollment", str(tmp_path / "broken.npz"))
    assert code == 2 and "broken.npz" in str(lines[0]["error"])


@needs_model
def test_table_reads_count_the_referee_share_and_confident_errors_at_the_cards_threshold() -> None:
    """``bench.vision``'s table reads report what the service would do with each read: under the card's
    ``min_confidence`` to the referee, over it taken as fact (and how many of those are wrong)."""
    from vision.pipeline.bench import _table_crops, table_reads
    from vision.pipeline.tileart import Cc0TileArt

    clf = OnnxTileClassifier.load(threads=1)
    threshold = clf.meta["calibration"]["min_confidence"]
    got = table_reads(("cc0-art",), seeds=(31,))["cc0-art"]
    crops, truth = _table_crops(Cc0TileArt(), 31, clf)
    own = clf.classify(crops)
    assert got["threshold"] == threshold and got["reads"] == len(truth) == 46
    assert got["under_threshold"] == sum(p.confidence < threshold for p in own)
    pairs = list(zip(own, truth, strict=True))
    assert got["confident_wrong"] == sum(p.confidence >= threshold and p.code != t for p, t in pairs)
    assert got["accuracy"] == round(sum(p.code == t for p, t in pairs) / len(truth), 4)
    # the card reads a crop's mirror only when unsure: how many of the table's crops it read twice
    twice = clf.second_reads(crops)
    assert twice is not None and got["second_reads"] == twice


@needs_model
def test_table_enrollment_films_at_the_frame_size_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bench.vision`` measures table enrollment at the service's default frame (1920 x 1080) as well as at
    1280 x 720: the crops enrolled and the crops read both come from cameras of that size."""
    import vision.pipeline.bench as pipeline_bench

    sizes: list[tuple[int, int]] = []

    class Recorded(SimCamera):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            sizes.append((self.frame_w, self.frame_h))

    monkeypatch.setattr(pipeline_bench, "SimCamera", Recorded)
    got = pipeline_bench.table_enrollment("cn-ming", poses=1, frame_size=(1920, 1080))
    assert got["frame_size"] == [1920, 1080] and got["reads"] == 46
    assert sizes == [(1920, 1080), (1920, 1080)]  # the enrolling camera, then the scoring one
