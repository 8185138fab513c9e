"""Images that are not a tile face, for the classifier's ``not_a_tile`` class: felt, hands, sleeves, table rims,
dice, blank and tiny images and fully transparent PNGs (as they reach the network: flattened on the felt).

``negative(kind, rng, size)`` draws one BGR uint8 image of ``size`` x ``size`` (``tiny``: a 2..6 px image
scaled up, as the classifier's resize would); ``KINDS`` lists the kinds.  Photographed negatives (regions of
the real photos outside every labelled box) come from ``vision.realdata.negative_boxes``.  Pure functions of
their arguments and ``rng``; any thread.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

KINDS = ("felt", "hand", "sleeve", "rim", "dice", "blank", "tiny", "transparent", "clutter")

_FELTS = ((60, 110, 30), (120, 70, 20), (70, 70, 70), (40, 50, 120), (150, 180, 190), (90, 120, 60), (30, 30, 30))
_SKIN = ((120, 150, 200), (80, 110, 160), (60, 80, 110), (150, 175, 220), (100, 140, 190))
_CLOTH = ((30, 30, 30), (200, 200, 200), (140, 60, 30), (40, 40, 140), (90, 90, 90), (160, 140, 90), (50, 120, 50))
_WOOD = ((40, 70, 110), (30, 50, 80), (70, 110, 150), (20, 20, 20), (150, 150, 150))


def _colour(palette: tuple[tuple[int, int, int], ...], rng: np.random.Generator, jitter: float = 18.0) -> F32:
    base = np.asarray(palette[int(rng.integers(len(palette)))], np.float32)
    return np.asarray(base + rng.normal(0, jitter, 3).astype(np.float32), np.float32)


def _texture(rng: np.random.Generator, size: int, colour: F32, grain: float) -> F32:
    """``colour`` with blurred noise (grain) and a lighting gradient."""
    noise = rng.standard_normal((size, size, 1)).astype(np.float32) * grain
    if rng.random() < 0.5:
        noise = np.asarray(cv2.GaussianBlur(noise, (0, 0), rng.uniform(0.5, 2.0)), np.float32)[..., None]
        noise = noise * 1.8
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    a, b = rng.normal(0, 25, 2)
    grad = (a * (xx - 0.5) + b * (yy - 0.5))[..., None]
    return np.asarray(colour[None, None, :] + noise + grad, np.float32)


def _felt(rng: np.random.Generator, size: int) -> F32:
    return _texture(rng, size, _colour(_FELTS, rng), rng.uniform(3, 12))


def _smooth_noise(rng: np.random.Generator, size: int, sigma: float) -> F32:
    """Gaussian noise blurred by ``sigma`` px (shading of skin, folds of cloth)."""
    noise = rng.standard_normal((size, size)).astype(np.float32)
    return np.asarray(cv2.GaussianBlur(noise, (0, 0), sigma), np.float32)


def _blob(size: int, rng: np.random.Generator, fingers: bool) -> F32:
    """A soft mask (0..1) of a hand-like shape: a palm ellipse and, with ``fingers``, a few finger capsules."""
    mask = np.zeros((size, size), np.float32)
    cx, cy = rng.uniform(-0.3, 1.3) * size, rng.uniform(-0.3, 1.3) * size
    ax, ay = rng.uniform(0.4, 1.0) * size, rng.uniform(0.3, 0.8) * size
    cv2.ellipse(mask, (int(cx), int(cy)), (int(ax), int(ay)), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    if fingers:
        for _ in range(int(rng.integers(1, 5))):
            x0, y0 = rng.uniform(0, size), rng.uniform(0, size)
            ang = rng.uniform(0, 2 * np.pi)
            length = rng.uniform(0.4, 1.0) * size
            x1, y1 = x0 + np.cos(ang) * length, y0 + np.sin(ang) * length
            width = max(2, int(size * rng.uniform(0.1, 0.22)))
            cv2.line(mask, (int(x0), int(y0)), (int(x1), int(y1)), 1.0, width)
    return np.asarray(cv2.GaussianBlur(mask, (0, 0), max(0.6, size * 0.02)), np.float32)


def _hand(rng: np.random.Generator, size: int) -> F32:
    back = _felt(rng, size)
    skin = _texture(rng, size, _colour(_SKIN, rng, 12.0), 3.0)
    shade = _smooth_noise(rng, size, size / 6)
    skin = skin * (1.0 + 0.8 * shade[..., None])
    m = _blob(size, rng, fingers=True)[..., None]
    return np.asarray(back * (1 - m) + skin * m, np.float32)


def _sleeve(rng: np.random.Generator, size: int) -> F32:
    cloth = _texture(rng, size, _colour(_CLOTH, rng), rng.uniform(2, 8))
    if rng.random() < 0.5:  # stripes or checks
        period = rng.uniform(4, 14)
        ang = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        stripes = (np.sin((xx * np.cos(ang) + yy * np.sin(ang)) * 2 * np.pi / period) > 0).astype(np.float32)
        cloth = cloth + stripes[..., None] * rng.normal(0, 50, 3).astype(np.float32)
    folds = _smooth_noise(rng, size, size / 8)
    cloth = cloth * (1.0 + 1.2 * folds[..., None])
    if rng.random() < 0.6:
        m = _blob(size, rng, fingers=False)[..., None]
        return np.asarray(_felt(rng, size) * (1 - m) + cloth * m, np.float32)
    return cloth


def _rim(rng: np.random.Generator, size: int) -> F32:
    """A table rim: wood or plastic in bands with a hard edge onto the felt, at any angle."""
    img = _felt(rng, size)
    wood = _texture(rng, size, _colour(_WOOD, rng), rng.uniform(2, 6))
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    d = (xx - size / 2) * np.cos(ang) + (yy - size / 2) * np.sin(ang) - rng.uniform(-0.4, 0.4) * size
    grain = np.sin(d * rng.uniform(0.3, 1.2) + rng.uniform(0, 6)) * rng.uniform(0, 12)
    m = (d > 0).astype(np.float32)[..., None]
    band = ((d > 0) & (d < rng.uniform(2, 8))).astype(np.float32)[..., None] * rng.uniform(-60, 60)
    return np.asarray(img * (1 - m) + (wood + grain[..., None]) * m + band, np.float32)


_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.28, 0.28), (0.72, 0.72)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.28, 0.22), (0.72, 0.22), (0.28, 0.5), (0.72, 0.5), (0.28, 0.78), (0.72, 0.78)],
}


def _dice(rng: np.random.Generator, size: int) -> F32:
    """One or two dice on the felt: a rounded white or coloured cube face with solid pips, a darker side."""
    img = np.ascontiguousarray(_felt(rng, size), np.float32)
    for _ in range(int(rng.integers(1, 3))):
        s = rng.uniform(0.3, 0.8) * size
        x0, y0 = rng.uniform(-0.1, 1.0) * size - s / 2, rng.uniform(-0.1, 1.0) * size - s / 2
        body = np.asarray((235, 238, 240) if rng.random() < 0.7 else _colour(_CLOTH, rng), np.float32)
        side = int(s * rng.uniform(0.05, 0.2))
        r = max(1, int(s * 0.15))
        rect = np.zeros((size, size), np.float32)
        p0, p1 = (int(x0) + side, int(y0) + side), (int(x0 + s) + side, int(y0 + s) + side)
        cv2.rectangle(rect, p0, p1, 1.0, -1)
        img = np.ascontiguousarray(img * (1 - rect[..., None]) + body * 0.6 * rect[..., None], np.float32)
        top = np.zeros((size, size), np.float32)
        cv2.rectangle(top, (int(x0) + r, int(y0)), (int(x0 + s) - r, int(y0 + s)), 1.0, -1)
        cv2.rectangle(top, (int(x0), int(y0) + r), (int(x0 + s), int(y0 + s) - r), 1.0, -1)
        top = np.asarray(cv2.GaussianBlur(top, (0, 0), 0.7), np.float32)
        img = np.ascontiguousarray(img * (1 - top[..., None]) + body * top[..., None], np.float32)
        n = int(rng.integers(1, 7))
        pip = (30, 30, 200) if n in (1, 4) and rng.random() < 0.7 else (25, 25, 25)
        for px, py in _PIPS[n]:
            cv2.circle(img, (int(x0 + px * s), int(y0 + py * s)), max(1, int(s * (0.12 if n == 1 else 0.08))), pip, -1)
    return np.asarray(img, np.float32)


def _blank(rng: np.random.Generator, size: int) -> F32:
    """A flat image of any colour (white, black, grey, felt ...), sometimes with a little noise or a gradient."""
    grey = np.full(3, rng.uniform(0, 255), np.float32)
    colour = rng.uniform(0, 255, 3).astype(np.float32) if rng.random() < 0.5 else grey
    if rng.random() < 0.4:
        return np.array(np.broadcast_to(colour, (size, size, 3)), np.float32)
    return _texture(rng, size, colour, rng.uniform(0, 4))


def _tiny(rng: np.random.Generator, size: int) -> F32:
    """A 2..6 px image (random colours, or a blank) scaled up to ``size`` as the classifier's resize does."""
    n = int(rng.integers(2, 7))
    small = rng.uniform(0, 255, (n, n, 3)).astype(np.float32)
    if rng.random() < 0.5:
        small[:] = rng.uniform(0, 255)
    return np.asarray(cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR), np.float32)


