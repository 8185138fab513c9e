"""Widening a trained TileNet to more channels without changing what it computes (Net2WiderNet, Chen et al.
2016), so a wider network can start from the shipped one instead of from scratch (``vision.train --init``).

Numpy only (no torch): it maps the exported constants (``vision.train.init_from_onnx``), which it receives as
arrays.  Each new channel of a convolution copies an old channel of the same layer (its weights and bias); the
next layer's weights that read the copies share the old channel's weight between them, so the sum is unchanged.
The network's convolutions are each followed by a ReLU and its batch norms are folded into them, so a copied
channel gives the same activation as its original and the widened network's outputs equal the old one's
(float rounding aside).

The shares are drawn at random (each between 1/4 and 3/4 of the weight before normalising), not equal: copies
that read with equal weights would get equal gradients and stay copies for ever.  Unequal shares keep the
function exact and let the copies drift apart in training.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Widened:
    """The widened constants: ``convs`` as (weight out x in x k x k, bias out) per layer in graph order, and
    ``embed`` the embedding's weight (embedding x last layer's channels; its bias is unchanged)."""

    convs: list[tuple[Array, Array]]
    embed: Array


def channel_map(old: int, new: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Which old channel each of ``new`` channels copies: the first ``old`` are themselves, the rest drawn at
    random (every old channel at most once more before any twice, so the copies spread evenly)."""
    if new < old:
        raise ValueError(f"cannot widen {old} channels to {new}: a wider network only")
    extra: list[int] = []
    while len(extra) < new - old:
        extra.extend(int(c) for c in rng.permutation(old)[: new - old - len(extra)])
    return np.concatenate([np.arange(old), np.asarray(extra, dtype=np.int64)]).astype(np.int64)


def shares(mapping: npt.NDArray[np.int64], rng: np.random.Generator) -> Array:
    """Per new channel, its share of its old channel's outgoing weight: the shares of one old channel's copies
    sum to 1 (a channel without copies keeps 1)."""
    raw = rng.uniform(0.25, 0.75, size=len(mapping)).astype(np.float64)
    totals = np.zeros(int(mapping.max()) + 1)
    np.add.at(totals, mapping, raw)
    return (raw / totals[mapping]).astype(np.float32)


def widen(convs: list[tuple[Array, Array]], embed: Array, widths: list[int], seed: int = 0) -> Widened:
    """The constants of the same network with each layer's output channels widened to ``widths`` (one per
    convolution, each at least the old count).  The first layer's inputs (the image's 3 channels) and the
    embedding's outputs stay as they are."""
    if len(widths) != len(convs):
        raise ValueError(f"{len(widths)} widths for {len(convs)} convolutions")
    rng = np.random.default_rng(seed)
    out: list[tuple[Array, Array]] = []
    previous: tuple[npt.NDArray[np.int64], Array] | None = None
    for (given, bias), width in zip(convs, widths, strict=True):
        weight = given
        if weight.ndim != 4 or bias.shape != (weight.shape[0],):
            raise ValueError(f"a convolution's weight {weight.shape} and bias {bias.shape} do not match")
        if previous is not None:
            mapping_in, share_in = previous
            if weight.shape[1] != int(mapping_in.max()) + 1:
                raise ValueError(f"a convolution reads {weight.shape[1]} channels, the layer before gives more")
            weight = weight[:, mapping_in] * share_in[None, :, None, None]
        mapping = channel_map(weight.shape[0], width, rng)
        out.append((np.ascontiguousarray(weight[mapping], dtype=np.float32), bias[mapping].astype(np.float32)))
        previous = (mapping, shares(mapping, rng))
    assert previous is not None
    mapping_in, share_in = previous
    if embed.shape[1] != int(mapping_in.max()) + 1:
        raise ValueError(f"the embedding reads {embed.shape[1]} channels, the last convolution gives more")
    return Widened(out, np.ascontiguousarray(embed[:, mapping_in] * share_in[None, :], dtype=np.float32))
