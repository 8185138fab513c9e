"""Suspect labels in a labelled photo set (the real-tile set's layout: ``images/`` and ``labels.csv``): the boxes a
person should look at, with the photo round them, before their labels are trusted for training or validation
(docs/vision.md, "Training-split fixes"; the fixes go in ``vision/real_label_fixes.csv``).

Three looks, each cheap and none a verdict:

- ``count``: a photo holds more boxes of a face than one set has (4 of a suit or honour face, 1 of a flower).
  A photo of two sets trips it too, so it names suspects, not errors.
- ``model``: the model reads the box as another face at ``min_confidence`` or more.  On crops the model was
  trained on it has memorised their labels, so on a training split this look misses most wrong labels.
- ``neighbours``: the box's ``k`` nearest crops by the model's embedding (cosine), taken from *other* source
  photos only, vote ``min_votes`` or more for one other face.  It finds labels the head memorised whose look the
  features still place among another face's crops.

``python -m vision.labelaudit [--real DIR] [--split train|val|all] [--model M.onnx] [--sheet suspects.png]``
prints a JSON line per suspect box (file, box, label, the looks that named it and their evidence), then a
summary line.  Main thread (onnxruntime runs in the caller's thread); the pure functions run anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from mjtable.tiles import MCR_TILESET, tile
from vision import realdata
from vision.classifier.model import ModelError, OnnxTileClassifier
from vision.realaudit import grid
from vision.realeval import softmax

#: the neighbour look's defaults: nearest crops from other photos, and the votes for one other face that name a box
NEIGHBOURS = 10
MIN_VOTES = 8
#: the model look's default confidence (calibrated, as the service reads)
MODEL_CONFIDENCE = 0.9
#: rows of the similarity matrix computed at once (memory: CHUNK x N float32)
CHUNK = 1024
#: the sheet draws at most this many suspects, 4 to a row
SHEET_MAX = 120

F32 = npt.NDArray[np.float32]


@dataclass
class Suspect:
    """One box some look named, with each look's evidence (``reasons``: look name -> evidence)."""

    box: realdata.Box
    reasons: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        b = self.box
        return {"file": b.file, "x": b.x, "y": b.y, "w": b.w, "h": b.h, "tile": b.code, "reasons": self.reasons}


def copies_in_a_set(code: str) -> int:
    """How many tiles of ``code`` one full set (MCR's 144: four of each face, one of each flower) holds."""
    return MCR_TILESET.counts[tile(code).kind]


def count_suspects(boxes: list[realdata.Box]) -> dict[int, dict[str, Any]]:
    """Index of each box whose photo holds more boxes of its code than a set has -> the evidence."""
    per_photo: dict[str, Counter[str]] = defaultdict(Counter)
    for b in boxes:
        per_photo[b.file][b.code] += 1
    out: dict[int, dict[str, Any]] = {}
    for i, b in enumerate(boxes):
        n, limit = per_photo[b.file][b.code], copies_in_a_set(b.code)
        if n > limit:
            out[i] = {"in_photo": n, "a_set_holds": limit}
    return out


def neighbour_votes(
    embeddings: F32, codes: list[str], sources: list[str], k: int = NEIGHBOURS, chunk: int = CHUNK
) -> list[Counter[str]]:
    """For each row of ``embeddings`` (N x D), the codes of its ``k`` most similar rows (cosine) among rows of
    other ``sources``, counted (fewer than ``k`` when fewer rows lie in other sources)."""
    if len(embeddings) != len(codes) or len(codes) != len(sources):
        raise ValueError("embeddings, codes and sources differ in length")
    x = np.asarray(embeddings, np.float32)
    x = x / (np.linalg.norm(x, axis=1, keepdims=True) + np.float32(1e-8))
    src_ids = {s: i for i, s in enumerate(sorted(set(sources)))}
    src = np.array([src_ids[s] for s in sources], np.int64)
    others = len(src) - np.bincount(src)[src]  # per row: the rows of other sources
    code_arr = np.array(codes)
    votes: list[Counter[str]] = []
    for start in range(0, len(x), chunk):
        sim = x[start : start + chunk] @ x.T
        sim[src[start : start + chunk, None] == src[None, :]] = -np.inf
        for row, i in zip(sim, range(start, start + len(sim)), strict=True):
            n = min(k, int(others[i]))
            if n == 0:
                votes.append(Counter())
                continue
            nearest = np.argpartition(-row, n - 1)[:n]
            votes.append(Counter(code_arr[nearest].tolist()))
    return votes


