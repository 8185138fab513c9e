"""Fixtures for the table-pipeline tests: a simulated camera, the template classifier, a pipeline."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from vision.classifier import DEFAULT_MODEL_PATH
from vision.pipeline.events import VisionEvent
from vision.pipeline.table import FrameReport, TablePipeline
from vision.pipeline.template_classifier import TemplateClassifier, enrolled_template
from vision.pipeline.tileart import Cc0TileArt
from vision.scene import TableScene
from vision.simcam import SimCamera

#: tests that run the committed ONNX classifier
needs_model = pytest.mark.skipif(not DEFAULT_MODEL_PATH.is_file(), reason=f"no committed model at {DEFAULT_MODEL_PATH}")


@pytest.fixture(scope="session")
def art() -> Cc0TileArt:
    return Cc0TileArt()


@pytest.fixture(scope="session")
def template(art: Cc0TileArt) -> TemplateClassifier:
    """The template classifier, enrolled on camera crops of every face from two other simulated cameras."""
    return enrolled_template(art)


@pytest.fixture
def cam(art: Cc0TileArt) -> SimCamera:
    return SimCamera(art=art, seed=7)


@pytest.fixture
def pipe(template: TemplateClassifier) -> TablePipeline:
    return TablePipeline(template, stable_frames=3)


class Runner:
    """Feeds rendered frames to a pipeline, numbering frames, and keeps every report."""

    def __init__(self, cam: SimCamera, pipe: TablePipeline) -> None:
        self.cam = cam
        self.pipe = pipe
        self.frame_id = 0
        self.reports: list[FrameReport] = []

    def show(self, scene: TableScene, frames: int = 4, *, blur_px: int = 0) -> list[VisionEvent]:
        """Render ``scene`` for ``frames`` frames; returns the events they produced."""
        events: list[VisionEvent] = []
        for _ in range(frames):
            report = self.pipe.process(self.cam.render(scene, blur_px=blur_px), self.frame_id)
            self.reports.append(report)
            events.extend(report.events)
            self.frame_id += 1
        return events

    def play(self, scenes: Iterable[TableScene], frames: int = 4) -> list[VisionEvent]:
        out: list[VisionEvent] = []
        for scene in scenes:
            out.extend(self.show(scene, frames))
        return out


@pytest.fixture
def run(cam: SimCamera, pipe: TablePipeline) -> Runner:
    return Runner(cam, pipe)
