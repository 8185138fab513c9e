"""Camera snapshots stored beside a journal, for the hawk-eye replay (``mjtable replay --serve``).

The replay server (:mod:`mjtable.replay_server`) shows, for an event with id ``E``, the file
``<journal>.snapshots/E.jpg``.  The table service (:mod:`mjtable.service`) saves the frame a camera observation was read
from right after the observation is journaled::

    store = SnapshotStore(journal_path)
    store.save(event.id, jpeg_bytes)                 # or store.save_frame(event.id, frame_bgr)

Writes are atomic (temporary file, fsync, rename): a crash leaves either the whole snapshot or none.  Snapshots
hold what the camera saw, possibly concealed tiles from a hand camera, so they are served only by the
referee-side replay, never published on MQTT.  Called from any one thread (the camera worker); the methods
touch only the file system.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

#: event ids become file names: letters, digits and ``_ - . :``; no path separators, no leading dot
SAFE_ID = re.compile(r"^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,127}$")
MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024
JPEG_SOI = b"\xff\xd8\xff"


class SnapshotError(ValueError):
    """A snapshot that cannot be stored (bad event id, not a JPEG, too big)."""


class SnapshotStore:
    """The snapshot folder of one journal (``<journal>.snapshots/``, created on the first save).

    Args:
        journal_path: the engine journal the snapshots belong to (``controller.journal``).
        max_bytes: the largest JPEG accepted.
    """

    def __init__(self, journal_path: Path | str, *, max_bytes: int = MAX_SNAPSHOT_BYTES) -> None:
        journal = Path(journal_path)
        self.folder = journal.parent / f"{journal.name}.snapshots"
        self.max_bytes = max_bytes

    def path_for(self, event_id: str) -> Path:
        """Where the snapshot of ``event_id`` lives (the name the replay server looks for)."""
        if not SAFE_ID.match(event_id) or ".." in event_id:
            raise SnapshotError(f"event id {event_id!r} cannot name a snapshot file")
        return self.folder / f"{event_id}.jpg"

    def save(self, event_id: str, jpeg: bytes) -> Path:
        """Store ``jpeg`` (a complete JPEG file) for ``event_id``; returns its path.  Replaces an older one."""
        path = self.path_for(event_id)
        if not jpeg.startswith(JPEG_SOI) or not jpeg.rstrip(b"\x00").endswith(b"\xff\xd9"):
            raise SnapshotError(f"snapshot for {event_id!r} is not a complete JPEG")
        if len(jpeg) > self.max_bytes:
            raise SnapshotError(f"snapshot for {event_id!r} has {len(jpeg)} bytes, more than {self.max_bytes}")
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
        try:
            os.write(fd, jpeg)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        return path

    def save_frame(self, event_id: str, frame: np.ndarray, *, quality: int = 80, max_width: int = 1280) -> Path:
        """Encode a BGR uint8 camera frame (HxWx3) as JPEG (downscaled to ``max_width`` pixels) and save it."""
        import cv2

        if frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            raise SnapshotError(f"a snapshot frame is BGR uint8 HxWx3, got {frame.dtype} {frame.shape}")
        h, w = frame.shape[:2]
        if w > max_width:
            frame = cv2.resize(frame, (max_width, max(1, round(h * max_width / w))), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", frame, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
        if not ok:
            raise SnapshotError(f"could not encode the frame of {event_id!r} as JPEG")
        return self.save(event_id, buf.tobytes())

    def load(self, event_id: str) -> bytes | None:
        """The stored JPEG of ``event_id``, or None."""
        path = self.path_for(event_id)
        return path.read_bytes() if path.is_file() else None

    def event_ids(self) -> list[str]:
        """Ids of the events that have a snapshot, sorted."""
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.jpg"))
