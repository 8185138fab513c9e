"""What must NOT create events: no markers, a hand passing over the table, blurred frames; and a camera
that is bumped is noticed and recalibrated."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision_pipeline.conftest import Runner
from vision.pipeline.calibration import CalibrationError, calibrate
from vision.pipeline.zones import DEFAULT_GEOMETRY
from vision.scene import PassingHand, SeatScene, TableScene
from vision.simcam import SimCamera

EMPTY = SeatScene()


def pond(*codes: str) -> TableScene:
    return TableScene(seats=(SeatScene(pond=codes), EMPTY, EMPTY, EMPTY))


def test_calibration_matches_the_camera_homography(cam: SimCamera) -> None:
    cal = calibrate(cam.render(pond()), DEFAULT_GEOMETRY)
    probe = np.array([[0.0, 0.0], [300.0, -200.0], [-400.0, 400.0]])
    truth = cam.table_to_frame()
    expected = np.array([(truth @ [u, v, 1.0])[:2] / (truth @ [u, v, 1.0])[2] for u, v in probe])
    assert np.abs(cal.project(probe) - expected).max() < 1.0
    assert cal.error_px < 1.0


def test_missing_markers_name_which_and_give_no_events(run: Runner) -> None:
    frame = run.cam.render(pond("1p"))
    frame[600:, :400] = 0  # cover the bottom-left marker (id 0)
    with pytest.raises(CalibrationError) as info:
        calibrate(frame, DEFAULT_GEOMETRY)
    assert info.value.missing == (0,)
    assert "id 0 (bottom-left" in str(info.value)
    blank = np.zeros_like(frame)
    reports = [run.pipe.process(f, i) for i, f in enumerate([frame, frame, frame, blank])]
    assert all(r.status == "uncalibrated" and r.events == [] for r in reports)
    assert "missing: id 0" in (reports[0].error or "")
    assert "id 0" in (reports[3].error or "") and "id 3" in (reports[3].error or "")


def test_hand_passing_over_the_table_creates_no_event(run: Runner) -> None:
    base = pond("1p", "9s")
    run.show(base, 4)
    events = []
    for reach in (380.0, 260.0, 150.0, 90.0, 150.0, 260.0):
        scene = TableScene(seats=base.seats, hands=(PassingHand(seat=0, x_mm=-20.0, reach_mm=reach),))
        events += run.show(scene, 2)
    assert events == []
    assert any("0:pond" in r.occluded for r in run.reports)
    assert run.show(base, 4) == []


def test_discard_made_under_a_hand_counts_once_the_hand_is_gone(run: Runner) -> None:
    run.show(pond("1p"), 4)
    covered = TableScene(seats=pond("1p", "9s").seats, hands=(PassingHand(seat=0, x_mm=0.0, reach_mm=110.0),))
    assert run.show(covered, 5) == []
    events = run.show(pond("1p", "9s"), 4)
    assert [(e["type"], e["tiles"], e["position"]) for e in events] == [("discard", ["9s"], 1)]


def test_blurred_frames_create_no_event(run: Runner) -> None:
    run.show(pond("1p"), 5)
    assert run.show(pond("1p", "9s"), 4, blur_px=15) == []
    assert [r.status for r in run.reports[-4:]] == ["blurred"] * 4
    events = run.show(pond("1p", "9s"), 4)
    assert [(e["tiles"], e["position"]) for e in events] == [(["9s"], 1)]


def test_bumped_camera_is_noticed_at_once_and_reading_goes_on(run: Runner) -> None:
    run.show(pond("1p"), 4)
    run.cam.bump(14.0, -9.0)
    events = run.show(pond("1p", "9s"), 4)
    assert run.reports[-4].camera_moved  # the very first frame after the bump (re-check every 30 frames)
    assert [(e["tiles"], e["position"]) for e in events] == [(["9s"], 1)]