def _clutter(rng: np.random.Generator, size: int) -> F32:
    """Random strokes and shapes on felt or a blank: no tile's layout."""
    img = np.ascontiguousarray(_felt(rng, size) if rng.random() < 0.5 else _blank(rng, size), np.float32)
    for _ in range(int(rng.integers(1, 6))):
        colour = tuple(float(v) for v in rng.uniform(0, 255, 3))
        p = [int(v) for v in rng.uniform(0, size, 4)]
        if rng.random() < 0.5:
            cv2.line(img, (p[0], p[1]), (p[2], p[3]), colour, int(rng.integers(1, 5)))
        else:
            cv2.circle(img, (p[0], p[1]), int(rng.integers(2, max(3, size // 3))), colour, int(rng.choice([-1, 1, 2])))
    return img


def negative(kind: str, rng: np.random.Generator, size: int = 48) -> Image:
    """One not-a-tile image of ``kind`` (one of KINDS), BGR uint8 ``size`` x ``size``."""
    if kind == "felt":
        f = _felt(rng, size)
    elif kind == "hand":
        f = _hand(rng, size)
    elif kind == "sleeve":
        f = _sleeve(rng, size)
    elif kind == "rim":
        f = _rim(rng, size)
    elif kind == "dice":
        f = _dice(rng, size)
    elif kind == "blank":
        f = _blank(rng, size)
    elif kind == "tiny":
        f = _tiny(rng, size)
    elif kind == "transparent":  # a fully transparent PNG as the classifier flattens it (preprocess.as_bgr)
        from vision.classifier.preprocess import TRANSPARENT_BACKGROUND

        f = np.array(np.broadcast_to(np.asarray(TRANSPARENT_BACKGROUND, np.float32), (size, size, 3)), np.float32)
    elif kind == "clutter":
        f = _clutter(rng, size)
    else:
        raise ValueError(f"unknown negative kind {kind!r} (known: {', '.join(KINDS)})")
    return np.asarray(np.clip(np.rint(f), 0, 255).astype(np.uint8), np.uint8)
