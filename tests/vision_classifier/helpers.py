"""Shared helpers for the classifier tests: freshly rendered, camera-augmented tiles with their codes."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.synth.augment import augment
from vision.synth.render import CLASSES, available_styles, render_tile_face


def held_out_tiles(
    n: int, seed: int, *, style: str | None = None, size: int = 48
) -> tuple[list[npt.NDArray[np.uint8]], list[str]]:
    """``n`` augmented crops (classes cycled, styles cycled over the installed training styles)."""
    rng = np.random.default_rng(seed)
    styles = (style,) if style else available_styles()
    crops, codes = [], []
    for i in range(n):
        code = CLASSES[i % len(CLASSES)]
        face = render_tile_face(code, style=styles[i % len(styles)], rng=rng)
        crops.append(augment(face, rng, size))
        codes.append(code)
    return crops, codes
