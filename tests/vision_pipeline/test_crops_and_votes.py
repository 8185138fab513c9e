"""Crops cut from the full-resolution frame, quarter-turn averaging and voting over a new tile's first frames."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from tests.vision_pipeline.conftest import Runner
from vision.classifier import Prediction
from vision.pipeline.segmentation import crop
from vision.pipeline.table import CROP_H, CROP_W, TablePipeline, average_predictions
from vision.pipeline.template_classifier import TemplateClassifier
from vision.scene import Knock, SceneMeld, SeatScene, TableScene
from vision.simcam import SimCamera


class Scripted:
    """A classifier answering from a script, one answer per call (the last one repeats); records crop shapes."""

    def __init__(self, answers: Sequence[list[tuple[str, float]]]) -> None:
        self.answers = list(answers)
        self.calls = 0
        self.shapes: list[tuple[int, ...]] = []

    def classify(self, crops: Sequence[npt.NDArray[np.uint8]]) -> list[Prediction]:
        top3 = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        self.shapes += [c.shape for c in crops]
        return [Prediction(top3[0][0], top3[0][1], top3) for _ in crops]


def _table(seat0: SeatScene) -> TableScene:
    return TableScene(seats=(seat0, SeatScene(), SeatScene(), SeatScene()))


def test_frame_crops_match_the_zone_crops_upright_and_sideways(template: TemplateClassifier, cam: SimCamera) -> None:
    melds = (SceneMeld("pung", ("5p",) * 3, claimed_from=2), SceneMeld("chow", ("3s", "4s", "5s"), claimed_from=3))
    frame = cam.render(_table(SeatScene(pond=("1p", "9s", "7z"), melds=melds)))
    pipe = TablePipeline(template)
    pipe.process(frame, 0)
    assert pipe._felt is not None
    checked = sideways = 0
    for zone in pipe.geometry.all_zones():
        if zone.seat != 0 or zone.kind not in ("pond", "melds"):
            continue
        image = pipe.warp_zone(frame, zone)
        for blob in pipe.segment_zone(image, zone).tiles:
            direct = pipe.crop_tile(frame, zone, blob).astype(np.float32)
            assert direct.shape == (CROP_H, CROP_W, 3)
            via_zone = crop(image, blob, CROP_W, CROP_H).astype(np.float32)
            same = float(np.abs(direct - via_zone).mean())
            turned = float(np.abs(direct - via_zone[::-1, ::-1]).mean())
            assert same < 12.0 and same < turned, (zone.kind, same, turned)
            checked += 1
            sideways += blob.sideways
    assert checked == 9 and sideways == 2


def test_a_new_tile_is_voted_over_its_first_frames_not_taken_from_the_first_read(cam: SimCamera) -> None:
    first = [("9p", 0.5), ("6p", 0.45), ("8p", 0.05)]
    later = [("6p", 0.9), ("9p", 0.05), ("8p", 0.05)]
    scene = _table(SeatScene(pond=("6p",)))
    voted = Scripted([first, later])
    runner = Runner(cam, TablePipeline(voted, stable_frames=3, confidence_threshold=0.0))
    events = runner.show(scene, 6)
    assert [(e["type"], e["tiles"], e["position"]) for e in events] == [("discard", ["6p"], 0)]
    assert runner.pipe.classified == 3  # read in three frames, then the voted answer is reused

    first_only = Scripted([first, later])
    runner = Runner(cam, TablePipeline(first_only, stable_frames=3, confidence_threshold=0.0, vote_frames=1))
    events = runner.show(scene, 6)
    assert [e["tiles"] for e in events] == [["9p"]]
    assert runner.pipe.classified == 1


def test_quarter_turns_are_averaged(cam: SimCamera) -> None:
    clf = Scripted([[("1s", 0.6), ("3f", 0.3), ("6z", 0.1)]])
    pipe = TablePipeline(clf, rotations=4)
    crops = [np.zeros((CROP_H, CROP_W, 3), np.uint8)] * 2
    preds = pipe.classify_crops(crops)
    upright, turned = (CROP_H, CROP_W, 3), (CROP_W, CROP_H, 3)
    assert clf.shapes == [upright, upright, turned, turned] * 2  # one batch: 0, 1, 2, 3 quarter turns
    assert [p.code for p in preds] == ["1s", "1s"] and preds[0].confidence == pytest.approx(0.6)
    with pytest.raises(ValueError, match="rotations"):
        TablePipeline(clf, rotations=3)


def test_average_predictions_weights_top3_and_missing_classes_count_zero() -> None:
    a = Prediction("9p", 0.5, [("9p", 0.5), ("6p", 0.45), ("8p", 0.05)])
    b = Prediction("6p", 0.9, [("6p", 0.9), ("3p", 0.06), ("9p", 0.04)])
    mean = average_predictions([(a, 0.5), (b, 0.5)])
    assert mean.code == "6p" and mean.confidence == pytest.approx(0.675)
    assert [c for c, _ in mean.top3] == ["6p", "9p", "3p"]
    assert mean.top3[2][1] == pytest.approx(0.03)


def test_a_settled_pond_tile_nudged_in_place_keeps_its_vote(cam: SimCamera) -> None:
    sure = [("2s", 0.9), ("4s", 0.05), ("3s", 0.05)]
    borderline = [("4s", 0.5), ("2s", 0.45), ("3s", 0.05)]
    still = _table(SeatScene(pond=("2s",)))
    nudged = _table(SeatScene(pond=("2s",), knocked=((0, Knock(dx_mm=4.0, dy_mm=0.0, angle_deg=0.0)),)))
    clf = Scripted([sure, sure, sure, borderline])
    runner = Runner(cam, TablePipeline(clf, stable_frames=3, confidence_threshold=0.0))
    events = runner.play([still, nudged], 5)
    assert [(e["type"], e["tiles"], e["position"]) for e in events] == [("discard", ["2s"], 0)]
    assert runner.pipe.classified == 4  # the nudge forced one more read, which joined the tile's vote


def test_a_blob_the_classifier_calls_not_a_tile_is_no_tile(cam: SimCamera) -> None:
    """Issue 15: a hand or a sleeve in a pond found as a tile-shaped blob and read ``not_a_tile`` gives no event
    (not a discard of ``not_a_tile``, not an ``uncertain`` one); the same blob read as a face does."""
    scene = _table(SeatScene(pond=("4z",)))
    nothing = Runner(cam, TablePipeline(Scripted([[("not_a_tile", 0.97), ("4z", 0.02), ("1z", 0.01)]])))
    assert nothing.show(scene, 6) == []
    face = Runner(cam, TablePipeline(Scripted([[("4z", 0.97), ("not_a_tile", 0.02), ("1z", 0.01)]])))
    assert [(e["type"], e["tiles"]) for e in face.show(scene, 6)] == [("discard", ["4z"])]
