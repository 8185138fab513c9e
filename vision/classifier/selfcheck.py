"""Does this CPU compute the classifier the way its graph says?

onnxruntime fuses an int8 model's QuantizeLinear / DequantizeLinear pairs into integer kernels chosen for the CPU.
For uint8 activations times int8 weights, an x86 CPU without VNNI multiplies with ``vpmaddubsw``, which adds each
pair of products into 16 bits with saturation. A model whose weights are stored as int8 then reads differently on
such a CPU: the model of stop 30 read 55 % of the real validation crops there, against 93 % elsewhere.
``vision.quantize`` stores the weights as uint8 so that this cannot happen. A model from elsewhere may not, so
``mjtable doctor`` runs ``kernel_check`` on the venue's own machine.

``kernel_check(path)`` reads a few tile-like probe crops (an ivory body with dark strokes and camera noise;
seeded, nothing to render or load), or the crops it is given, with the session the service uses (every graph
optimisation) and with an unoptimised one (every operator as the ONNX specification defines it). It returns the
largest logit gap, how many reads differ, and the fused session's time per crop (the fastest of three batched
runs). Main-thread function; onnxruntime runs on the caller's thread.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.classifier.model import DEFAULT_MODEL_PATH, ModelError
from vision.classifier.preprocess import to_input

Image = npt.NDArray[np.uint8]
#: probe crops per check
PROBES = 32
#: the largest logit gap a requantized activation's rounding explains (the shipped model: 0.05 at most)
MAX_LOGIT_GAP = 0.25


@dataclass(frozen=True)
class KernelCheck:
    """``crops`` probe crops read by the fused and the unoptimised session: the largest absolute logit gap, the
    reads whose top class differs, and the fused session's milliseconds per crop in one batch."""

    crops: int
    max_logit_gap: float
    reads_differ: int
    ms_per_crop: float

    @property
    def agrees(self) -> bool:
        """True when the fused kernels compute what the graph says (up to rounding)."""
        return self.reads_differ == 0 and self.max_logit_gap < MAX_LOGIT_GAP

    def disagreement(self, model: str) -> str:
        """What a failed check means for ``model`` and what to do (``mjtable doctor`` and the service say it)."""
        return (f"this CPU does not compute {model} as its graph says ({self.reads_differ} of {self.crops} probe "
                f"reads differ, logits up to {self.max_logit_gap} apart): its weights are int8, which onnxruntime "
                "saturates on x86 CPUs without VNNI. Use the shipped model, or quantize the float model again with "
                "python -m vision.quantize (weights stored as uint8)")


def probe_crops(n: int = PROBES, seed: int = 0) -> list[Image]:
    """``n`` seeded tile-like crops, 64 x 48 BGR: a light body, six dark strokes, Gaussian noise."""
    rng = np.random.default_rng(seed)
    crops = []
    for _ in range(n):
        img = np.tile(rng.integers(150, 256, 3), (64, 48, 1)).astype(np.float64)
        for _ in range(6):
            x0, y0 = int(rng.integers(0, 40)), int(rng.integers(0, 56))
            img[y0 : y0 + int(rng.integers(2, 10)), x0 : x0 + int(rng.integers(2, 10))] = rng.integers(0, 120, 3)
        crops.append(np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8))
    return crops


def _session(path: Path, level: object) -> Any:
    """An onnxruntime CPU session of ``path`` at graph optimisation ``level``; ModelError when it cannot load."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = level
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types for a corrupt file
        raise ModelError(f"cannot load {path}: {exc}") from exc


def kernel_check(path: Path = DEFAULT_MODEL_PATH, n: int = PROBES, crops: Sequence[Image] | None = None) -> KernelCheck:
    """Compare the fused and the unoptimised session of the model at ``path`` (its ``.json`` card beside it) on
    ``crops`` (default ``probe_crops(n)``).  Raises ModelError when the model or its card cannot be read."""
    import onnxruntime as ort

    try:
        meta = json.loads(path.with_suffix(".json").read_text())
        size, mean, std = int(meta["input"]["size"][0]), float(meta["input"]["mean"]), float(meta["input"]["std"])
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise ModelError(f"model metadata {path.with_suffix('.json')} is missing or invalid: {exc}") from exc
    x = to_input(probe_crops(n) if crops is None else crops, size, mean, std)
    fused_session = _session(path, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    graph_session = _session(path, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    fused_session.run(["logits"], {"input": x})  # warm-up
    times = []
    for _ in range(3):  # the fastest of three: the machine may be busy
        start = time.perf_counter()
        fused = np.asarray(fused_session.run(["logits"], {"input": x})[0], np.float32)
        times.append((time.perf_counter() - start) * 1000 / len(x))
    graph = np.asarray(graph_session.run(["logits"], {"input": x})[0], np.float32)
    return KernelCheck(
        crops=len(x),
        max_logit_gap=round(float(np.abs(fused - graph).max()), 4),
        reads_differ=int((fused.argmax(1) != graph.argmax(1)).sum()),
        ms_per_crop=round(min(times), 3),
    )
