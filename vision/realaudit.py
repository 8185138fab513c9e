"""Where a model misreads the real photographs' validation crops (issue 15): its top-1 by how loose the photo's
boxes are, with the shares the service would take as fact (and wrongly) at the card's ``min_confidence``, the
photos holding the most errors, and a picture of the misread crops to look at.

The publisher of the real-tile set rotated photos and kept axis-aligned boxes, so in some photos each box holds
two to four tiles (the labelled one near its centre).  A photo's **box coverage** is the sum of its boxes' areas
over the photo's area: tight boxes of tiles lying side by side stay below 1; at 2 or more every pixel lies in two
boxes on average.  An overhead table camera cuts one tile per crop, so the figure on tight boxes is the closer
one to play; the headline validation figure (``vision.realeval``) keeps every crop as it is.

``python -m vision.realaudit --model M.onnx [--real DIR] [--mosaic errors.png]`` prints one JSON line.
Main-thread functions (onnxruntime runs in the caller's thread).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision import realdata
from vision.classifier.model import ModelError, OnnxTileClassifier
from vision.realeval import BOUND_LEVEL, bounded_figures, choose_threshold, rates

#: coverage buckets: (label, lower bound inclusive, upper bound exclusive)
COVERAGE_BUCKETS = (("<1", 0.0, 1.0), ("1-2", 1.0, 2.0), (">=2", 2.0, float("inf")))
#: at most this many misread crops drawn in the mosaic (16 per row)
MOSAIC_MAX = 160


@dataclass(frozen=True, slots=True)
class Read:
    """One validation crop as the model read it: its photo, true and predicted codes, the photo's box coverage and
    the read's calibrated confidence (0..1, the card's temperature applied, as the service sees it)."""

    file: str
    truth: str
    predicted: str
    coverage: float
    confidence: float


def box_coverage(boxes: list[realdata.Box], width: int, height: int) -> float:
    """Sum of the boxes' areas over the photo's area (``width`` x ``height`` px)."""
    return sum(b.w * b.h for b in boxes) / float(width * height)


def read_validation(
    clf: OnnxTileClassifier, directory: Path, seed: int = 0
) -> tuple[list[Read], list[npt.NDArray[np.uint8]]]:
    """Every validation crop of split ``seed`` read by ``clf`` (its calibrated probabilities, as the service
    reads), with the crops themselves."""
    boxes = realdata.read_labels(directory)
    _, val = realdata.split_sources(boxes, seed)
    reads: list[Read] = []
    crops: list[npt.NDArray[np.uint8]] = []
    for name, photo, items in realdata.photos_of(directory, boxes, val):
        cover = box_coverage(items, photo.shape[1], photo.shape[0])
        cut = [realdata.crop(photo, b) for b in items]
        probs = clf.probabilities(cut)
        for b, row in zip(items, probs, strict=True):
            best = int(np.argmax(row))
            reads.append(Read(name, b.code, clf.classes[best], cover, float(row[best])))
        crops.extend(cut)
    return reads, crops


def _confidences(reads: list[Read]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """(confidence, read right) of each of ``reads``, as ``vision.realeval`` takes them."""
    return np.array([r.confidence for r in reads], np.float32), np.array([r.truth == r.predicted for r in reads])


def _shares(reads: list[Read], threshold: float) -> dict[str, float | None]:
    """Of ``reads`` (``vision.realeval.rates``): the share at or over ``threshold`` (taken as fact by the service)
    and the share over it and wrong; None for no reads."""
    if not reads:
        return {"confident": None, "confident_wrong": None}
    wrong, sure = rates(*_confidences(reads), threshold)
    return {"confident": round(sure, 4), "confident_wrong": round(wrong, 4)}


def summarise(reads: list[Read], worst: int = 8, threshold: float | None = None) -> dict[str, Any]:
    """Top-1 overall and per coverage bucket, and the ``worst`` photos by errors (file, boxes, errors, coverage).
    With ``threshold`` (the card's ``min_confidence``) also the confident and confident-and-wrong shares, overall
    and per bucket."""
    right = [r.truth == r.predicted for r in reads]
    buckets: dict[str, dict[str, Any]] = {}
    for label, lo, hi in COVERAGE_BUCKETS:
        inside = [r for r in reads if lo <= r.coverage < hi]
        ok = [r.truth == r.predicted for r in inside]
        buckets[label] = {
            "crops": len(inside),
            "errors": ok.count(False),
            "top1": round(sum(ok) / len(ok), 4) if ok else None,
        }
        if threshold is not None:
            buckets[label].update(_shares(inside, threshold))
    errors = Counter(r.file for r, ok in zip(reads, right, strict=True) if not ok)
    boxes = Counter(r.file for r in reads)
    cover = {r.file: r.coverage for r in reads}
    at_threshold = {"threshold": threshold, **_shares(reads, threshold)} if threshold is not None else {}
    return {
        "crops": len(reads),
        "errors": right.count(False),
        "top1": round(sum(right) / len(reads), 4) if reads else None,
        **at_threshold,
        "by_box_coverage": buckets,
        "worst_photos": [
            {"file": f, "boxes": boxes[f], "errors": n, "coverage": round(cover[f], 2)}
            for f, n in errors.most_common(worst)
        ],
    }


def threshold_held_out(
    reads: list[Read], seeds: tuple[int, ...] = (0, 1, 2), level: float | None = None
) -> list[dict[str, Any]]:
    """The card's threshold rule (``vision.realeval.choose_threshold``; with ``level``, the bounded rule) applied
    to one half of the photos (by source, ``realdata.halves`` with each of ``seeds``) and judged on the other
    half: per seed and half, the threshold, the reads judged, and the confident and confident-and-wrong shares
    there.  The card's own figures choose and judge on the same reads; these say how far they hold on photos the
    choice did not see (the temperature stays the card's)."""

    out: list[dict[str, Any]] = []
    for seed in seeds:
        halves = realdata.halves({realdata.source_of(r.file) for r in reads}, seed)
        for name, chosen, judged in (("first", *halves), ("second", *halves[::-1])):
            conf, correct = _confidences([r for r in reads if realdata.source_of(r.file) in chosen])
            t = choose_threshold(conf, correct, level=level)
            test = [r for r in reads if realdata.source_of(r.file) in judged]
            wrong, sure = rates(*_confidences(test), t)
            row: dict[str, Any] = {"seed": seed, "chosen_on": name}
            if level is not None:
                row["level"] = level
            row |= {"threshold": t, "reads": len(test), "confident": round(sure, 4)}
            out.append(row | {"confident_wrong": round(wrong, 4)})
    return out


def bounded_threshold(reads: list[Read], level: float = BOUND_LEVEL) -> dict[str, Any]:
    """The bounded rule on every read (``vision.realeval.bounded_figures``): the lowest threshold at which the
    ``level`` upper bound of the confident-and-wrong share stays within the card's limit, with its figures."""
    return bounded_figures(*_confidences(reads), level)


def mosaic(reads: list[Read], crops: list[npt.NDArray[np.uint8]], limit: int = MOSAIC_MAX) -> npt.NDArray[np.uint8]:
    """The first ``limit`` misread crops at 96 x 96, 16 per row, each captioned ``truth>read`` (BGR uint8)."""
    cells: list[npt.NDArray[np.uint8]] = []
    for r, img in zip(reads, crops, strict=True):
        if r.truth == r.predicted:
            continue
        cell = cv2.resize(img, (96, 96), interpolation=cv2.INTER_AREA)
        cell = cv2.copyMakeBorder(cell, 0, 16, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        cv2.putText(cell, f"{r.truth}>{r.predicted}", (2, 108), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 200), 1)
        cells.append(np.asarray(cell, np.uint8))
        if len(cells) == limit:
            break
    if not cells:
        return np.full((112, 96, 3), 255, np.uint8)
    return grid(cells, 16)


def grid(cells: list[npt.NDArray[np.uint8]], per_row: int) -> npt.NDArray[np.uint8]:
    """Equal-sized ``cells`` (at least one) laid out ``per_row`` to a row, the last row padded white."""
    cells = cells + [np.full_like(cells[0], 255)] * (-len(cells) % per_row)
    return np.asarray(np.vstack([np.hstack(cells[k : k + per_row]) for k in range(0, len(cells), per_row)]), np.uint8)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.realaudit", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, required=True, help="ONNX model with its .json card beside it")
    p.add_argument("--real", type=Path, default=realdata.DEFAULT_REAL_DIR, help="the real-tile set (README there)")
    p.add_argument("--seed", type=int, default=0, help="the split's seed (the model card's)")
    p.add_argument("--mosaic", type=Path, help="write the misread crops here as a PNG")
    args = p.parse_args(argv)
    try:
        clf = OnnxTileClassifier.load(args.model, threads=1)
        reads, crops = read_validation(clf, args.real, args.seed)
    except (ModelError, OSError, ValueError) as exc:
        print(json.dumps({"error": str(exc)}))
        return 2
    out = summarise(reads, threshold=clf.card_min_confidence())
    out["threshold_held_out"] = threshold_held_out(reads)
    out["threshold_bounded"] = bounded_threshold(reads)
    out["threshold_bounded_held_out"] = threshold_held_out(reads, level=BOUND_LEVEL)
    if args.mosaic is not None:
        if not cv2.imwrite(str(args.mosaic), mosaic(reads, crops)):
            print(json.dumps({"error": f"cannot write {args.mosaic}"}))
            return 2
        out["mosaic"] = str(args.mosaic)
    print(json.dumps({"model": str(args.model), **out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
