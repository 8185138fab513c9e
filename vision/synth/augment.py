"""Camera-like augmentation of rendered tiles, producing classifier-sized training crops.

``augment(tile, rng, size=48, neighbours=())`` turns an upright rendered tile (``render_tile_face``) into the
kind of crop the table pipeline cuts from a camera frame: the tile (rounded corners, felt showing between
them) lying on felt with a soft shadow, seen by an overhead camera, so that past the edges facing the camera
its two-layer side shows as a strip (up to about a third of the tile's width at the table's edge, darker
than the top, body-coloured near the top and the back's colour below it; the other way round for a face-down
tile), the neighbouring tiles of a pond row touching it (with their own sides), loose or tight framing that
sometimes takes in part of the side, any 90-degree rotation (claimed tiles lie sideways; the crop is squashed
to a square exactly as the classifier's preprocessing squashes the pipeline's 48 x 64 crop), perspective
and small skew, glare and broad lamp reflections, lighting gradients and colour casts, shadows, low
resolution, blur, sensor noise, JPEG artefacts and partial occlusion by a finger.  Pure function of its
inputs and ``rng``; any thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from vision.synth.surface import CORNER_RADIUS, outline_distance

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

#: Felt colours (BGR) of common tables: green, blue, dark grey, red-brown, beige.
_FELTS = ((60, 110, 30), (120, 70, 20), (70, 70, 70), (40, 50, 120), (150, 180, 190), (90, 120, 60))
_SKIN = ((120, 150, 200), (80, 110, 160), (60, 80, 110))
#: Back-layer colours of two-layer tiles (BGR): green, blue, orange, yellow, pink, dark green.
_BACKS = ((60, 140, 40), (170, 90, 30), (40, 130, 230), (60, 200, 230), (170, 140, 240), (40, 90, 20))
#: Body colours (BGR) of the face layer, seen on the side of a face-down tile: ivory, white, cream.
_BODIES = ((200, 232, 245), (235, 240, 242), (190, 225, 240))


@lru_cache(maxsize=1)
def _grain() -> F32:
    """A fixed 256 x 256 field of Gaussian noise (felt texture, sigma 6 levels, the same in the three channels);
    windows of it are cut at random offsets."""
    g = np.random.default_rng(12345).standard_normal((256, 256, 1), dtype=np.float32) * np.float32(6.0)
    g3 = np.ascontiguousarray(np.repeat(g, 3, axis=2))
    g3.setflags(write=False)
    return g3


def _felt(rng: np.random.Generator, h: int, w: int) -> F32:
    base = np.asarray(_FELTS[int(rng.integers(len(_FELTS)))], np.float32) + rng.normal(0, 15, 3).astype(np.float32)
    grain = _grain()
    if h > grain.shape[0] or w > grain.shape[1]:  # crops far above the classifier's size: fresh noise
        return np.asarray(rng.standard_normal((h, w, 1), dtype=np.float32) * np.float32(6.0) + base, np.float32)
    y, x = int(rng.integers(grain.shape[0] - h + 1)), int(rng.integers(grain.shape[1] - w + 1))
    # as rows of w * 3 values: numpy broadcasting over a 3-long last axis would be ten times slower
    rows = grain.reshape(grain.shape[0], -1)[y : y + h, 3 * x : 3 * (x + w)]
    return np.asarray(rows + np.tile(base, w), np.float32).reshape(h, w, 3)


@lru_cache(maxsize=32)
def _top_alpha(h: int, w: int) -> F32:
    """Coverage (0..1) of a tile's rounded top outline in an ``h`` x ``w`` image (read-only, cached)."""
    dist, _, _ = outline_distance(h, w, CORNER_RADIUS * w)
    alpha = np.asarray(np.clip(0.5 - dist, 0.0, 1.0)[..., None], np.float32)
    alpha.setflags(write=False)
    return alpha