def neighbour_suspects(
    votes: list[Counter[str]], codes: list[str], min_votes: int = MIN_VOTES
) -> dict[int, dict[str, Any]]:
    """Index of each box whose neighbours give ``min_votes`` or more to one other code -> the evidence."""
    out: dict[int, dict[str, Any]] = {}
    for i, (counted, code) in enumerate(zip(votes, codes, strict=True)):
        if not counted:
            continue
        top, n = counted.most_common(1)[0]
        if top != code and n >= min_votes:
            out[i] = {"face": top, "votes": n, "for_the_label": counted.get(code, 0), "of": sum(counted.values())}
    return out


def model_suspects(
    probabilities: F32, codes: list[str], classes: tuple[str, ...], min_confidence: float = MODEL_CONFIDENCE
) -> dict[int, dict[str, Any]]:
    """Index of each box the model reads as another class at ``min_confidence`` or more -> the evidence."""
    out: dict[int, dict[str, Any]] = {}
    for i, (row, code) in enumerate(zip(probabilities, codes, strict=True)):
        best = int(np.argmax(row))
        if classes[best] != code and float(row[best]) >= min_confidence:
            label_p = float(row[classes.index(code)]) if code in classes else None
            out[i] = {"read": classes[best], "confidence": round(float(row[best]), 4), "label_probability": label_p}
    return out


def read_crops(
    clf: OnnxTileClassifier, directory: Path, boxes: list[realdata.Box], errors: list[dict[str, str]] | None = None
) -> tuple[F32, F32, list[realdata.Box]]:
    """(calibrated probabilities, embeddings, boxes in the order read) for every box, each photo read once.  A
    photo that cannot be read is left out and named in ``errors`` (``{"file", "error"}``), when given; without
    it the ValueError propagates."""
    probs: list[F32] = []
    embeds: list[F32] = []
    order: list[realdata.Box] = []
    for name, items in realdata.by_file(boxes).items():
        try:
            photo = realdata.read_photo(directory, name)
        except ValueError as exc:
            if errors is None:
                raise
            errors.append({"file": name, "error": str(exc)})
            continue
        crops = [realdata.crop(photo, b) for b in items]
        logits, emb = clf.run(crops)
        if emb is None:
            raise ModelError("this model has no embedding output: the neighbour look needs one")
        probs.append(softmax(logits, clf.temperature))
        embeds.append(emb)
        order.extend(items)
    if not order:
        return np.zeros((0, len(clf.classes)), np.float32), np.zeros((0, 0), np.float32), []
    return np.concatenate(probs), np.concatenate(embeds), order


def audit(
    boxes: list[realdata.Box],
    probabilities: F32,
    embeddings: F32,
    classes: tuple[str, ...],
    *,
    min_confidence: float = MODEL_CONFIDENCE,
    k: int = NEIGHBOURS,
    min_votes: int = MIN_VOTES,
) -> list[Suspect]:
    """Every box some look names, in ``boxes``' order (``probabilities`` and ``embeddings`` row per box)."""
    codes = [b.code for b in boxes]
    looks = {
        "count": count_suspects(boxes),
        "model": model_suspects(probabilities, codes, classes, min_confidence),
        "neighbours": neighbour_suspects(
            neighbour_votes(embeddings, codes, [b.source for b in boxes], k), codes, min_votes
        ),
    }
    suspects: dict[int, Suspect] = {}
    for look, found in looks.items():
        for i, evidence in found.items():
            suspects.setdefault(i, Suspect(boxes[i])).reasons[look] = evidence
    return [suspects[i] for i in sorted(suspects)]


