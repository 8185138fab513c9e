"""Pictures of the classifier on the real photographs' validation split, for docs/vision.md:
``docs/vision-reliability.png`` (reliability diagram: accuracy per confidence bin, before and after the
temperature, with the service's threshold) and ``docs/vision-confusion.png`` (confusion matrix, rows the truth).

One command: ``.venv/bin/python -m vision.report_figures [--model M] [--real DIR] [--out docs]``; drawn with
OpenCV (no plotting library needed).  Main thread.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision import realdata
from vision.classifier import OnnxTileClassifier
from vision.realeval import RealSet, measure, softmax

Image = npt.NDArray[np.uint8]
BINS = 10
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GREY = (170, 170, 170)
BLUE = (200, 110, 30)
ORANGE = (40, 140, 240)
RED = (40, 40, 210)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def _text(
    img: Image, text: str, xy: tuple[int, int], scale: float = 0.45, colour: tuple[int, int, int] = BLACK
) -> None:
    cv2.putText(img, text, xy, FONT, scale, colour, 1, cv2.LINE_AA)


def reliability(real: RealSet, temperature: float, threshold: float, title: str) -> Image:
    """Accuracy per confidence bin (bars: calibrated; dots: before, temperature 1), the diagonal of perfect
    calibration, the threshold as a vertical line, and the share of reads per bin."""
    truth = np.array([real.classes.index(c) for c in real.codes])
    w, h, left, top, size = 760, 620, 80, 60, 460
    img = np.full((h, w, 3), 255, np.uint8)
    _text(img, title, (left, 30), 0.55)

    def px(x: float, y: float) -> tuple[int, int]:
        return int(left + x * size), int(top + (1 - y) * size)

    cv2.rectangle(img, px(0, 0), px(1, 1), BLACK, 1)
    for k in range(11):
        v = k / 10
        cv2.line(img, px(v, 0), (px(v, 0)[0], px(v, 0)[1] + 5), BLACK, 1)
        cv2.line(img, px(0, v), (px(0, v)[0] - 5, px(0, v)[1]), BLACK, 1)
        if k % 2 == 0:
            _text(img, f"{v:.1f}", (px(v, 0)[0] - 12, px(v, 0)[1] + 20), 0.4)
            _text(img, f"{v:.1f}", (px(0, v)[0] - 38, px(0, v)[1] + 5), 0.4)
    cv2.line(img, px(0, 0), px(1, 1), GREY, 1, cv2.LINE_AA)
    _text(img, "confidence", (left + size // 2 - 40, top + size + 45))
    _text(img, "accuracy", (8, top - 12))
    for t, colour, dots in ((temperature, BLUE, False), (1.0, ORANGE, True)):
        probs = softmax(real.logits, t)
        conf, correct = probs.max(1), probs.argmax(1) == truth
        bins = np.minimum((conf * BINS).astype(int), BINS - 1)
        for b in range(BINS):
            sel = bins == b
            if not sel.any():
                continue
            acc = float(correct[sel].mean())
            if dots:
                cv2.circle(img, px((b + 0.5) / BINS, acc), 5, colour, -1, cv2.LINE_AA)
            else:
                cv2.rectangle(img, px(b / BINS + 0.01, 0), px((b + 1) / BINS - 0.01, acc), colour, -1)
                share = float(sel.mean())
                ink = WHITE if acc > 0.1 else BLACK
                _text(img, f"{share:.0%}", (px(b / BINS, 0)[0] + 8, top + size - 6), 0.35, ink)
    cv2.line(img, px(threshold, 0), px(threshold, 1), RED, 2)
    _text(img, f"min_confidence {threshold:g}", (px(threshold, 1)[0] + 5, top + 15), 0.45, RED)
    lx = left + size + 20
    cv2.rectangle(img, (lx, top + 40), (lx + 14, top + 54), BLUE, -1)
    _text(img, f"T = {temperature:.2f} (served)", (lx + 20, top + 52), 0.42)
    cv2.circle(img, (lx + 7, top + 75), 5, ORANGE, -1)
    _text(img, "T = 1 (raw)", (lx + 20, top + 80), 0.42)
    _text(img, "% = share of reads", (lx, top + 110), 0.42)
    _text(img, f"{len(truth)} real crops", (lx, top + 135), 0.42)
    return img


def confusion(real: RealSet, temperature: float, title: str) -> Image:
    """Row-normalised confusion matrix (rows: true faces present; columns: every class), darker = more."""
    classes = real.classes
    truth = np.array([classes.index(c) for c in real.codes])
    pred = softmax(real.logits, temperature).argmax(1)
    rows = [i for i in range(len(classes)) if (truth == i).any()]
    cell, left, top = 16, 50, 70
    w, h = left + cell * len(classes) + 20, top + cell * len(rows) + 40
    img = np.full((h, w, 3), 255, np.uint8)
    _text(img, title, (left, 22), 0.5)
    for j, code in enumerate(classes):
        label = "nat" if code == "not_a_tile" else ("bk" if code == "back" else code)
        _text(img, label, (left + j * cell + 1, top - 6), 0.3)
    for r, i in enumerate(rows):
        _text(img, classes[i], (left - 26, top + r * cell + 12), 0.33)
        sel = truth == i
        counts = np.bincount(pred[sel], minlength=len(classes)) / sel.sum()
        for j, v in enumerate(counts):
            x0, y0 = left + j * cell, top + r * cell
            if v > 0:
                if j == i:
                    shade = np.array((255, 255, 255)) - v * np.array((200, 120, 255))
                else:
                    shade = np.array((255, 255, 255)) - min(1.0, v * 4) * np.array((255, 255, 40))
                colour = tuple(int(c) for c in np.clip(shade, 0, 255))
                cv2.rectangle(img, (x0, y0), (x0 + cell - 1, y0 + cell - 1), colour, -1)
            cv2.rectangle(img, (x0, y0), (x0 + cell, y0 + cell), (230, 230, 230), 1)
    _text(img, "rows: true face; columns: read as (green: right, share; red: wrong, x4)", (left, h - 14), 0.4)
    return img


def main(argv: list[str] | None = None) -> int:
    """Draw both pictures for ``--model`` (default: the committed one); prints a JSON line with their paths."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--real", type=Path, default=realdata.DEFAULT_REAL_DIR)
    p.add_argument("--out", type=Path, default=Path("docs"))
    p.add_argument("--suffix", default="", help="appended to the file names (e.g. -candidate)")
    args = p.parse_args(argv)
    clf = OnnxTileClassifier.load(args.model, threads=1)
    seed = int(clf.meta.get("seed", 0))
    threshold = clf.card_min_confidence()
    real = measure(clf, args.real, seed)
    name = f"{clf.meta.get('label', '')}real validation split (source photos held out, seed {seed})"
    paths = {
        "reliability": args.out / f"vision-reliability{args.suffix}.png",
        "confusion": args.out / f"vision-confusion{args.suffix}.png",
    }
    cv2.imwrite(str(paths["reliability"]), reliability(real, clf.temperature, threshold, f"Reliability: {name}"))
    cv2.imwrite(str(paths["confusion"]), confusion(real, clf.temperature, f"Confusion: {name}"))
    print(json.dumps({k: str(v) for k, v in paths.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
