"""Train the tile classifier on real photographs and synthetic tiles and export it to ONNX (needs torch: the
``train`` extra).

The committed model is the last of a chain of runs of this script, each starting from the one before
(``python -m vision.lineage`` runs the whole chain, with the options of each run).  One run from the
synthetic-only model of commit 2320d7e (itself this script's output on synthetic tiles only: ``--real none
--steps 8000 --lr 3e-3 --neg-share 0 --bf16``, older code)::

    git show 2320d7e:vision/models/tile_classifier.onnx > /tmp/base.onnx
    git show 2320d7e:vision/models/tile_classifier.json > /tmp/base.json
    .venv/bin/python -m vision.train --out /tmp/real --init /tmp/base.onnx

The defaults are the first recipe that paid for issue 15 (docs/vision.md, run E: real validation top-1 87.8 %,
synthetic held-out 98.6 %): 8000 steps, batch 96 = 48
real crops + 12 not-a-tile + 36 synthetic, lr 2e-3, 48 x 48 input, float32, one torch thread and one batch-maker
process, seed 0; the real photographs from ``../shared/data/real-tiles``, split by source photo with ``--seed``,
see ``vision.realdata``.  ``--loose-share`` cuts that share of the real faces as a photo turned after labelling
gives them (``realdata.augment_loose``: the tile turned by up to 45 degrees in its box's axis-aligned hull, its
neighbours in the corners; default 0, as every stage of the committed chain); ``--weight-decay`` sets AdamW's
decoupled decay (default 1e-4, every stage's).  After training, the model card
gets the real validation figures, the temperature fitted on the real validation crops and the ``min_confidence``
chosen from it (``vision.realeval``), and enrollment measured on real crops.

The data is generated on the fly: a pool of rendered faces (``vision.synth.render``, every installed training
style, several random per-set variations of each class), each placed on the table and filmed twice per step
(``vision.synth.augment.augment_views``: repeated augmentation) in a batch-maker process while this one
trains.  The network is a small CNN (6 conv+BN+ReLU blocks in three stages of ``--widths`` channels, global
average pooling, a 96-d embedding and a linear head over ``MODEL_CLASSES``), trained in float32 (``--bf16``:
bfloat16 autocast, faster only on CPUs with AVX512-BF16).  The ONNX file has two outputs, ``logits`` and
``embedding``; the head's weights are also saved as ``tile_classifier.head.npz`` (venue enrollment fine-tunes
them on the embeddings of the venue's photos).  The metadata JSON records classes, input size, normalisation,
seed, recipe, training time, how the service reads a crop (``--test-time``: once, or also mirrored with
the two reads averaged; every figure of the card is measured that way) and the held-out accuracy
per style measured on freshly rendered tiles (new seed) with the same augmentation, plus the accuracy on the
styles held out of training.

Every batch is a function of ``--seed`` and its step alone, and one torch thread reduces in a fixed order, so a
rerun on the same machine and torch build gives the same weights.  Runs in the main thread of its own process
(``--threads`` torch threads) plus ``--workers`` spawned batch-maker processes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision import realdata
from vision.classifier.model import TEST_TIME_READS
from vision.modelcard import card_figures, evaluate
from vision.synth.augment import augment, augment_views, working_scale
from vision.synth.negatives import KINDS as NEGATIVE_KINDS
from vision.synth.negatives import negative
from vision.synth.render import CLASSES, ONE_INK_P, available_styles, render_tile_face

INPUT_SIZE = 48
#: AdamW's decoupled weight decay, the default of ``--weight-decay`` (every committed stage trained with it)
WEIGHT_DECAY = 1e-4
MEAN = 0.5
STD = 0.25
EMBED_DIM = 96
#: the linear head's weights, saved next to the ONNX file (logits = embedding @ weight.T + bias)
HEAD_FILE = "tile_classifier.head.npz"
#: the float model beside the shipped int8 one (``--quantize``; never packaged)
FLOAT_FILE = "tile_classifier.float.onnx"
#: steps between the reuses of a chunk of samples under data echoing (``--echo``)
ECHO_GAP = 7

#: what is not a tile face (felt, hands, rims, dice, blank or tiny images): the model's last class
NOT_A_TILE = "not_a_tile"
#: the model's classes: the tile codes, ``back`` and ``not_a_tile``
MODEL_CLASSES: tuple[str, ...] = (*CLASSES, NOT_A_TILE)
#: temperature of knowledge distillation from a teacher model (``--teacher``)
DISTILL_TEMPERATURE = 2.0
#: negative regions cut from each real training photo (``vision.realdata.negative_boxes``)
NEGATIVES_PER_PHOTO = 6

Batch = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]


class RealPool:
    """The real training photos' stored regions (``vision.realdata.region``): per model class index the regions
    of its boxes, and the negative regions (outside every box).  Built from the training split of source photos
    (``realdata.split_sources(boxes, seed)``); regions stored at ``realdata.REGION`` px, or more for an input
    ``size`` above 2/3 of it."""

    def __init__(self, directory: Path, seed: int, size: int = INPUT_SIZE, *, loose: bool = False) -> None:
        region_size = max(realdata.REGION, round(size * (1 + 2 * realdata.REGION_PAD)))
        loose_size = max(realdata.LOOSE_REGION, round(size * (1 + 2 * realdata.LOOSE_PAD)))
        boxes = realdata.read_labels(directory)
        train, _ = realdata.split_sources(boxes, seed)
        self.faces: list[list[npt.NDArray[np.uint8]]] = [[] for _ in MODEL_CLASSES]
        #: with ``loose``: per class, each box's ``realdata.loose_region`` and shape (width and height over the
        #: longer side), in the order of ``faces``; empty otherwise
        self.loose: list[list[tuple[npt.NDArray[np.uint8], tuple[float, float]]]] = [[] for _ in MODEL_CLASSES]
        self.negatives: list[npt.NDArray[np.uint8]] = []
        rng = np.random.default_rng([seed, 18])
        for _, photo, items in realdata.photos_of(directory, boxes, train):
            for b in items:
                y = MODEL_CLASSES.index(b.code)
                self.faces[y].append(realdata.region(photo, b, size=region_size))
                if loose:
                    longer = max(b.w, b.h)
                    shape = (b.w / longer, b.h / longer)
                    self.loose[y].append((realdata.loose_region(photo, b, size=loose_size), shape))
            for b in realdata.negative_boxes(items, rng, NEGATIVES_PER_PHOTO, size=photo.shape[0]):
                self.negatives.append(realdata.region(photo, b, size=region_size))
        self.present = [i for i, f in enumerate(self.faces) if f]


def preprocess(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
    """Crops already of INPUT_SIZE x INPUT_SIZE (BGR uint8) -> normalised NCHW float32 (same as inference)."""
    x = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(((x - MEAN) / STD).transpose(0, 3, 1, 2))


def face_pool(
    styles: tuple[str, ...], variants: int, seed: int, size: int = INPUT_SIZE
) -> list[list[npt.NDArray[np.uint8]]]:
    """For each class index, ``variants`` renders in every style (backs: ``variants * len(styles)`` renders),
    kept at the augmentation's working scale for ``size`` crops (``working_scale``: resized once here)."""
    rng = np.random.default_rng(seed)

    def face(code: str, style: str) -> npt.NDArray[np.uint8]:
        small = working_scale(render_tile_face(code, style=style, rng=rng), size)
        return np.asarray(np.clip(np.rint(small), 0, 255).astype(np.uint8), dtype=np.uint8)

    return [[face(code, s) for s in styles for _ in range(variants)] for code in CLASSES]


