"""Post-training int8 quantization of the tile classifier, so a wider network still reads a tile in under a
millisecond on one core (issue 15 point 6; a Pi 4's Cortex-A72 and this machine's x86 both have int8 kernels in
onnxruntime's MLAS).

``quantize(float_model, out, meta, real_dir)`` runs onnxruntime's static quantization: its shape
pre-processing, then QDQ nodes with per-channel int8 weights (stored as uint8 by ``unsigned_weights``, so no CPU
saturates them) and uint8 activations whose ranges are the min/max seen on the calibration crops
(``calibration_crops``: synthetic faces of every training style, real training-split crops as the pipeline cuts
them, and not-a-tile images, all seeded).  The linear head stays in float32: its input is the
embedding enrollment fits, so the shipped logits are the head's own product of that embedding and the head
file.  ``python -m vision.quantize --model FLOAT.onnx --out DIR`` writes ``DIR/tile_classifier.onnx`` with its
card (the float model's card plus a ``quantization`` entry and every figure measured again on the int8 model)
and head; ``vision.train --quantize`` (the default) does the same at the end of training.

Needs ``onnx`` (the ``train`` extra).  Main-thread functions; onnxruntime runs on the caller's thread.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision import realdata
from vision.classifier.preprocess import to_input
from vision.synth.augment import augment
from vision.synth.negatives import KINDS as NEGATIVE_KINDS
from vision.synth.negatives import negative
from vision.synth.render import CLASSES, render_tile_face

Image = npt.NDArray[np.uint8]
#: calibration crops of each kind (``calibration_crops``): enough that the activation ranges settle
CALIBRATION_SYNTHETIC = 768
CALIBRATION_REAL = 768
CALIBRATION_NEGATIVE = 128
#: crops per calibration batch fed to onnxruntime
CALIBRATION_BATCH = 64
FORMAT = (
    "int8 QDQ: per-channel symmetric int8 weights stored as uint8 (zero point 128), uint8 activations, MinMax ranges"
    " (onnxruntime static quantization)"
)


def calibration_crops(
    styles: tuple[str, ...], real_dir: Path | None, seed: int, size: int
) -> tuple[list[Image], dict[str, int]]:
    """Seeded calibration crops and their counts per kind: rendered faces of ``styles`` filmed as in training
    (``size`` x ``size``), crops of real training-split boxes (``real_dir``; the validation split is never
    seen) and synthetic not-a-tile images."""
    rng = np.random.default_rng([seed, 31])
    crops: list[Image] = []
    for i in range(CALIBRATION_SYNTHETIC):
        code = CLASSES[i % len(CLASSES)]
        crops.append(augment(render_tile_face(code, style=styles[i % len(styles)], rng=rng), rng, size))
    n_real = 0
    if real_dir is not None:
        boxes = realdata.read_labels(real_dir)
        train, _ = realdata.split_sources(boxes, seed)
        pool = [b for b in boxes if b.source in train]
        picked = [pool[int(i)] for i in sorted(rng.choice(len(pool), min(CALIBRATION_REAL, len(pool)), replace=False))]
        for name, items in realdata.by_file(picked).items():
            photo = realdata.read_photo(real_dir, name)
            crops.extend(realdata.crop(photo, b) for b in items)
        n_real = len(picked)
    for i in range(CALIBRATION_NEGATIVE):
        crops.append(negative(NEGATIVE_KINDS[i % len(NEGATIVE_KINDS)], rng, size))
    return crops, {"synthetic": CALIBRATION_SYNTHETIC, "real_train": n_real, "not_a_tile": CALIBRATION_NEGATIVE}


def _head_nodes(model: Any) -> list[str]:
    """Names of the nodes that produce the ``logits`` output (the linear head), kept in float32."""
    return [node.name for node in model.graph.node if "logits" in node.output]


def dequantized_constants(graph: Any) -> dict[str, npt.NDArray[np.float32]]:
    """Every constant of an ONNX ``graph`` (a ``GraphProto``) as float32, by name: its float initializers, and the
    output of each DequantizeLinear whose inputs are all initializers (a quantized weight or bias), computed as the
    operator defines it: ``(q - zero_point) * scale``, per channel along its ``axis`` (default 1) when the scale is
    a vector.  An int8 model's weights so read are exactly what its graph multiplies with."""
    from onnx import numpy_helper

    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    out = {name: np.asarray(v, np.float32) for name, v in inits.items() if np.issubdtype(v.dtype, np.floating)}
    for node in graph.node:
        if node.op_type != "DequantizeLinear" or not all(i in inits for i in node.input if i):
            continue
        q = inits[node.input[0]].astype(np.float64)
        scale = inits[node.input[1]].astype(np.float64)
        zero = inits[node.input[2]].astype(np.float64) if len(node.input) > 2 and node.input[2] else np.zeros(1)
        if scale.ndim == 1 and scale.size > 1:
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1) % q.ndim
            shape = [1] * q.ndim
            shape[axis] = scale.size
            scale, zero = scale.reshape(shape), zero.reshape(shape)
        out[node.output[0]] = np.asarray((q - zero) * scale, np.float32)
    return out