def _edge_colour(top: F32) -> F32:
    """The colour of a tile's top near its edges (median of a band 5-12 % in from the outline)."""
    h, w = top.shape[:2]
    a, b = max(1, int(0.05 * w)), max(2, int(0.12 * w))
    band = np.concatenate(
        [
            top[a:b, a : w - a].reshape(-1, 3),
            top[h - b : h - a, a : w - a].reshape(-1, 3),
            top[a : h - a, a:b].reshape(-1, 3),
            top[a : h - a, w - b : w - a].reshape(-1, 3),
        ]
    )
    return np.asarray(np.median(band, axis=0), np.float32)


def is_body_colour(colour: F32) -> bool:
    """True for an ivory/white body colour (bright, unsaturated); False for a coloured back (or a dark body)."""
    hi, lo = float(colour.max()), float(colour.min())
    return hi > 140 and (hi - lo) / hi < 0.3


def side_layers(top_colour: F32, rng: np.random.Generator) -> tuple[F32, F32, float]:
    """The two layers of a tile's side below a top of ``top_colour`` (BGR): (near layer, far layer, the fraction
    of the side's height the near layer takes).  A face-up tile's top is its body, so the near layer is the body
    and the far one a back colour; a face-down tile shows its back on top and the body below it."""
    face_up = is_body_colour(top_colour)
    other = _BACKS if face_up else _BODIES
    far = np.asarray(other[int(rng.integers(len(other)))], np.float32) + rng.normal(0, 10, 3).astype(np.float32)
    split = rng.uniform(0.45, 0.7) if face_up else rng.uniform(0.3, 0.55)
    return top_colour, far, float(split)


class _Side:
    """The visible part of a tile's side: the bottom outline is the top's moved by ``offset`` (pixels) in the
    image; the layers of ``side_layers``, each face (past a vertical and a horizontal edge) shaded on its own."""

    def __init__(self, rng: np.random.Generator, offset: tuple[float, float], top_colour: F32) -> None:
        self.offset = offset
        self.near, self.far, self.split = side_layers(top_colour, rng)
        # vertical faces lit from above: darker than the top, each face its own shade
        self.shades = rng.uniform(0.45, 0.85, 2)

    def paint(self, canvas: F32, x: float, y: float, w: float, h: float) -> None:
        """Paint the side of the tile whose top spans (x, y, w, h) on ``canvas`` (before its top is pasted)."""
        ox, oy = self.offset
        faces = []
        if abs(ox) >= 0.5:
            ex = x + w if ox > 0 else x
            faces.append(((ex, y), (ex, y + h), self.shades[0]))
        if abs(oy) >= 0.5:
            ey = y + h if oy > 0 else y
            faces.append(((x, ey), (x + w, ey), self.shades[1]))
        for (ax, ay), (bx, by), shade in faces:
            for frac, colour in ((1.0, self.far), (self.split, self.near)):
                quad = np.array(
                    [[ax, ay], [bx, by], [bx + frac * ox, by + frac * oy], [ax + frac * ox, ay + frac * oy]]
                )
                colour_s = tuple(float(c) for c in colour * shade)
                cv2.fillPoly(canvas, [np.round(quad * 4).astype(np.int32)], colour_s, cv2.LINE_AA, 2)


def _paste_top(canvas: F32, top: F32, x: int, y: int) -> None:
    """Paste a tile's top (rounded corners let the canvas show through) with its top-left corner at (x, y)."""
    th, tw = top.shape[:2]
    ch, cw = canvas.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + tw, cw), min(y + th, ch)
    if x1 <= x0 or y1 <= y0:
        return
    alpha = _top_alpha(th, tw)
    r = int(np.ceil(CORNER_RADIUS * tw)) + 1  # only the corner squares are partly transparent
    corners = []
    for cy in (0, th - r):
        for cx in (0, tw - r):
            a0, b0 = max(y + cy, y0), max(x + cx, x0)
            a1, b1 = min(y + cy + r, y1), min(x + cx + r, x1)
            if a1 > a0 and b1 > b0:
                corners.append((a0, a1, b0, b1, canvas[a0:a1, b0:b1].copy()))
    canvas[y0:y1, x0:x1] = top[y0 - y : y1 - y, x0 - x : x1 - x]
    for a0, a1, b0, b1, under in corners:
        a = alpha[a0 - y : a1 - y, b0 - x : b1 - x]
        canvas[a0:a1, b0:b1] = under * (1 - a) + top[a0 - y : a1 - y, b0 - x : b1 - x] * a


