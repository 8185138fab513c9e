"""Venue enrollment: adapt the classifier to a venue's own tile set from a few photos per face.

The network's second ONNX output is a 96-d embedding.  Enrollment averages the L2-normalised embeddings of
the venue's photos per code into *prototypes*; at inference a cosine-similarity softmax over the prototypes
(temperature ``temperature``) is blended with the trained head: ``p = (1 - w) * p_head + w * p_proto`` on the
enrolled codes.  Saved as a small ``.npz`` (codes, prototypes, weight, temperature), loaded with
``Enrollment.load`` and passed to ``OnnxTileClassifier.load(enrollment=...)``.

``enroll_dir`` reads ``DIR/<code>/*.{jpg,jpeg,png}``, builds the prototypes from part of the photos and
measures the accuracy before/after on the rest, then builds the final prototypes from all photos.
Main-thread functions; ``Enrollment.blend`` is pure (any thread).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.classifier.model import OnnxTileClassifier

F32 = npt.NDArray[np.float32]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


class EnrollmentError(ValueError):
    """The enrollment directory or file is unusable (no photos, unknown code folder, bad file)."""


def _normalise(v: F32) -> F32:
    return np.asarray(v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-6), np.float32)


@dataclass(frozen=True)
class Enrollment:
    """Prototypes of a venue's set: ``codes[i]`` has unit-norm prototype ``prototypes[i]``."""

    classes: tuple[str, ...]
    codes: tuple[str, ...]
    prototypes: F32
    weight: float = 0.5
    temperature: float = 0.05

    def blend(self, probs: F32, embeds: F32) -> F32:
        """Blend the head's probabilities (N x C) with prototype probabilities from embeddings (N x D)."""
        sims = _normalise(embeds) @ self.prototypes.T / self.temperature
        sims -= sims.max(axis=1, keepdims=True)
        p_proto = np.exp(sims)
        p_proto /= p_proto.sum(axis=1, keepdims=True)
        full = np.zeros_like(probs)
        index = [self.classes.index(c) for c in self.codes]
        full[:, index] = p_proto
        return np.asarray((1 - self.weight) * probs + self.weight * full, np.float32)

    def save(self, path: Path) -> None:
        """Write the prototypes as ``.npz`` (the classes/codes as JSON inside)."""
        with open(path, "wb") as fh:
            np.savez(
                fh,
                prototypes=self.prototypes,
                meta=np.frombuffer(
                    json.dumps(
                        {
                            "classes": list(self.classes),
                            "codes": list(self.codes),
                            "weight": self.weight,
                            "temperature": self.temperature,
                        }
                    ).encode(),
                    dtype=np.uint8,
                ),
            )

    @classmethod
    def load(cls, path: Path) -> Enrollment:
        """Read a file written by ``save``; raises EnrollmentError when it is not one."""
        try:
            with np.load(path) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                protos = np.asarray(data["prototypes"], np.float32)
            enrollment = cls(
                tuple(meta["classes"]), tuple(meta["codes"]), protos, float(meta["weight"]), float(meta["temperature"])
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EnrollmentError(f"{path} is not an enrollment file: {exc}") from exc
        if protos.shape[0] != len(enrollment.codes) or any(c not in enrollment.classes for c in enrollment.codes):
            raise EnrollmentError(f"{path}: prototypes do not match their codes")
        return enrollment


def build(clf: OnnxTileClassifier, photos: dict[str, list[npt.NDArray[np.uint8]]], **kw: float) -> Enrollment:
    """Prototypes from ``photos`` (code -> BGR images) with ``clf``'s embedding output."""
    codes, protos = [], []
    for code, images in sorted(photos.items()):
        if not images:
            continue
        _, embeds = clf.run(images)
        if embeds is None:
            raise EnrollmentError("this model has no embedding output: enrollment needs one")
        codes.append(code)
        protos.append(_normalise(_normalise(embeds).mean(axis=0)))
    if not codes:
        raise EnrollmentError("no photos to enroll")
    return Enrollment(clf.classes, tuple(codes), np.stack(protos).astype(np.float32), **kw)


def accuracy(clf: OnnxTileClassifier, photos: dict[str, list[npt.NDArray[np.uint8]]]) -> float:
    """Top-1 accuracy of ``clf`` on ``photos`` (code -> images); NaN when there is none."""
    images = [img for imgs in photos.values() for img in imgs]
    truth = [code for code, imgs in photos.items() for _ in imgs]
    if not images:
        return float("nan")
    got = [p.code for p in clf.classify(images)]
    return float(np.mean([g == t for g, t in zip(got, truth, strict=True)]))


def read_dir(directory: Path, classes: tuple[str, ...]) -> dict[str, list[npt.NDArray[np.uint8]]]:
    """``DIR/<code>/*.jpg`` as code -> images; raises EnrollmentError for an unknown code or unreadable photo."""
    from vision.cli import read_image

    if not directory.is_dir():
        raise EnrollmentError(f"{directory} is not a directory")
    photos: dict[str, list[npt.NDArray[np.uint8]]] = {}
    for sub in sorted(p for p in directory.iterdir() if p.is_dir()):
        if sub.name not in classes:
            raise EnrollmentError(f"folder {sub.name!r} is not a tile code (expected one of {' '.join(classes)})")
        files = sorted(f for f in sub.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        try:
            photos[sub.name] = [read_image(f) for f in files]
        except (OSError, ValueError) as exc:
            raise EnrollmentError(f"{sub}: {exc}") from exc
    if not any(photos.values()):
        raise EnrollmentError(f"no photos under {directory}/<code>/")
    return photos


def enroll_dir(clf: OnnxTileClassifier, directory: Path, seed: int = 0) -> tuple[Enrollment, dict[str, Any]]:
    """Final enrollment from every photo, and a report measured on a split (half the photos of each code
    with at least 2 build the prototypes, the other half is scored before/after)."""
    photos = read_dir(directory, clf.classes)
    rng = np.random.default_rng(seed)
    fit: dict[str, list[npt.NDArray[np.uint8]]] = {}
    test: dict[str, list[npt.NDArray[np.uint8]]] = {}
    for code, imgs in photos.items():
        order = rng.permutation(len(imgs))
        half = (len(imgs) + 1) // 2
        fit[code] = [imgs[i] for i in order[:half]]
        test[code] = [imgs[i] for i in order[half:]]
    plain = OnnxTileClassifier(clf._session, clf.meta)
    before = accuracy(plain, test)
    adapted = OnnxTileClassifier(clf._session, clf.meta, build(plain, fit))
    after = accuracy(adapted, test)
    final = build(plain, photos)
    report = {
        "codes": len(final.codes),
        "photos": sum(len(v) for v in photos.values()),
        "held_out_photos": sum(len(v) for v in test.values()),
        "accuracy_before": round(before, 4),
        "accuracy_after": round(after, 4),
    }
    return final, report


def enroll_command(directory: Path, out: Path, *, model: Path | None = None, seed: int = 0) -> int:
    """``mjtable vision enroll``: prints one JSON line (report + saved path); exit code 0."""
    clf = OnnxTileClassifier.load(model)
    enrollment, report = enroll_dir(clf, directory, seed)
    enrollment.save(out)
    print(json.dumps({**report, "saved": str(out)}))
    return 0
