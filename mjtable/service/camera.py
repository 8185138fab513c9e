"""The camera part's real source: frames -> the table pipeline (``vision.pipeline``, with the tile classifier
``vision.classifier``) -> vision event dicts, on a worker thread.

:class:`ThreadedPipelineSource` grabs a frame, runs the (stateful, tracking) pipeline on it and hands each event
to the service loop with ``call_soon_threadsafe``, at most ``fps`` times a second.  It serves ``mjtable run``
(frames from ``vision.sources``: picamera2, OpenCV, files) and the demo (frames rendered by ``vision.simcam``).
Failing to open the camera or the pipeline is a ``RuntimeError`` naming what is missing; the service reports it
as ``camera: down: ...`` and the game goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Protocol

from mjtable.config import DEFAULT_MIN_CONFIDENCE, CameraConfig, Config

LOGGER = logging.getLogger(__name__)

#: key of the frame an observation was read from, inside the dicts this source yields (removed before the engine)
FRAME_KEY = "_frame"


class FramePipeline(Protocol):
    """Frames in, vision event dicts out (stateful: tracks tiles over frames).  Worker thread only."""

    def process(self, frame: Any) -> list[dict[str, Any]]: ...


class PipelineAdapter:
    """The table pipeline ``vision.pipeline.table.TablePipeline`` behind :class:`FramePipeline`: numbers the frames and
    keeps the last frame status (``ok``, ``uncalibrated`` with the reason, ``blurred``).  Worker thread only."""

    def __init__(self, pipeline: Any) -> None:
        self.pipeline = pipeline
        self.frames = 0
        self.status = "starting"
        self.error: str | None = None
        self.uncalibrated = 0

    def process(self, frame: Any) -> list[dict[str, Any]]:
        self.frames += 1
        report = self.pipeline.process(frame, self.frames)
        self.status, self.error = report.status, report.error
        if report.status == "uncalibrated":
            self.uncalibrated += 1
            if self.uncalibrated in (1, 100) or self.uncalibrated % 1000 == 0:
                LOGGER.warning("camera not calibrated (%d frames): %s", self.uncalibrated, report.error)
        else:
            self.uncalibrated = 0
        events: list[dict[str, Any]] = list(report.events)
        return events


def default_pipeline(
    min_confidence: float = DEFAULT_MIN_CONFIDENCE, *, allow_template: bool = False, camera: CameraConfig | None = None,
    read_dora: bool = False,
) -> PipelineAdapter:
    """The table pipeline (``vision.pipeline``) with the ONNX tile classifier (``vision.classifier``); RuntimeError
    naming what is missing.  ``camera``: the field of view and the tile and marker heights (else the defaults).
    ``read_dora``: also read the wall rows for the riichi dead wall's turned-up indicators (a riichi table).

    ``allow_template``: without the ONNX model, use the pipeline's nearest-template classifier
    (``vision.pipeline.template_classifier``) for the simulated camera's own artwork (the demo); a real camera needs the
    model.
    """
    table = _optional("vision.pipeline.table", "the vision pipeline")
    classifier: Any
    try:
        classifier = load_classifier(camera)
    except (RuntimeError, OSError) as exc:
        if not allow_template or (camera is not None and (camera.model or camera.enrollment)):
            raise RuntimeError(f"no tile classifier: {exc}") from exc
        template = _optional("vision.pipeline.template_classifier", "the template classifier")
        tileart = _optional("vision.pipeline.tileart", "the tile artwork")
        LOGGER.warning("ONNX tile classifier unavailable (%s): the simulated camera uses the template classifier "
                       "for its own artwork", exc)
        classifier = template.TemplateClassifier(tileart.default_tile_art())
    if camera is None:
        return PipelineAdapter(table.TablePipeline(classifier, confidence_threshold=min_confidence,
                                                   read_dora=read_dora))
    zones = _optional("vision.pipeline.zones", "the table geometry")
    geometry = dataclasses.replace(
        zones.DEFAULT_GEOMETRY, tile_thickness_mm=camera.tile_thickness_mm, marker_height_mm=camera.marker_height_mm
    )
    pipeline = table.TablePipeline(
        classifier, geometry, confidence_threshold=min_confidence, hfov_deg=camera.hfov_deg,
        read_dora=read_dora,
    )
    return PipelineAdapter(pipeline)


#: kernel checks already run in this process: (path, size, mtime_ns) -> the check (a retried open costs nothing)
_KERNEL_CHECKS: dict[tuple[str, int, int], Any] = {}


def kernel_check(path: Path) -> Any:
    """``vision.classifier.selfcheck.kernel_check`` of the model at ``path`` on this CPU (about a second, once per
    file and process).  Any thread; ModelError (a RuntimeError) when the model cannot be read."""
    try:
        st = path.stat()
    except OSError:
        st = None
    key = (str(path), st.st_size, st.st_mtime_ns) if st is not None else None
    if key is not None and key in _KERNEL_CHECKS:
        return _KERNEL_CHECKS[key]
    got = _optional("vision.classifier.selfcheck", "the classifier self-check").kernel_check(path)
    if key is not None:
        _KERNEL_CHECKS[key] = got
    return got


def model_path(camera: CameraConfig | None) -> Path:
    """The tile classifier's ONNX file: ``camera.model``, or the shipped one."""
    if camera is not None and camera.model:
        return Path(camera.model)
    return Path(_optional("vision.classifier", "the tile classifier").DEFAULT_MODEL_PATH)