def _side_offset(rng: np.random.Generator, w: int) -> tuple[float, float]:
    """Where the camera sees the tile's side: mostly past one edge (the tile faces the table's centre), up to
    35 % of the tile's width; else at any angle (two sides)."""
    depth = rng.uniform(0.02, 0.35) * w
    axis = int(rng.integers(4)) * np.pi / 2
    angle = axis + rng.normal(0, 0.35) if rng.random() < 0.7 else rng.uniform(0, 2 * np.pi)
    return float(depth * np.cos(angle)), float(depth * np.sin(angle))


def _neighbour_places(rng: np.random.Generator, pad: int, uh: int, uw: int) -> list[tuple[int, int]]:
    """Top-left corners of the tiles touching the upright tile at (pad, pad): left/right as in a pond row (0-2 px
    apart, a little out of line), sometimes above/below as the neighbouring rows."""
    out = []
    for side in range(4):
        if rng.random() >= (0.7 if side < 2 else 0.2):
            continue
        gap = int(rng.integers(0, 3)) if side < 2 else int(rng.integers(1, 6))
        dy, dx = int(rng.normal(0, 0.03) * uh), int(rng.normal(0, 0.03) * uw)
        if side == 0:
            out.append((pad - gap - uw + dx, pad + dy))
        elif side == 1:
            out.append((pad + uw + gap + dx, pad + dy))
        elif side == 2:
            out.append((pad + dx, pad - gap - uh + dy))
        else:
            out.append((pad + dx, pad + uh + gap + dy))
    return out


def _scene(
    tile: F32, rng: np.random.Generator, pad: int, neighbours: Sequence[Image]
) -> tuple[F32, tuple[float, float] | None]:
    """The upright tile at (pad, pad) on felt, with its side, shadow and neighbours; returns (canvas, side offset
    or None when no side shows)."""
    uh, uw = tile.shape[:2]
    canvas = _felt(rng, uh + 2 * pad, uw + 2 * pad)
    offset = _side_offset(rng, uw) if rng.random() < 0.65 else None
    side = _Side(rng, offset, _edge_colour(tile)) if offset is not None else None
    places = _neighbour_places(rng, pad, uh, uw) if neighbours and rng.random() < 0.5 else []
    if rng.random() < 0.5:  # soft shadow of the tile (and its neighbours) on the felt
        mask = np.zeros(canvas.shape[:2], np.float32)
        sx, sy = (int(v) for v in rng.normal(0, 0.06 * uw, 2))
        for px, py in [(pad, pad), *places]:
            cv2.rectangle(mask, (px + sx, py + sy), (px + sx + uw, py + sy + uh), 1.0, -1)
        mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), 0.08 * uw), np.float32)
        canvas *= (1.0 - rng.uniform(0.2, 0.5) * mask)[..., None]
    if not places and rng.random() < 0.25:  # a plain tile body touching one side
        body = np.asarray((200, 228, 240), np.float32) + rng.normal(0, 10, 3).astype(np.float32)
        edge = int(rng.integers(4))
        if edge == 0:
            canvas[:, : pad - 1] = body
        elif edge == 1:
            canvas[:, pad + uw + 1 :] = body
        elif edge == 2:
            canvas[: pad - 1] = body
        else:
            canvas[pad + uh + 1 :] = body
    # painter's order: tiles lie at one height and their sides extend towards ``offset``, so a tile further along
    # the offset hides the side of the one before it
    ox, oy = offset if offset is not None else (0.0, 0.0)
    items = [(0.0, tile, pad, pad)]
    for px, py in places:
        face = neighbours[int(rng.integers(len(neighbours)))]
        other = face.astype(np.float32)
        if other.shape[:2] != (uh, uw):
            other = np.asarray(cv2.resize(other, (uw, uh), interpolation=cv2.INTER_AREA), np.float32)
        items.append(((px - pad) * ox + (py - pad) * oy, other, px, py))
    for _, top, px, py in sorted(items, key=lambda item: item[0]):
        if side is not None:
            side.paint(canvas, px, py, uw, uh)
        _paste_top(canvas, top, px, py)
    return canvas, offset


