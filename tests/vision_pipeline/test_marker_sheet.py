"""``mjtable vision markers``: the printable marker sheet is found by the real detector at true size."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from vision.pipeline.calibration import detect_markers
from vision.pipeline.zones import TableGeometry


def _markers(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mjtable.cli", "vision", "markers", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_png_sheet_has_the_four_markers_at_true_size(tmp_path: Path) -> None:
    out = tmp_path / "markers.png"
    proc = _markers("--out", str(out), "--dpi", "300")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ids"] == [0, 1, 2, 3]
    with Image.open(out) as im:
        assert im.size == (2480, 3508)  # A4 at 300 dpi
        assert round(im.info["dpi"][0]) == 300
    image = cv2.imread(str(out))
    found = detect_markers(np.asarray(image, dtype=np.uint8))
    assert sorted(found) == list(TableGeometry().marker_ids)
    want_px = TableGeometry().marker_size_mm / 25.4 * 300
    for corners in found.values():
        side = float(np.linalg.norm(corners[0] - corners[1]))
        assert abs(side - want_px) < 0.01 * want_px


def test_pdf_sheet_is_a4_and_bad_arguments_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "markers.pdf"
    assert _markers("--out", str(out)).returncode == 0
    box = re.search(rb"MediaBox \[ 0 0 ([0-9.]+) ([0-9.]+) \]", out.read_bytes())
    assert box is not None
    w_mm, h_mm = (float(x) / 72 * 25.4 for x in box.groups())
    assert abs(w_mm - 210) < 0.5 and abs(h_mm - 297) < 0.5
    bad = _markers("--out", str(tmp_path / "markers.jpg"))
    assert bad.returncode == 2 and "pdf or .png" in json.loads(bad.stdout)["error"]
