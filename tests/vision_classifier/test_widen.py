"""Widening a network's channels without changing its outputs (``vision.widen``; numpy, no torch)."""

from __future__ import annotations

import numpy as np
import pytest

from vision import widen


def _forward(convs: list[tuple[np.ndarray, np.ndarray]], embed: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A 1x1-convolution stack with ReLUs, global pooling and the embedding: the same channel algebra as TileNet
    (a 3x3 convolution mixes channels the same way at every tap)."""
    for weight, bias in convs:
        x = np.maximum(np.einsum("oi,nihw->nohw", weight.sum(axis=(2, 3)), x) + bias[None, :, None, None], 0.0)
    pooled: np.ndarray = x.mean(axis=(2, 3)) @ embed.T
    return pooled


def _network(rng: np.random.Generator, widths: list[int]) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
    convs = []
    cin = 3
    for cout in widths:
        convs.append((rng.normal(size=(cout, cin, 3, 3)).astype(np.float32), rng.normal(size=cout).astype(np.float32)))
        cin = cout
    return convs, rng.normal(size=(5, cin)).astype(np.float32)


def test_the_widened_network_computes_what_the_narrow_one_does() -> None:
    rng = np.random.default_rng(3)
    convs, embed = _network(rng, [4, 4, 6])
    x = rng.normal(size=(7, 3, 5, 5)).astype(np.float32)
    wider = widen.widen(convs, embed, [6, 9, 13], seed=1)
    assert [w.shape for w, _ in wider.convs] == [(6, 3, 3, 3), (9, 6, 3, 3), (13, 9, 3, 3)]
    assert wider.embed.shape == (5, 13)
    np.testing.assert_allclose(_forward(wider.convs, wider.embed, x), _forward(convs, embed, x), rtol=1e-4, atol=1e-4)


def test_copies_share_their_channel_unequally_so_training_can_tell_them_apart() -> None:
    rng = np.random.default_rng(0)
    mapping = widen.channel_map(4, 10, rng)
    assert list(mapping[:4]) == [0, 1, 2, 3]
    assert np.bincount(mapping).max() - np.bincount(mapping).min() <= 1  # copies spread evenly
    share = widen.shares(mapping, rng)
    np.testing.assert_allclose(np.bincount(mapping, weights=share), np.ones(4), rtol=1e-6)
    copies = share[mapping == int(np.argmax(np.bincount(mapping)))]
    assert len(set(np.round(copies, 6))) == len(copies)


def test_the_same_width_changes_nothing() -> None:
    rng = np.random.default_rng(5)
    convs, embed = _network(rng, [4, 5, 6])
    same = widen.widen(convs, embed, [4, 5, 6])
    for (w, b), (w0, b0) in zip(same.convs, convs, strict=True):
        np.testing.assert_array_equal(w, w0)
        np.testing.assert_array_equal(b, b0)
    np.testing.assert_array_equal(same.embed, embed)


def test_a_narrower_network_or_a_wrong_width_count_is_refused() -> None:
    rng = np.random.default_rng(5)
    convs, embed = _network(rng, [4, 5, 6])
    with pytest.raises(ValueError, match="wider network only"):
        widen.widen(convs, embed, [4, 4, 6])
    with pytest.raises(ValueError, match="2 widths for 3 convolutions"):
        widen.widen(convs, embed, [4, 5])