def make_batch(
    pool: list[list[npt.NDArray[np.uint8]]],
    n: int,
    rng: np.random.Generator,
    variants: int,
    views: int = 1,
    *,
    real: RealPool | None = None,
    real_share: float = 0.0,
    neg_share: float = 0.0,
    size: int = INPUT_SIZE,
    loose_share: float = 0.0,
) -> Batch:
    """``n`` augmented ``size`` x ``size`` samples: ``round(n * real_share)`` real photographed faces (``real``:
    class drawn uniformly among the faces it has, then a region of it, ``realdata.augment_region``), ``round(n *
    neg_share)`` negatives (``not_a_tile``: half regions of the real photos outside the boxes, half drawn by
    ``vision.synth.negatives`` of a uniformly drawn kind) and the rest synthetic: uniformly drawn classes, two
    faces of the same style (pool entries come in runs of ``variants`` per style) offered as pond neighbours;
    ``views`` > 1 (repeated augmentation): placements on the table, each filmed ``views`` times
    (``augment_views``).  ``loose_share`` > 0 (``real`` built with ``loose``): that share of the real faces is
    cut as a turned photo's loose box instead (``realdata.augment_loose``); at 0 the batch is what it was before
    the option existed."""
    xs: list[npt.NDArray[np.float32]] = []
    ys: list[npt.NDArray[np.int64]] = []
    n_real = round(n * real_share) if real is not None else 0
    n_neg = round(n * neg_share)
    if n_real and loose_share > 0 and real is not None and not any(real.loose):
        raise ValueError("loose_share > 0 needs a RealPool built with loose=True (it holds no loose regions)")
    if n_real or n_neg:
        crops: list[npt.NDArray[np.uint8]] = []
        labels: list[int] = []
        for _ in range(n_real):
            assert real is not None
            y = real.present[int(rng.integers(len(real.present)))]
            regions = real.faces[y]
            i = int(rng.integers(len(regions)))
            if loose_share > 0 and rng.random() < loose_share:
                reg, shape = real.loose[y][i]
                crops.append(realdata.augment_loose(reg, shape, rng, size))
            else:
                crops.append(realdata.augment_region(regions[i], rng, size))
            labels.append(y)
        for k in range(n_neg):
            if real is not None and real.negatives and k % 2 == 0:
                reg = real.negatives[int(rng.integers(len(real.negatives)))]
                crops.append(realdata.augment_region(reg, rng, size))
            else:
                crops.append(negative(NEGATIVE_KINDS[int(rng.integers(len(NEGATIVE_KINDS)))], rng, size))
            labels.append(len(MODEL_CLASSES) - 1)
        xs.append(preprocess(crops))
        ys.append(np.asarray(labels, np.int64))
    synth_x, synth_y = _synthetic(pool, n - n_real - n_neg, rng, variants, views, size=size)
    xs.append(synth_x)
    ys.append(synth_y)
    return np.concatenate(xs), np.concatenate(ys)