@lru_cache(maxsize=4)
def _grid(size: int) -> tuple[F32, F32]:
    """Pixel coordinates (y, x) of a ``size`` x ``size`` crop divided by ``size`` (read-only, cached)."""
    grid = np.mgrid[0:size, 0:size].astype(np.float32) / np.float32(size)
    yy, xx = np.ascontiguousarray(grid[0]), np.ascontiguousarray(grid[1])
    yy.setflags(write=False)
    xx.setflags(write=False)
    return yy, xx


def _light(out: F32, rng: np.random.Generator, size: int) -> F32:
    """Lighting: a gradient across the crop, gain and colour cast, shadows, a fingertip, glare and reflections,
    gamma."""
    yy, xx = _grid(size)
    gx, gy = rng.normal(0, 0.2, 2)
    gain = rng.uniform(0.6, 1.25) * (1 + gx * (xx - 0.5) + gy * (yy - 0.5))
    # colour cast of the lamp and the camera's white balance: mostly along the warm-cool (red-blue) axis, a
    # little green-magenta tint and per-channel sensor spread; never the strong magenta that would make an ivory
    # face look like a pink back
    warm, tint = rng.uniform(-0.15, 0.15), rng.uniform(-0.04, 0.04)
    cast = np.array([1 - warm, 1 + tint, 1 + warm]) * rng.uniform(0.97, 1.03, 3)
    out *= gain[..., None] * cast.astype(np.float32)
    if rng.random() < 0.3:  # the shadow of a hand or an arm over part of the tile, its edge a little soft
        p = rng.uniform(0, size, (3, 2)).astype(np.int32)
        shadow = np.zeros((size, size), np.float32)
        cv2.fillPoly(shadow, [np.vstack([p, [[int(rng.integers(2)) * size, int(rng.integers(2)) * size]]])], 1.0)
        shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), rng.uniform(0.3, 2.0)), np.float32)
        out *= (1.0 - (1.0 - rng.uniform(0.55, 0.85)) * shadow)[..., None]
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
    elif rng.random() < 0.2:  # a broad soft reflection of the lamp: part of the face washed out towards white
        cx, cy = rng.uniform(0, 1, 2)
        spread = rng.uniform(0.2, 0.5)
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * spread * spread)) * rng.uniform(0.15, 0.45)
        out = out + (255.0 - np.clip(out, 0, 255)) * blob[..., None].astype(np.float32)
    return np.asarray(np.clip(255.0 * (np.clip(out, 0, 255) / 255.0) ** rng.uniform(0.8, 1.25), 0, 255), np.float32)


def working_scale(tile: Image, size: int) -> F32:
    """``tile`` (float32) at the scale the augmentation works at for ``size`` px crops: its longest side about
    twice the crop's (INTER_AREA); a tile already at that scale is only converted.  Training keeps its face pool at
    this scale so that the resize is done once per face, not once per sample."""
    scale = 2 * size / max(tile.shape[:2])
    new_size = (max(2, int(tile.shape[1] * scale)), max(2, int(tile.shape[0] * scale)))
    up = tile.astype(np.float32)
    if (up.shape[1], up.shape[0]) == new_size:
        return up
    return np.asarray(cv2.resize(up, new_size, interpolation=cv2.INTER_AREA), np.float32)


