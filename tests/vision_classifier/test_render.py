"""The synthetic renderer and the augmentation: every class in every style, determinism, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from mjtable.tiles import ALL_CODES, NotationError
from vision.synth.augment import augment
from vision.synth.render import (
    CLASSES,
    HELD_OUT_STYLES,
    STYLES,
    TILE_H,
    TILE_W,
    UnknownStyleError,
    available_styles,
    render_tile_face,
)


def test_classes_are_the_shared_codes_plus_back() -> None:
    assert (*ALL_CODES, "back") == CLASSES
    assert len(CLASSES) == 46


def test_all_styles_are_installed_here() -> None:
    assert available_styles() == STYLES


@pytest.mark.parametrize("style", STYLES + HELD_OUT_STYLES)
def test_every_code_renders_distinctly_in_every_style(style: str) -> None:
    rng = np.random.default_rng(0)
    images = {}
    for code in CLASSES:
        img = render_tile_face(code, style=style, rng=rng)
        assert img.shape == (TILE_H, TILE_W, 3) and img.dtype == np.uint8
        assert img.std() > 5, f"{code} in {style} is a blank image"
        images[code] = img.astype(np.int16)
    # the face must differ between codes (the red five from the plain five too), not just the body colour
    for a, b in [("5m", "0m"), ("5p", "0p"), ("5s", "0s"), ("1f", "5f"), ("5z", "6z"), ("7s", "9s")]:
        fa, fb = images[a][30:-30, 25:-25], images[b][30:-30, 25:-25]
        assert np.abs((fa - fa.mean()) - (fb - fb.mean())).mean() > 3, (style, a, b)


def test_same_seed_same_image_and_style_none_picks_a_style() -> None:
    a = render_tile_face("3m", rng=np.random.default_rng(7))
    b = render_tile_face("3m", rng=np.random.default_rng(7))
    assert np.array_equal(a, b)


def test_bad_code_and_bad_style_raise_clear_errors() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(NotationError):
        render_tile_face("8z", rng=rng)
    with pytest.raises(UnknownStyleError, match="unknown style"):
        render_tile_face("1m", style="comic-sans", rng=rng)


def test_augment_gives_square_crops_deterministically() -> None:
    face = render_tile_face("9p", style="cn-serif", rng=np.random.default_rng(1))
    a = augment(face, np.random.default_rng(3), 48)
    b = augment(face, np.random.default_rng(3), 48)
    assert a.shape == (48, 48, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, augment(face, np.random.default_rng(4), 48))


def test_augment_puts_pond_neighbours_at_the_edges_never_over_the_tile() -> None:
    face = render_tile_face("5z", style="cn-sans", rng=np.random.default_rng(1))
    magenta = np.zeros_like(face)
    magenta[:] = (255, 0, 255)
    with_edges = 0
    for seed in range(60):
        crop = augment(face, np.random.default_rng(seed), 48, neighbours=[magenta]).astype(np.int32)
        # magenta-ish: strong blue and red, weak green (colour casts and lighting keep that order)
        hit = (crop[..., 0] > crop[..., 1] + 60) & (crop[..., 2] > crop[..., 1] + 60)
        assert not hit[18:30, 18:30].any(), seed  # the centre is always the tile itself
        with_edges += bool(hit.any())
    assert 10 <= with_edges <= 55  # neighbours appear in some crops, not all