def _synthetic(
    pool: list[list[npt.NDArray[np.uint8]]],
    n: int,
    rng: np.random.Generator,
    variants: int,
    views: int,
    *,
    size: int = INPUT_SIZE,
) -> Batch:
    """``n`` synthetic samples (see ``make_batch``)."""
    scenes = max(1, n // views)
    labels = rng.integers(len(CLASSES), size=scenes)
    crops = []
    for y in labels:
        i = int(rng.integers(len(pool[y])))
        style_start = (i // variants) * variants
        near = [pool[int(rng.integers(len(pool)))][style_start + int(rng.integers(variants))] for _ in range(2)]
        near = [f for f in near if f.shape == pool[y][i].shape]
        if views > 1:
            crops.extend(augment_views(pool[y][i], rng, size, neighbours=near, views=views))
        else:
            crops.append(augment(pool[y][i], rng, size, neighbours=near))
    return preprocess(crops), np.repeat(labels, max(1, views)).astype(np.int64)


@dataclass(frozen=True)
class Mix:
    """What a batch holds besides synthetic tiles: real photos (``real_dir``, None: none) and their share, and
    the share of negatives; ``size``: the crops' side (px)."""

    real_dir: Path | None = None
    real_share: float = 0.0
    neg_share: float = 0.0
    size: int = INPUT_SIZE
    loose_share: float = 0.0

    def real_pool(self, seed: int) -> list[RealPool]:
        """The real regions this mix draws from (none without ``real_dir``)."""
        if self.real_dir is None:
            return []
        return [RealPool(self.real_dir, seed, self.size, loose=self.loose_share > 0)]


#: the face pool and real regions of a batch-maker process (made there by ``_worker_init``)
_WORKER_POOL: list[list[npt.NDArray[np.uint8]]] = []
_WORKER_REAL: list[RealPool] = []


def _worker_init(styles: tuple[str, ...], variants: int, seed: int, mix: Mix) -> None:
    import cv2

    cv2.setNumThreads(1)  # one core per batch-maker process
    _WORKER_POOL[:] = face_pool(styles, variants, seed, mix.size)
    _WORKER_REAL[:] = mix.real_pool(seed)


def _batch(
    pool: list[list[npt.NDArray[np.uint8]]], real: list[RealPool], mix: Mix, job: tuple[int, int, int, int, int]
) -> Batch:
    seed, step, n, variants, views = job
    rng = np.random.default_rng([seed, step])
    pool_real = real[0] if real else None
    return make_batch(
        pool,
        n,
        rng,
        variants,
        views,
        real=pool_real,
        real_share=mix.real_share,
        neg_share=mix.neg_share,
        size=mix.size,
        loose_share=mix.loose_share,
    )


def _worker_batch(job: tuple[int, int, int, int, int], mix: Mix) -> Batch:
    return _batch(_WORKER_POOL, _WORKER_REAL, mix, job)


def _fresh(
    styles: tuple[str, ...], *, steps: int, n: int, seed: int, variants: int, workers: int, views: int, mix: Mix
) -> Generator[Batch, None, None]:
    """``steps`` fresh batches of ``n`` samples in order: the face pool of ``styles`` (``face_pool(styles,
    variants, seed)``), batch ``k`` made from seed ``[seed, k]``, so the stream is the same whatever ``workers``
    is.  ``workers`` >= 1: the pool is rendered and the batches made ahead (at most ``2 * workers + 1``) in that
    many spawned processes (numpy and cv2 hold the GIL much of the time, so threads would not run in parallel,
    and cv2's thread pool does not survive a fork); 0: in this process, one batch ahead on a thread."""
    if workers <= 0:
        pool = face_pool(styles, variants, seed, mix.size)
        real = mix.real_pool(seed)
        with ThreadPoolExecutor(max_workers=1) as ex:
            ahead = ex.submit(_batch, pool, real, mix, (seed, 0, n, variants, views))
            for step in range(steps):
                batch = ahead.result()
                if step + 1 < steps:
                    ahead = ex.submit(_batch, pool, real, mix, (seed, step + 1, n, variants, views))
                yield batch
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers, initializer=_worker_init, initargs=(styles, variants, seed, mix)) as procs:
        queue: deque[Any] = deque()
        nxt = 0
        for _ in range(steps):
            while nxt < steps and len(queue) < 2 * workers + 1:
                queue.append(procs.apply_async(_worker_batch, ((seed, nxt, n, variants, views), mix)))
                nxt += 1
            yield queue.popleft().get()


def batches(
    styles: tuple[str, ...],
    *,
    steps: int,
    n: int,
    seed: int,
    variants: int,
    workers: int,
    echo: int = 1,
    views: int = 1,
    mix: Mix | None = None,
) -> Generator[Batch, None, None]:
    """The training batches in step order (see ``_fresh`` for the pool, seeds and ``workers``; ``views``: see
    ``make_batch``).

    ``echo`` > 1 (data echoing, when making samples costs more than training on them): step ``k`` makes only
    ``n // echo`` fresh samples and trains on them together with the fresh samples of steps ``k - ECHO_GAP``,
    ``k - 2 * ECHO_GAP``, ... (``echo - 1`` earlier chunks, fewer in the first steps), so every sample is seen
    ``echo`` times, each time in other company."""
    mix = mix or Mix()
    if echo <= 1:
        yield from _fresh(styles, steps=steps, n=n, seed=seed, variants=variants, workers=workers, views=views, mix=mix)
        return
    chunks: deque[Batch] = deque(maxlen=ECHO_GAP * (echo - 1) + 1)
    chunk = n // echo
    for fresh in _fresh(
        styles, steps=steps, n=chunk, seed=seed, variants=variants, workers=workers, views=views, mix=mix
    ):
        chunks.append(fresh)
        parts = [chunks[-1 - j * ECHO_GAP] for j in range(echo) if j * ECHO_GAP < len(chunks)]
        yield np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])


