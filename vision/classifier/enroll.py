"""Venue enrollment: adapt the classifier to a venue's own tile set from a few photos per face.

The network ends in a 96-d embedding (second ONNX output) and a linear head (``logits = e @ W.T + b``, the head
saved as ``tile_classifier.head.npz`` by ``vision.train``).  Enrollment fine-tunes that head on the venue's
photos: every photo is embedded in its four quarter turns and a few light photometric/geometric variations,
then ``W, b`` are fitted by full-batch gradient descent (Adam) on the cross-entropy of those embeddings plus
an L2 pull towards the trained head (``l2``), so faces without photos keep what training taught.  The result
is a small ``.npz`` (classes, enrolled codes, the adapted head), loaded with ``Enrollment.load`` and passed to
``OnnxTileClassifier.load(enrollment=...)``, which then scores the embedding with the adapted head.

A set unlike every training style (dark bodies engraved in pale inks) is first brought closer to what the network
knows by an input transform (``vision.classifier.preprocess.TRANSFORMS``: none, or the lightness inverted with
the hues kept): enrollment picks the one under which the trained head already explains the venue's photos best
(highest mean log-likelihood of their codes), fits the head on embeddings of transformed photos and saves the
transform's name; the classifier then applies it to every crop before the network.

``enroll_dir`` reads ``DIR/<code>/*.{jpg,jpeg,png,bmp}``, fits on half the photos of each code and measures on
the other half, before and after, the accuracy and what the service would do at the card's threshold (reads
taken as fact, and how many of those are wrong), then fits the final head on all photos.
Main-thread functions; ``Enrollment.logits`` is pure (any thread).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from mjtable.blas import one_blas_thread
from vision.classifier.model import ModelError, OnnxTileClassifier
from vision.classifier.preprocess import TRANSFORMS, transform_crops

F32 = npt.NDArray[np.float32]
Photos = dict[str, list[npt.NDArray[np.uint8]]]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
#: L2 pull of the adapted head towards the trained one (per weight, relative to the mean cross-entropy) ...
DEFAULT_L2 = 1e-3
#: ... chosen among these by cross-validation on the venue's own photos (``choose_l2``): a consistent set (one
#: maker) picks a loose pull, photos that disagree with each other (many makers, blurred crops) a stiff one
L2_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
#: an enrollment file larger than this, or whose members unpack to more, is refused unread (bytes; the head
#: of the shipped model is about 20 kB)
MAX_ENROLLMENT_BYTES = 8 << 20
#: folds of that cross-validation (each photo's variations stay together)
L2_FOLDS = 3
#: variations of each photo fed to the fit (each in 4 quarter turns)
DEFAULT_VARIATIONS = 4


class EnrollmentError(ValueError):
    """The enrollment directory or file is unusable (no photos, unknown code folder, bad file)."""


@dataclass(frozen=True)
class Enrollment:
    """A venue's adapted head: ``logits = embedding @ weight.T + bias`` over ``classes``; ``codes`` had photos;
    ``transform``: the input transform (a key of TRANSFORMS) applied to crops before the network; ``l2``: the pull
    towards the trained head it was fitted with; ``temperature``: the logits' divisor before the softmax, fitted on
    the photos it held out (``held_out_temperature``), or None for the model card's."""

    classes: tuple[str, ...]
    codes: tuple[str, ...]
    weight: F32
    bias: F32
    transform: str = "none"
    l2: float = DEFAULT_L2
    temperature: float | None = None

    def logits(self, embeds: F32) -> F32:
        """Adapted logits (N x C) from embeddings (N x D)."""
        return np.asarray(embeds @ self.weight.T + self.bias, np.float32)

    def save(self, path: Path) -> None:
        """Write the head as ``.npz`` (the classes/codes as JSON inside)."""
        meta = {
            "schema": "mjtable.enrollment/4",
            "classes": list(self.classes),
            "codes": list(self.codes),
            "transform": self.transform,
            "l2": self.l2,
            "temperature": self.temperature,
        }
        with open(path, "wb") as fh:
            np.savez(
                fh,
                weight=self.weight,
                bias=self.bias,
                meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
            )

    @classmethod
    def load(cls, path: Path) -> Enrollment:
        """Read a file written by ``save``; raises EnrollmentError when it is not one (or is larger than
        MAX_ENROLLMENT_BYTES, packed or unpacked: checked before numpy reads it)."""
        _check_size(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                weight = np.asarray(data["weight"], np.float32)
                bias = np.asarray(data["bias"], np.float32)
            transform = str(meta.get("transform", "none"))  # files of schema /2 had none
            l2 = float(meta.get("l2", DEFAULT_L2))  # files written before the pull was chosen had none
            raw_t = meta.get("temperature")  # files of schema /3 and before had none: the card's
            temperature = None if raw_t is None else float(raw_t)
            enrollment = cls(tuple(meta["classes"]), tuple(meta["codes"]), weight, bias, transform, l2, temperature)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EnrollmentError(f"{path} is not an enrollment file: {exc}") from exc
        if temperature is not None and not (0 < temperature < float("inf")):
            raise EnrollmentError(f"{path}: temperature {temperature} is not a positive number")
        if transform not in TRANSFORMS:
            raise EnrollmentError(f"{path}: unknown input transform {transform!r} (known: {', '.join(TRANSFORMS)})")
        n = len(enrollment.classes)
        if weight.ndim != 2 or weight.shape[0] != n or bias.shape != (n,):
            raise EnrollmentError(f"{path}: the head's shape {weight.shape} does not match {n} classes")
        if any(c not in enrollment.classes for c in enrollment.codes):
            raise EnrollmentError(f"{path}: enrolled codes are not among its classes")
        return enrollment


def _check_size(path: Path) -> None:
    """EnrollmentError when ``path`` or the members of its zip archive exceed MAX_ENROLLMENT_BYTES."""
    import zipfile

    try:
        size = path.stat().st_size
        if size > MAX_ENROLLMENT_BYTES:
            raise EnrollmentError(f"{path} is {size} bytes: an enrollment file is at most {MAX_ENROLLMENT_BYTES}")
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (OSError, zipfile.BadZipFile) as exc:
        raise EnrollmentError(f"{path} is not an enrollment file: {exc}") from exc
    if unpacked > MAX_ENROLLMENT_BYTES:
        raise EnrollmentError(
            f"{path} unpacks to {unpacked} bytes: an enrollment file holds at most {MAX_ENROLLMENT_BYTES}"
        )


def trained_head(clf: OnnxTileClassifier) -> tuple[F32, F32]:
    """The model's own head (weight C x D, bias C) from the ``head`` file named in its metadata."""
    name = clf.meta.get("head")
    if not name or clf.model_dir is None:
        raise ModelError("this model's metadata names no head file: retrain it with vision.train to enroll")
    path = clf.model_dir / str(name)
    try:
        with np.load(path) as data:
            weight = np.asarray(data["weight"], np.float32)
            bias = np.asarray(data["bias"], np.float32)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(f"cannot read the model's head {path}: {exc}") from exc
    if weight.shape[0] != len(clf.classes) or bias.shape != (len(clf.classes),):
        raise ModelError(f"{path}: head shape {weight.shape} does not match {len(clf.classes)} classes")
    return weight, bias


def variations(photo: npt.NDArray[np.uint8], rng: np.random.Generator, n: int) -> list[npt.NDArray[np.uint8]]:
    """The photo and ``n - 1`` light variations of it (gain, colour cast, small shift/scale/rotation, blur),
    each in its four quarter turns: ``4 * n`` images."""
    out: list[npt.NDArray[np.uint8]] = []
    h, w = photo.shape[:2]
    for k in range(n):
        img = photo
        if k:
            m = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-4, 4), rng.uniform(0.92, 1.08)))
            m[:, 2] = m[:, 2] + rng.normal(0, 0.03, 2) * (w, h)
            warped = np.asarray(cv2.warpAffine(photo, m, (w, h), borderMode=cv2.BORDER_REPLICATE), np.float32)
            f = warped * rng.uniform(0.75, 1.2) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
            if rng.random() < 0.5:
                f = np.asarray(cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.0)), np.float32)
            img = np.asarray(np.clip(f, 0, 255).astype(np.uint8), dtype=np.uint8)
        out.extend(np.ascontiguousarray(np.rot90(img, r)) for r in range(4))
    return out


