"""Frame sources (image directory, video file, missing cameras), the hand camera, and the scene model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.pipeline.handcam import HandCameraReader
from vision.pipeline.template_classifier import TemplateClassifier
from vision.pipeline.tileart import Cc0TileArt
from vision.scene import SceneMeld, SeatScene, TableScene, claimed_from_index, sideways_index
from vision.simcam import SimCamera
from vision.sources import CameraError, ImageDirectorySource, OpenCvSource, frames, open_source


def test_image_directory_source_reads_frames_in_order(tmp_path: Path, cam: SimCamera) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), np.full((36, 64, 3), i * 40, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    with ImageDirectorySource(tmp_path, fps=5.0) as source:
        got = [source.read() for _ in range(4)]
    assert [f.frame_id for f in got if f] == [0, 1, 2]
    assert [int(f.image[0, 0, 0]) for f in got if f] == [0, 40, 80]
    assert got[1] is not None and got[1].t_s == pytest.approx(0.2)
    assert got[3] is None


def test_video_file_source_and_async_frames(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    source = open_source(str(path))

    async def collect() -> list[int]:
        return [f.frame_id async for f in frames(source)]

    assert asyncio.run(collect()) == [0, 1, 2, 3, 4]
    source.close()


def test_missing_cameras_and_files_raise_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="does not exist"):
        open_source(str(tmp_path / "nope.mp4"))
    with pytest.raises(CameraError, match="does not exist"):
        open_source("/dev/video97")
    with pytest.raises(CameraError, match="cannot open camera 97"):
        OpenCvSource(97)
    with pytest.raises(CameraError, match="no images"):
        open_source(str(tmp_path))
    with pytest.raises(CameraError, match="unknown frame source"):
        open_source("rtsp-ish-thing")


def test_hand_camera_reports_the_standing_hand(art: Cc0TileArt) -> None:
    cam = SimCamera(art=art, seed=5)
    reader = HandCameraReader(TemplateClassifier(art, seen_px=(76, 102)), seat=2)
    hand = ("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "6z", "7z")
    events = [e for i in range(4) for e in reader.process(cam.render_hand_camera(hand), i)]
    assert [(e["type"], e["seat"], tuple(e["tiles"]), e["frame_id"]) for e in events] == [("hand_seen", 2, hand, 2)]
    blank = np.full((720, 1280, 3), 60, np.uint8)
    assert [reader.process(blank, 10 + i) for i in range(3)] == [[], [], []]


def test_sideways_position_round_trips_for_every_seat() -> None:
    for owner in range(4):
        for giver in range(4):
            if giver == owner:
                with pytest.raises(ValueError, match="cannot claim"):
                    sideways_index(owner, giver, 3)
                continue
            for n in (3, 4):
                assert claimed_from_index(owner, sideways_index(owner, giver, n), n) == giver


def test_scene_json_round_trip_and_validation() -> None:
    seat = SeatScene(
        pond=("1m", "0p"), melds=(SceneMeld("pung", ("7z",) * 3, claimed_from=3),), shown_hand=("1s", "1s")
    )
    scene = TableScene(seats=(seat, SeatScene(), SeatScene(), SeatScene()))
    assert TableScene.from_json(scene.to_json()) == scene
    with pytest.raises(ValueError, match="needs claimed_from"):
        SceneMeld("chow", ("1m", "2m", "3m"))
    with pytest.raises(ValueError, match="4 seats"):
        TableScene.from_json({"seats": []})
    with pytest.raises(ValueError):
        SeatScene(pond=("9z",))


def test_scene_from_engine_public_view() -> None:
    from vision.scene import scene_from_public_state

    def seat(n: int, **extra: object) -> dict[str, object]:
        return {"seat": n, "hand_size": 13, "melds": [], "pond": [], **extra}

    view = {
        "seats": [
            seat(
                0,
                pond=[{"tile": "1m", "called": False}, {"tile": "7z", "called": True}, {"tile": "2p", "called": False}],
            ),
            seat(1, hand_size=10, melds=[{"type": "pung", "tiles": ["7z"] * 3, "claimed_from": 0}]),
            seat(2, melds=[{"type": "concealed_kong", "tiles": None, "claimed_from": None}]),
            seat(3),
        ],
        "result": {"kind": "win", "hands": {"3": "[123s]11z456p"}},
    }
    scene = scene_from_public_state(view)
    assert scene.seats[0].pond == ("1m", "2p")
    assert scene.seats[1].melds == (SceneMeld("pung", ("7z",) * 3, claimed_from=0),)
    assert scene.seats[1].hand_size == 10
    assert scene.seats[2].melds[0].tiles == ("back",) * 4
    assert scene.seats[3].shown_hand == ("1z", "1z", "4p", "5p", "6p")
    with pytest.raises(ValueError, match="public view"):
        scene_from_public_state({"seats": [{}]})


def test_simulated_source_renders_the_current_scene(cam: SimCamera) -> None:
    from vision.simcam import SimulatedSource

    scenes = iter([TableScene(), TableScene(seats=(SeatScene(pond=("1p",)), SeatScene(), SeatScene(), SeatScene()))])
    source = SimulatedSource(cam, lambda: next(scenes), frames=2, fps=5.0)
    first, second, end = source.read(), source.read(), source.read()
    assert first is not None and second is not None and end is None
    assert first.image.shape == (720, 1280, 3) and second.t_s == pytest.approx(0.2)
    assert float(np.abs(first.image.astype(int) - second.image.astype(int)).mean()) > 0.1
