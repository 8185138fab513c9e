"""Train the tile classifier on synthetic tiles and export it to ONNX (needs torch: the ``train`` extra).

One command reproduces the committed model (about 25 minutes on 2 busy CPU threads)::

    /work/train-venv/bin/python -m vision.train --out vision/models

The data is generated on the fly: a pool of rendered faces (``vision.synth.render``, every installed training
style, several random per-set variations of each class), each sample a fresh camera-like augmentation
(``vision.synth.augment``).  The network is a small CNN (6 conv+BN+ReLU blocks, global average pooling, a
96-d embedding and a linear head over ``CLASSES``).  The ONNX file has two outputs, ``logits`` and
``embedding``; the head's weights are also saved as ``tile_classifier.head.npz`` (venue enrollment
fine-tunes them on the embeddings of the venue's photos).  The metadata JSON records classes, input size, normalisation,
seed, recipe, training time and the held-out accuracy per style measured on freshly rendered tiles (new
seed) with the same augmentation, plus the accuracy on the style held out of training.

Runs in the main thread of its own process; uses ``--threads`` torch threads.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.synth.augment import augment
from vision.synth.render import CLASSES, HELD_OUT_STYLES, ONE_INK_P, available_styles, render_tile_face

INPUT_SIZE = 48
MEAN = 0.5
STD = 0.25
EMBED_DIM = 96
#: the linear head's weights, saved next to the ONNX file (logits = embedding @ weight.T + bias)
HEAD_FILE = "tile_classifier.head.npz"

Batch = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]


def preprocess(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
    """Crops already of INPUT_SIZE x INPUT_SIZE (BGR uint8) -> normalised NCHW float32 (same as inference)."""
    x = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(((x - MEAN) / STD).transpose(0, 3, 1, 2))


def face_pool(styles: tuple[str, ...], variants: int, seed: int) -> list[list[npt.NDArray[np.uint8]]]:
    """For each class index, ``variants`` renders in every style (backs: ``variants * len(styles)`` renders)."""
    rng = np.random.default_rng(seed)
    return [[render_tile_face(code, style=s, rng=rng) for s in styles for _ in range(variants)] for code in CLASSES]


def make_batch(pool: list[list[npt.NDArray[np.uint8]]], n: int, rng: np.random.Generator, variants: int) -> Batch:
    """``n`` augmented samples with uniformly drawn classes; two faces of the same style (pool entries come in
    runs of ``variants`` per style) are offered as pond neighbours."""
    labels = rng.integers(len(CLASSES), size=n)
    crops = []
    for y in labels:
        i = int(rng.integers(len(pool[y])))
        style_start = (i // variants) * variants
        near = [pool[int(rng.integers(len(pool)))][style_start + int(rng.integers(variants))] for _ in range(2)]
        near = [f for f in near if f.shape == pool[y][i].shape]
        crops.append(augment(pool[y][i], rng, INPUT_SIZE, neighbours=near))
    return preprocess(crops), labels.astype(np.int64)


def build_model() -> Any:
    """The CNN: returns (logits, embedding) from a normalised N x 3 x 48 x 48 batch."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int) -> Any:
        conv = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        return nn.Sequential(conv, nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class TileNet(nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                block(3, 24, 2),
                block(24, 24, 1),
                block(24, 48, 2),
                block(48, 48, 1),
                block(48, 96, 2),
                block(96, 96, 1),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.embed = nn.Sequential(nn.Linear(96, EMBED_DIM), nn.ReLU(inplace=True))
            self.head = nn.Linear(EMBED_DIM, len(CLASSES))

        def forward(self, x: Any) -> tuple[Any, Any]:
            e = self.embed(self.features(x))
            return self.head(e), e

    torch.manual_seed(0)
    return TileNet()


def evaluate(model: Any, styles: tuple[str, ...], per_class: int, seed: int) -> dict[str, float]:
    """Top-1 accuracy per style on freshly rendered, augmented tiles (every class ``per_class`` times)."""
    import torch

    model.eval()
    out: dict[str, float] = {}
    rng = np.random.default_rng(seed)
    for style in styles:
        crops, labels = [], []
        for y, code in enumerate(CLASSES):
            for _ in range(per_class):
                crops.append(augment(render_tile_face(code, style=style, rng=rng), rng, INPUT_SIZE))
                labels.append(y)
        with torch.no_grad():
            logits, _ = model(torch.from_numpy(preprocess(crops)))
        out[style] = float((logits.argmax(1).numpy() == np.array(labels)).mean())
    return out


def export_onnx(model: Any, path: Path) -> None:
    """Legacy TorchScript exporter at opset 17 (see ../shared/notes/dependencies.md section 4), dynamic batch."""
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE)
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        dynamo=False,
        opset_version=17,
        input_names=["input"],
        output_names=["logits", "embedding"],
        dynamic_axes={"input": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
    )


def save_head(model: Any, path: Path) -> None:
    """The linear head (``weight`` C x D, ``bias`` C, float32) as ``.npz``: venue enrollment fine-tunes it."""
    w = model.head.weight.detach().numpy().astype(np.float32)
    b = model.head.bias.detach().numpy().astype(np.float32)
    with open(path, "wb") as fh:
        np.savez(fh, weight=w, bias=b)


def train_step(model: Any, opt: Any, sched: Any, loss_fn: Any, batch: Batch, *, step: int, t0: float) -> None:
    """One optimiser step on a numpy batch; logs a JSON line every 100 steps."""
    import torch

    x, y = batch
    logits, _ = model(torch.from_numpy(x))
    loss = loss_fn(logits, torch.from_numpy(y))
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if step % 100 == 0:
        acc = float((logits.detach().argmax(1) == torch.from_numpy(y)).float().mean())
        print(
            json.dumps(
                {
                    "step": step,
                    "loss": round(float(loss.detach()), 4),
                    "batch_acc": round(acc, 3),
                    "s": round(time.monotonic() - t0, 1),
                }
            ),
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    """Train, evaluate, export; writes tile_classifier.onnx and tile_classifier.json into --out."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("vision/models"))
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--batch", type=int, default=96)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--variants", type=int, default=8, help="renders per class and style in the face pool")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--eval-per-class", type=int, default=8)
    args = p.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    styles = available_styles()
    t0 = time.monotonic()
    pool = face_pool(styles, args.variants, args.seed)
    print(json.dumps({"pool": sum(len(v) for v in pool), "styles": styles, "s": round(time.monotonic() - t0, 1)}))
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.15)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    model.train()
    # batches are made one step ahead on a worker thread (cv2 releases the GIL); each from its own seed
    with ThreadPoolExecutor(max_workers=1) as ex:
        ahead = ex.submit(make_batch, pool, args.batch, np.random.default_rng([args.seed, 0]), args.variants)
        for step in range(args.steps):
            batch = ahead.result()
            if step + 1 < args.steps:
                ahead = ex.submit(
                    make_batch, pool, args.batch, np.random.default_rng([args.seed, step + 1]), args.variants
                )
            train_step(model, opt, sched, loss_fn, batch, step=step, t0=t0)
    train_s = time.monotonic() - t0
    held_out = evaluate(model, styles, args.eval_per_class, seed=10_000 + args.seed)
    unseen = evaluate(model, HELD_OUT_STYLES, args.eval_per_class, seed=20_000 + args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / "tile_classifier.onnx"
    export_onnx(model, onnx_path)
    head_path = args.out / HEAD_FILE
    save_head(model, head_path)
    n = len(CLASSES) * args.eval_per_class
    meta = {
        "schema": "mjtable.tile_classifier/1",
        "classes": list(CLASSES),
        "input": {
            "size": [INPUT_SIZE, INPUT_SIZE],
            "channels": "BGR",
            "layout": "NCHW",
            "resize": "INTER_AREA",
            "scale": 1 / 255,
            "mean": MEAN,
            "std": STD,
        },
        "outputs": ["logits", "embedding"],
        "embedding_dim": EMBED_DIM,
        "head": HEAD_FILE,
        "seed": args.seed,
        "recipe": {
            "steps": args.steps,
            "batch": args.batch,
            "optimizer": "AdamW wd=1e-4",
            "lr": args.lr,
            "schedule": "OneCycle pct_start=0.15",
            "label_smoothing": 0.05,
            "face_variants": args.variants,
            "styles": list(styles),
            "one_ink_p": ONE_INK_P,
            "augment": "vision.synth.augment.augment",
            "threads": args.threads,
            "torch": torch.__version__,
            "export": "torch.onnx.export dynamo=False opset 17",
        },
        "train_time_s": round(train_s, 1),
        "held_out": {
            "samples_per_style": n,
            "accuracy_per_style": {k: round(v, 4) for k, v in held_out.items()},
            "accuracy": round(float(np.mean(list(held_out.values()))), 4),
        },
        "unseen_styles": {k: round(v, 4) for k, v in unseen.items()},
        "real_photos": "none: no real tile photographs with a usable licence were available offline",
    }
    (args.out / "tile_classifier.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(
        json.dumps(
            {
                "done": str(onnx_path),
                "bytes": onnx_path.stat().st_size,
                "held_out": meta["held_out"],
                "unseen": meta["unseen_styles"],
                "train_time_s": meta["train_time_s"],
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