def fit_head(
    w0: F32, b0: F32, x: F32, y: npt.NDArray[np.int64], *, l2: float = DEFAULT_L2, steps: int = 300, lr: float = 0.01
) -> tuple[F32, F32]:
    """Fine-tune the head (w0, b0) on embeddings ``x`` (N x D) with labels ``y``: mean cross-entropy plus
    ``l2 * |W - w0|^2 / 2``, full-batch Adam.  Only the weight rows of classes present in ``y`` move (without
    photos of a class nothing says it should score lower) and the biases stay (class priors learnt from the
    whole training set; a venue's few photos would shift them towards the enrolled codes).  Float32 throughout
    (float64 gave the same heads to 1e-6 and took 1.5x the time).  Deterministic; returns (W, b)."""
    w, b = w0.astype(np.float32), b0.astype(np.float32)
    w0 = w0.astype(np.float32)
    present = np.zeros(len(b0), bool)
    present[np.unique(y)] = True
    xs = np.ascontiguousarray(x, np.float32)
    onehot = np.zeros((len(y), len(b0)), np.float32)
    onehot[np.arange(len(y)), y] = 1.0
    mw, vw = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        z = xs @ w.T + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) / np.float32(len(y))
        gw = (g.T @ xs + np.float32(l2) * (w - w0)) * present[:, None]
        mw, vw = np.float32(0.9) * mw + np.float32(0.1) * gw, np.float32(0.999) * vw + np.float32(0.001) * gw**2
        c1, c2 = np.float32(1 - 0.9**t), np.float32(1 - 0.999**t)
        w -= np.float32(lr) * (mw / c1) / (np.sqrt(vw / c2) + np.float32(1e-8))
    return w.astype(np.float32), b.astype(np.float32)


