"""The training script (needs torch: skipped in the torch-free project venv, run it in /work/train-venv)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classifier import DEFAULT_MODEL_PATH, OnnxTileClassifier
from vision.synth.render import CLASSES


def test_a_tiny_training_run_exports_a_model_the_classifier_loads(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="torch is only in the training venv (pip install -e .[train])")
    from tests.vision_classifier.test_realdata import _fake_set
    from vision import train

    real = _fake_set(tmp_path / "real")
    out = tmp_path / "model"
    argv = ["--out", str(out), "--steps", "3", "--batch", "8", "--variants", "1", "--eval-per-class", "1"]
    assert train.main([*argv, "--real", str(real), "--size", "40", "--loose-share", "0.5"]) == 0
    meta = json.loads((out / "tile_classifier.json").read_text())
    assert meta["recipe"]["real_loose"] == {"share": 0.5, "augment": "vision.realdata.augment_loose"}
    assert meta["classes"] == [*CLASSES, "not_a_tile"] and meta["recipe"]["steps"] == 3
    assert meta["input"]["size"] == [40, 40]  # the classifier resizes crops to the card's size
    assert set(meta["held_out"]["accuracy_per_style"]) and "cn-ming" in meta["unseen_styles"]
    assert meta["real_photos"]["val_sources"] == 2 and meta["real_photos"]["credit"].endswith("CC BY 4.0")
    assert meta["real_photos"]["label_fixes"]["file"] == "vision/real_label_fixes.csv"
    assert meta["calibration"]["temperature"] > 0 and 0.3 <= meta["calibration"]["min_confidence"] <= 1.0
    sim = meta["calibration"]["simulated_camera"]  # the simulated camera's threshold, by the same rule
    assert 0.3 <= sim["min_confidence"] <= 1.0 and sim["confident_wrong"] <= 0.002 and 0 <= sim["confident"] <= 1
    assert meta["calibration"]["bounded"]["threshold"] >= meta["calibration"]["min_confidence"]
    assert 0 <= meta["real_validation"]["top1"] <= 1 and "before" in meta["real_enrollment"]
    clf = OnnxTileClassifier.load(out / "tile_classifier.onnx")
    assert clf.temperature == meta["calibration"]["temperature"]
    logits, embeds = clf.run([np.zeros((30, 40, 3), np.uint8)] * 2)
    assert logits.shape == (2, len(CLASSES) + 1) and embeds is not None and embeds.shape == (2, train.EMBED_DIM)
    # the shipped model is the int8 one; the float one stays beside it with its own card
    assert meta["quantization"]["calibration_counts"]["real_train"] > 0 and meta["quantization"]["float_held_out"] >= 0
    assert _op_types(out / "tile_classifier.onnx") >= {"QuantizeLinear", "DequantizeLinear", "Conv"}
    assert "DequantizeLinear" not in _op_types(out / train.FLOAT_FILE)
    float_logits, _ = OnnxTileClassifier.load(out / train.FLOAT_FILE).run([np.zeros((30, 40, 3), np.uint8)])
    assert np.corrcoef(float_logits[0], logits[0])[0, 1] > 0.98  # int8 reads as the float model does
    # fine-tuning starts from an exported model: the same outputs before any step
    again = tmp_path / "again"
    tune = ["--real", "none", "--steps", "1", "--lr", "1e-9", "--size", "40", "--init", str(out / train.FLOAT_FILE)]
    assert train.main([*argv, *tune, "--out", str(again)]) == 0
    logits2, _ = OnnxTileClassifier.load(again / train.FLOAT_FILE).run([np.zeros((30, 40, 3), np.uint8)])
    assert np.allclose(logits2[0], float_logits[0], atol=1e-3)
    again_recipe = json.loads((again / "tile_classifier.json").read_text())["recipe"]
    assert again_recipe["init"]["weights"] == "float" and "real_loose" not in again_recipe
    with pytest.raises(ValueError, match="convolutions"):  # an ONNX file that is not this network
        train.init_from_onnx(train.build_model(), _truncated(out / "tile_classifier.onnx", tmp_path / "cut.onnx"))
    # a teacher's answers on the synthetic samples (its input must be the training's)
    taught = tmp_path / "taught"
    teach = ["--real", "none", "--size", "40", "--teacher", str(out / "tile_classifier.onnx"), "--distill", "0.5"]
    assert train.main([*argv, *teach, "--out", str(taught)]) == 0
    assert json.loads((taught / "tile_classifier.json").read_text())["recipe"]["teacher"]["weight"] == 0.5
    with pytest.raises(ValueError, match="40 x 40"):
        train.Teacher(DEFAULT_MODEL_PATH, 1.0, 40)


def _truncated(model: Path, out: Path) -> Path:
    """``model`` without its last convolution's node (and its card copied beside it)."""
    import onnx

    graph = onnx.load(str(model))
    last = [n for n in graph.graph.node if n.op_type == "Conv"][-1]
    graph.graph.node.remove(last)
    onnx.save(graph, str(out))
    out.with_suffix(".json").write_text(model.with_suffix(".json").read_text())
    return out


