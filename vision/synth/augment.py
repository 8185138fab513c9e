"""Camera-like augmentation of rendered tiles, producing classifier-sized training crops.

``augment(tile, rng, size=48)`` turns an upright rendered tile (``render_tile_face``) into the kind of crop the
table pipeline cuts from a camera frame: any 90-degree rotation (claimed tiles lie sideways; a landscape crop
is squashed to a square exactly as the classifier's preprocessing does), loose or tight framing with felt
around, perspective and small skew, lighting gradients and colour casts, shadows, low resolution, blur,
sensor noise, JPEG artefacts and partial occlusion by a finger.  Pure function of its inputs and ``rng``;
any thread.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

#: Felt colours (BGR) of common tables: green, blue, dark grey, red-brown, beige.
_FELTS = ((60, 110, 30), (120, 70, 20), (70, 70, 70), (40, 50, 120), (150, 180, 190), (90, 120, 60))
_SKIN = ((120, 150, 200), (80, 110, 160), (60, 80, 110))


def _felt(rng: np.random.Generator, h: int, w: int) -> npt.NDArray[np.float32]:
    base = np.asarray(_FELTS[int(rng.integers(len(_FELTS)))], np.float32) + rng.normal(0, 15, 3).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img += rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    return img


def augment(tile: Image, rng: np.random.Generator, size: int = 48) -> Image:
    """A ``size`` x ``size`` BGR uint8 crop of ``tile`` as a camera would show it (see module docstring)."""
    t = np.rot90(tile, int(rng.integers(4))).astype(np.float32)
    # work near the output scale: the longest side about twice the crop size
    th, tw = t.shape[:2]
    scale = 2 * size / max(th, tw)
    new_size = (max(2, int(tw * scale)), max(2, int(th * scale)))
    t = np.asarray(cv2.resize(t, new_size, interpolation=cv2.INTER_AREA), np.float32)
    th, tw = t.shape[:2]
    pad = int(0.25 * max(th, tw))
    canvas = _felt(rng, th + 2 * pad, tw + 2 * pad)
    if rng.random() < 0.25:  # a neighbouring tile touching one side, as in a pond row
        side = int(rng.integers(4))
        body = np.asarray((200, 228, 240), np.float32) + rng.normal(0, 10, 3).astype(np.float32)
        if side == 0:
            canvas[:, : pad - 1] = body
        elif side == 1:
            canvas[:, pad + tw + 1 :] = body
        elif side == 2:
            canvas[: pad - 1] = body
        else:
            canvas[pad + th + 1 :] = body
    canvas[pad : pad + th, pad : pad + tw] = t
    # source quad: the tile's corners, each side moved out (loose crop) or in (tight crop), jittered
    m = rng.uniform(-0.04, 0.1, 4) * np.array([tw, th, tw, th])
    j = rng.normal(0, 0.025, (4, 2)) * np.array([tw, th])
    x0, y0, x1, y1 = pad - m[0], pad - m[1], pad + tw + m[2], pad + th + m[3]
    src = (np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) + j).astype(np.float32)
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    warp = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(canvas, warp, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
    out = np.asarray(out, np.float32)
    # lighting: a gradient across the crop, global gain, colour cast and gamma
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    gx, gy = rng.normal(0, 0.2, 2)
    gain = rng.uniform(0.6, 1.25) * (1 + gx * (xx - 0.5) + gy * (yy - 0.5))
    out *= gain[..., None] * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    if rng.random() < 0.3:  # a hard shadow over part of the tile
        p = rng.uniform(0, size, (3, 2)).astype(np.int32)
        shadow = np.zeros((size, size), np.uint8)
        cv2.fillPoly(shadow, [np.vstack([p, [[int(rng.integers(2)) * size, int(rng.integers(2)) * size]]])], 1)
        out[shadow.astype(bool)] *= rng.uniform(0.55, 0.85)
    if rng.random() < 0.12:  # a fingertip over an edge
        c = (int(rng.integers(size)), int(rng.choice([0, size])))
        if rng.random() < 0.5:
            c = (c[1], c[0])
        colour = tuple(float(v) for v in _SKIN[int(rng.integers(len(_SKIN)))])
        cv2.circle(out, c, int(size * rng.uniform(0.12, 0.25)), colour, -1)
    out = np.clip(255.0 * (np.clip(out, 0, 255) / 255.0) ** rng.uniform(0.8, 1.25), 0, 255)
    if rng.random() < 0.5:  # low resolution: the tile covered few camera pixels
        low = int(rng.uniform(0.45, 0.9) * size)
        out = cv2.resize(cv2.resize(out, (low, low), interpolation=cv2.INTER_AREA), (size, size))
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.0))
    out = out + rng.normal(0, rng.uniform(0, 7), out.shape)
    img = np.asarray(np.clip(out, 0, 255).astype(np.uint8), dtype=np.uint8)
    if rng.random() < 0.4:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 92))])
        if ok:
            img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)
    return img
