"""Frame sources behind one protocol: OpenCV capture (USB/V4L2 index or device path), picamera2 on
Raspberry Pi OS when importable, a directory of images, and a video file.

``FrameSource.read()`` returns the next :class:`Frame` or None at the end of a file source; a live camera
that stops delivering raises :class:`CameraError`.  Opening a camera that is not there raises
:class:`CameraError` naming it.  ``open_source(spec, size=(w, h))`` picks the implementation from a string
(``"0"``, ``"/dev/video2"``, ``"picamera2"``, a directory, a video file, or the configuration's forms
``"opencv:<index or device>"`` and ``"file:<directory or video>"``); ``size`` is the frame asked of a live
camera (px).  ``frames(source)`` is an
async iterator that reads in a worker thread, so the event loop never blocks on a camera.

Sources are used by one thread at a time; ``close()`` (or ``with``) releases the device.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm", ".mjpeg")


class CameraError(RuntimeError):
    """A camera or file source cannot be opened or stopped delivering frames."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One BGR uint8 frame, its sequence number from 0, and its capture time (seconds, the source's clock)."""

    image: Image
    frame_id: int
    t_s: float


class FrameSource(Protocol):
    """Anything that yields frames."""

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class _Closing:
    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self: Any) -> Any:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class OpenCvSource(_Closing):
    """cv2.VideoCapture on a device index, a device path or a video file.

    Args:
        spec: device index (int) or path.
        live: a live camera (a failed read raises CameraError) rather than a file (a failed read ends it).
        clock: seconds clock stamped on frames.
        size: the frame (width, height) px asked of a live camera; the driver may pick the nearest it has.
    """

    def __init__(
        self,
        spec: int | str,
        *,
        live: bool = True,
        clock: Callable[[], float] = time.monotonic,
        size: tuple[int, int] | None = None,
    ) -> None:
        if isinstance(spec, str) and not live and not Path(spec).is_file():
            raise CameraError(f"video file {spec} does not exist")
        self.spec = spec
        self.live = live
        self.clock = clock
        self._cap = cv2.VideoCapture(spec)
        if not self._cap.isOpened():
            self._cap.release()
            what = f"camera {spec}" if live else f"video {spec}"
            raise CameraError(f"cannot open {what}: is it connected and not used by another program?")
        if live and size is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._next = 0

    def read(self) -> Frame | None:
        ok, image = self._cap.read()
        if not ok or image is None:
            if self.live:
                raise CameraError(f"camera {self.spec} stopped delivering frames")
            return None
        frame = Frame(np.asarray(image, dtype=np.uint8), self._next, self.clock())
        self._next += 1
        return frame

    def close(self) -> None:
        self._cap.release()


class Picamera2Source(_Closing):
    """The Raspberry Pi camera through picamera2 (only on Raspberry Pi OS, where it is importable)."""

    def __init__(self, size: tuple[int, int] = (1280, 720), *, clock: Callable[[], float] = time.monotonic) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError("picamera2 is not installed (Raspberry Pi OS: apt install python3-picamera2)") from exc
        try:
            self._cam = Picamera2()
            config = self._cam.create_video_configuration(main={"size": size, "format": "BGR888"})
            self._cam.configure(config)
            self._cam.start()
        except (RuntimeError, IndexError, OSError) as exc:
            raise CameraError(f"no Raspberry Pi camera found: {exc}") from exc
        self.clock = clock
        self._next = 0

    def read(self) -> Frame | None:
        try:
            image = self._cam.capture_array("main")
        except RuntimeError as exc:
            raise CameraError(f"Raspberry Pi camera stopped: {exc}") from exc
        frame = Frame(np.ascontiguousarray(image[..., :3], dtype=np.uint8), self._next, self.clock())
        self._next += 1
        return frame

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


class ImageDirectorySource(_Closing):
    """The images of a directory in name order (one frame each); unreadable files raise CameraError.

    ``fps`` stamps frame times as ``frame_id / fps`` seconds.
    """

    def __init__(self, directory: str | Path, *, fps: float = 10.0) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise CameraError(f"image directory {self.directory} does not exist")
        self.files = sorted(p for p in self.directory.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {self.directory}")
        self.fps = fps
        self._next = 0

    def read(self) -> Frame | None:
        if self._next >= len(self.files):
            return None
        path = self.files[self._next]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"cannot read image {path}")
        frame = Frame(np.asarray(image, dtype=np.uint8), self._next, self._next / self.fps)
        self._next += 1
        return frame

    def close(self) -> None:
        self._next = len(self.files)


def open_source(spec: str, *, size: tuple[int, int] = (1280, 720)) -> FrameSource:
    """A source from a command-line or configuration string: ``0`` or ``opencv:0`` (device index),
    ``/dev/videoN`` or ``opencv:/dev/videoN``, ``picamera2``, a directory of images or a video file (either
    also as ``file:<path>``).  ``size``: the frame (width, height) px asked of a live camera.  Raises
    CameraError with what was tried."""
    if spec.startswith("opencv:"):
        device = spec[len("opencv:") :]
        if not (device.isdigit() or device.startswith("/dev/")):
            raise CameraError(f"camera source {spec!r}: opencv: takes a device index or a /dev/ path")
        return open_source(device, size=size)
    if spec.startswith("file:"):
        path = Path(spec[len("file:") :])
        if not path.exists():
            raise CameraError(f"camera source {spec!r}: {path} does not exist")
        if not (path.is_dir() or path.suffix.lower() in VIDEO_SUFFIXES + IMAGE_SUFFIXES):
            raise CameraError(f"camera source {spec!r}: file: takes a directory of images or a video file")
        return open_source(str(path), size=size)
    if spec.isdigit():
        return OpenCvSource(int(spec), size=size)
    if spec == "picamera2":
        return Picamera2Source(size)
    path = Path(spec)
    if path.is_dir():
        return ImageDirectorySource(path)
    if path.suffix.lower() in VIDEO_SUFFIXES:
        return OpenCvSource(spec, live=False)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise CameraError(f"{spec} is a single image: pass its directory")
    if spec.startswith("/dev/"):
        if not path.exists():
            raise CameraError(f"camera device {spec} does not exist")
        return OpenCvSource(spec, size=size)
    raise CameraError(
        f"unknown frame source {spec!r}: use a device index, /dev/videoN, picamera2, a directory or a video"
    )


async def frames(source: FrameSource) -> AsyncIterator[Frame]:
    """Yield frames, reading each in a worker thread; ends when the source ends."""
    while True:
        frame = await asyncio.to_thread(source.read)
        if frame is None:
            return
        yield frame
