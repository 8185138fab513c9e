"""The training script (needs torch: skipped in the torch-free project venv, run it in /work/train-venv)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.classifier import OnnxTileClassifier
from vision.synth.render import CLASSES


def test_a_tiny_training_run_exports_a_model_the_classifier_loads(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="torch is only in the training venv (pip install -e .[train])")
    from vision import train

    assert (
        train.main(["--out", str(tmp_path), "--steps", "3", "--batch", "8", "--variants", "1", "--eval-per-class", "1"])
        == 0
    )
    meta = json.loads((tmp_path / "tile_classifier.json").read_text())
    assert meta["classes"] == list(CLASSES) and meta["recipe"]["steps"] == 3
    assert set(meta["held_out"]["accuracy_per_style"]) and "cn-ming" in meta["unseen_styles"]
    clf = OnnxTileClassifier.load(tmp_path / "tile_classifier.onnx")
    logits, embeds = clf.run([np.zeros((30, 40, 3), np.uint8)] * 2)
    assert logits.shape == (2, len(CLASSES)) and embeds is not None and embeds.shape == (2, train.EMBED_DIM)