def choose_l2(
    w0: F32,
    b0: F32,
    x: F32,
    y: npt.NDArray[np.int64],
    photo: npt.NDArray[np.int64],
    *,
    grid: tuple[float, ...] = L2_GRID,
) -> float:
    """The L2 pull of ``grid`` whose heads best predict photos they were not fitted on: ``photo`` gives each row
    of ``x`` the rank of its photo among its code's photos; fold ``k`` holds out the photos of rank ``k`` mod
    ``L2_FOLDS`` (every variation of a photo together) and scores them by mean log-likelihood.  The stiffest
    pull wins ties; with fewer than two photos of every code there is nothing to hold out: DEFAULT_L2."""
    if len(np.unique(photo % L2_FOLDS)) < 2:
        return DEFAULT_L2
    best = (-np.inf, DEFAULT_L2)
    for l2 in sorted(grid, reverse=True):
        score = 0.0
        for out, w, b in _fold_heads(w0, b0, x, y, photo, l2=l2):
            score += _log_likelihood(w, b, x[out], y[out]) * int(out.sum())
        if score > best[0] + 1e-9:
            best = (score, l2)
    return best[1]


def _fold_heads(
    w0: F32, b0: F32, x: F32, y: npt.NDArray[np.int64], photo: npt.NDArray[np.int64], *, l2: float
) -> Iterator[tuple[npt.NDArray[np.bool_], F32, F32]]:
    """For each fold of the photos (rank ``k`` mod ``L2_FOLDS``, every variation of a photo together): the rows it
    holds out and the head (W, b) fitted with ``l2`` on the other rows."""
    folds = photo % L2_FOLDS
    for k in np.unique(folds):
        out = folds == k
        w, b = fit_head(w0, b0, x[~out], y[~out], l2=l2)
        yield out, w, b


def held_out_temperature(
    w0: F32, b0: F32, x: F32, y: npt.NDArray[np.int64], photo: npt.NDArray[np.int64], *, l2: float, floor: float
) -> float | None:
    """The temperature of an adapted head, from photos it did not see: the folds of ``choose_l2`` (every variation
    of a photo together) are each read by a head fitted with ``l2`` on the others, and the temperature is fitted
    on those held-out logits (``vision.realeval.fit_temperature``: least negative log-likelihood).  Never below
    ``floor`` (the model card's temperature): an enrollment may make the classifier less sure, never surer than
    the calibration it ships with.  None with fewer than two folds (one photo per code): nothing was held out."""
    from vision.realeval import fit_temperature

    if len(np.unique(photo % L2_FOLDS)) < 2:
        return None
    held = np.zeros((len(y), len(b0)), np.float32)
    for out, w, b in _fold_heads(w0, b0, x, y, photo, l2=l2):
        held[out] = x[out] @ w.T + b
    return max(float(floor), fit_temperature(held, y))


