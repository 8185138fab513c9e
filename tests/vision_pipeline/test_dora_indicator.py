"""Issue 16 point 15: the riichi dora indicator read by the overhead camera (partial information), through the real
pipeline on the simulated camera, into the engine.  One frame each (``stable_frames=1``)."""

from __future__ import annotations

import pytest

from vision.pipeline.table import TablePipeline
from vision.pipeline.template_classifier import TemplateClassifier
from vision.pipeline.tileart import default_tile_art
from vision.scene import DeadWall, SeatScene, TableScene
from vision.simcam import SimCamera

#: seat 1's wall row holds the dead wall: the dora indicator 8p on stack 2, a kan-dora indicator 3z on stack 3
SCENE = TableScene(
    seats=(SeatScene(pond=("1m",)), SeatScene(), SeatScene(), SeatScene()),
    dead_wall=DeadWall(seat=1, x_mm=-30.0, indicators=("8p", "3z")),
)


@pytest.fixture(scope="module")
def frame() -> object:
    return SimCamera(art=default_tile_art(), seed=3).render(SCENE)


def test_the_pipeline_reads_the_dead_walls_indicators_in_order(frame: object) -> None:
    """The dead wall's tops lie two tiles above the felt in the seat's wall row; the face-up ones are the
    indicators, the dora indicator first (the owner's right), then the kan-dora (002 L37)."""
    pipe = TablePipeline(TemplateClassifier(default_tile_art()), stable_frames=1, confidence_threshold=0.0,
                         read_dora=True)
    report = pipe.process(frame, 0)  # type: ignore[arg-type]
    assert report.status == "ok", report
    dora = [(e["seat"], e["position"], e["tiles"]) for e in report.events if e["type"] == "dora_indicator"]
    assert dora == [(1, 0, ["8p"]), (1, 1, ["3z"])]
    assert [(e["type"], e["tiles"]) for e in report.events if e["type"] != "dora_indicator"] == [("discard", ["1m"])]


def test_without_read_dora_the_wall_row_is_not_read(frame: object) -> None:
    """MCR and Sichuan have no indicators: the wall rows are not read (no work, no events)."""
    pipe = TablePipeline(TemplateClassifier(default_tile_art()), stable_frames=1, confidence_threshold=0.0)
    report = pipe.process(frame, 0)  # type: ignore[arg-type]
    assert [e["type"] for e in report.events] == ["discard"]


def test_the_cameras_dora_indicator_becomes_the_hands_dora(frame: object) -> None:
    """The event from the camera path goes to the engine as a ``camera`` event: with the wall unknown (partial
    information) the reading is the hand's dora indicator (ext_riichi.camera_observation)."""
    from controller.views import public_view
    from tests.engine_sichuan.table_helpers import Table

    pipe = TablePipeline(TemplateClassifier(default_tile_art()), stable_frames=1, confidence_threshold=0.0,
                         read_dora=True)
    events = [e for e in pipe.process(frame, 0).events if e["type"] == "dora_indicator"]  # type: ignore[arg-type]
    t = Table("riichi-hkma-2025", mode="partial")
    t.ok({"type": "table_built", "tiles": None, "dice": [[1, 2], [3, 4]]})
    t.ok({"type": "camera", "observation": events[0]})
    assert public_view(t.state)["riichi"]["dora_indicators"] == ["8p"]
