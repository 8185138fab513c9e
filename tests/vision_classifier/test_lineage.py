"""vision.lineage: the committed model's training chain, wired stage to stage (torch-free: nothing is trained)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from vision import lineage, train
from vision.classifier import DEFAULT_MODEL_PATH

REPO = Path(__file__).resolve().parents[2]


def test_every_stage_is_a_valid_training_command_starting_from_the_last_ones_model(tmp_path: Path) -> None:
    assert lineage.STAGES[0].init is None  # the first stage trains from scratch
    for prev, stage in zip((None, *lineage.STAGES), lineage.STAGES, strict=False):
        args = train.parser().parse_args(lineage.stage_argv(stage, tmp_path))
        assert args.out == tmp_path / stage.name
        if prev is not None:
            assert stage.init == prev.name
            assert args.init == tmp_path / prev.name / stage.init_file
            assert args.teacher == tmp_path / "teacher" / "tile_classifier.onnx"
        assert args.widths == "48,96,256" and str(args.real) != "none" and args.quantize
    teacher = train.parser().parse_args(["--out", str(tmp_path), *lineage.TEACHER_ARGS])
    assert str(teacher.real) == "none" and not teacher.quantize and teacher.widths == "32,64,192"


def test_the_committed_card_is_the_last_stages_recipe() -> None:
    meta = json.loads(DEFAULT_MODEL_PATH.with_suffix(".json").read_text())
    recipe = meta["recipe"]
    args = train.parser().parse_args(lineage.stage_argv(lineage.STAGES[-1], Path("/x")))
    widths = [int(w) for w in args.widths.split(",")]
    assert (recipe["steps"], recipe["lr"], recipe["widths"]) == (args.steps, args.lr, widths)
    assert (recipe["real_share"], recipe["neg_share"]) == (args.real_share, args.neg_share)
    assert recipe["teacher"]["weight"] == args.distill and recipe["init"]["file"] == args.init.name
    assert recipe["threads"] == args.threads
    assert recipe.get("real_loose", {"share": 0.0})["share"] == args.loose_share
    assert meta["input"]["test_time"] == args.test_time == "mirror_when_unsure"  # how the card's figures were read
    assert meta["input"]["second_read_margin"] == args.second_read_margin


def test_the_last_stage_starts_from_the_int8_model_it_was_trained_from() -> None:
    """O was fine-tuned from M's shipped int8 file (M's float model was not kept): the chain does the same."""
    last = lineage.STAGES[-1]
    assert last.init_file == "tile_classifier.onnx" and last.init == "M"
    assert all(stage.init_file == train.FLOAT_FILE for stage in lineage.STAGES[:-1])
    meta = json.loads(DEFAULT_MODEL_PATH.with_suffix(".json").read_text())
    assert meta["recipe"]["init"]["weights"] == "int8, dequantized"


def test_a_dry_run_prints_every_command_and_trains_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lineage.main(["--out", str(tmp_path / "chain"), "--dry-run"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    runs = [line["run"] for line in lines if "run" in line]
    # the teacher (taken from git when this checkout holds it, else trained), then every stage
    teacher_trained = lineage.teacher_blobs(REPO) is None
    assert len(runs) == teacher_trained + len(lineage.STAGES)
    assert any("teacher" in line for line in lines) != teacher_trained
    assert all(run[:2] == ["-m", "vision.train"] for run in runs)
    assert lines[-1]["final"] == str(tmp_path / "chain" / lineage.STAGES[-1].name)
    assert lineage.main(["--out", str(tmp_path / "chain"), "--dry-run", "--retrain-teacher"]) == 0
    retrained = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sum("run" in line for line in retrained) == 1 + len(lineage.STAGES)
    assert not (tmp_path / "chain").exists()


def test_finished_stages_are_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for done in ("teacher", lineage.STAGES[0].name):
        (tmp_path / done).mkdir()
        (tmp_path / done / "tile_classifier.json").write_text("{}")
    lineage.run_chain(tmp_path, dry_run=True)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"skip": lineage.STAGES[0].name, "done": str(tmp_path / lineage.STAGES[0].name)}
    assert [line["run"][3] for line in lines[1:]] == [str(tmp_path / s.name) for s in lineage.STAGES[1:]]


def test_the_teacher_comes_from_git_as_the_chain_used_it(tmp_path: Path) -> None:
    assert not lineage.teacher_from_git(tmp_path / "a", tmp_path)  # not a checkout: False, nothing written
    assert not (tmp_path / "a").exists()
    if not lineage.teacher_from_git(tmp_path / "b", REPO):
        pytest.skip(f"this checkout does not hold commit {lineage.TEACHER_COMMIT} (a shallow clone)")
    onnx = (tmp_path / "b" / "teacher" / "tile_classifier.onnx").read_bytes()
    assert json.loads((tmp_path / "b" / "teacher" / "tile_classifier.json").read_text())["recipe"]["steps"] == 8000
    meta = json.loads(DEFAULT_MODEL_PATH.with_suffix(".json").read_text())  # it records the teacher it copied
    assert hashlib.sha256(onnx).hexdigest() == meta["recipe"]["teacher"]["sha256"]
