"""``mjtable vision ...``: tile classifier tools (classify, enroll) and the camera pipeline's tools.

- ``mjtable vision classify FILE... [--model M] [--enrollment E]``: one JSON line per image,
  ``{"file", "tile", "confidence", "top3": [[code, p], ...]}``; an unreadable or corrupt file gives
  ``{"file", "error"}`` and the others continue (exit code 1 when any file failed).
- ``mjtable vision enroll DIR [--out FILE]``: adapt to a venue's own set from ``DIR/<code>/*.jpg``; prints
  the accuracy before/after on held-out photos and saves the adapted head, unless it reads them worse (exit
  code 3; ``--keep-worse`` saves it anyway; see vision.classifier.enroll).
- ``mjtable vision markers --out markers.pdf``: the four table markers on one page at true size
  (:mod:`vision.markers`).
- ``calibrate IMAGE`` / ``watch SOURCE ...`` / ``capture SOURCE --out DIR``: the pipeline's commands
  (``vision.pipeline.cli_support``); ``capture`` files the table camera's crops of a set laid out in the ponds
  as enrollment photos.

Runs in the main thread of the ``mjtable`` process.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

#: Pipeline subcommands (``vision.pipeline.cli_support``): name -> (add-arguments, main, help).
PIPELINE_COMMANDS: dict[str, tuple[str, str, str]] = {
    "calibrate": ("add_calibrate_arguments", "calibrate_main", "find the table's ArUco markers, print the calibration"),
    "watch": ("add_watch_arguments", "watch_main", "run the camera pipeline and print vision events as JSON lines"),
    "capture": ("add_capture_arguments", "capture_main", "file crops of a set laid out in the ponds, for `enroll`"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the ``vision`` subcommands on ``parser``."""
    sub = parser.add_subparsers(dest="vision_command", metavar="SUBCOMMAND", required=True)
    c = sub.add_parser("classify", help="classify photos of single tiles (JSON line per file)")
    c.add_argument("files", nargs="+", type=Path, metavar="FILE")
    c.add_argument("--model", type=Path, default=None, help="ONNX model (default: the committed one)")
    c.add_argument("--enrollment", type=Path, default=None, help="venue enrollment file from `vision enroll`")
    c.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    e = sub.add_parser("enroll", help="adapt the classifier to a venue's set from DIR/<code>/*.jpg")
    e.add_argument("directory", type=Path, metavar="DIR")
    e.add_argument(
        "--out", type=Path, default=Path("venue-enrollment.npz"), help="where to save the adapted head (.npz)"
    )
    e.add_argument("--model", type=Path, default=None)
    e.add_argument("--seed", type=int, default=0, help="seed of the before/after split of the photos")
    e.add_argument(
        "--keep-worse",
        action="store_true",
        help="save the adapted head even when it reads the held-out photos worse than the shipped one",
    )
    m = sub.add_parser("markers", help="print the table's ArUco markers at true size (PDF or PNG)")
    from vision import markers

    markers.add_arguments(m)
    m.set_defaults(pipeline=markers.markers_main)
    missing = ""
    try:
        support: Any = importlib.import_module("vision.pipeline.cli_support")
    except ImportError as exc:
        support, missing = None, str(exc)
    for name, (add_name, main_name, help_text) in PIPELINE_COMMANDS.items():
        if support is not None and hasattr(support, add_name) and hasattr(support, main_name):
            p = sub.add_parser(name, help=help_text)
            getattr(support, add_name)(p)
            p.set_defaults(pipeline=getattr(support, main_name))
        else:  # pipeline not installed: accept anything, report it when run
            p = sub.add_parser(name, help=help_text, add_help=False, prefix_chars="\x00")
            p.add_argument("rest", nargs=argparse.REMAINDER)
            p.set_defaults(pipeline=None, missing=missing if support is None else f"{add_name}/{main_name}")