def _geometry(tile: Image, rng: np.random.Generator, size: int, neighbours: Sequence[Image]) -> F32:
    """The tile on the table as the pipeline cuts it out: a ``size`` x ``size`` float32 crop, still upright."""
    # work near the output scale (the longest side about twice the crop size)
    up = working_scale(tile, size)
    uh, uw = up.shape[:2]
    pad = int(0.25 * max(uh, uw))
    canvas, offset = _scene(up, rng, pad, neighbours)
    # source quad: the tile's corners, each side moved out (loose crop) or in (tight crop), jittered; the
    # segmentation sometimes takes part of the side for the top, so the crop grows towards it
    m = rng.uniform(-0.05, 0.12, 4) * np.array([uw, uh, uw, uh])
    if offset is not None and rng.random() < 0.3:
        grow = rng.uniform(0.0, 0.4)
        ox, oy = offset
        m += grow * np.array([max(-ox, 0), max(-oy, 0), max(ox, 0), max(oy, 0)])
    j = rng.normal(0, 0.025, (4, 2)) * np.array([uw, uh])
    x0, y0, x1, y1 = pad - m[0], pad - m[1], pad + uw + m[2], pad + uh + m[3]
    src = (np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) + j).astype(np.float32)
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    warp = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(canvas, warp, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
    return np.asarray(out, np.float32)


def _camera(crop: F32, rng: np.random.Generator, size: int, low_res_p: float = 0.5, blur_p: float = 0.4) -> Image:
    """The upright crop turned by a random quarter turn (claimed tiles lie sideways), lit, and through the
    camera: low resolution (odds ``low_res_p``), blur (odds ``blur_p``), sensor noise, JPEG."""
    turns = int(rng.integers(4))
    out = _light(np.ascontiguousarray(np.rot90(crop, turns)), rng, size)
    if rng.random() < low_res_p:  # low resolution: the tile covered few camera pixels
        low = int(rng.uniform(0.45, 0.9) * size)
        small = cv2.resize(out, (low, low), interpolation=cv2.INTER_AREA)
        out = np.asarray(cv2.resize(small, (size, size)), np.float32)
    if rng.random() < blur_p:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.0)), np.float32)
    out = out + rng.standard_normal(out.shape, dtype=np.float32) * np.float32(rng.uniform(0, 7))
    img = np.asarray(np.clip(out, 0, 255).astype(np.uint8), dtype=np.uint8)
    if rng.random() < 0.4:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 92))])
        if ok:
            img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)
    return img


def augment(tile: Image, rng: np.random.Generator, size: int = 48, neighbours: Sequence[Image] = ()) -> Image:
    """A ``size`` x ``size`` BGR uint8 crop of ``tile`` as a camera would show it (see module docstring).

    ``neighbours``: upright faces of the same set that may be drawn touching it, as in a pond row."""
    return _camera(_geometry(tile, rng, size, neighbours), rng, size)


def augment_views(
    tile: Image, rng: np.random.Generator, size: int = 48, neighbours: Sequence[Image] = (), views: int = 2
) -> list[Image]:
    """``views`` crops of one placement of ``tile`` on the table (the same felt, neighbours, side and framing),
    each turned, lit and filmed afresh: cheaper than ``views`` calls of ``augment`` (the scene is built once),
    for training with repeated augmentation."""
    crop = _geometry(tile, rng, size, neighbours)
    return [_camera(crop, rng, size) for _ in range(views)]


def film(crop: F32, rng: np.random.Generator, size: int = 48, *, low_res_p: float = 0.5, blur_p: float = 0.4) -> Image:
    """An already framed ``size`` x ``size`` float32 crop (a photographed tile, see ``vision.realdata``) turned by a
    random quarter turn, lit and filmed as ``augment`` does to a rendered one; ``low_res_p`` and ``blur_p``: the
    odds of the low-resolution and blur steps (a photograph is already blurred and sampled once)."""
    return _camera(crop, rng, size, low_res_p, blur_p)
