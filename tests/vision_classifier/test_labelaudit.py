"""The label audit (``vision.labelaudit``): its three looks on made-up boxes and embeddings, and the command on the
small fake photo set of test_realdata."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision_classifier.test_realdata import _fake_set
from vision import labelaudit, realdata
from vision.classifier import DEFAULT_MODEL_PATH

needs_model = pytest.mark.skipif(not DEFAULT_MODEL_PATH.is_file(), reason="the committed model is not present")


def _box(file: str, code: str, x: float = 0.0) -> realdata.Box:
    return realdata.Box(file, code, x, 0.0, 40.0, 50.0)


def test_count_names_a_face_a_photo_holds_more_often_than_a_set_has() -> None:
    boxes = [_box("0001-0.jpg", "1m", 50.0 * i) for i in range(5)]  # five 1m: a set has four
    boxes += [_box("0001-0.jpg", "2m", 50.0 * i) for i in range(4)]  # four 2m: fine
    boxes += [_box("0001-0.jpg", "3f"), _box("0001-0.jpg", "3f", 60.0)]  # a flower twice: a set has one
    boxes += [_box("0002-0.jpg", "3f"), _box("0002-0.jpg", "1m")]  # another photo: counted on its own
    found = labelaudit.count_suspects(boxes)
    assert sorted(found) == [0, 1, 2, 3, 4, 9, 10]
    assert found[0] == {"in_photo": 5, "a_set_holds": 4}
    assert found[9] == {"in_photo": 2, "a_set_holds": 1}


def _clusters(rng: np.random.Generator) -> tuple[np.ndarray, list[str], list[str]]:
    """Three faces, each a tight cluster of 8 crops from 8 different photos (one crop of each face per photo)."""
    centres = {"1m": np.eye(6)[0], "5p": np.eye(6)[1], "7z": np.eye(6)[2]}
    rows, codes, sources = [], [], []
    for photo in range(8):
        for code, centre in centres.items():
            rows.append(centre + rng.normal(0, 0.05, 6))
            codes.append(code)
            sources.append(f"{photo:04d}")
    return np.asarray(rows, np.float32), codes, sources


def test_neighbours_name_a_label_whose_look_sits_among_another_face() -> None:
    x, codes, sources = _clusters(np.random.default_rng(1))
    codes[4] = "9s"  # photo 0001's 5p crop labelled 9s
    votes = labelaudit.neighbour_votes(x, codes, sources, k=6)
    found = labelaudit.neighbour_suspects(votes, codes, min_votes=5)
    assert list(found) == [4]
    assert found[4] == {"face": "5p", "votes": 6, "for_the_label": 0, "of": 6}


def test_a_photos_own_crops_never_vote_for_each_other() -> None:
    """A wrong label repeated within one photo (its two versions, or a pung) must not outvote the other photos."""
    x, codes, sources = _clusters(np.random.default_rng(2))
    x = np.concatenate([x, x[1:2] + 0.01, x[1:2] - 0.01]).astype(np.float32)  # two more 5p looks in photo 0000
    codes += ["9s", "9s"]
    sources += ["0000", "0000"]
    codes[1] = "9s"  # and photo 0000's own 5p crop labelled 9s too: three alike in one photo
    votes = labelaudit.neighbour_votes(x, codes, sources, k=6)
    assert votes[1] == Counter({"5p": 6})  # only the 5p crops of the other seven photos
    assert set(labelaudit.neighbour_suspects(votes, codes, min_votes=5)) == {1, 24, 25}


def test_neighbour_votes_are_the_same_in_any_chunk_size_and_check_their_inputs() -> None:
    x, codes, sources = _clusters(np.random.default_rng(3))
    assert labelaudit.neighbour_votes(x, codes, sources, k=4, chunk=5) == labelaudit.neighbour_votes(
        x, codes, sources, k=4
    )
    lonely = labelaudit.neighbour_votes(x[:3], codes[:3], sources[:3], k=4)  # one photo: no other photo to ask
    assert lonely == [Counter(), Counter(), Counter()]
    with pytest.raises(ValueError, match="differ in length"):
        labelaudit.neighbour_votes(x, codes[:-1], sources)


def test_model_look_names_confident_reads_of_another_face_only() -> None:
    classes = ("1m", "5p", "7z")
    probs = np.array([[0.95, 0.03, 0.02], [0.85, 0.1, 0.05], [0.01, 0.97, 0.02]], np.float32)
    found = labelaudit.model_suspects(probs, ["5p", "5p", "5p"], classes, min_confidence=0.9)
    assert list(found) == [0]
    assert found[0]["read"] == "1m" and found[0]["label_probability"] == pytest.approx(0.03)


def test_audit_gathers_every_look_that_named_a_box() -> None:
    x, codes, sources = _clusters(np.random.default_rng(4))
    boxes = [_box(f"{s}-0.jpg", c, 50.0 * i) for i, (c, s) in enumerate(zip(codes, sources, strict=True))]
    boxes[4] = _box(boxes[4].file, "9s", boxes[4].x)  # wrong to the neighbours and the model alike
    classes = ("1m", "5p", "7z", "9s")
    probs = np.full((len(boxes), 4), 0.01, np.float32)
    probs[np.arange(len(boxes)), [classes.index(c) for c in codes]] = 0.97
    suspects = labelaudit.audit(boxes, probs, x, classes, k=6, min_votes=5)
    assert [s.box for s in suspects] == [boxes[4]]
    assert set(suspects[0].reasons) == {"model", "neighbours"}
    assert suspects[0].to_json()["tile"] == "9s"


@needs_model
def test_the_command_prints_each_suspect_and_a_summary_and_draws_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = _fake_set(tmp_path / "real")
    labels = (real / "labels.csv").read_text().splitlines()
    first = [i for i, row in enumerate(labels) if row.startswith("9000-0.jpg,")]
    for i in first:  # photo 9000-0's three tiles all labelled 2f: a flower three times
        name, _, rest = labels[i].split(",", 2)
        labels[i] = f"{name},2f,{rest}"
    (real / "labels.csv").write_text("\n".join(labels) + "\n")
    png = tmp_path / "suspects.png"
    assert labelaudit.main(["--real", str(real), "--sheet", str(png)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    summary = lines[-1]
    assert summary["summary"] == "labelaudit" and summary["boxes"] == 60 and summary["sheet"] == str(png)
    assert summary["unreadable_photos"] == 0
    counted = [s for s in lines[:-1] if "count" in s["reasons"]]
    assert {(s["file"], s["tile"]) for s in counted} == {("9000-0.jpg", "2f")} and len(counted) == 3
    assert summary["suspects"] == len(lines) - 1 and summary["by_look"]["count"] == 3
    image = cv2.imread(str(png))
    assert image is not None and image.shape[1] == 4 * 244


def test_the_command_reports_bad_input_as_a_json_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert labelaudit.main(["--real", str(tmp_path / "nothing")]) == 2
    assert "error" in json.loads(capsys.readouterr().out)
    assert labelaudit.main(["--neighbours", "5", "--min-votes", "6"]) == 2
    assert "--min-votes" in json.loads(capsys.readouterr().out)["error"]


@needs_model
def test_an_unreadable_photo_is_named_and_the_rest_of_the_set_is_audited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = _fake_set(tmp_path / "real")
    (real / "images" / "9003-1.jpg").write_bytes(b"not a jpeg")
    assert labelaudit.main(["--real", str(real)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    errors = [line for line in lines if "error" in line]
    assert len(errors) == 1 and errors[0]["file"] == "9003-1.jpg" and "cannot read" in errors[0]["error"]
    summary = lines[-1]
    assert summary["boxes"] == 57 and summary["unreadable_photos"] == 1  # 20 photos of 3 boxes, one left out
