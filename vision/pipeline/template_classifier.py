"""A nearest-template tile classifier for a *known* artwork (the simulated camera's): the pipeline's test double.

It compares each crop (resized to 18 x 24, per-channel zero mean, unit norm) with the artwork's faces
upright and turned half round, and answers with a softmax over the correlations.  It is exact enough on
frames the simulated camera draws with the same artwork, which lets the segmentation and tracking tests
run without the trained ONNX model; it knows nothing of other tile sets (use
``vision.classifier.OnnxTileClassifier`` for real cameras).  Thread-safe after construction.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from vision.classifier import Prediction
from vision.pipeline.tileart import TileArt, tile_top
from vision.scene import BACK

_SIZE = (24, 32)


def all_codes() -> list[str]:
    """Every face the classifier knows: 34 faces, three red fives, eight flowers and ``back``."""
    codes = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]
    return [*codes, "0m", "0p", "0s", *(f"{r}f" for r in range(1, 9)), BACK]


def _feature(img: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    small = cv2.resize(img, _SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    small -= small.reshape(-1, 3).mean(axis=0)
    vec = small.ravel()
    return np.asarray(vec / (float(np.linalg.norm(vec)) + 1e-6), dtype=np.float32)


class TemplateClassifier:
    """Classifies crops by correlation with the faces of ``art`` (see module doc).

    Args:
        art: the artwork the frames were drawn with.
        sharpness: softmax temperature applied to correlations (higher: more confident).
        bevel_frac: width of the bevelled edge around the face, as a fraction of the tile width.
        seen_px: (w, h) a tile covers in the camera frame; templates are degraded to it.
    """

    def __init__(
        self, art: TileArt, sharpness: float = 60.0, bevel_frac: float = 2.2 / 26, seen_px: tuple[int, int] = (19, 26)
    ) -> None:
        self.codes = all_codes()
        feats: list[npt.NDArray[np.float32]] = []
        for code in self.codes:
            face = tile_top(art.face(code), 104, 140, max(1, round(bevel_frac * 104)))
            # the camera sees a tile at about 26 x 35 px: degrade the template the same way
            face = cv2.resize(cv2.resize(face, seen_px, interpolation=cv2.INTER_AREA), (48, 64))
            for turned in (face, np.ascontiguousarray(face[::-1, ::-1])):
                feats.append(_feature(turned))
        self._templates = np.stack(feats)
        self.sharpness = sharpness

    def classify(self, crops: Sequence[npt.NDArray[np.uint8]]) -> list[Prediction]:
        """One Prediction per crop (BGR uint8)."""
        if len(crops) == 0:
            return []
        feats = np.stack([_feature(np.asarray(c, dtype=np.uint8)) for c in crops])
        corr = feats @ self._templates.T
        best = corr.reshape(len(crops), len(self.codes), 2).max(axis=2)  # upright or turned half round
        logits = best * self.sharpness
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        out: list[Prediction] = []
        for row in probs:
            order = np.argsort(row)[::-1][:3]
            out.append(
                Prediction(self.codes[order[0]], float(row[order[0]]), [(self.codes[i], float(row[i])) for i in order])
            )
        return out
