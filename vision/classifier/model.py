"""Tile classifier: the ``TileClassifier`` protocol, ``Prediction`` and the onnxruntime implementation.

``OnnxTileClassifier.load()`` opens the committed model ``vision/models/tile_classifier.onnx`` with its
metadata ``tile_classifier.json`` (classes, input size, normalisation).  ``classify(crops)`` takes BGR uint8
crops of single tiles (any size, any 90-degree rotation) and returns one ``Prediction`` per crop.  An
optional ``Enrollment`` (a venue-adapted head, see ``vision.classifier.enroll``) replaces the trained head.

A card with ``input.test_time`` = ``"mirror"`` reads every crop twice, as it is and mirrored left to right, in one
batch, and averages the two reads' logits and embeddings (the model is trained on mirrored crops too: the real
photographs hold mirrored pictures, and a face mirrored is the same face).  It costs twice the network time.
A card with ``"mirror_when_unsure"`` reads every crop once and reads mirrored, and averages, only the crops whose
first read is unsure: its best logit leads the second by less than ``input.second_read_margin``.  On the real
validation photos that reads a third of the mirrors a ``mirror`` card reads, and every figure stays as with the
mirror read of every crop (docs/vision.md, "The mirrored read").

Thread safety: an onnxruntime session may be run from several threads; ``classify`` keeps no state of its
own, so one instance can be shared (the pipeline calls it from its single worker thread).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from vision.classifier.preprocess import to_input, transform_crops

if TYPE_CHECKING:
    from vision.classifier.enroll import Enrollment

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
DEFAULT_MODEL_PATH = MODEL_DIR / "tile_classifier.onnx"
#: Crops are run through the network in chunks of this many (bounded memory, good ORT throughput).
CHUNK = 64
#: what ``input.test_time`` may say, and the network reads it makes of each crop at most: ``none`` (one),
#: ``mirror`` (the crop and its mirror, averaged: two) or ``mirror_when_unsure`` (one, two when the first read's
#: best logit leads the second by less than ``input.second_read_margin``)
NETWORK_READS = {"none": 1, "mirror": 2, "mirror_when_unsure": 2}
TEST_TIME_READS = tuple(NETWORK_READS)


class ModelError(RuntimeError):
    """The model or its metadata is missing, unreadable or inconsistent."""


@dataclass(frozen=True, slots=True)
class Prediction:
    """The classifier's answer for one crop: best code, its probability (0..1) and the three best."""

    code: str
    confidence: float
    top3: list[tuple[str, float]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """``{"tile": code, "confidence": p, "top3": [[code, p], ...]}`` (rounded to 4 decimals)."""
        return {
            "tile": self.code,
            "confidence": round(self.confidence, 4),
            "top3": [[c, round(p, 4)] for c, p in self.top3],
        }


class TileClassifier(Protocol):
    """Classifies crops of single tiles (BGR uint8 HxWx3) into tile codes or ``back``."""

    def classify(self, crops: Sequence[npt.NDArray[np.uint8]]) -> list[Prediction]: ...


def _test_time(meta: dict[str, Any]) -> str:
    """The card's ``input.test_time`` (default ``none``); ModelError when it is not one of TEST_TIME_READS."""
    test_time = str(meta["input"].get("test_time", "none"))
    if test_time not in NETWORK_READS:
        raise ModelError(f"model metadata: input.test_time {test_time!r} is not one of {TEST_TIME_READS}")
    return test_time


def _second_read_margin(meta: dict[str, Any], test_time: str) -> float | None:
    """The card's ``input.second_read_margin`` (logits) for a ``mirror_when_unsure`` card, else None; ModelError
    when such a card lacks a finite margin of 0 or more."""
    if test_time != "mirror_when_unsure":
        return None
    margin = meta["input"].get("second_read_margin")
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not 0 <= float(margin) < float("inf"):
        raise ModelError(f"model metadata: input.second_read_margin {margin!r} is not a number of logits >= 0")
    return float(margin)


def card_reading(model_path: Path) -> str:
    """How the card beside ``model_path`` (its ``.json``) reads a crop: its ``input.test_time`` (one of
    TEST_TIME_READS).  Raises ModelError when the card is missing, unreadable or says another reading, or a
    ``mirror_when_unsure`` card has no usable ``second_read_margin``."""
    meta_path = model_path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text())
        test_time = _test_time(meta)
        _second_read_margin(meta, test_time)
        return test_time
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"model metadata {meta_path} is missing or invalid: {exc}") from exc