def build_model(widths: tuple[int, int, int] = (32, 64, 192)) -> Any:
    """The CNN: returns (logits, embedding) from a normalised N x 3 x S x S batch (any S: global pooling).
    ``widths``: channels of the three stages (two conv blocks each, the first with stride 2)."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int) -> Any:
        conv = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        return nn.Sequential(conv, nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class TileNet(nn.Module):  # type: ignore[misc, unused-ignore]
        def __init__(self) -> None:
            super().__init__()
            a, b, c = widths
            self.features = nn.Sequential(
                block(3, a, 2),
                block(a, a, 1),
                block(a, b, 2),
                block(b, b, 1),
                block(b, c, 2),
                block(c, c, 1),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.embed = nn.Sequential(nn.Linear(c, EMBED_DIM), nn.ReLU(inplace=True))
            self.head = nn.Linear(EMBED_DIM, len(MODEL_CLASSES))

        def forward(self, x: Any) -> tuple[Any, Any]:
            e = self.embed(self.features(x))
            return self.head(e), e

    torch.manual_seed(0)
    return TileNet()


def init_from_onnx(model: Any, path: Path) -> None:
    """Start from an exported model (``path``: a TileNet ONNX file written by ``export_onnx``, its batch norms
    folded into the convolutions, float or int8): each conv takes the folded weight, its batch norm becomes the
    identity plus the folded bias (mean 0, variance 1 - eps, scale 1), the embedding is copied, and the head's
    rows of the classes the old model had are copied (a new class's row starts at zero).  An int8 model's
    weights and biases are taken as its DequantizeLinear nodes give them (``vision.quantize.dequantized_constants``),
    so the shipped model can be fine-tuned without its float file.  A ``model`` with more channels per layer than
    the file's starts as the file's network widened (``vision.widen``: the same outputs).  The batch norms must
    then stay in eval mode (``freeze_batch_norms``): their statistics are folded already."""
    import onnx
    import torch

    from vision.quantize import dequantized_constants
    from vision.widen import widen

    graph = onnx.load(str(path)).graph
    weights = dequantized_constants(graph)
    convs = [n for n in graph.node if n.op_type == "Conv"]
    gemms = [n for n in graph.node if n.op_type == "Gemm"]  # in graph order: the embedding, then the head
    blocks: list[Any] = [m for m in model.features if isinstance(m, torch.nn.Sequential)]
    if len(convs) != len(blocks) or len(gemms) != 2:
        raise ValueError(
            f"{path}: {len(convs)} convolutions and {len(gemms)} linear layers, the network has {len(blocks)} and 2"
        )

    def array(name: str) -> Any:
        if name not in weights:
            raise ValueError(f"{path}: {name} is not a constant (a weight computed at run time?)")
        return weights[name]

    def const(name: str) -> Any:
        return torch.from_numpy(array(name).copy())

    embed, head = gemms
    layers = [(array(n.input[1]), array(n.input[2])) for n in convs]
    embed_weight = array(embed.input[1])
    widths = [int(block[0].weight.shape[0]) for block in blocks]
    if widths != [w.shape[0] for w, _ in layers]:
        wider = widen(layers, embed_weight, widths)
        layers, embed_weight = wider.convs, wider.embed
    with torch.no_grad():
        for (weight, bias), block in zip(layers, blocks, strict=True):
            conv: Any = block[0]
            bn: Any = block[1]
            conv.weight.copy_(torch.from_numpy(weight.copy()))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(bias.copy()))
        model.embed[0].weight.copy_(torch.from_numpy(embed_weight.copy()))
        model.embed[0].bias.copy_(const(embed.input[2]))
        old_classes = json.loads(path.with_suffix(".json").read_text())["classes"]
        head_weight, head_bias = const(head.input[1]), const(head.input[2])
        model.head.weight.zero_()
        model.head.bias.zero_()
        for i, code in enumerate(old_classes):
            j = MODEL_CLASSES.index(code)
            model.head.weight[j] = head_weight[i]
            model.head.bias[j] = float(head_bias[i])


def _is_quantized(path: Path) -> bool:
    """True when the ONNX model at ``path`` holds DequantizeLinear nodes (an int8 model)."""
    import onnx

    return any(n.op_type == "DequantizeLinear" for n in onnx.load(str(path)).graph.node)


def freeze_batch_norms(model: Any) -> None:
    """Batch norms in eval mode (statistics fixed; scale and shift still learnt)."""
    import torch

    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def torch_logits(
    model: Any, *, mirror: bool = False, second_read_margin: float | None = None
) -> Callable[[list[npt.NDArray[np.uint8]]], npt.NDArray[np.float32]]:
    """``vision.modelcard.evaluate``'s reader for a torch model (put in eval mode); with ``mirror``, the mean of
    each crop's and its left-right mirror's logits, as ``OnnxTileClassifier`` reads for a card whose
    ``input.test_time`` is ``mirror``; with ``second_read_margin`` (``mirror_when_unsure``), that mean only for
    the crops whose first read's best logit leads the second by less than the margin."""
    import torch

    model.eval()

    def read(crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
        with torch.no_grad():
            x = torch.from_numpy(preprocess(crops))
            logits, _ = model(x)
            if mirror:
                logits = (logits + model(torch.flip(x, dims=[3]))[0]) / 2
            elif second_read_margin is not None:
                top2 = torch.topk(logits, 2, dim=1).values
                unsure = (top2[:, 0] - top2[:, 1]) < second_read_margin
                if bool(unsure.any()):
                    logits[unsure] = (logits[unsure] + model(torch.flip(x[unsure], dims=[3]))[0]) / 2
        return np.asarray(logits.numpy(), np.float32)

    return read


def export_onnx(model: Any, path: Path, size: int = INPUT_SIZE) -> None:
    """Legacy TorchScript exporter at opset 17 (see ../shared/notes/dependencies.md section 4), dynamic batch,
    ``size`` x ``size`` input."""
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, size, size)
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


class Teacher:
    """A committed model whose answers on synthetic tiles the new one learns to copy (knowledge distillation,
    ``--teacher``): run by onnxruntime on one thread in the training process.  Its classes must be a prefix of
    ``MODEL_CLASSES`` (e.g. 2320d7e's: the tile codes and ``back``, without ``not_a_tile``)."""

    def __init__(self, path: Path, weight: float, size: int, temperature: float = DISTILL_TEMPERATURE) -> None:
        import onnxruntime as ort

        card = json.loads(path.with_suffix(".json").read_text())
        classes = card["classes"]
        if tuple(classes) != MODEL_CLASSES[: len(classes)]:
            raise ValueError(f"{path}: its classes are not a prefix of the model's")
        if list(card["input"]["size"]) != [size, size] or (card["input"]["mean"], card["input"]["std"]) != (MEAN, STD):
            raise ValueError(f"{path}: its input is not {size} x {size} normalised as this training's")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.classes = len(classes)
        self.weight = weight
        self.temperature = temperature

    def soft_targets(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The teacher's probabilities at ``temperature`` for a normalised NCHW batch, padded with zeros to
        ``len(MODEL_CLASSES)`` (N x C float32)."""
        from vision.realeval import softmax

        out = np.zeros((len(x), len(MODEL_CLASSES)), np.float32)
        out[:, : self.classes] = softmax(self.session.run(["logits"], {"input": x})[0], self.temperature)
        return out


def train_step(
    model: Any,
    opt: Any,
    sched: Any,
    loss_fn: Any,
    batch: Batch,
    *,
    step: int,
    t0: float,
    waited: float,
    bf16: bool = False,
    teacher: Teacher | None = None,
    synthetic_from: int = 0,
) -> None:
    """One optimiser step on a numpy batch (``bf16``: forward pass under bfloat16 autocast, the weights and the
    optimiser stay float32); ``teacher``: the samples from index ``synthetic_from`` on (the synthetic ones) also
    pull the model's tempered probabilities towards the teacher's (KL divergence x T^2 x ``teacher.weight``);
    logs a JSON line every 100 steps (``waited``: seconds spent so far waiting for batches)."""
    import torch

    x, y = batch
    inputs = torch.from_numpy(x).contiguous(memory_format=torch.channels_last)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        logits, _ = model(inputs)
    logits = logits.float()
    loss = loss_fn(logits, torch.from_numpy(y))
    if teacher is not None and synthetic_from < len(x):
        target = torch.from_numpy(teacher.soft_targets(x[synthetic_from:]))
        log_p = torch.log_softmax(logits[synthetic_from:] / teacher.temperature, dim=1)
        kl = torch.nn.functional.kl_div(log_p, target, reduction="batchmean")
        loss = loss + teacher.weight * teacher.temperature**2 * kl
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
                    "wait_s": round(waited, 1),
                }
            ),
            flush=True,
        )


def optimizer(model: Any, *, lr: float, weight_decay: float) -> Any:
    """AdamW over every parameter of ``model`` (``lr``: its peak step, which the schedule sets; ``weight_decay``:
    the decoupled decay, per unit of learning rate and step)."""
    import torch

    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


def optimizer_text(weight_decay: float) -> str:
    """The card's ``recipe.optimizer``: "AdamW wd=1e-4" (the committed cards' text), "AdamW wd=5e-2" ..."""
    return "AdamW wd=" + np.format_float_scientific(weight_decay, trim="-", exp_digits=1)


def parser() -> argparse.ArgumentParser:
    """The command line of ``python -m vision.train`` (``vision.lineage`` checks its stages against it)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("vision/models"))
    p.add_argument("--steps", type=int, default=8000)
    p.add_argument("--batch", type=int, default=96)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument(
        "--weight-decay",
        type=float,
        default=WEIGHT_DECAY,
        help="AdamW's decoupled weight decay (every committed stage: 1e-4; the card's recipe.optimizer)",
    )
    p.add_argument("--variants", type=int, default=8, help="renders per class and style in the face pool")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--workers", type=int, default=1, help="batch-maker processes (0: a thread of this process)")
    p.add_argument("--views", type=int, default=2, help="crops filmed per table placement (repeated augmentation)")
    p.add_argument("--echo", type=int, default=1, help="times each generated sample is trained on (data echoing)")
    p.add_argument(
        "--bf16",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="train under bfloat16 autocast (about twice as fast on CPUs with AVX512-BF16; weights stay float32)",
    )
    p.add_argument("--size", type=int, default=INPUT_SIZE, help="input side in pixels (the card records it)")
    p.add_argument("--widths", type=str, default="32,64,192", help="channels of the three conv stages")
    p.add_argument("--eval-per-class", type=int, default=8)
    p.add_argument(
        "--real",
        type=Path,
        default=realdata.DEFAULT_REAL_DIR,
        help="the real photographs with boxes (README there); 'none': synthetic tiles only",
    )
    p.add_argument("--real-share", type=float, default=0.5, help="share of each batch cut from real photos")
    p.add_argument("--neg-share", type=float, default=0.12, help="share of each batch that is not a tile")
    p.add_argument(
        "--loose-share",
        type=float,
        default=0.0,
        help="share of the real faces cut as a turned photo's loose box (realdata.augment_loose), 0 to 1",
    )
    p.add_argument(
        "--init",
        type=Path,
        default=None,
        help="start from this exported model (ONNX + its .json), e.g. the previous committed one; batch norms frozen",
    )
    p.add_argument(
        "--teacher",
        type=Path,
        default=None,
        help="a model (ONNX + its .json) whose answers on the synthetic samples the new one learns to copy",
    )
    p.add_argument("--distill", type=float, default=1.0, help="weight of the teacher's term in the loss")
    p.add_argument(
        "--test-time",
        choices=TEST_TIME_READS,
        default="none",
        help="how the service reads a crop (the card's input.test_time; measured and calibrated so): none, "
        "mirror (the crop and its mirror, logits averaged: twice the network time) or mirror_when_unsure (the "
        "mirror only of crops whose first read's best logit leads by less than --second-read-margin)",
    )
    p.add_argument(
        "--second-read-margin",
        type=float,
        default=5.0,
        help="with --test-time mirror_when_unsure: the lead of the best logit over the second below which the "
        "crop is read mirrored too (the card's input.second_read_margin)",
    )
    p.add_argument(
        "--quantize",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="ship the int8 model (vision.quantize; the float one is kept as " + FLOAT_FILE + ")",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Train, evaluate, export; writes tile_classifier.onnx and tile_classifier.json into --out."""
    p = parser()
    args = p.parse_args(argv)
    real_dir: Path | None = None if str(args.real) == "none" else args.real
    widths = tuple(int(v) for v in args.widths.split(","))
    if len(widths) != 3:
        p.error("--widths takes three channel counts, e.g. 24,48,96")
    if not 0.0 <= args.loose_share <= 1.0:
        p.error("--loose-share is a share of the real faces, from 0 to 1")
    if not (math.isfinite(args.weight_decay) and args.weight_decay >= 0):
        p.error("--weight-decay takes a finite number, 0 or more (AdamW's decoupled decay)")

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    styles = available_styles()
    t0 = time.monotonic()
    print(json.dumps({"pool": len(CLASSES) * len(styles) * args.variants, "styles": styles}), flush=True)
    model = build_model((widths[0], widths[1], widths[2])).to(memory_format=torch.channels_last)
    opt = optimizer(model, lr=args.lr, weight_decay=args.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.15)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    if args.init is not None:
        init_from_onnx(model, args.init)
    model.train()
    if args.init is not None:
        freeze_batch_norms(model)
    real_share = args.real_share if real_dir else 0.0
    loose_share = args.loose_share if real_dir else 0.0
    stream = batches(
        styles,
        steps=args.steps,
        n=args.batch,
        seed=args.seed,
        variants=args.variants,
        workers=args.workers,
        echo=args.echo,
        views=args.views,
        mix=Mix(real_dir, real_share, args.neg_share, args.size, loose_share),
    )
    teacher = None if args.teacher is None else Teacher(args.teacher, args.distill, args.size)
    if args.echo > 1 and teacher is not None:
        p.error("--teacher needs --echo 1 (the synthetic samples must come last in a batch)")
    synthetic_from = round(args.batch * real_share) + round(args.batch * args.neg_share)
    waited = 0.0
    for step in range(args.steps):
        t_wait = time.monotonic()
        batch = next(stream)
        waited += time.monotonic() - t_wait
        train_step(
            model,
            opt,
            sched,
            loss_fn,
            batch,
            step=step,
            t0=t0,
            waited=waited,
            bf16=args.bf16,
            teacher=teacher,
            synthetic_from=synthetic_from,
        )
    stream.close()  # stops the batch-maker processes
    model = model.to(memory_format=torch.contiguous_format)
    train_s = time.monotonic() - t0
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / "tile_classifier.onnx"
    float_path = args.out / FLOAT_FILE if args.quantize else onnx_path
    export_onnx(model, float_path, args.size)
    save_head(model, args.out / HEAD_FILE)
    meta: dict[str, Any] = {
        "schema": "mjtable.tile_classifier/1",
        "classes": list(MODEL_CLASSES),
        "input": {
            "size": [args.size, args.size],
            "channels": "BGR",
            "layout": "NCHW",
            "resize": "INTER_AREA",
            "scale": 1 / 255,
            "mean": MEAN,
            "std": STD,
            "test_time": args.test_time,
            **({"second_read_margin": args.second_read_margin} if args.test_time == "mirror_when_unsure" else {}),
        },
        "outputs": ["logits", "embedding"],
        "embedding_dim": EMBED_DIM,
        "head": HEAD_FILE,
        "seed": args.seed,
        "recipe": {
            "steps": args.steps,
            "batch": args.batch,
            "optimizer": optimizer_text(args.weight_decay),
            "lr": args.lr,
            "schedule": "OneCycle pct_start=0.15",
            "label_smoothing": 0.05,
            "face_variants": args.variants,
            "styles": list(styles),
            "one_ink_p": ONE_INK_P,
            "augment": "vision.synth.augment.augment_views" if args.views > 1 else "vision.synth.augment.augment",
            "widths": list(widths),
            "threads": args.threads,
            "workers": args.workers,
            "echo": args.echo,
            "bf16_autocast": args.bf16,
            "echo_gap": ECHO_GAP,
            "views": args.views,
            "init": None
            if args.init is None
            else {
                "file": args.init.name,
                "sha256": hashlib.sha256(args.init.read_bytes()).hexdigest(),
                "batch_norms": "folded, frozen",
                "weights": "int8, dequantized" if _is_quantized(args.init) else "float",
            },
            "teacher": None
            if teacher is None
            else {
                "file": args.teacher.name,
                "sha256": hashlib.sha256(args.teacher.read_bytes()).hexdigest(),
                "on": "the synthetic samples",
                "weight": teacher.weight,
                "temperature": teacher.temperature,
            },
            "real_share": real_share,
            "neg_share": args.neg_share,
            "negatives": {
                "real_per_photo": NEGATIVES_PER_PHOTO,
                "synthetic_kinds": list(NEGATIVE_KINDS),
                "real_vs_synthetic": "1:1" if real_dir else "0:1",
            },
            "real_augment": "vision.realdata.augment_region (mirrored with odds 1/2)",
            **(
                {"real_loose": {"share": loose_share, "augment": "vision.realdata.augment_loose"}}
                if loose_share > 0
                else {}
            ),
            "torch": torch.__version__,
            "export": "torch.onnx.export dynamo=False opset 17",
            "quantize": "vision.quantize (int8)" if args.quantize else None,
        },
        "train_time_s": round(train_s, 1),
    }
    if args.quantize:
        from vision import quantize

        float_path.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")  # vision.quantize reads it
        float_held_out = evaluate(
            torch_logits(
                model,
                mirror=args.test_time == "mirror",
                second_read_margin=args.second_read_margin if args.test_time == "mirror_when_unsure" else None,
            ),
            styles,
            args.eval_per_class,
            10_000 + args.seed,
            args.size,
        )
        entry = quantize.quantize(float_path, onnx_path, meta, real_dir)
        entry["float_held_out"] = round(float(np.mean(list(float_held_out.values()))), 4)
        meta["quantization"] = entry
    meta = card_figures(onnx_path, meta, styles, real_dir, seed=args.seed, per_class=args.eval_per_class)
    print(
        json.dumps(
            {
                "done": str(onnx_path),
                "bytes": onnx_path.stat().st_size,
                "held_out": meta["held_out"],
                "unseen": meta["unseen_styles"],
                "real": {k: v for k, v in meta.get("real_validation", {}).items() if k != "per_face"},
                "train_time_s": meta["train_time_s"],
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
