"""The committed tile classifier's whole training chain as one command (needs torch: the ``train`` extra)::

    .venv/bin/python -m vision.lineage --out /tmp/lineage            # about 6.8 h on 2 cores
    .venv/bin/python -m vision.lineage --out /tmp/lineage --dry-run  # the commands, one JSON line each

The real-trained model is not one ``vision.train`` run but a chain of them (docs/vision.md, runs I to M and O),
each starting from the previous one's float model (``--init``; O from M's shipped int8 file, as it was trained)
and, from J on, copying the synthetic-only model of commit 2320d7e on the synthetic samples (``--teacher``).
``STAGES`` lists them with the exact options they were trained with; the last one's output is what
``vision/models`` holds.

- The teacher is taken from git (``git show 2320d7e:vision/models/...``) when this checkout has that commit, as
  the committed chain used it; otherwise, or with ``--retrain-teacher``, it is trained again from its recipe.
- A stage whose ``DIR/<stage>/tile_classifier.json`` exists is skipped, so a stopped chain resumes where it was.
- ``--install DIR`` copies the last stage's int8 model, card and head there (e.g. ``vision/models``).

Reproduction: on the machine that trained it, stage M rerun by this command (I to L in place) gave a
byte-identical model, head and card (but for the training time), with 2 torch threads, and so did stage O (M in
place) with one thread on another machine; another CPU or torch build may not.  Runs I and J were trained
before the label fixes (``vision/real_label_fixes.csv``) that every stage now applies, so a rerun of the whole
chain gives a model of the same recipe whose card is measured again by the same code; docs/vision.md records the
committed one's figures.  M was trained with ``--test-time mirror``;
its card has read a crop's mirror only when the first read is unsure since 2026-11-29 (``--test-time
mirror_when_unsure``).  The reading decides how the card measures the model, not the weights (training and int8
calibration never read a crop that way), so the stage lists the reading the committed card was measured with.
Main thread only: each stage is a ``python -m vision.train`` child process.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from vision.train import FLOAT_FILE, HEAD_FILE

#: the synthetic-only model every stage from J on distils, and the commit that holds it
TEACHER_COMMIT = "2320d7e"
TEACHER_FILES = ("tile_classifier.onnx", "tile_classifier.json")
#: 2320d7e's recipe, for a checkout without that commit (it was trained under bfloat16 autocast on a CPU with
#: AVX512-BF16; float32 here, where autocast is ten times slower)
TEACHER_ARGS = (
    "--real", "none", "--steps", "8000", "--lr", "3e-3", "--neg-share", "0",
    "--widths", "32,64,192", "--threads", "1", "--no-quantize",
)  # fmt: skip
#: what ``--install`` copies: the int8 model, its card and its head
MODEL_FILES = ("tile_classifier.onnx", "tile_classifier.json", HEAD_FILE)


@dataclass(frozen=True)
class Stage:
    """One ``vision.train`` run: ``args`` besides --out/--init/--teacher; ``init``: the stage whose model it
    starts from (None: from scratch), ``init_file`` which of its files (the float model, or the shipped int8 one);
    ``teacher``: distils the synthetic-only teacher."""

    name: str
    args: tuple[str, ...]
    init: str | None = None
    teacher: bool = False
    init_file: str = FLOAT_FILE


_WIDE = ("--neg-share", "0.1", "--widths", "48,96,256", "--threads", "2")
STAGES: tuple[Stage, ...] = (
    Stage("I", ("--steps", "24000", "--lr", "3e-3", "--real-share", "0.45", *_WIDE)),
    Stage("J", ("--steps", "20000", "--lr", "1e-3", "--real-share", "0.45", "--distill", "0.5", *_WIDE), "I", True),
    Stage("K", ("--steps", "10000", "--lr", "5e-4", "--real-share", "0.4", "--distill", "1.0", *_WIDE), "J", True),
    Stage("L", ("--steps", "7000", "--lr", "3e-4", "--real-share", "0.35", "--distill", "2.0", *_WIDE), "K", True),
    Stage("M", ("--steps", "5000", "--lr", "2e-4", "--real-share", "0.35", "--distill", "3.0", *_WIDE,
               "--test-time", "mirror_when_unsure", "--second-read-margin", "5"), "L", True),
    # O (run N of docs/vision.md was not committed): from M's int8 file (M's float model was not kept), one
    # thread, loose crops of turned photos (`--loose-share`)
    Stage("O", ("--steps", "2000", "--lr", "1e-4", "--real-share", "0.35", "--distill", "3.0", "--neg-share", "0.1",
               "--widths", "48,96,256", "--threads", "1", "--test-time", "mirror_when_unsure",
               "--second-read-margin", "5", "--loose-share", "0.7"), "M", True, "tile_classifier.onnx"),
)  # fmt: skip


def stage_argv(stage: Stage, out: Path) -> list[str]:
    """The ``vision.train`` arguments of ``stage`` with every chain's outputs under ``out``."""
    argv = ["--out", str(out / stage.name), *stage.args]
    if stage.init is not None:
        argv += ["--init", str(out / stage.init / stage.init_file)]
    if stage.teacher:
        argv += ["--teacher", str(out / "teacher" / TEACHER_FILES[0])]
    return argv