def unsigned_weights(model: Path) -> int:
    """Store ``model``'s int8 weights as uint8 (+128, zero point 128), in place; returns how many tensors changed.

    The dequantized weights are the same numbers, bit for bit.  Why: with int8 weights onnxruntime runs the
    convolutions as uint8 x int8 products, and an x86 CPU without VNNI (AVX2, AVX-512 before Cascade Lake) does
    those with vpmaddubsw, which adds pairs of products into 16 bits with saturation: the committed model of stop
    30 read 55 % of the real validation crops on such a CPU instead of 93 %.  uint8 x uint8 has no such kernel on
    any CPU, so the model reads the same everywhere (tests/vision_classifier/test_classifier.py checks the fused
    kernels against the graph's own arithmetic)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model))
    inits = {t.name: t for t in graph.graph.initializer}
    changed = 0
    for node in graph.graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in inits or len(node.input) < 3:
            continue
        weight, zero = inits[node.input[0]], inits.get(node.input[2])
        if weight.data_type != onnx.TensorProto.INT8 or zero is None:
            continue
        zeros = numpy_helper.to_array(zero).astype(np.int16)
        shared = zero.data_type == onnx.TensorProto.UINT8 and bool((zeros == 128).all())  # converted already
        if not shared and (zero.data_type != onnx.TensorProto.INT8 or zeros.any()):
            raise ValueError(f"{model}: weight {weight.name} is not symmetric int8 (zero points {zeros.ravel()[:4]})")
        shifted = numpy_helper.to_array(weight).astype(np.int16) + 128
        weight.CopyFrom(numpy_helper.from_array(shifted.astype(np.uint8), weight.name))
        zero.CopyFrom(numpy_helper.from_array(np.full(zeros.shape, 128, np.uint8), zero.name))
        changed += 1
    onnx.save(graph, str(model))
    return changed


def quantize(float_model: Path, out: Path, meta: dict[str, Any], real_dir: Path | None) -> dict[str, Any]:
    """Write the int8 version of ``float_model`` to ``out``, its activation ranges measured on
    ``calibration_crops`` of the card ``meta``'s styles, seed and input size (``real_dir``: the real photos, or
    None); returns the card's ``quantization`` entry."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    size = int(meta["input"]["size"][0])
    mean, std = float(meta["input"]["mean"]), float(meta["input"]["std"])
    crops, counts = calibration_crops(tuple(meta["recipe"]["styles"]), real_dir, int(meta["seed"]), size)

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self._batches: Iterator[list[Image]] = (
                crops[i : i + CALIBRATION_BATCH] for i in range(0, len(crops), CALIBRATION_BATCH)
            )

        def get_next(self) -> dict[str, npt.NDArray[np.float32]] | None:
            batch = next(self._batches, None)
            return None if batch is None else {"input": to_input(batch, size, mean, std)}

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(float_model), str(pre))
        head = _head_nodes(onnx.load(str(pre)))
        quantize_static(
            str(pre),
            str(out),
            Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=head,
        )
    unsigned_weights(out)
    return {
        "format": FORMAT,
        "float_model_sha256": hashlib.sha256(float_model.read_bytes()).hexdigest(),
        "float_bytes": float_model.stat().st_size,
        "kept_float": head,
        "calibration_counts": counts,
    }


def main(argv: list[str] | None = None) -> int:
    """Quantize an exported float model and its card (see the module docstring); prints one JSON line."""
    from vision.modelcard import card_figures

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", type=Path, required=True, help="the float ONNX model (its .json and head beside it)")
    p.add_argument("--out", type=Path, required=True, help="directory for tile_classifier.onnx, .json, .head.npz")
    p.add_argument("--real", default=str(realdata.DEFAULT_REAL_DIR), help="the real photographs; 'none': skip")
    p.add_argument("--eval-per-class", type=int, default=8, help="synthetic held-out samples per class and style")
    args = p.parse_args(argv)
    try:
        meta = json.loads(args.model.with_suffix(".json").read_text())
        head = args.model.with_name(str(meta["head"]))
        styles = tuple(str(s) for s in meta["recipe"]["styles"])
        seed = int(meta["seed"])
        if not args.model.is_file() or not head.is_file():
            raise FileNotFoundError(f"{args.model} or its head {head.name} is missing")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        msg = f"vision.quantize: {args.model}: not an exported model with its card and head ({exc})"
        raise SystemExit(msg) from exc
    real_dir = None if args.real == "none" else Path(args.real)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / "tile_classifier.onnx"
    if onnx_path.resolve() == args.model.resolve():
        raise SystemExit("vision.quantize: --out must not hold the float model")
    entry = quantize(args.model, onnx_path, meta, real_dir)
    entry["float_held_out"] = meta.get("held_out", {}).get("accuracy")
    entry["float_real_top1"] = (meta.get("real_validation") or {}).get("top1")
    shutil.copyfile(head, args.out / head.name)
    for key in ("calibration", "real_validation", "real_enrollment"):
        meta.pop(key, None)
    meta["quantization"] = entry
    meta = card_figures(onnx_path, meta, styles, real_dir, seed=seed, per_class=args.eval_per_class)
    print(json.dumps({"done": str(onnx_path), "bytes": onnx_path.stat().st_size, "held_out": meta["held_out"],
                      "real": {k: v for k, v in meta.get("real_validation", {}).items() if k != "per_face"}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
