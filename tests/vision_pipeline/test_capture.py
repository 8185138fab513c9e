"""Enrollment photos from the table's camera: a set laid out in the ponds is filed by code, crop by crop."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from mjtable.tiles import NotationError
from tests.vision_pipeline.conftest import needs_model
from vision.pipeline.capture import DEFAULT_LAYOUT, Capture, layout_scene, layout_tiles, parse_layout
from vision.pipeline.cli_support import add_capture_arguments, capture_main
from vision.pipeline.table import TablePipeline
from vision.pipeline.template_classifier import TemplateClassifier
from vision.pipeline.tileart import Cc0TileArt
from vision.pipeline.zones import DEFAULT_GEOMETRY
from vision.scene import SeatScene, TableScene
from vision.simcam import SimCamera
from vision.synth.render import CLASSES


def test_the_default_layout_puts_every_class_down_once() -> None:
    layout = parse_layout(DEFAULT_LAYOUT)
    assert sorted(c for pond in layout for c in pond) == sorted(CLASSES)
    assert [len(pond) for pond in layout] == [24, 22, 0, 0]
    tiles = layout_tiles(DEFAULT_GEOMETRY, layout)
    assert tiles[0] == ("1m", -71.25, 112.5)  # seat 0, slot 0: the first row's left end, nearest the centre


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123m\n45x\n", "layout line 2"),
        ("1" * 25 + "m", "25 tiles, a pond holds 24"),
        ("1m\n2m\n3m\n4m\n5m", "four lines"),
    ],
)
def test_a_bad_layout_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_layout(text)


def test_the_crops_of_a_laid_out_set_are_filed_by_code(tmp_path: Path) -> None:
    art = Cc0TileArt()
    layout = parse_layout("19m5p\n0s7z back\n\n")
    cam = SimCamera(art=art, seed=4)
    scene = TableScene(seats=tuple(SeatScene(pond=pond, hand_size=0) for pond in layout))  # type: ignore[arg-type]
    capture = Capture(TablePipeline(TemplateClassifier(art)), layout, tmp_path)
    blank = np.zeros((720, 1280, 3), np.uint8)
    reports = [capture.take(blank, 1), capture.take(cam.render(scene), 0), capture.take(cam.render(scene), 2)]
    assert [r["status"] for r in reports] == ["uncalibrated", "ok", "ok"]
    assert reports[0]["saved"] == 0 and "missing: id 0" in str(reports[0]["error"])
    assert reports[1]["missing"] == [] and reports[1]["saved"] == 6
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.png"))
    assert files[:2] == ["0s/s1p00-f00000.png", "0s/s1p00-f00002.png"]
    assert sorted({p.split("/")[0] for p in files}) == ["0s", "1m", "5p", "7z", "9m", "back"]
    crop = cv2.imread(str(tmp_path / "7z" / "s1p01-f00002.png"))
    assert crop is not None and crop.shape == (64, 48, 3)
    assert capture.summary()["codes_without_crops"] == [] and capture.summary()["crops"] == 12


@needs_model
def test_capture_command_files_every_class_from_the_simulated_camera(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_capture_arguments(parser)
    out = io.StringIO()
    assert capture_main(parser.parse_args(["sim", "--out", str(tmp_path), "--frames", "6", "--every", "3"]), out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line.get("saved") for line in lines[:-1]] == [46, 46]
    assert lines[-1]["codes_without_crops"] == [] and lines[-1]["crops"] == 92
    bad = tmp_path / "layout.txt"
    bad.write_text("12345q\n")
    assert capture_main(parser.parse_args(["sim", "--out", str(tmp_path), "--layout", str(bad)]), out) == 2
    assert "layout line 1" in out.getvalue().splitlines()[-1]


def test_a_layout_scene_has_the_four_ponds_and_nothing_else() -> None:
    layout = parse_layout("1m 2p\n\nback 7z\n")
    scene = layout_scene(layout)
    assert [s.pond for s in scene.seats] == [("1m", "2p"), (), ("back", "7z"), ()]
    assert all(s.hand_size == 0 and not s.melds for s in scene.seats)
    with pytest.raises(ValueError, match="four seats"):
        layout_scene(layout[:3])
