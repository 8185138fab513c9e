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
from vision.pipeline.table import TablePipeline
from vision.pipeline.tileart import TileArt, tile_top
from vision.scene import BACK

_SIZE = (24, 32)
Image = npt.NDArray[np.uint8]


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
            face = np.asarray(cv2.resize(cv2.resize(face, seen_px, interpolation=cv2.INTER_AREA), (48, 64)), np.uint8)
            for turned in (face, np.ascontiguousarray(face[::-1, ::-1])):
                feats.append(_feature(turned))
        self._sort(np.stack(feats), np.repeat(np.arange(len(self.codes)), 2))
        self.sharpness = sharpness

    def add_examples(self, crops: Sequence[npt.NDArray[np.uint8]], codes: Sequence[str]) -> None:
        """Enroll crops seen by the camera itself (labelled), as extra templates for their codes."""
        if len(crops) != len(codes):
            raise ValueError("one code per crop")
        feats = [self._templates]
        owners = [self._owners]
        for crop_img, code in zip(crops, codes, strict=True):
            index = self.codes.index(code)
            for turned in (crop_img, np.ascontiguousarray(crop_img[::-1, ::-1])):
                feats.append(_feature(np.asarray(turned, dtype=np.uint8))[None])
                owners.append(np.array([index]))
        self._sort(np.concatenate(feats), np.concatenate(owners))

    def _sort(self, templates: npt.NDArray[np.float32], owners: npt.NDArray[np.int64]) -> None:
        order = np.argsort(owners, kind="stable")
        self._templates, self._owners = templates[order], owners[order]
        self._starts = np.searchsorted(self._owners, np.arange(len(self.codes)))

    def classify(self, crops: Sequence[npt.NDArray[np.uint8]]) -> list[Prediction]:
        """One Prediction per crop (BGR uint8)."""
        if len(crops) == 0:
            return []
        feats = np.stack([_feature(np.asarray(c, dtype=np.uint8)) for c in crops])
        corr = np.einsum("ij,kj->ik", feats, self._templates)  # no BLAS thread pool to wake on a busy machine
        # best over each code's templates (upright, turned, enrolled): templates are kept sorted by code
        best = np.maximum.reduceat(corr, self._starts, axis=1)
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


def learn_from_frame(
    classifier: TemplateClassifier,
    pipeline: TablePipeline,
    frame: Image,
    tiles: Sequence[tuple[str, float, float]],
) -> int:
    """Enroll the tiles the pipeline finds in a frame whose tiles are known: ``tiles`` are (code, u, v), each
    lying tile's code and centre in the table frame (mm, e.g. from ``SimCamera.layout``); a tile found within
    8 mm of one of them is enrolled with its crop (:func:`vision.pipeline.capture.known_crops`).  Returns how
    many were enrolled."""
    from vision.pipeline.capture import known_crops

    pipeline.process(frame, -1)  # calibrates
    found = known_crops(pipeline, frame, tiles)
    classifier.add_examples([crop for _, crop, _ in found], [code for code, _, _ in found])
    return len(found)


def enrolled_template(art: TileArt, seeds: Sequence[int] = (100, 101)) -> TemplateClassifier:
    """A template classifier enrolled on camera crops of every face, upright in ponds and sideways in melds
    at every seat, from simulated cameras with ``seeds`` (use seeds other than the camera under test)."""
    from vision.scene import SceneMeld, SeatScene, TableScene
    from vision.simcam import SimCamera

    classifier = TemplateClassifier(art)
    codes = all_codes()
    faces = [c for c in codes if c != BACK]
    for seed in seeds:
        cam = SimCamera(art=art, seed=seed)
        scenes: list[TableScene] = []
        for k in range(2):
            seq = (codes * 4)[k * 96 + seed % 7 : k * 96 + 96 + seed % 7]
            seats = [SeatScene(pond=tuple(seq[i * 24 : (i + 1) * 24])) for i in range(4)]
            scenes.append(TableScene(seats=(seats[0], seats[1], seats[2], seats[3])))
        for k in range(0, len(faces), 12):  # pungs: every face sideways once, three melds a seat
            melds = [
                SceneMeld("pung", (code,) * 3, claimed_from=(i // 3 + 1 + i % 3) % 4)
                for i, code in enumerate(faces[k : k + 12])
            ]
            seats = [SeatScene(melds=tuple(melds[i * 3 : (i + 1) * 3])) for i in range(4)]
            scenes.append(TableScene(seats=(seats[0], seats[1], seats[2], seats[3])))
        for scene in scenes:
            tiles = [(p.code, p.u_mm, p.v_mm) for p in cam.layout(scene)]
            learn_from_frame(classifier, TablePipeline(classifier), cam.render(scene), tiles)
    return classifier
