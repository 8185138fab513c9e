"""The tile classifier's model card (``tile_classifier.json`` beside the ONNX file): every figure measured on the
exported model (float or int8) through onnxruntime, as the service will run it.

- ``held_out`` / ``unseen_styles``: top-1 on freshly rendered, camera-augmented tiles (``evaluate``) of the
  training styles (seed ``10_000 + seed``) and of the styles kept out of training (``20_000 + seed``).
- ``real_photos``, ``calibration``, ``real_validation``: the real photographs' data, split and label fixes, the
  temperature fitted on the real validation crops, the threshold chosen at it and the validation figures
  (``vision.realeval``).
- ``calibration.simulated_camera``: the threshold chosen by the same rule, at the same temperature, on the
  synthetic held-out reads: what the simulated camera (``vision.simcam``: rendered art, not photographs) is
  read at.  A model's confidence is a property of the model and of the pictures it reads; the real threshold
  is the venue's, and on rendered art it would send confident right reads to the referee.
- ``real_enrollment``: venue enrollment measured on real crops (``vision.realeval.enrollment``).

Written by ``vision.train`` after training and by ``vision.quantize`` after quantizing.  Pure functions of their
arguments apart from reading the model and the photos and writing the card; the caller's thread.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision import realdata
from vision.synth.augment import augment
from vision.synth.render import CLASSES, HELD_OUT_STYLES, render_tile_face

F32 = npt.NDArray[np.float32]
#: crops -> N x C logits: an ONNX model's ``logits`` or ``vision.train.torch_logits``
Reader = Callable[[list[npt.NDArray[np.uint8]]], F32]


def held_out_reads(
    logits: Reader, styles: tuple[str, ...], per_class: int, seed: int, size: int
) -> dict[str, tuple[F32, npt.NDArray[np.int64]]]:
    """Per style, the logits (N x C) and class indices of freshly rendered, augmented ``size`` x ``size`` tiles
    (every class ``per_class`` times, one seeded stream over the styles in order)."""
    out: dict[str, tuple[F32, npt.NDArray[np.int64]]] = {}
    rng = np.random.default_rng(seed)
    for style in styles:
        crops, labels = [], []
        for y, code in enumerate(CLASSES):
            for _ in range(per_class):
                crops.append(augment(render_tile_face(code, style=style, rng=rng), rng, size))
                labels.append(y)
        out[style] = (logits(crops), np.array(labels, np.int64))
    return out


def accuracy(reads: dict[str, tuple[F32, npt.NDArray[np.int64]]]) -> dict[str, float]:
    """Top-1 per style of ``held_out_reads``."""
    return {style: float((lg.argmax(1) == y).mean()) for style, (lg, y) in reads.items()}


def evaluate(logits: Reader, styles: tuple[str, ...], per_class: int, seed: int, size: int) -> dict[str, float]:
    """Top-1 accuracy per style on freshly rendered, augmented tiles (``held_out_reads``)."""
    return accuracy(held_out_reads(logits, styles, per_class, seed, size))


def label_fixes_card(path: Path = realdata.LABEL_FIXES) -> dict[str, Any]:
    """The model card's record of the corrections applied to the published boxes (``vision.realdata``)."""
    fixes = realdata.read_label_fixes(path)
    return {
        "file": f"vision/{path.name}",
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "relabelled": sum(fx.fix != "drop" for fx in fixes),
        "dropped": sum(fx.fix == "drop" for fx in fixes),
    }