#: Largest image file read (bytes) and largest decoded image (pixels): a tile photo is far smaller; anything
#: bigger is refused before it is decoded (a small file can hold a huge image).
MAX_IMAGE_BYTES = 32 * 1024 * 1024
MAX_IMAGE_PIXELS = 40_000_000


def read_image(path: Path) -> npt.NDArray[np.uint8]:
    """Read an image file as BGR uint8, or BGRA when it has transparency (the classifier flattens it on the
    felt); 16-bit images are scaled to 8 bits.  Raises OSError (missing, a directory, unreadable) or ValueError
    (empty, larger than MAX_IMAGE_BYTES or MAX_IMAGE_PIXELS, or not a decodable image), each naming the cause."""
    import cv2
    from PIL import Image, UnidentifiedImageError

    size = path.stat().st_size  # raises OSError (FileNotFoundError ...)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory")
    if size == 0:
        raise ValueError("empty file")
    if size > MAX_IMAGE_BYTES:
        raise ValueError(f"file of {size} bytes is larger than the {MAX_IMAGE_BYTES} bytes allowed")
    try:
        with Image.open(path) as probe:  # reads the header only
            w, h = probe.size
    except (UnidentifiedImageError, Image.DecompressionBombError, SyntaxError) as exc:
        raise ValueError(f"not a readable image (corrupt or unsupported format): {exc}") from exc
    if w * h > MAX_IMAGE_PIXELS:
        raise ValueError(f"image of {w}x{h} pixels is larger than the {MAX_IMAGE_PIXELS} pixels allowed")
    data = np.fromfile(path, dtype=np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if img is None or img.size == 0:
        raise ValueError("not a readable image (corrupt or unsupported format)")
    if img.dtype == np.uint16:
        img = np.right_shift(np.asarray(img, np.uint16), 8).astype(np.uint8)
    if img.dtype != np.uint8:
        raise ValueError(f"unsupported pixel type {img.dtype}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.ndim == 3 and img.shape[2] == 4 and int(img[..., 3].min()) == 255:
        img = np.ascontiguousarray(img[..., :3])  # opaque: plain BGR
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ValueError(f"unsupported image layout {img.shape}")
    return np.asarray(img, dtype=np.uint8)


def _classify(args: argparse.Namespace) -> int:
    from vision.classifier import OnnxTileClassifier
    from vision.classifier.enroll import Enrollment

    enrollment = Enrollment.load(args.enrollment) if args.enrollment else None
    clf = OnnxTileClassifier.load(args.model, threads=args.threads, enrollment=enrollment)
    images: list[npt.NDArray[np.uint8]] = []
    rows: list[dict[str, Any]] = []
    for path in args.files:
        try:
            images.append(read_image(path))
            rows.append({"file": str(path)})
        except (OSError, ValueError) as exc:
            rows.append({"file": str(path), "error": f"{type(exc).__name__}: {exc}"})
    preds = iter(clf.classify(images))
    failed = 0
    for row in rows:
        if "error" in row:
            failed += 1
        else:
            row.update(next(preds).to_json())
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


def _pipeline(args: argparse.Namespace) -> int:
    if args.pipeline is None:
        print(json.dumps({"error": f"`vision {args.vision_command}` is not available: {args.missing}"}))
        return 2
    return int(args.pipeline(args))


def run(args: argparse.Namespace) -> int:
    """Run the chosen ``vision`` subcommand; returns the exit code (errors as a JSON line, code 2)."""
    from vision.classifier import ModelError

    try:
        if args.vision_command == "classify":
            return _classify(args)
        if args.vision_command == "enroll":
            from vision.classifier.enroll import enroll_command

            return enroll_command(
                args.directory, args.out, model=args.model, seed=args.seed, keep_worse=args.keep_worse
            )
        return _pipeline(args)
    except (ModelError, OSError, ValueError) as exc:
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), file=sys.stdout)
        return 2
