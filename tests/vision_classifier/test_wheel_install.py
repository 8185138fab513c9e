"""Issue 15 point 5: the wheel ships every file the model needs.  Builds the wheel from the checkout, installs it
(no dependencies) into a fresh venv outside the checkout whose only other packages are this test run's own
third-party ones (numpy, onnxruntime, OpenCV ..., put on the path by a ``.pth`` file, so the checkout's editable
install is not among them), and runs ``mjtable vision enroll`` and ``classify --enrollment`` there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import cv2
import numpy as np

from vision.synth.augment import augment
from vision.synth.render import render_tile_face

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("mjtable", "controller", "firmware_bridge", "vision", "hw")


def _source_copy(dest: Path) -> Path:
    """The files a build reads (pyproject, README, the packages), copied so the build leaves the checkout alone."""
    src = dest / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return src


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout, check=False)


def test_wheel_installed_outside_the_checkout_enrolls_and_classifies(tmp_path: Path) -> None:
    src = _source_copy(tmp_path)
    dist = tmp_path / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)], tmp_path)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = dist.glob("mjtable-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for part in ("onnx", "json", "head.npz"):
        assert f"vision/models/tile_classifier.{part}" in names, part
    assert "vision/real_label_fixes.csv" in names  # vision.realdata.read_labels applies it

    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    py = venv / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(_run([str(py), "-c", purelib], tmp_path).stdout.strip())
    # this run's third-party packages, after the venv's own (a plain path: its .pth files, the editable
    # install of the checkout among them, are not processed)
    (site / "zz_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    inst = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)], tmp_path)
    assert inst.returncode == 0, inst.stderr[-3000:]
    where = _run([str(py), "-c", "import vision.classifier.model as m; print(m.DEFAULT_MODEL_PATH)"], tmp_path)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout  # the installed copy, not the checkout

    # a venue's photos: two faces, three photos each, and one bad file (reported, the rest enrolled)
    rng = np.random.default_rng(5)
    photos = tmp_path / "photos"
    for code in ("3z", "7p"):
        (photos / code).mkdir(parents=True)
        for k in range(3):
            img = augment(render_tile_face(code, style="cn-ming", rng=rng), rng, 64)
            cv2.imwrite(str(photos / code / f"{k}.png"), img)
    (photos / "7p" / "broken.jpg").write_bytes(b"not a picture")
    mjtable = venv / "bin" / "mjtable"
    out = tmp_path / "venue.npz"
    enrolled = _run([str(mjtable), "vision", "enroll", str(photos), "--out", str(out)], tmp_path)
    lines = [json.loads(line) for line in enrolled.stdout.splitlines()]
    assert enrolled.returncode == 1, enrolled.stderr[-3000:]  # one photo skipped
    assert lines[0]["file"].endswith("broken.jpg") and "not a readable image" in lines[0]["error"]
    assert lines[-1]["codes"] == 2 and lines[-1]["photos"] == 6 and lines[-1]["skipped"] == 1
    assert out.is_file()

    probe = tmp_path / "probe.png"
    cv2.imwrite(str(probe), augment(render_tile_face("3z", style="cn-ming", rng=rng), rng, 64))
    read = _run([str(mjtable), "vision", "classify", "--enrollment", str(out), str(probe)], tmp_path)
    assert read.returncode == 0, read.stderr[-3000:]
    row = json.loads(read.stdout)
    assert row["file"] == str(probe) and row["tile"] == "3z" and 0.0 <= row["confidence"] <= 1.0
    # the installed service reads with the venue's head: doctor's classifier check loads it as `mjtable run` does
    config = tmp_path / "table.toml"
    config.write_text(f'[gpio]\nbackend = "none"\n[camera]\nsource = "file:{photos}"\nenrollment = "{out}"\n')
    doctor = _run([str(mjtable), "doctor", "--config", str(config), "--timeout", "0.5"], tmp_path)
    checks = {c["check"]: c for c in map(json.loads, doctor.stdout.splitlines())}
    assert checks["classifier"]["status"] == "ok", doctor.stdout + doctor.stderr[-3000:]
    assert "2 faces enrolled" in checks["classifier"]["detail"] and str(out) in checks["classifier"]["detail"]