def network_reads_per_crop(model_path: Path) -> int:
    """How many network reads the card beside ``model_path`` (its ``.json``) makes of a crop at most
    (NETWORK_READS of its ``input.test_time``).  Raises ModelError as ``card_reading``."""
    return NETWORK_READS[card_reading(model_path)]


def _leads(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Per row, how far the best logit leads the second (infinite with one class)."""
    if logits.shape[1] < 2:
        return np.full(len(logits), np.inf, np.float32)
    top2 = np.sort(logits, axis=1)[:, -2:]
    return np.asarray(top2[:, 1] - top2[:, 0], np.float32)


def _softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float32)


def predictions(probs: npt.NDArray[np.float32], classes: Sequence[str]) -> list[Prediction]:
    """One Prediction per row of class probabilities."""
    out = []
    for row in probs:
        best = np.argsort(-row)[:3]
        top3 = [(classes[int(i)], float(row[int(i)])) for i in best]
        out.append(Prediction(top3[0][0], top3[0][1], top3))
    return out


class OnnxTileClassifier:
    """The committed CNN run by onnxruntime on the CPU (see vision/models/tile_classifier.json)."""

    def __init__(
        self,
        session: Any,
        meta: dict[str, Any],
        enrollment: Enrollment | None = None,
        *,
        model_dir: Path | None = None,
    ) -> None:
        self._session = session
        self.meta = meta
        #: directory of the model file (its head weights live there); None for a session built elsewhere
        self.model_dir = model_dir
        self.classes: tuple[str, ...] = tuple(meta["classes"])
        size = meta["input"]["size"]
        self.size = int(size[0])
        self.mean = float(meta["input"]["mean"])
        self.std = float(meta["input"]["std"])
        self.test_time = _test_time(meta)
        #: ``mirror_when_unsure``: a first read whose best logit leads by less than this is read mirrored too
        self.second_read_margin = _second_read_margin(meta, self.test_time)
        if enrollment is not None and (
            enrollment.classes != self.classes
            or enrollment.weight.shape[0] != len(self.classes)
            or enrollment.weight.shape[1] != int(meta.get("embedding_dim") or enrollment.weight.shape[1])
        ):
            raise ModelError("the enrollment was made for another model (its classes differ): enroll again")
        self.enrollment = enrollment
        #: logits are divided by this before the softmax (fitted on real photos, model card ``calibration``)
        self.temperature = float((meta.get("calibration") or {}).get("temperature", 1.0))
        if enrollment is not None and enrollment.temperature is not None:  # the adapted head's own calibration
            self.temperature = float(enrollment.temperature)
        if not self.temperature > 0:
            raise ModelError(f"model metadata: calibration temperature {self.temperature} is not positive")
        outputs = [o.name for o in session.get_outputs()]
        if "logits" not in outputs:
            raise ModelError(f"model has no 'logits' output (outputs: {outputs})")
        self._outputs = ["logits", "embedding"] if "embedding" in outputs else ["logits"]

    def card_min_confidence(self, default: float = 0.6) -> float:
        """The card's ``calibration.min_confidence`` (chosen on real photographs; the service's default
        threshold), or ``default`` for a card without one."""
        return float((self.meta.get("calibration") or {}).get("min_confidence", default))

    @classmethod
    def load(
        cls, path: str | Path | None = None, *, threads: int | None = None, enrollment: Enrollment | None = None
    ) -> OnnxTileClassifier:
        """Open ``path`` (default: the committed model) and its ``.json`` metadata next to it.

        ``threads`` sets onnxruntime's intra-op threads (None: its default).  Raises ModelError with the path
        when either file is missing or unreadable, or when the metadata does not match the model.
        """
        import onnxruntime as ort

        model_path = Path(path) if path is not None else DEFAULT_MODEL_PATH
        meta_path = model_path.with_suffix(".json")
        if not model_path.is_file():
            raise ModelError(f"tile classifier model {model_path} is missing (train it: python -m vision.train)")
        try:
            meta = json.loads(meta_path.read_text())
            if not meta["classes"] or not {"size", "mean", "std"} <= set(meta["input"]):
                raise KeyError("classes or input.size/mean/std")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"model metadata {meta_path} is missing or invalid: {exc}") from exc
        opts = ort.SessionOptions()
        if threads is not None:
            opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        try:
            session = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for a corrupt file
            raise ModelError(f"cannot load {model_path}: {exc}") from exc
        return cls(session, meta, enrollment, model_dir=model_path.parent)

    def with_enrollment(self, enrollment: Enrollment | None) -> OnnxTileClassifier:
        """The same network (shared session) with ``enrollment`` applied, or none."""
        return OnnxTileClassifier(self._session, self.meta, enrollment, model_dir=self.model_dir)

    def run(self, crops: Sequence[object]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
        """Raw network outputs for ``crops``: (logits N x C, embeddings N x D or None); with the card's
        ``test_time`` = ``mirror``, the mean of the crop's and its mirror's; ``mirror_when_unsure``, that mean
        for the crops whose first read is unsure (``second_read_margin``) and the first read for the rest."""
        logits: list[npt.NDArray[np.float32]] = []
        embeds: list[npt.NDArray[np.float32]] = []
        mirror = self.test_time == "mirror"
        for start in range(0, len(crops), CHUNK):
            x = to_input(crops[start : start + CHUNK], self.size, self.mean, self.std)
            n = len(x)
            if mirror:
                x = np.ascontiguousarray(np.concatenate([x, x[..., ::-1]]))
            outs = [np.asarray(out, np.float32) for out in self._session.run(self._outputs, {"input": x})]
            if self.second_read_margin is not None:
                outs = self._second_read(x, outs, self.second_read_margin)
            for got, arr in zip((logits, embeds), outs, strict=False):
                got.append((arr[:n] + arr[n:]) / np.float32(2) if mirror else arr)
        if not logits:
            return np.zeros((0, len(self.classes)), np.float32), None
        return np.concatenate(logits), (np.concatenate(embeds) if embeds else None)

    def _second_read(
        self, x: npt.NDArray[np.float32], outs: list[npt.NDArray[np.float32]], margin: float
    ) -> list[npt.NDArray[np.float32]]:
        """``outs`` (the first read of the input batch ``x``) with the rows whose best logit leads the second by
        less than ``margin`` replaced by the mean of that read and the mirrored crop's."""
        unsure = np.flatnonzero(_leads(outs[0]) < margin)
        if not len(unsure):
            return outs
        seconds = self._session.run(self._outputs, {"input": np.ascontiguousarray(x[unsure][..., ::-1])})
        for arr, second in zip(outs, seconds, strict=False):
            arr[unsure] = (arr[unsure] + np.asarray(second, np.float32)) / np.float32(2)
        return outs

    def second_reads(self, crops: Sequence[object]) -> int | None:
        """How many of ``crops`` a ``mirror_when_unsure`` card reads twice (their first read's best logit leads by
        less than ``second_read_margin``); None for a card that reads otherwise."""
        if self.second_read_margin is None:
            return None
        unsure = 0
        for start in range(0, len(crops), CHUNK):
            x = to_input(crops[start : start + CHUNK], self.size, self.mean, self.std)
            first = np.asarray(self._session.run(["logits"], {"input": x})[0], np.float32)
            unsure += int((_leads(first) < self.second_read_margin).sum())
        return unsure

    def logits(self, crops: Sequence[object]) -> npt.NDArray[np.float32]:
        """Logits N x C before the temperature (from the venue's adapted head, after its input transform, when
        an enrollment is attached)."""
        if self.enrollment is not None and self.enrollment.transform != "none":
            crops = transform_crops(crops, self.enrollment.transform)
        logits, embeds = self.run(crops)
        if self.enrollment is not None and embeds is not None and len(logits):
            logits = self.enrollment.logits(embeds)
        return logits

    def probabilities(self, crops: Sequence[object]) -> npt.NDArray[np.float32]:
        """Calibrated class probabilities N x C: softmax of ``logits(crops) / temperature``."""
        return _softmax(self.logits(crops) / np.float32(self.temperature))

    def classify(self, crops: Sequence[npt.NDArray[np.uint8]]) -> list[Prediction]:
        """One Prediction per crop (BGR uint8 HxWx3, any size; grey and BGRA accepted).

        Raises ``vision.classifier.preprocess.BadCropError`` (a ValueError naming the crop's index) for an
        input that is not an image; nothing is classified then.
        """
        if len(crops) == 0:
            return []
        return predictions(self.probabilities(crops), self.classes)
