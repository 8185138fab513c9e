"""``vision.classifier.selfcheck``: the fused int8 kernels against the graph's own arithmetic, on this CPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.classifier import DEFAULT_MODEL_PATH, ModelError
from vision.classifier.selfcheck import MAX_LOGIT_GAP, KernelCheck, kernel_check, probe_crops


def test_the_shipped_model_reads_as_its_graph_says_on_this_cpu() -> None:
    """On an x86 CPU without VNNI the model of stop 30 (int8 weights) gave logits 6.2 apart and 2 of the 32 probe
    reads differed; the shipped model (uint8 weights) must agree on any CPU."""
    got = kernel_check(DEFAULT_MODEL_PATH)
    assert got.crops == 32 and got.agrees, got
    assert got.reads_differ == 0 and got.max_logit_gap < MAX_LOGIT_GAP and got.ms_per_crop > 0


def test_probe_crops_are_seeded_tile_like_images() -> None:
    a, b = probe_crops(4, seed=1), probe_crops(4, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert {c.shape for c in a} == {(64, 48, 3)} and all(c.dtype == np.uint8 for c in a)
    assert not np.array_equal(a[0], probe_crops(4, seed=2)[0])
    assert all(c.mean() > 120 for c in a)  # a light body with a few dark strokes


def test_a_check_that_disagrees_does_not_pass() -> None:
    assert not KernelCheck(32, 6.17, 2, 1.0).agrees
    assert not KernelCheck(32, 0.9, 0, 1.0).agrees  # the same top class, but logits no rounding explains
    assert KernelCheck(32, 0.045, 0, 1.0).agrees


def test_a_missing_model_or_card_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="metadata"):
        kernel_check(tmp_path / "none.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    bad.with_suffix(".json").write_text(DEFAULT_MODEL_PATH.with_suffix(".json").read_text())
    with pytest.raises(ModelError, match="cannot load"):
        kernel_check(bad)
