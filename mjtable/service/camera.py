"""The real camera for ``mjtable run``: a frame source (picamera2, OpenCV, files) through area 6's vision
pipeline with area 5's classifier, producing vision event dicts for the engine.

Frames are captured and processed on a worker thread (OpenCV and ONNX Runtime release the GIL); each event is
handed to the service loop with ``call_soon_threadsafe``.  Any failure to open the camera is a ``RuntimeError``
with the reason, which the service reports as ``camera: down: ...`` while the game goes on.
"""

from __future__ import annotations

from mjtable.config import Config
from mjtable.service.parts import ObservationSource


def open_camera_source(cfg: Config) -> ObservationSource:
    """Open the configured camera and pipeline.  Raises RuntimeError naming what is missing."""
    try:
        from mjtable.service.camera_pipeline import PipelineSource
    except ImportError as exc:
        raise RuntimeError(f"the vision pipeline is not available: {exc}") from exc
    return PipelineSource.open(cfg)
