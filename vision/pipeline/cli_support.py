"""Functions behind ``mjtable vision calibrate IMAGE`` and ``mjtable vision watch SOURCE``.

``vision/cli.py`` (the classifier team's module) adds the sub-subcommands with :func:`add_calibrate_arguments`
/ :func:`add_watch_arguments` and calls :func:`calibrate_main` / :func:`watch_main`.  Output is JSON lines
on stdout; errors are one JSON line ``{"error": ...}`` on stdout plus exit code 2, nothing lost.

* ``calibrate IMAGE``: finds the four ArUco markers and prints the calibration (with the camera's estimated nadir
  and height, ``camera_mm``, for the field of view given by ``--hfov``), or which markers are missing.
* ``watch SOURCE``: runs the pipeline over a frame source (device index, /dev/videoN, picamera2, an image
  directory, a video file, or ``sim:SCENE.json`` for the simulated camera) and prints every vision event;
  ``--status`` adds one line per frame that was not read (uncalibrated, blurred) or had occluded zones.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import cv2
import numpy as np

from vision.pipeline.calibration import CalibrationError, calibrate
from vision.pipeline.camera_model import DEFAULT_HFOV_DEG
from vision.pipeline.zones import DEFAULT_GEOMETRY, TableGeometry

if TYPE_CHECKING:
    from vision.sources import Frame, FrameSource


def _add_camera_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hfov", type=float, default=DEFAULT_HFOV_DEG, help="the camera's horizontal field of view, deg"
    )
    parser.add_argument("--tile-thickness", type=float, default=DEFAULT_GEOMETRY.tile_thickness_mm, help="mm")
    parser.add_argument(
        "--marker-height", type=float, default=DEFAULT_GEOMETRY.marker_height_mm, help="mm above the felt"
    )


def _geometry(args: argparse.Namespace) -> TableGeometry:
    return dataclasses.replace(
        DEFAULT_GEOMETRY, tile_thickness_mm=args.tile_thickness, marker_height_mm=args.marker_height
    )


def add_calibrate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", help="a camera frame showing the whole table with its four ArUco markers")
    _add_camera_arguments(parser)


def add_watch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="0, /dev/video2, picamera2, an image directory, a video, or sim:SCENE.json")
    parser.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: until the end)")
    parser.add_argument("--stable", type=int, default=3, help="frames a reading must repeat before it counts")
    parser.add_argument("--threshold", type=float, default=None,
                        help="confidence below which events are uncertain (default: the model card's, as the "
                        "service reads; the simulated camera's for sim:)")
    parser.add_argument("--model", default=None, help="ONNX classifier (default: the committed model)")
    parser.add_argument("--enrollment", type=Path, default=None,
                        help="a venue's adapted head from `mjtable vision enroll` (as [camera] enrollment)")
    parser.add_argument("--status", action="store_true", help="also print frames that were not read")
    _add_camera_arguments(parser)


def add_capture_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="0, /dev/video2, picamera2, an image directory, a video, or sim[:STYLE]")
    parser.add_argument("--out", type=Path, required=True, help="enrollment directory: crops go to OUT/<code>/")
    parser.add_argument("--layout", type=Path, default=None, help="the ponds' tiles, a line a seat (default: all)")
    parser.add_argument("--frames", type=int, default=40, help="frames to read (0: until the source ends)")
    parser.add_argument("--every", type=int, default=5, help="keep the crops of every Nth readable frame")
    parser.add_argument("--model", default=None, help="ONNX classifier (default: the committed model)")
    _add_camera_arguments(parser)


def _error(message: str, out: TextIO) -> int:
    out.write(json.dumps({"error": message}) + "\n")
    return 2


def calibrate_main(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Print ``{"image": ..., "calibration": {...}}`` or ``{"error": ..., "missing": [...]}``; returns exit code."""
    out = sys.stdout if out is None else out  # looked up per call: pytest and callers swap sys.stdout
    try:  # read the bytes ourselves: cv2.imread prints its own warning line on stderr for a missing file
        data = np.frombuffer(Path(args.image).read_bytes(), dtype=np.uint8)
    except OSError as exc:
        return _error(f"cannot read image {args.image}: {exc.strerror or exc}", out)
    raw = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if raw is None:
        return _error(f"cannot read image {args.image}: not an image OpenCV can decode", out)
    try:
        cal = calibrate(np.asarray(raw, dtype=np.uint8), _geometry(args), hfov_deg=args.hfov)
    except CalibrationError as exc:
        out.write(json.dumps({"image": str(args.image), "error": str(exc), "missing": list(exc.missing)}) + "\n")
        return 2
    out.write(json.dumps({"image": str(args.image), "calibration": cal.to_json()}) + "\n")
    return 0


def watch_threshold(given: float | None, source: str, classifier: Any) -> float:
    """The confidence threshold ``watch`` reads at: ``given``, else the model card's ``calibration.min_confidence``
    (chosen on real photographs: what the service uses), or for a ``sim:`` source the simulated camera's
    (``calibration.simulated_camera.min_confidence``); 0.6 for a card without a calibration."""
    if given is not None:
        return given
    calibration = classifier.meta.get("calibration") or {}
    if source.startswith("sim:"):
        calibration = calibration.get("simulated_camera") or calibration
    return float(calibration.get("min_confidence", 0.6))