def sheet(directory: Path, suspects: list[Suspect], limit: int = SHEET_MAX) -> npt.NDArray[np.uint8]:
    """The first ``limit`` suspects, each as the photo round its box (the box in red, 240 x 240) captioned
    ``file label>what the looks say``, 4 to a row (BGR uint8)."""
    cells: list[npt.NDArray[np.uint8]] = []
    photos: dict[str, npt.NDArray[np.uint8]] = {}
    for s in suspects[:limit]:
        b = s.box
        if b.file not in photos:  # suspects come photo by photo: each photo is read once
            photos[b.file] = realdata.read_photo(directory, b.file)
        photo = photos[b.file].copy()
        cv2.rectangle(photo, (int(b.x), int(b.y)), (int(b.x + b.w), int(b.y + b.h)), (0, 0, 255), 2)
        side = max(b.w, b.h) * 1.8 + 40
        cx, cy = b.x + b.w / 2, b.y + b.h / 2
        x0, y0 = max(0, int(cx - side / 2)), max(0, int(cy - side / 2))
        x1, y1 = min(photo.shape[1], int(cx + side / 2)), min(photo.shape[0], int(cy + side / 2))
        view = cv2.resize(photo[y0:y1, x0:x1], (240, 240), interpolation=cv2.INTER_AREA)
        cell = cv2.copyMakeBorder(view, 0, 18, 0, 4, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        said = "/".join(str(e.get("read") or e.get("face") or f"x{e.get('in_photo')}") for e in s.reasons.values())
        cv2.putText(cell, f"{b.file} {b.code}>{said}", (2, 252), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 200), 1)
        cells.append(np.asarray(cell, np.uint8))
    if not cells:
        return np.full((258, 244, 3), 255, np.uint8)
    return grid(cells, 4)


def _split_boxes(boxes: list[realdata.Box], split: str, seed: int) -> list[realdata.Box]:
    if split == "all":
        return boxes
    train, val = realdata.split_sources(boxes, seed)
    keep = train if split == "train" else val
    return [b for b in boxes if b.source in keep]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.labelaudit", description=__doc__.split("\n\n")[0])
    p.add_argument("--real", type=Path, default=realdata.DEFAULT_REAL_DIR, help="the labelled photo set")
    p.add_argument("--split", choices=("train", "val", "all"), default="all", help="which photos (default all)")
    p.add_argument("--seed", type=int, default=0, help="the split's seed (the model card's)")
    p.add_argument("--model", type=Path, default=None, help="an ONNX model other than the committed one")
    p.add_argument("--min-confidence", type=float, default=MODEL_CONFIDENCE, help="the model look's confidence")
    p.add_argument("--neighbours", type=int, default=NEIGHBOURS, help="nearest crops from other photos")
    p.add_argument("--min-votes", type=int, default=MIN_VOTES, help="votes for one other face that name a box")
    p.add_argument("--published", action="store_true", help="the labels as published, without the shipped fixes")
    p.add_argument("--sheet", type=Path, help="draw the suspects here as a PNG, the photo round each box")
    args = p.parse_args(argv)
    if not 1 <= args.min_votes <= args.neighbours:
        print(json.dumps({"error": "--min-votes must lie between 1 and --neighbours"}))
        return 2
    try:
        boxes = realdata.read_labels(args.real, fixes=None if args.published else realdata.LABEL_FIXES)
        chosen = _split_boxes(boxes, args.split, args.seed)
        clf = OnnxTileClassifier.load(args.model, threads=2)
        unreadable: list[dict[str, str]] = []
        probs, embeds, order = read_crops(clf, args.real, chosen, unreadable)
    except (ModelError, OSError, ValueError) as exc:
        print(json.dumps({"error": str(exc)}))
        return 2
    for bad in unreadable:  # the rest of the set is audited without it
        print(json.dumps(bad))
    suspects = audit(
        order,
        probs,
        embeds,
        clf.classes,
        min_confidence=args.min_confidence,
        k=args.neighbours,
        min_votes=args.min_votes,
    )
    for s in suspects:
        print(json.dumps(s.to_json(), ensure_ascii=False))
    summary: dict[str, Any] = {
        "summary": "labelaudit",
        "split": args.split,
        "boxes": len(order),
        "unreadable_photos": len(unreadable),
        "suspects": len(suspects),
        "by_look": dict(Counter(look for s in suspects for look in s.reasons)),
    }
    if args.sheet is not None:
        if not cv2.imwrite(str(args.sheet), sheet(args.real, suspects)):
            print(json.dumps({"error": f"cannot write {args.sheet}"}))
            return 2
        summary["sheet"] = str(args.sheet)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