def _op_types(path: Path) -> set[str]:
    import onnx

    return {node.op_type for node in onnx.load(str(path)).graph.node}


def _weight_types(path: Path) -> set[str]:
    """Element types of the constant tensors that DequantizeLinear nodes read (the quantized weights, not biases)."""
    import onnx

    graph = onnx.load(str(path)).graph
    inits = {t.name: t for t in graph.initializer}
    return {
        onnx.helper.tensor_dtype_to_np_dtype(inits[n.input[0]].data_type).name
        for n in graph.node
        if n.op_type == "DequantizeLinear"
        and n.input[0] in inits
        and inits[n.input[0]].data_type != onnx.TensorProto.INT32
    }


def test_quantize_writes_the_int8_model_and_its_card_from_a_float_one(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="torch is only in the training venv (pip install -e .[train])")
    from vision import quantize, train

    out = tmp_path / "model"
    argv = ["--out", str(out), "--steps", "2", "--batch", "8", "--variants", "1", "--eval-per-class", "1"]
    assert train.main([*argv, "--real", "none", "--size", "40", "--no-quantize"]) == 0
    assert not (out / train.FLOAT_FILE).exists() and "DequantizeLinear" not in _op_types(out / "tile_classifier.onnx")
    with pytest.raises(SystemExit, match="must not hold the float model"):
        quantize.main(["--model", str(out / "tile_classifier.onnx"), "--out", str(out), "--real", "none"])
    with pytest.raises(SystemExit, match="not an exported model"):
        quantize.main(["--model", str(tmp_path / "none.onnx"), "--out", str(tmp_path / "x"), "--real", "none"])
    int8 = tmp_path / "int8"
    args = ["--model", str(out / "tile_classifier.onnx"), "--out", str(int8), "--real", "none", "--eval-per-class", "1"]
    assert quantize.main(args) == 0
    meta = json.loads((int8 / "tile_classifier.json").read_text())
    assert meta["quantization"]["float_model_sha256"] and meta["quantization"]["kept_float"]  # the head
    assert meta["quantization"]["calibration_counts"] == {"synthetic": 768, "real_train": 0, "not_a_tile": 128}
    assert _weight_types(int8 / "tile_classifier.onnx") == {"uint8"}  # no uint8 x int8 kernel (see unsigned_weights)
    assert 0 <= meta["held_out"]["accuracy"] <= 1 and (int8 / train.HEAD_FILE).is_file()
    clf = OnnxTileClassifier.load(int8 / "tile_classifier.onnx")
    crops = [np.full((50, 36, 3), v, np.uint8) for v in (40, 120, 200)]
    float_logits, _ = OnnxTileClassifier.load(out / "tile_classifier.onnx").run(crops)
    int8_logits, embeds = clf.run(crops)
    assert embeds is not None and int8_logits.shape == float_logits.shape
    assert np.corrcoef(float_logits.ravel(), int8_logits.ravel())[0, 1] > 0.98
    # the head is kept in float: the shipped logits are the head file's product of the shipped embedding
    head = np.load(int8 / train.HEAD_FILE)
    assert np.allclose(embeds @ head["weight"].T + head["bias"], int8_logits, atol=1e-4)