def watch_main(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the pipeline over ``args.source`` and print events as JSON lines; returns exit code."""
    out = sys.stdout if out is None else out  # looked up per call: pytest and callers swap sys.stdout
    from vision.pipeline.table import TablePipeline
    from vision.sources import CameraError, open_source

    source: FrameSource
    try:
        if str(args.source).startswith("sim:"):
            from vision.scene import TableScene
            from vision.simcam import SimCamera, SimulatedSource

            scene = TableScene.from_json(json.loads(Path(str(args.source)[4:]).read_text()))
            source = SimulatedSource(SimCamera(), lambda: scene, frames=args.frames or 30)
        else:
            source = open_source(str(args.source))
    except (CameraError, OSError, ValueError) as exc:
        return _error(str(exc), out)
    try:
        from vision.classifier import ModelError, OnnxTileClassifier
        from vision.classifier.enroll import Enrollment, EnrollmentError

        enrollment = Enrollment.load(args.enrollment) if args.enrollment is not None else None
        # small batches: no spinning thread pool
        classifier = OnnxTileClassifier.load(args.model, threads=1, enrollment=enrollment)
    except (ImportError, ModelError, EnrollmentError) as exc:  # an EnrollmentError names its file
        source.close()
        return _error(f"no tile classifier: {exc}", out)
    pipe = TablePipeline(
        classifier,
        _geometry(args),
        stable_frames=args.stable,
        confidence_threshold=watch_threshold(args.threshold, str(args.source), classifier),
        hfov_deg=args.hfov,
    )
    try:
        for frame in _frames(source, args.frames):
            report = pipe.process(frame.image, frame.frame_id)
            for event in report.events:
                out.write(json.dumps(event) + "\n")
            if args.status and (report.status != "ok" or report.occluded):
                status = {"frame_id": report.frame_id, "status": report.status, "occluded": report.occluded}
                if report.error:
                    status["error"] = report.error
                out.write(json.dumps(status) + "\n")
            out.flush()
    except CameraError as exc:
        return _error(str(exc), out)
    finally:
        source.close()
    return 0


def capture_main(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``mjtable vision capture``: file the crops of a laid-out set (see :mod:`vision.pipeline.capture`) as
    enrollment photos; a JSON line per frame read and a summary line; returns the exit code."""
    out = sys.stdout if out is None else out  # looked up per call: pytest and callers swap sys.stdout
    from mjtable.tiles import NotationError
    from vision.pipeline.capture import DEFAULT_LAYOUT, Capture, parse_layout
    from vision.pipeline.table import TablePipeline
    from vision.sources import CameraError, open_source

    try:
        layout = parse_layout(args.layout.read_text() if args.layout else DEFAULT_LAYOUT)
    except (OSError, NotationError) as exc:
        return _error(f"layout: {exc}", out)
    source: FrameSource
    try:
        if str(args.source).startswith("sim"):
            source = _simulated_layout(str(args.source), layout, args)
        else:
            source = open_source(str(args.source))
    except (CameraError, OSError, ValueError) as exc:
        return _error(str(exc), out)
    try:
        from vision.classifier import ModelError, OnnxTileClassifier

        classifier = OnnxTileClassifier.load(args.model, threads=1)
    except (ImportError, ModelError) as exc:
        source.close()
        return _error(f"no tile classifier: {exc}", out)
    pipe = TablePipeline(classifier, _geometry(args), hfov_deg=args.hfov)
    capture = Capture(pipe, layout, args.out)
    read = 0
    try:
        for read, frame in enumerate(_frames(source, args.frames), start=1):
            if (read - 1) % max(1, args.every):
                pipe.process(frame.image, frame.frame_id)  # keeps the calibration and blur gate current
                continue
            out.write(json.dumps(capture.take(frame.image, frame.frame_id)) + "\n")
            out.flush()
    except (CameraError, OSError) as exc:
        return _error(str(exc), out)
    finally:
        source.close()
    out.write(json.dumps({"frames": read, **capture.summary()}) + "\n")
    return 0


def _frames(source: FrameSource, limit: int) -> Iterator[Frame]:
    """The frames of ``source`` until it ends, at most ``limit`` (0: no limit); CameraError passes through."""
    count = 0
    while not limit or count < limit:
        frame = source.read()
        if frame is None:
            return
        count += 1
        yield frame


def _simulated_layout(spec: str, layout: tuple[tuple[str, ...], ...], args: argparse.Namespace) -> FrameSource:
    """``sim`` or ``sim:STYLE``: the simulated camera showing the layout in the CC0 artwork or a synthetic style
    (``vision.synth``), turned a little between frames."""
    from vision.pipeline.capture import layout_scene
    from vision.pipeline.tileart import Cc0TileArt, SynthTileArt, TileArt
    from vision.simcam import SimCamera, SimulatedSource

    style = spec.partition(":")[2]
    art: TileArt = SynthTileArt(style=style) if style else Cc0TileArt()
    cam = SimCamera(_geometry(args), art=art, seed=1, hfov_deg=args.hfov)
    scene = layout_scene(layout)
    return SimulatedSource(cam, lambda: scene, frames=args.frames or 40)