def load_classifier(camera: CameraConfig | None) -> Any:
    """The ONNX tile classifier ``camera.model`` names (default: the shipped one) with ``camera.enrollment``'s
    adapted head, if any.  RuntimeError naming the file for a model or enrollment that is missing, unreadable or
    made for another model: the camera then stays down rather than read a venue's set with a head it was not
    meant for."""
    model = _optional("vision.classifier", "the tile classifier")
    path = model_path(camera)
    enrollment = None
    if camera is not None and camera.enrollment:
        enroll = _optional("vision.classifier.enroll", "the classifier enrollment")
        try:
            enrollment = enroll.Enrollment.load(Path(camera.enrollment))
        except enroll.EnrollmentError as exc:  # names the file
            raise RuntimeError(f"camera.enrollment: {exc}") from exc
    try:
        return model.OnnxTileClassifier.load(path, enrollment=enrollment)
    except model.ModelError as exc:
        where = f" with camera.enrollment {camera.enrollment}" if camera is not None and enrollment is not None else ""
        raise RuntimeError(f"tile classifier {path}{where}: {exc}") from exc


def refuse_a_miscomputed_model(camera: CameraConfig) -> None:
    """RuntimeError when this CPU's fused int8 kernels do not compute the configured model as its graph says
    (``vision.classifier.selfcheck``; ``mjtable doctor`` runs the same check): such a model reads real tiles
    wrong and confidently, so the camera stays down and the referee enters the acts.  A model that cannot be
    loaded is left to :func:`load_classifier`, which names the problem."""
    path = model_path(camera)
    try:
        got = kernel_check(path)
    except RuntimeError:  # ModelError: missing or unreadable, reported by load_classifier
        return
    if not got.agrees:
        raise RuntimeError(f"{got.disagreement(f'the tile classifier {path}')}; the camera stays down")


def _optional(module: str, what: str) -> Any:
    """Import an optional part lazily (OpenCV/ONNX load only when a camera is used)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise RuntimeError(f"{what} is not available: {exc}") from exc


class ThreadedPipelineSource:
    """An :class:`mjtable.service.parts.ObservationSource` running ``grab`` + ``pipeline`` on a thread.

    Args:
        grab: returns the next frame (BGR uint8 HxWx3), or None at the end of the source; worker thread.
        pipeline: the frame pipeline.
        fps: upper bound of frames processed per second.
        close: releases the frame source (worker thread, after the last grab).
    """

    def __init__(self, grab: Callable[[], Any], pipeline: FramePipeline, *, fps: float,
                 close: Callable[[], None] | None = None) -> None:
        self._grab = grab
        self.pipeline = pipeline
        self.fps = fps
        self._close = close
        self._close_lock = threading.Lock()
        self._queue: asyncio.Queue[dict[str, Any] | BaseException | None] = asyncio.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0

    def _run(self, loop: asyncio.AbstractEventLoop) -> None:  # worker thread
        period = 1.0 / self.fps
        end: BaseException | None = None
        try:
            while not self._stop.is_set():
                t0 = time.monotonic()
                frame = self._grab()
                if frame is None:
                    break
                for ev in self.pipeline.process(frame):
                    # the frame rides along (not copied) for the hawk-eye snapshot; the camera part takes it off
                    loop.call_soon_threadsafe(self._queue.put_nowait, {**ev, FRAME_KEY: frame})
                self.frames += 1
                self._stop.wait(max(0.0, period - (time.monotonic() - t0)))
        except Exception as exc:  # handed to the loop: the camera part reports it and retries
            end = exc
        finally:
            self._release()
            if not loop.is_closed():
                loop.call_soon_threadsafe(self._queue.put_nowait, end)

    async def observations(self) -> AsyncIterator[dict[str, Any]]:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, args=(asyncio.get_running_loop(),),
                                            name="camera.pipeline", daemon=True)
            self._thread.start()
        while True:
            item = await self._queue.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise RuntimeError(f"camera pipeline failed: {item}") from item
            yield item

    def _release(self) -> None:
        """Close the frame source, once (the worker at its end, or ``aclose`` when no worker ever ran); any thread."""
        with self._close_lock:
            close, self._close = self._close, None
        if close is not None:
            close()

    async def aclose(self) -> None:
        """Stop the worker and release the frame source (also when ``observations`` was never read)."""
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5.0)
            self._thread = None
        else:
            await asyncio.to_thread(self._release)


def open_camera_source(cfg: Config) -> ThreadedPipelineSource:
    """Open the configured camera (``picamera2``, ``opencv:<index or device>``, ``file:<directory or video>``,
    at ``width`` x ``height`` px) and the pipeline.  Raises RuntimeError naming what is missing; ``sim`` is the
    demo's camera (it films the demo's table world, which ``mjtable run`` has not got)."""
    if cfg.camera.source == "sim":
        raise RuntimeError("camera.source = sim films the demo's simulated table: run `mjtable demo --camera sim`; "
                           "mjtable run needs picamera2, opencv:<index>, file:<path> or none")
    sources = _optional("vision.sources", "the camera frame sources")
    refuse_a_miscomputed_model(cfg.camera)
    # a riichi table's camera also reads the dead wall's indicators (issue 16 point 15)
    pipeline = default_pipeline(cfg.camera.min_confidence, camera=cfg.camera,
                                read_dora=cfg.table.rules.startswith("riichi"))
    try:
        src = sources.open_source(cfg.camera.source, size=(cfg.camera.width, cfg.camera.height))
    except (OSError, ValueError) as exc:  # CameraError is a RuntimeError already
        raise RuntimeError(str(exc)) from exc

    def grab() -> Any:  # worker thread: the frame's image (the pipeline numbers frames itself)
        frame = src.read()
        return None if frame is None else frame.image

    return ThreadedPipelineSource(grab, pipeline, fps=cfg.camera.fps, close=src.close)