def teacher_blobs(repo: Path) -> list[bytes] | None:
    """2320d7e's model files (``TEACHER_FILES``) from git; None when ``repo`` is not a checkout holding them."""
    blobs = []
    for name in TEACHER_FILES:
        got = subprocess.run(
            ["git", "-C", str(repo), "show", f"{TEACHER_COMMIT}:vision/models/{name}"],
            capture_output=True,
            check=False,
        )
        if got.returncode != 0:
            return None
        blobs.append(got.stdout)
    return blobs


def teacher_from_git(out: Path, repo: Path) -> bool:
    """Write 2320d7e's model files into ``out/teacher``; False when ``repo`` is not a git checkout holding it."""
    blobs = teacher_blobs(repo)
    if blobs is None:
        return False
    (out / "teacher").mkdir(parents=True, exist_ok=True)
    for name, blob in zip(TEACHER_FILES, blobs, strict=True):
        (out / "teacher" / name).write_bytes(blob)
    return True


def _done(directory: Path) -> bool:
    return (directory / "tile_classifier.json").is_file()


def _train(argv: list[str], dry_run: bool) -> None:
    cmd = [sys.executable, "-m", "vision.train", *argv]
    print(json.dumps({"run": cmd[1:]}), flush=True)
    if not dry_run:
        subprocess.run(cmd, check=True)


def run_chain(out: Path, *, retrain_teacher: bool = False, dry_run: bool = False) -> Path:
    """Train every stage not yet done under ``out``; returns the last stage's directory."""
    repo = Path(__file__).resolve().parent.parent
    if not _done(out / "teacher"):
        from_git = not retrain_teacher and (teacher_blobs(repo) is not None if dry_run else teacher_from_git(out, repo))
        if from_git:
            print(json.dumps({"teacher": f"git show {TEACHER_COMMIT}", "to": str(out / "teacher")}), flush=True)
        else:
            _train(["--out", str(out / "teacher"), *TEACHER_ARGS], dry_run)
    for stage in STAGES:
        if _done(out / stage.name):
            print(json.dumps({"skip": stage.name, "done": str(out / stage.name)}), flush=True)
            continue
        _train(stage_argv(stage, out), dry_run)
    return out / STAGES[-1].name


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.lineage``: run the chain; exit code 0, or the failing stage's."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="one directory per stage is made under it")
    p.add_argument("--retrain-teacher", action="store_true", help="train the teacher instead of taking it from git")
    p.add_argument("--dry-run", action="store_true", help="print the commands, train nothing")
    p.add_argument("--install", type=Path, default=None, help="copy the final model, card and head here")
    args = p.parse_args(argv)
    try:
        last = run_chain(args.out, retrain_teacher=args.retrain_teacher, dry_run=args.dry_run)
    except subprocess.CalledProcessError as exc:
        print(json.dumps({"error": f"stage failed: {' '.join(map(str, exc.cmd))}", "rc": exc.returncode}))
        return exc.returncode or 1
    if args.install is not None and not args.dry_run:
        args.install.mkdir(parents=True, exist_ok=True)
        for name in MODEL_FILES:
            shutil.copy2(last / name, args.install / name)
    print(json.dumps({"final": str(last), "installed": None if args.install is None else str(args.install)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