def _log_likelihood(w: F32, b: F32, x: F32, y: npt.NDArray[np.int64]) -> float:
    """Mean log-probability of the labels ``y`` under the head (w, b) on embeddings ``x``."""
    z = x.astype(np.float64) @ w.T.astype(np.float64) + b
    z -= z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(logp[np.arange(len(y)), y].mean())


def build(
    clf: OnnxTileClassifier,
    photos: Photos,
    *,
    l2: float | None = None,
    n_variations: int = DEFAULT_VARIATIONS,
    seed: int = 0,
    transforms: tuple[str, ...] = tuple(TRANSFORMS),
) -> Enrollment:
    """Fit an adapted head on ``photos`` (code -> BGR images) with ``clf``'s embedding output and trained head,
    after the input transform among ``transforms`` under which the trained head fits the photos best; ``l2``:
    the pull towards the trained head (None: ``choose_l2`` on the photos)."""
    w0, b0 = trained_head(clf)
    rng = np.random.default_rng(seed)
    images: list[npt.NDArray[np.uint8]] = []
    labels: list[int] = []
    ranks: list[int] = []
    codes = []
    for code, shots in sorted(photos.items()):
        if not shots:
            continue
        codes.append(code)
        for rank, shot in enumerate(shots):
            batch = variations(shot, rng, n_variations)
            images.extend(batch)
            labels.extend([clf.classes.index(code)] * len(batch))
            ranks.extend([rank] * len(batch))
    if not codes:
        raise EnrollmentError("no photos to enroll")
    y = np.asarray(labels, np.int64)
    best: tuple[float, str, F32] | None = None
    for name in transforms:
        _, embeds = clf.run(transform_crops(images, name))
        if embeds is None:
            raise EnrollmentError("this model has no embedding output: enrollment needs one")
        fit = _log_likelihood(w0, b0, embeds, y)
        if best is None or fit > best[0]:
            best = (fit, name, embeds)
    if best is None:
        raise EnrollmentError("no input transform to try")
    _, transform, embeds = best
    photo = np.asarray(ranks, np.int64)
    with one_blas_thread():  # small products: BLAS threads only spin (mjtable.blas), whoever calls build
        if l2 is None:
            l2 = choose_l2(w0, b0, embeds, y, photo)
        w, b = fit_head(w0, b0, embeds, y, l2=l2)
        temperature = held_out_temperature(w0, b0, embeds, y, photo, l2=l2, floor=clf.temperature)
    return Enrollment(clf.classes, tuple(codes), w, b, transform, l2, temperature)


def held_out_reads(clf: OnnxTileClassifier, photos: Photos, threshold: float) -> dict[str, float | int]:
    """How ``clf`` reads ``photos`` (code -> images) as the service would at ``threshold``: top-1 accuracy (NaN
    when there is no photo), the share of reads at or above the threshold (taken as fact) and how many of those
    are wrong."""
    images = [img for imgs in photos.values() for img in imgs]
    truth = [code for code, imgs in photos.items() for _ in imgs]
    if not images:
        return {"accuracy": float("nan"), "confident": float("nan"), "confident_wrong_reads": 0}
    reads = clf.classify(images)
    right = np.array([r.code == t for r, t in zip(reads, truth, strict=True)])
    sure = np.array([r.confidence >= threshold for r in reads])
    return {
        "accuracy": float(right.mean()),
        "confident": float(sure.mean()),
        "confident_wrong_reads": int((sure & ~right).sum()),
    }


