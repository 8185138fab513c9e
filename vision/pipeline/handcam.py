"""Per-seat hand camera: reads a player's standing tiles from the player's side and emits ``hand_seen``.

The tiles stand in one row with their faces toward the camera.  Faces are found as bright regions (tile
bodies are far lighter than felt and background), holes from the face art are filled, the row is split
into tiles from the tile aspect ratio (26:35), each crop is classified in one batch, and the hand (codes
left to right as the camera sees them) is reported once it has been the same for ``stable_frames`` frames.
``hand_seen`` events are referee-only: they carry concealed tiles and must never reach a public topic.

``process`` is synchronous; call it from the worker thread that reads the hand camera.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.classifier import TileClassifier
from vision.pipeline.events import VisionEvent, make_event
from vision.pipeline.segmentation import fill_holes
from vision.pipeline.tracking import EMPTY, SlotTracker

Image = npt.NDArray[np.uint8]
TILE_ASPECT = 26.0 / 35.0


def find_standing_tiles(frame: Image, min_height_px: int = 30) -> list[tuple[int, int, int, int]]:
    """Boxes (x, y, w, h) of the standing tiles, left to right."""
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2Lab)
    background = float(np.median(lab[..., 0]))
    mask = ((lab[..., 0].astype(np.float32) > background + 60) * 255).astype(np.uint8)
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = fill_holes(np.asarray(cv2.morphologyEx(opened, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)), dtype=np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    boxes: list[tuple[int, int, int, int]] = []
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if h < min_height_px or area < 0.6 * w * h:
            continue
        heights = (labels[y : y + h, x : x + w] == label).sum(axis=0)
        typical = float(np.median(heights[heights > 0]))
        k = max(1, round(w / (typical * TILE_ASPECT)))
        step = w / k
        boxes.extend((round(x + i * step), y, round(step), h) for i in range(k))
    return sorted(boxes)


class HandCameraReader:
    """Turns one seat's hand-camera frames into ``hand_seen`` events.

    Args:
        classifier: batch tile classifier.
        seat: whose hand the camera watches.
        stable_frames: frames the reading must repeat before it is reported.
        confidence_threshold: below this the event becomes ``uncertain``.
    """

    def __init__(
        self, classifier: TileClassifier, seat: int, *, stable_frames: int = 3, confidence_threshold: float = 0.6
    ) -> None:
        self.classifier = classifier
        self.seat = seat
        self.threshold = confidence_threshold
        self.tracker = SlotTracker(stable_frames, unsettled_frames=4 * stable_frames)

    def process(self, frame: Image, frame_id: int) -> list[VisionEvent]:
        """Read one frame; returns a ``hand_seen`` event when the seen hand changes and is stable."""
        boxes = find_standing_tiles(frame)
        key = (self.seat, "hand", 0)
        if not boxes:
            self.tracker.observe(key, EMPTY, 1.0)
            return []
        crops = [np.ascontiguousarray(frame[y : y + h, x : x + w]) for x, y, w, h in boxes]
        preds = self.classifier.classify(crops)
        commit = self.tracker.observe(key, tuple(p.code for p in preds), min(p.confidence for p in preds))
        if commit is None:
            return []
        return [
            make_event(
                "hand_seen",
                seat=self.seat,
                tiles=[str(c) for c in commit.value],
                claimed_from=None,
                position=0,
                confidence=commit.confidence,
                frame_id=frame_id,
                threshold=1.01 if commit.unsettled else self.threshold,
            )
        ]