def test_the_teachers_soft_targets_are_the_committed_models_answers() -> None:
    """Distillation (``--teacher``) runs the teacher with onnxruntime alone (no torch): its tempered
    probabilities, padded with a zero for ``not_a_tile`` when the teacher lacks that class, and read the way the
    classifier reads the same tiles."""
    from tests.vision_classifier.helpers import held_out_tiles
    from vision import train

    teacher = train.Teacher(DEFAULT_MODEL_PATH, 1.0, train.INPUT_SIZE)
    crops, _ = held_out_tiles(20, seed=31)
    clf = OnnxTileClassifier.load(threads=1)
    side = (train.INPUT_SIZE, train.INPUT_SIZE)
    x = train.preprocess([np.asarray(cv2.resize(c, side, interpolation=cv2.INTER_AREA), np.uint8) for c in crops])
    p = teacher.soft_targets(x)
    assert p.shape == (len(crops), len(train.MODEL_CLASSES)) and np.allclose(p.sum(1), 1, atol=1e-5)
    if len(clf.classes) < len(train.MODEL_CLASSES):
        assert (p[:, len(clf.classes) :] == 0).all()
    assert [train.MODEL_CLASSES[i] for i in p.argmax(1)] == [q.code for q in clf.classify(crops)]


def test_batches_are_seeded_and_echoing_reuses_each_fresh_chunk_later() -> None:
    """No torch needed: the batch stream is numpy.  The same seed gives the same stream in a batch-maker process
    as in this one; with ``echo=2`` step k trains on its own fresh half plus the fresh half of step k - ECHO_GAP."""
    from vision import train
    from vision.synth.render import available_styles

    styles = available_styles()[:2]
    here = list(train.batches(styles, steps=3, workers=0, n=8, seed=3, variants=1))
    there = list(train.batches(styles, steps=3, workers=1, n=8, seed=3, variants=1))
    for (xa, ya), (xb, yb) in zip(here, there, strict=True):
        assert xa.shape == (8, 3, train.INPUT_SIZE, train.INPUT_SIZE) and np.array_equal(xa, xb)
        assert np.array_equal(ya, yb)
    gap = train.ECHO_GAP
    fresh = list(train.batches(styles, steps=gap + 2, workers=0, n=4, seed=3, variants=1))
    echoed = list(train.batches(styles, steps=gap + 2, workers=0, echo=2, n=8, seed=3, variants=1))
    assert np.array_equal(echoed[0][0], fresh[0][0])  # the first steps have no earlier chunk yet
    for k in (gap, gap + 1):
        x, y = echoed[k]
        assert np.array_equal(x, np.concatenate([fresh[k][0], fresh[k - gap][0]]))
        assert np.array_equal(y, np.concatenate([fresh[k][1], fresh[k - gap][1]]))


def test_the_float_held_out_figure_is_read_as_the_card_reads(tmp_path: Path) -> None:
    """The card's ``quantization.float_held_out`` (the float model before int8) is measured by ``torch_logits``:
    for a card read with its mirror (``--test-time mirror``), each crop's logits are the mean of the crop's and
    its left-right mirror's, as ``OnnxTileClassifier`` reads the shipped model."""
    torch = pytest.importorskip("torch", reason="torch is only in the training venv (pip install -e .[train])")
    from vision import train

    torch.manual_seed(0)
    model = train.build_model((8, 16, 32))
    ramp = np.linspace(0, 255, train.INPUT_SIZE, dtype=np.float32)  # dark on the left, light on the right
    crops = [np.stack([np.tile(ramp * k / 5, (train.INPUT_SIZE, 1))] * 3, axis=2).astype(np.uint8) for k in range(1, 6)]
    once = train.torch_logits(model)(crops)
    mirrored = train.torch_logits(model)([np.ascontiguousarray(c[:, ::-1]) for c in crops])
    both = train.torch_logits(model, mirror=True)(crops)
    assert np.abs(once - mirrored).max() > 1e-4  # the mirror is another read
    assert np.allclose(both, (once + mirrored) / 2, atol=1e-5)
    # --test-time mirror_when_unsure: the mean only where the first read's best logit leads by less than the margin
    top2 = np.sort(once, axis=1)[:, -2:]
    lead = top2[:, 1] - top2[:, 0]
    margin = float(np.median(lead))
    gated = train.torch_logits(model, second_read_margin=margin)(crops)
    unsure = lead < margin
    assert 0 < unsure.sum() < len(crops)
    assert np.allclose(gated[unsure], both[unsure], atol=1e-5) and np.allclose(gated[~unsure], once[~unsure], atol=1e-5)


