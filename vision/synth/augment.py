"""Camera-like augmentation of rendered tiles, producing classifier-sized training crops.

``augment(tile, rng, size=48, neighbours=())`` turns an upright rendered tile (``render_tile_face``) into the
kind of crop the table pipeline cuts from a camera frame: any 90-degree rotation (claimed tiles lie sideways;
a landscape crop is squashed to a square exactly as the classifier's preprocessing does), loose or tight
framing with felt around, the neighbouring tiles of a pond row touching it, the tile's two-layer side seen
past one edge, perspective and small skew, glare, lighting gradients and colour casts, shadows, low
resolution, blur, sensor noise, JPEG artefacts and partial occlusion by a finger.  Pure function of its
inputs and ``rng``; any thread.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

#: Felt colours (BGR) of common tables: green, blue, dark grey, red-brown, beige.
_FELTS = ((60, 110, 30), (120, 70, 20), (70, 70, 70), (40, 50, 120), (150, 180, 190), (90, 120, 60))
_SKIN = ((120, 150, 200), (80, 110, 160), (60, 80, 110))
#: Back-layer colours of two-layer tiles (BGR): green, blue, orange, yellow, pink.
_BACKS = ((60, 140, 40), (170, 90, 30), (40, 130, 230), (60, 200, 230), (170, 140, 240))


def _felt(rng: np.random.Generator, h: int, w: int) -> npt.NDArray[np.float32]:
    base = np.asarray(_FELTS[int(rng.integers(len(_FELTS)))], np.float32) + rng.normal(0, 15, 3).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img += rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    return img


def _tile_side(canvas: npt.NDArray[np.float32], rng: np.random.Generator, pad: int, th: int, tw: int) -> None:
    """Draw the tile's side beyond one edge, as a camera off the vertical sees it: ivory, then the coloured back."""
    depth = max(2, int(rng.uniform(0.06, 0.2) * min(th, tw)))
    ivory = np.asarray((195, 222, 235), np.float32) * rng.uniform(0.7, 0.95)
    back = np.asarray(_BACKS[int(rng.integers(len(_BACKS)))], np.float32) * rng.uniform(0.6, 0.95)
    split = rng.uniform(0.4, 0.7)
    side = int(rng.integers(4))
    for k in range(depth):
        colour = ivory if k < split * depth else back
        if side == 0:
            canvas[pad : pad + th, pad - 1 - k] = colour
        elif side == 1:
            canvas[pad : pad + th, pad + tw + k] = colour
        elif side == 2:
            canvas[pad - 1 - k, pad : pad + tw] = colour
        else:
            canvas[pad + th + k, pad : pad + tw] = colour


def _neighbours(
    canvas: npt.NDArray[np.float32],
    rng: np.random.Generator,
    pad: int,
    shape: tuple[int, int],
    faces: Sequence[Image],
) -> None:
    """Paste other tiles (from ``faces``) next to the upright tile at ``pad``: left/right as in a pond row (0-2 px
    apart, a little out of line), sometimes above/below as the neighbouring rows; only their near parts show."""
    uh, uw = shape
    ch, cw = canvas.shape[:2]
    for side in range(4):
        if rng.random() >= (0.7 if side < 2 else 0.2):
            continue
        face = faces[int(rng.integers(len(faces)))]
        other = np.asarray(cv2.resize(face.astype(np.float32), (uw, uh), interpolation=cv2.INTER_AREA), np.float32)
        gap = int(rng.integers(0, 3)) if side < 2 else int(rng.integers(1, 6))
        dy, dx = int(rng.normal(0, 0.03) * uh), int(rng.normal(0, 0.03) * uw)
        x, y = {0: (pad - gap - uw + dx, pad + dy), 1: (pad + uw + gap + dx, pad + dy)}.get(
            side, (pad + dx, pad - gap - uh + dy) if side == 2 else (pad + dx, pad + uh + gap + dy)
        )
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + uw, cw), min(y + uh, ch)
        if x1 > x0 and y1 > y0:
            canvas[y0:y1, x0:x1] = other[y0 - y : y1 - y, x0 - x : x1 - x]


def augment(tile: Image, rng: np.random.Generator, size: int = 48, neighbours: Sequence[Image] = ()) -> Image:
    """A ``size`` x ``size`` BGR uint8 crop of ``tile`` as a camera would show it (see module docstring).

    ``neighbours``: upright faces of the same set that may be drawn touching it, as in a pond row."""
    turns = int(rng.integers(4))
    # work near the output scale (the longest side about twice the crop size), upright until the turn below
    up = tile.astype(np.float32)
    scale = 2 * size / max(up.shape[:2])
    new_size = (max(2, int(up.shape[1] * scale)), max(2, int(up.shape[0] * scale)))
    up = np.asarray(cv2.resize(up, new_size, interpolation=cv2.INTER_AREA), np.float32)
    uh, uw = up.shape[:2]
    pad = int(0.25 * max(uh, uw))
    canvas = _felt(rng, uh + 2 * pad, uw + 2 * pad)
    if neighbours and rng.random() < 0.5:  # the tiles next to it in a pond row (and the rows above/below)
        _neighbours(canvas, rng, pad, up.shape[:2], neighbours)
    elif rng.random() < 0.25:  # a plain tile body touching one side
        side = int(rng.integers(4))
        body = np.asarray((200, 228, 240), np.float32) + rng.normal(0, 10, 3).astype(np.float32)
        if side == 0:
            canvas[:, : pad - 1] = body
        elif side == 1:
            canvas[:, pad + uw + 1 :] = body
        elif side == 2:
            canvas[: pad - 1] = body
        else:
            canvas[pad + uh + 1 :] = body
    canvas[pad : pad + uh, pad : pad + uw] = up
    if rng.random() < 0.3:
        _tile_side(canvas, rng, pad, uh, uw)
    # any quarter turn (claimed tiles lie sideways); the tile stays centred with ``pad`` of felt on every side
    canvas = np.ascontiguousarray(np.rot90(canvas, turns))
    th, tw = (uw, uh) if turns % 2 else (uh, uw)
    # source quad: the tile's corners, each side moved out (loose crop) or in (tight crop), jittered
    m = rng.uniform(-0.05, 0.12, 4) * np.array([tw, th, tw, th])
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
    if rng.random() < 0.15:  # specular glare of an overhead lamp on a glossy face
        centre = (int(rng.integers(size)), int(rng.integers(size)))
        axes = (int(size * rng.uniform(0.08, 0.3)), int(size * rng.uniform(0.04, 0.12)))
        glare = np.zeros((size, size), np.float32)
        cv2.ellipse(glare, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        glare = np.asarray(cv2.GaussianBlur(glare, (0, 0), size * 0.04), np.float32)
        out = out + (glare * np.float32(rng.uniform(60, 160)))[..., None]
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
