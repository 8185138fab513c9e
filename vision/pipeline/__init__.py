"""The overhead-camera table pipeline: ArUco calibration, seat zones, tile segmentation, tracking, events.

``from vision.pipeline import TablePipeline, FrameReport, HandCameraReader, CalibrationError``;
``TablePipeline(classifier).process(frame_bgr, frame_id) -> FrameReport`` (events in ``report.events``).
Submodules are imported lazily by their users; this package only re-exports the main names.
"""

from vision.pipeline.calibration import Calibration, CalibrationCache, CalibrationError, calibrate
from vision.pipeline.events import EVENT_TYPES, VisionEvent, make_event
from vision.pipeline.handcam import HandCameraReader
from vision.pipeline.table import FrameReport, TablePipeline
from vision.pipeline.zones import DEFAULT_GEOMETRY, TableGeometry, Zone

__all__ = [
    "DEFAULT_GEOMETRY",
    "EVENT_TYPES",
    "Calibration",
    "CalibrationCache",
    "CalibrationError",
    "FrameReport",
    "HandCameraReader",
    "TableGeometry",
    "TablePipeline",
    "VisionEvent",
    "Zone",
    "calibrate",
    "make_event",
]