def test_fine_tuning_can_start_from_the_shipped_int8_model() -> None:
    """The shipped model is int8 and its float model is not committed (a rerun of ``vision.lineage`` writes it, in
    hours).  ``init_from_onnx`` takes the int8 file too: each weight and bias as its DequantizeLinear gives it, so a
    clean checkout can fine-tune the shipped model (e.g. on more labelled photos).  The torch network so started
    reads as the shipped model does, up to the int8 activations' rounding."""
    pytest.importorskip("torch", reason="torch is only in the training venv (pip install -e .[train])")
    from tests.vision_classifier.helpers import held_out_tiles
    from vision import train

    card = json.loads(DEFAULT_MODEL_PATH.with_suffix(".json").read_text())
    model = train.build_model(tuple(card["recipe"]["widths"]))
    train.init_from_onnx(model, DEFAULT_MODEL_PATH)
    crops, _ = held_out_tiles(92, seed=515151)
    started = train.torch_logits(model, mirror=True)(crops)
    shipped = OnnxTileClassifier.load().logits(crops)
    assert (started.argmax(1) == shipped.argmax(1)).mean() >= 0.97
    assert np.corrcoef(started.ravel(), shipped.ravel())[0, 1] > 0.99


def test_a_wider_network_can_start_from_the_shipped_model_and_reads_as_it_does() -> None:
    """``--init`` with wider ``--widths`` than the file's: each new channel copies an old one
    (``vision.widen``), so the wider network starts out computing what the shipped model computes."""
    pytest.importorskip("torch", reason="torch is only in the training venv (pip install -e .[train])")
    from tests.vision_classifier.helpers import held_out_tiles
    from vision import train

    card = json.loads(DEFAULT_MODEL_PATH.with_suffix(".json").read_text())
    narrow = train.build_model(tuple(card["recipe"]["widths"]))
    train.init_from_onnx(narrow, DEFAULT_MODEL_PATH)
    wide = train.build_model((64, 128, 384))
    train.init_from_onnx(wide, DEFAULT_MODEL_PATH)
    crops, _ = held_out_tiles(92, seed=515151)
    as_narrow = train.torch_logits(narrow, mirror=True)(crops)
    as_wide = train.torch_logits(wide, mirror=True)(crops)
    assert (as_wide.argmax(1) == as_narrow.argmax(1)).all()
    assert np.abs(as_wide - as_narrow).max() < 1e-3 * np.abs(as_narrow).max()
    assert wide.features[4][0].weight.shape[0] == 384


@pytest.mark.parametrize("decay", ["-0.1", "nan", "inf"])
def test_a_weight_decay_that_is_not_a_finite_non_negative_number_is_refused(
    decay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision import train

    with pytest.raises(SystemExit):
        train.main([f"--weight-decay={decay}"])
    assert "--weight-decay takes a finite number, 0 or more" in capsys.readouterr().err


def test_the_weight_decay_reaches_the_optimizer_and_the_card(tmp_path: Path) -> None:
    """``--weight-decay`` (AdamW's decoupled decay, default 1e-4: every committed stage's) is the decay the
    optimizer runs with, and the card's ``recipe.optimizer`` names it as the committed cards do ("AdamW wd=1e-4")."""
    pytest.importorskip("torch", reason="torch is only in the training venv (pip install -e .[train])")
    from vision import train

    assert train.parser().parse_args([]).weight_decay == 1e-4
    assert train.optimizer_text(1e-4) == "AdamW wd=1e-4"  # the committed cards' text, unchanged
    out = tmp_path / "model"
    argv = ["--out", str(out), "--steps", "2", "--batch", "8", "--variants", "1", "--eval-per-class", "1"]
    assert train.main([*argv, "--real", "none", "--size", "40", "--no-quantize", "--weight-decay", "0.05"]) == 0
    assert json.loads((out / "tile_classifier.json").read_text())["recipe"]["optimizer"] == "AdamW wd=5e-2"
    model = train.build_model((8, 16, 32))
    assert [g["weight_decay"] for g in train.optimizer(model, lr=1e-3, weight_decay=0.3).param_groups] == [0.3]
