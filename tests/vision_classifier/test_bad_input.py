"""Issue 15 point 7: unreadable, empty, huge or non-image files get a clear JSON error per file and the rest go
on, in ``classify`` and in ``enroll``; images with transparency are flattened on the felt, not read as black."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from mjtable.cli import main
from vision.classifier.preprocess import TRANSPARENT_BACKGROUND, as_bgr
from vision.cli import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, read_image
from vision.synth.render import render_tile_face


def _lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, a phrase its error must contain)."""
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    huge = tmp_path / "huge.jpg"
    with open(huge, "wb") as fh:  # sparse: no disk used
        fh.truncate(MAX_IMAGE_BYTES + 1)
    text = tmp_path / "notes.png"
    text.write_text("these are my notes, not a picture\n")
    wide = tmp_path / "wide.png"  # a small file holding an image too large to decode
    cv2.imwrite(str(wide), np.zeros((MAX_IMAGE_PIXELS // 6000 + 10, 6000), np.uint8))
    folder = tmp_path / "folder.jpg"
    folder.mkdir()
    truncated = tmp_path / "truncated.png"
    _, buf = cv2.imencode(".png", np.full((40, 30, 3), 128, np.uint8))
    truncated.write_bytes(buf.tobytes()[:60])
    return {
        "empty": (empty, "empty file"),
        "huge": (huge, "bytes is larger than"),
        "text": (text, "not a readable image"),
        "wide": (wide, "pixels is larger than"),
        "folder": (folder, "directory"),
        "truncated": (truncated, "not a readable image"),
        "missing": (tmp_path / "missing.jpg", "No such file"),
    }


def test_read_image_names_the_cause(tmp_path: Path) -> None:
    for name, (path, phrase) in _bad_files(tmp_path).items():
        with pytest.raises((OSError, ValueError)) as err:
            read_image(path)
        assert phrase in str(err.value), (name, str(err.value))


def test_classify_reports_each_bad_file_and_reads_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), render_tile_face("7z", style="cn-kai", rng=np.random.default_rng(3)))
    bad = _bad_files(tmp_path)
    argv = ["vision", "classify", str(bad["empty"][0]), str(good), *(str(p) for p, _ in list(bad.values())[1:])]
    assert main(argv) == 1
    rows = _lines(capsys.readouterr().out)
    assert [r["file"] for r in rows] == argv[2:]
    by_file = {r["file"]: r for r in rows}
    assert by_file[str(good)]["tile"] == "7z" and "error" not in by_file[str(good)]
    for name, (path, phrase) in bad.items():
        row = by_file[str(path)]
        assert "tile" not in row and phrase in str(row["error"]), (name, row)


def test_enroll_skips_bad_photos_with_an_error_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(4)
    for code in ("2m", "8s"):
        (tmp_path / "venue" / code).mkdir(parents=True)
        for k in range(2):
            cv2.imwrite(str(tmp_path / "venue" / code / f"{k}.png"), render_tile_face(code, style="cn-sans", rng=rng))
    (tmp_path / "venue" / "2m" / "empty.jpg").write_bytes(b"")
    (tmp_path / "venue" / "8s" / "junk.png").write_bytes(b"\x89PNG junk")
    out = tmp_path / "venue.npz"
    assert main(["vision", "enroll", str(tmp_path / "venue"), "--out", str(out)]) == 1
    rows = _lines(capsys.readouterr().out)
    errors = {Path(str(r["file"])).name: str(r["error"]) for r in rows if "error" in r}
    assert set(errors) == {"empty.jpg", "junk.png"} and "empty file" in errors["empty.jpg"]
    assert rows[-1]["photos"] == 4 and rows[-1]["skipped"] == 2 and out.is_file()


def test_transparent_pixels_are_flattened_on_the_felt(tmp_path: Path) -> None:
    img = np.zeros((20, 10, 4), np.uint8)
    img[5:15, 2:8] = (250, 250, 250, 255)  # an opaque white patch on a fully transparent (black) ground
    path = tmp_path / "cut-out.png"
    cv2.imwrite(str(path), img)
    read = read_image(path)
    assert read.shape == (20, 10, 4)
    flat = as_bgr(read)
    assert tuple(flat[0, 0]) == TRANSPARENT_BACKGROUND and tuple(flat[10, 5]) == (250, 250, 250)
    opaque = tmp_path / "opaque.png"
    img[..., 3] = 255
    cv2.imwrite(str(opaque), img)
    assert read_image(opaque).shape == (20, 10, 3)  # an opaque alpha channel is dropped