def read_dir(directory: Path, classes: tuple[str, ...], errors: list[dict[str, str]] | None = None) -> Photos:
    """``DIR/<code>/*.jpg`` as code -> images; raises EnrollmentError for an unknown code folder or when no photo
    is readable, and for an unreadable photo unless ``errors`` is given: then each bad file (empty, huge, not an
    image ...) is appended there as ``{"file", "error"}`` and the others are read."""
    from vision.classifier.preprocess import as_bgr
    from vision.cli import read_image

    if not directory.is_dir():
        raise EnrollmentError(f"{directory} is not a directory")
    photos: Photos = {}
    for sub in sorted(p for p in directory.iterdir() if p.is_dir()):
        if sub.name not in classes:
            raise EnrollmentError(f"folder {sub.name!r} is not a tile code (expected one of {' '.join(classes)})")
        files = sorted(f for f in sub.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        photos[sub.name] = []
        for f in files:
            try:
                photos[sub.name].append(as_bgr(read_image(f)))
            except (OSError, ValueError) as exc:
                if errors is None:
                    raise EnrollmentError(f"{f}: {exc}") from exc
                errors.append({"file": str(f), "error": f"{type(exc).__name__}: {exc}"})
    if not any(photos.values()):
        raise EnrollmentError(f"no photos under {directory}/<code>/")
    return photos


def enroll_dir(
    clf: OnnxTileClassifier, directory: Path, seed: int = 0, errors: list[dict[str, str]] | None = None
) -> tuple[Enrollment, dict[str, Any]]:
    """Final enrollment from every photo, and a report measured on a split (half the photos of each code, rounded
    up, fit a head; the other half is scored before/after).  ``errors``: see ``read_dir``."""
    photos = read_dir(directory, clf.classes, errors)
    rng = np.random.default_rng(seed)
    fit: Photos = {}
    test: Photos = {}
    for code, imgs in photos.items():
        order = rng.permutation(len(imgs))
        half = (len(imgs) + 1) // 2
        fit[code] = [imgs[i] for i in order[:half]]
        test[code] = [imgs[i] for i in order[half:]]
    plain = clf.with_enrollment(None)
    threshold = clf.card_min_confidence()
    before = held_out_reads(plain, test, threshold)
    after = held_out_reads(plain.with_enrollment(build(plain, fit, seed=seed)), test, threshold)
    final = build(plain, photos, seed=seed)
    report = {
        "codes": len(final.codes),
        "transform": final.transform,
        "l2": final.l2,
        "temperature": final.temperature,
        "photos": sum(len(v) for v in photos.values()),
        "held_out_photos": sum(len(v) for v in test.values()),
        "accuracy_before": round(before["accuracy"], 4),
        "accuracy_after": round(after["accuracy"], 4),
        "threshold": threshold,
        "confident_before": round(before["confident"], 4),
        "confident_after": round(after["confident"], 4),
        "confident_wrong_reads_before": before["confident_wrong_reads"],
        "confident_wrong_reads_after": after["confident_wrong_reads"],
    }
    return final, report


#: exit code of ``enroll`` when the adapted head reads the held-out photos worse than the shipped one
WORSE_EXIT = 3


def refusal(report: dict[str, Any]) -> str | None:
    """Why an enrollment must not be saved, or None: it reads the held-out photos worse than the shipped head, or
    it reads more of them wrong at or above the card's threshold (reads the service would take as fact).  (A
    model trained on real photographs may already read a venue's set well; a head fitted on a few photos then
    only loses, and its confidences are no longer those the threshold was calibrated on.)"""
    before, after = report["accuracy_before"], report["accuracy_after"]
    retry = (
        "not saved, the shipped model stays as it is; add photos (more per face, the venue's light) and "
        "enroll again, or pass --keep-worse"
    )
    if after < before:  # NaN (no held-out photo) compares False: nothing to refuse on
        return f"enrollment lowered the accuracy on the held-out photos ({before:.2%} -> {after:.2%}): {retry}"
    wrong_before = report.get("confident_wrong_reads_before", 0)
    wrong_after = report.get("confident_wrong_reads_after", 0)
    if wrong_after > wrong_before:
        return (
            f"enrollment reads more held-out photos wrong at or above the threshold, where the service takes "
            f"a read as fact ({wrong_before} -> {wrong_after}): {retry}"
        )
    return None


def enroll_command(
    directory: Path, out: Path, *, model: Path | None = None, seed: int = 0, keep_worse: bool = False
) -> int:
    """``mjtable vision enroll``: one ``{"file", "error"}`` JSON line per photo it could not read (the others
    are used), then one JSON line (report + saved path, or ``refused`` with the reason); exit code 0, 1 when a
    photo was skipped, WORSE_EXIT when the enrollment read the held-out photos worse and was not saved
    (``keep_worse``: save it anyway)."""
    clf = OnnxTileClassifier.load(model)
    errors: list[dict[str, str]] = []
    enrollment, report = enroll_dir(clf, directory, seed, errors)
    for err in errors:
        print(json.dumps(err), flush=True)
    report["skipped"] = len(errors)
    why = None if keep_worse else refusal(report)
    if why is not None:
        print(json.dumps({**report, "saved": None, "refused": why}))
        return WORSE_EXIT
    enrollment.save(out)
    print(json.dumps({**report, "saved": str(out)}))
    return 1 if errors else 0
