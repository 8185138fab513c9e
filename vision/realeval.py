"""The classifier judged on the real photographs' validation split (``vision.realdata``): top-1, per face, flowers,
negatives; the temperature fitted on those crops and the confidence threshold chosen from it.

``measure(clf, directory, seed)`` reads the validation crops once and returns the raw logits with the truth, so
``fit_temperature``, ``choose_threshold`` and ``report`` work on arrays.  Main-thread functions (onnxruntime is
called from the caller's thread).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision import realdata
from vision.classifier.model import OnnxTileClassifier

F32 = npt.NDArray[np.float32]
#: one flag per crop (e.g. read right)
Flags = Sequence[bool] | npt.NDArray[np.bool_]
#: the service's threshold must keep confident-and-wrong reads at or below this share of all reads ...
MAX_CONFIDENT_WRONG = 0.002
#: ... while at least this share of reads is confident (issue 15)
MIN_CONFIDENT_SHARE = 0.90
#: the level of the one-sided upper bound a bounded threshold keeps under MAX_CONFIDENT_WRONG (``choose_threshold``)
BOUND_LEVEL = 0.95
FLOWERS = tuple(f"{i}f" for i in range(1, 9))
NOT_A_TILE = "not_a_tile"


@dataclass(frozen=True)
class RealSet:
    """Validation crops' raw logits (N x C, no temperature), their codes, and the negatives' raw logits."""

    logits: F32
    codes: list[str]
    negative_logits: F32
    classes: tuple[str, ...]


def _raw_logits(clf: OnnxTileClassifier, crops: list[npt.NDArray[np.uint8]]) -> F32:
    """Logits before any temperature (with the enrollment's head and transform when one is attached)."""
    return clf.logits(crops) if crops else np.zeros((0, len(clf.classes)), np.float32)


@dataclass(frozen=True)
class ValidationCrops:
    """The validation crops of the real photos (as the pipeline cuts them), their codes, and the negative crops
    (three per photo), read once from disk (``validation_crops``) for as many models or passes as need them."""

    crops: list[npt.NDArray[np.uint8]]
    codes: list[str]
    negatives: list[npt.NDArray[np.uint8]]


def validation_crops(directory: Path, seed: int = 0, sources: set[str] | None = None) -> ValidationCrops:
    """The crops of the source photos ``sources`` (default: the validation split of ``seed``)."""
    boxes = realdata.read_labels(directory)
    if sources is None:
        _, sources = realdata.split_sources(boxes, seed)
    crops, codes = realdata.val_crops(directory, sources, boxes)
    return ValidationCrops(crops, codes, realdata.val_negatives(directory, sources, boxes, seed=seed))


def read_crops(clf: OnnxTileClassifier, crops: ValidationCrops) -> RealSet:
    """Run ``clf`` over ``crops`` and their negatives."""
    return RealSet(_raw_logits(clf, crops.crops), crops.codes, _raw_logits(clf, crops.negatives), clf.classes)


def measure(clf: OnnxTileClassifier, directory: Path, seed: int = 0, sources: set[str] | None = None) -> RealSet:
    """Run ``clf`` over the validation crops of the real photos (``sources``; default the validation split of
    ``seed``) and as many negative crops (three per photo)."""
    return read_crops(clf, validation_crops(directory, seed, sources))


def softmax(logits: F32, temperature: float = 1.0) -> F32:
    """Row-wise softmax of ``logits / temperature``."""
    z = logits.astype(np.float64) / temperature
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def fit_temperature(logits: F32, truth: npt.NDArray[np.int64]) -> float:
    """The temperature (0.25..8, log grid then refined) minimising the mean negative log-likelihood."""

    def nll(t: float) -> float:
        z = logits.astype(np.float64) / t
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-logp[np.arange(len(truth)), truth].mean())

    grid = np.exp(np.linspace(np.log(0.25), np.log(8.0), 121))
    best = float(grid[int(np.argmin([nll(float(t)) for t in grid]))])
    fine = best * np.exp(np.linspace(-0.03, 0.03, 61))
    return round(float(fine[int(np.argmin([nll(float(t)) for t in fine]))]), 4)