def real_card(onnx_path: Path, real_dir: Path, seed: int) -> dict[str, Any]:
    """The model card's real-photo entries for the exported model: the data and split, the temperature fitted
    on the validation crops, the threshold chosen from it (``vision.realeval``) and the validation figures."""
    from vision.classifier import OnnxTileClassifier
    from vision.realeval import MAX_CONFIDENT_WRONG, MIN_CONFIDENT_SHARE, bounded, calibrate, measure, report

    boxes = realdata.read_labels(real_dir)
    train, val = realdata.split_sources(boxes, seed)
    clf = OnnxTileClassifier.load(onnx_path, threads=1)
    real = measure(clf, real_dir, seed, val)
    temperature, threshold = calibrate(real)
    figures = report(real, temperature, threshold)
    return {
        "real_photos": {
            "data": "../shared/data/real-tiles (860 photos 640x640: 430 source photos x 2 versions; labels.csv)",
            "credit": realdata.CREDIT,
            "split": "by source photo: vision.realdata.split_sources"
            f"(seed={seed}, val_fraction={realdata.VAL_FRACTION})",
            "train_sources": len(train),
            "val_sources": len(val),
            "train_boxes": sum(b.source in train for b in boxes),
            "val_boxes": sum(b.source in val for b in boxes),
            "crop_margin": realdata.CROP_MARGIN,
            "label_fixes": label_fixes_card(),
        },
        "calibration": {
            "temperature": temperature,
            "fitted_on": "real validation crops (negative log-likelihood)",
            "min_confidence": threshold,
            "rule": f"lowest threshold with confident-and-wrong <= {MAX_CONFIDENT_WRONG:.1%} of reads "
            f"(target: >= {MIN_CONFIDENT_SHARE:.0%} of reads confident)",
            "bounded": bounded(real, temperature)
            | {
                "rule": f"lowest threshold whose one-sided upper bound (Clopper-Pearson) of confident-and-wrong "
                f"reads is <= {MAX_CONFIDENT_WRONG:.1%}; not the service's default"
            },
        },
        "real_validation": figures,
    }


def simulated_camera_card(reads: dict[str, tuple[F32, npt.NDArray[np.int64]]], temperature: float) -> dict[str, Any]:
    """``calibration.simulated_camera``: the threshold chosen (``vision.realeval.choose_threshold``, the real
    threshold's rule) on the synthetic held-out reads at the real-fitted ``temperature``, with the shares of
    confident and of confident-and-wrong reads there."""
    from vision.realeval import choose_threshold, rates, softmax

    logits = np.concatenate([lg for lg, _ in reads.values()])
    truth = np.concatenate([y for _, y in reads.values()])
    probs = softmax(logits, temperature)
    conf = probs.max(1).astype(np.float32)
    correct = probs.argmax(1) == truth
    threshold = choose_threshold(conf, correct)
    confident_wrong, confident = rates(conf, correct, threshold)
    return {
        "min_confidence": threshold,
        "measured_on": f"the synthetic held-out reads ({len(truth)}: held_out's renders), at the real temperature",
        "confident": round(confident, 4),
        "confident_wrong": round(confident_wrong, 4),
    }


def enrollment_card(onnx_path: Path, real_dir: Path, seed: int) -> dict[str, Any]:
    """The model card's ``real_enrollment`` (``vision.realeval.enrollment``) for the exported, calibrated model."""
    from vision.classifier import OnnxTileClassifier
    from vision.realeval import enrollment

    return {"real_enrollment": enrollment(OnnxTileClassifier.load(onnx_path, threads=1), real_dir, seed)}


def card_figures(
    onnx_path: Path, meta: dict[str, Any], styles: tuple[str, ...], real_dir: Path | None, *, seed: int, per_class: int
) -> dict[str, Any]:
    """Measure the exported (float or int8) model and write its card next to it: synthetic held-out accuracy
    of the training styles and of the unseen ones (seeds ``10_000 + seed`` and ``20_000 + seed``), then the
    real-photo entries (``real_card``, ``simulated_camera_card``, ``enrollment_card``) when ``real_dir`` is
    given.  Returns the card."""
    from vision.classifier import OnnxTileClassifier

    meta_path = onnx_path.with_suffix(".json")
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    clf = OnnxTileClassifier.load(onnx_path, threads=1)
    size = int(meta["input"]["size"][0])
    reads = held_out_reads(clf.logits, styles, per_class, seed=10_000 + seed, size=size)
    held_out = accuracy(reads)
    unseen = evaluate(clf.logits, HELD_OUT_STYLES, per_class, seed=20_000 + seed, size=size)
    meta["held_out"] = {
        "samples_per_style": len(CLASSES) * per_class,
        "accuracy_per_style": {k: round(v, 4) for k, v in held_out.items()},
        "accuracy": round(float(np.mean(list(held_out.values()))), 4),
    }
    meta["unseen_styles"] = {k: round(v, 4) for k, v in unseen.items()}
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    if real_dir is not None:
        meta.update(real_card(onnx_path, real_dir, seed))
        meta["calibration"]["simulated_camera"] = simulated_camera_card(reads, meta["calibration"]["temperature"])
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        meta.update(enrollment_card(onnx_path, real_dir, seed))  # reads the calibration just written
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return meta