def rates(conf: F32, correct: npt.NDArray[np.bool_], threshold: float) -> tuple[float, float]:
    """(confident and wrong, confident) as shares of all reads at ``threshold`` (confident: conf >= threshold)."""
    sure = conf >= threshold
    return float((sure & ~correct).mean()), float(sure.mean())


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space (n in the thousands, k small)."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 1.0 if k >= n else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    log_n = math.lgamma(n + 1)
    terms = [log_n - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq for i in range(k + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def paired_exact_p(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p of two models read on the same crops: ``only_a`` crops only the first reads
    right, ``only_b`` only the second (the crops both read alike do not count); 1.0 when they differ on none.
    Raises ValueError for a negative count."""
    if only_a < 0 or only_b < 0:
        raise ValueError(f"paired_exact_p needs counts >= 0 (got {only_a}, {only_b})")
    n = only_a + only_b
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * _binomial_cdf(min(only_a, only_b), n, 0.5))


def paired(right_model: Flags, right_anchor: Flags) -> dict[str, Any]:
    """The crops (read by two models, one flag per crop: read right) on which each model is right where the other
    is wrong, and ``paired_exact_p`` of the two counts.  Raises ValueError unless both read the same crops."""
    model, anchor = np.asarray(right_model, bool), np.asarray(right_anchor, bool)
    if model.shape != anchor.shape or model.ndim != 1:
        raise ValueError(f"paired needs one flag per crop for the same crops ({model.shape} vs {anchor.shape})")
    only_model, only_anchor = int((model & ~anchor).sum()), int((anchor & ~model).sum())
    return {
        "crops": len(model),
        "model_right_anchor_wrong": only_model,
        "anchor_right_model_wrong": only_anchor,
        "p_exact": paired_exact_p(only_model, only_anchor),
    }


def upper_bound(k: int, n: int, level: float = BOUND_LEVEL) -> float:
    """The one-sided Clopper-Pearson upper bound, at ``level``, of a share seen as ``k`` of ``n`` (e.g. confident
    and wrong reads of all reads): the share p at which P(X <= k) = 1 - level; 1.0 when k == n.  Bisection to
    1e-12.  Raises ValueError unless 0 <= k <= n, n > 0 and 0 < level < 1."""
    if not (0 <= k <= n and n > 0 and 0.0 < level < 1.0):
        raise ValueError(f"upper_bound needs 0 <= k <= n, n > 0 and 0 < level < 1 (k={k}, n={n}, level={level})")
    if k == n:
        return 1.0
    lo, hi = k / n, 1.0
    while hi - lo > 1e-12:  # the CDF falls as p rises
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _binomial_cdf(k, n, mid) > 1.0 - level else (lo, mid)
    return hi


def choose_threshold(
    conf: F32, correct: npt.NDArray[np.bool_], max_wrong: float = MAX_CONFIDENT_WRONG, level: float | None = None
) -> float:
    """The lowest threshold, to a ten-thousandth and at least 0.30, at which confident-and-wrong reads are at most
    ``max_wrong`` of all reads (the most reads confident under that bound).  The candidates are every read's
    confidence rounded up to a ten-thousandth, and the step above it (the read itself left out); 1.0 (nothing
    confident, every read to the referee) when no lower one meets the bound.

    ``level`` None (the model card's rule) compares the share seen on these reads with ``max_wrong``; a level
    (e.g. BOUND_LEVEL) compares its ``upper_bound`` instead, so that the bound holds, at that level, for reads
    like these that the choice did not see: fewer reads are confident."""
    n = len(conf)
    allowed = int(np.floor(max_wrong * n + 1e-9)) if level is None else -1
    if level is not None:  # the most wrong reads whose upper bound stays within max_wrong (-1: not even none)
        while n > 0 and allowed + 1 <= n and upper_bound(allowed + 1, n, level) <= max_wrong:
            allowed += 1
    steps = np.ceil(conf.astype(np.float64) * 10_000)
    candidates = np.unique(np.concatenate([steps, steps + 1, [3_000]]).clip(3_000, 10_000)) / 10_000
    wrong_conf = conf[~correct]
    for t in candidates:  # ascending; both shares fall as t rises, so the first that meets the bound is the answer
        if int((wrong_conf >= float(t)).sum()) <= allowed:  # float(t): compared as rates() compares
            return float(t)
    return 1.0


def bounded_figures(conf: F32, correct: npt.NDArray[np.bool_], level: float = BOUND_LEVEL) -> dict[str, Any]:
    """The bounded rule on these reads (``choose_threshold`` with ``level``): its threshold, the reads, the confident
    and confident-and-wrong shares, the confident-and-wrong count and its ``level`` upper bound (None: no reads).
    The reads are taken as independent; two versions of one photo are not, so the true bound is a little wider."""
    t = choose_threshold(conf, correct, level=level)
    wrong, sure = rates(conf, correct, t)
    count = int(((conf >= t) & ~correct).sum())
    return {
        "level": level,
        "threshold": t,
        "reads": len(conf),
        "confident": round(sure, 4),
        "confident_wrong": round(wrong, 4),
        "confident_wrong_reads": count,
        "upper_bound": round(upper_bound(count, len(conf), level), 6) if len(conf) else None,
    }


def report(real: RealSet, temperature: float, threshold: float) -> dict[str, Any]:
    """Figures for the model card and the benchmark: top-1, per-face accuracy and its minimum, flowers told
    apart, confident-wrong and referee shares at ``threshold``, negatives read as a confident face."""
    classes = real.classes
    truth = np.array([classes.index(c) for c in real.codes])
    probs = softmax(real.logits, temperature)
    pred = probs.argmax(1)
    conf = probs.max(1)
    correct = pred == truth
    per_face = {c: float(correct[truth == i].mean()) for i, c in enumerate(classes) if (truth == i).any()}
    worst = min(per_face, key=lambda c: per_face[c])
    flower = np.isin(truth, [classes.index(f) for f in FLOWERS if f in classes])
    wrong, confident = rates(conf, correct, threshold)
    neg_probs = softmax(real.negative_logits, temperature)
    neg_pred = neg_probs.argmax(1)
    face_idx = [i for i, c in enumerate(classes) if c not in ("back", NOT_A_TILE)]
    neg_face = np.isin(neg_pred, face_idx) & (neg_probs.max(1) >= threshold)
    confusions = Counter(
        f"{classes[t]}->{classes[p]}" for t, p in zip(truth, pred, strict=True) if t != p
    ).most_common(8)
    return {
        "crops": len(truth),
        "top1": round(float(correct.mean()), 4),
        "per_face_min": round(per_face[worst], 4),
        "worst_face": worst,
        "faces_below_95": sorted(c for c, a in per_face.items() if a < 0.95),
        "flowers": round(float(correct[flower].mean()), 4) if flower.any() else None,
        "flowers_as_a_flower": round(float(np.isin(pred[flower], [classes.index(f) for f in FLOWERS]).mean()), 4)
        if flower.any()
        else None,
        "threshold": threshold,
        "confident_wrong": round(wrong, 4),
        "confident": round(confident, 4),
        "to_referee": round(1 - confident, 4),
        "negatives": len(neg_pred),
        "negatives_confident_face": round(float(neg_face.mean()), 4) if len(neg_pred) else None,
        "top_confusions": confusions,
        "per_face": {c: round(a, 4) for c, a in per_face.items()},
    }


def read_right(real: RealSet) -> npt.NDArray[np.bool_]:
    """Per validation crop: does the top read name its code?  (The temperature does not change the top read.)"""
    truth = np.array([real.classes.index(c) for c in real.codes], np.int64)
    return np.asarray(real.logits.argmax(1) == truth, bool)


def _confidences(real: RealSet, temperature: float) -> tuple[F32, npt.NDArray[np.bool_]]:
    """(confidence, read right) of each validation crop at ``temperature``."""
    return softmax(real.logits, temperature).max(1), read_right(real)


def calibrate(real: RealSet) -> tuple[float, float]:
    """(temperature fitted on the crops, threshold chosen at that temperature)."""
    t = fit_temperature(real.logits, np.array([real.classes.index(c) for c in real.codes]))
    return t, choose_threshold(*_confidences(real, t))


def bounded(real: RealSet, temperature: float, level: float = BOUND_LEVEL) -> dict[str, Any]:
    """``bounded_figures`` of the validation crops at ``temperature`` (the model card's ``calibration.bounded``)."""
    return bounded_figures(*_confidences(real, temperature), level)


def enrollment(clf: OnnxTileClassifier, directory: Path, seed: int = 0, per_face: int = 3) -> dict[str, Any]:
    """Venue enrollment measured on real crops: the validation photos cut in two halves by source photo
    (``realdata.halves``); ``per_face`` crops of every face (seeded draw) from the first half enroll, every crop
    of the second half is read before and after (top-1, and the confident-wrong / confident shares at the
    model card's threshold)."""
    from vision.classifier import enroll

    boxes = realdata.read_labels(directory)
    _, val = realdata.split_sources(boxes, seed)
    first, second = realdata.halves(val, seed)
    fit_crops, fit_codes = realdata.val_crops(directory, first, boxes)
    rng = np.random.default_rng([seed, 19])
    photos: dict[str, list[npt.NDArray[np.uint8]]] = {}
    for code in sorted(set(fit_codes)):
        idx = [i for i, c in enumerate(fit_codes) if c == code]
        photos[code] = [fit_crops[int(i)] for i in rng.choice(idx, size=min(per_face, len(idx)), replace=False)]
    plain = clf.with_enrollment(None)
    read = measure(plain, directory, seed, second)
    enrolled = enroll.build(plain, photos, seed=seed)
    adapted = plain.with_enrollment(enrolled)
    read_after = measure(adapted, directory, seed, second)
    threshold = clf.card_min_confidence()
    before = report(read, clf.temperature, threshold)
    after = report(read_after, adapted.temperature, threshold)  # the enrollment's own temperature
    keys = ("top1", "per_face_min", "confident_wrong", "confident")
    return {
        "photos_per_face": per_face,
        "faces": len(photos),
        "l2": enrolled.l2,
        "temperature": enrolled.temperature,
        "enroll_sources": len(first),
        "read_sources": len(second),
        "read_crops": before["crops"],
        "before": {k: before[k] for k in keys},
        "after": {k: after[k] for k in keys},
    }
