"""Physical look of a tile's top under a lamp: bevelled rounded edges, engraved relief, body texture, worn ink.

A real tile's top (26 x 35 mm) is a slab of ivory-coloured plastic (or bone) whose edges are rounded off
(a bevel about 1-2 mm wide and rounded corners); the face is engraved (cut into the surface) and the grooves
filled with ink.  Lit by a lamp above the table and filmed from above, that gives:

- the bevel: light falls off towards the edges (the surface turns away from the lamp), with a highlight along
  the edge that faces the lamp (``bevel``);
- engraving relief: each stroke is a groove, so a thin shadow lies along the stroke's side nearest the lamp and a
  highlight along the far side (``relief``; embossed marks, as on some backs, the other way round);
- a faintly uneven body (``texture``) and ink that is worn, faded, bled or slightly out of its groove
  (``wear_ink``).

Every function works on float32 BGR canvases (0..255) at the renderer's drawing scale.  ``Light`` is a unit
vector pointing from the tile towards the lamp in the tile's own frame (x right, y down, z up out of the face).
Pure functions of their inputs and ``rng``; any thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

Canvas = npt.NDArray[np.float32]
Field = npt.NDArray[np.float32]

#: Corner radius of a tile's top outline as a fraction of the tile's width (about 2.5 mm on a 26 mm tile);
#: ``vision.synth.augment`` cuts the same rounded corners out of the tile it places on the felt.
CORNER_RADIUS = 0.1


@dataclass(frozen=True, slots=True)
class Light:
    """Unit vector towards the lamp in the tile's frame (x right, y down, z out of the face)."""

    x: float
    y: float
    z: float

    @classmethod
    def random(cls, rng: np.random.Generator) -> Light:
        """A lamp above the table, seen from a tile anywhere on it: 10 to 50 degrees off the vertical."""
        tilt = np.radians(rng.uniform(10, 50))
        azimuth = rng.uniform(0, 2 * np.pi)
        return cls(float(np.sin(tilt) * np.cos(azimuth)), float(np.sin(tilt) * np.sin(azimuth)), float(np.cos(tilt)))


def smooth_field(rng: np.random.Generator, h: int, w: int, cells: int) -> Field:
    """Low-frequency noise in 0..1 (``cells`` random values across the shorter side, bicubic-upsampled)."""
    gh = max(2, round(cells * h / min(h, w)))
    gw = max(2, round(cells * w / min(h, w)))
    grid = rng.random((gh, gw), dtype=np.float32)
    up = np.asarray(cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)
    lo, hi = float(up.min()), float(up.max())
    return np.asarray((up - lo) / max(hi - lo, 1e-6), np.float32)


@lru_cache(maxsize=32)
def outline_distance(h: int, w: int, radius: float) -> tuple[Field, Field, Field]:
    """Signed distance (pixels, negative inside) to the rounded-rectangle outline of an ``h`` x ``w`` tile with
    corner ``radius``, and the outward unit normal (x, y) of the nearest outline point (cached, read-only)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    px, py = xs - (w - 1) / 2, ys - (h - 1) / 2
    qx = np.abs(px) - ((w - 1) / 2 - radius)
    qy = np.abs(py) - ((h - 1) / 2 - radius)
    ox, oy = np.maximum(qx, 0), np.maximum(qy, 0)
    corner = np.hypot(ox, oy)
    dist = corner + np.minimum(np.maximum(qx, qy), 0) - radius
    in_corner = (qx > 0) & (qy > 0)
    safe = np.maximum(corner, 1e-6)
    nx = np.where(in_corner, ox / safe, (qx >= qy).astype(np.float32)) * np.sign(px)
    ny = np.where(in_corner, oy / safe, (qy > qx).astype(np.float32)) * np.sign(py)
    out = (dist.astype(np.float32), nx.astype(np.float32), ny.astype(np.float32))
    for a in out:
        a.setflags(write=False)
    return out


def bevel(canvas: Canvas, light: Light, *, width: float, radius: float, gloss: float, outside: float = 0.45) -> None:
    """Shade ``canvas`` (the whole tile top, in place) for a rounded bevel ``width`` pixels wide and corners of
    ``radius`` pixels: Lambert shading of the rounded profile relative to the flat top, plus a specular line
    (``gloss`` 0..1) where the bevel faces the lamp.  Pixels outside the rounded outline (the corners) are
    darkened to ``outside`` of the body: the gap down to the felt, which ``augment`` replaces with felt."""
    h, w = canvas.shape[:2]
    dist_all, nx_all, ny_all = outline_distance(h, w, radius)
    band = dist_all > -width  # the flat top inside the bevel keeps its brightness: shade 1, no highlight
    dist, nx, ny = dist_all[band], nx_all[band], ny_all[band]
    t = np.clip(1.0 + dist / max(width, 1.0), 0.0, 1.0)  # 0 where the bevel starts, 1 at the outline
    sin_t = 0.92 * t * t  # a rounded profile: the slope steepens towards the edge
    cos_t = np.sqrt(1.0 - sin_t * sin_t)
    n_dot_l = sin_t * (nx * light.x + ny * light.y) + cos_t * light.z
    ambient = 0.35
    shade = (ambient + (1 - ambient) * np.maximum(n_dot_l, 0)) / (ambient + (1 - ambient) * light.z)
    # Blinn-Phong highlight relative to the flat top (camera straight above)
    hx, hy, hz = light.x, light.y, light.z + 1.0
    norm = float(np.sqrt(hx * hx + hy * hy + hz * hz))
    n_dot_h = (sin_t * (nx * hx + ny * hy) + cos_t * hz) / norm
    spec = np.clip(np.maximum(n_dot_h, 0) ** 40 - (hz / norm) ** 40, 0, 1) * gloss
    pixels = canvas[band] * shade[:, None]
    pixels += (255.0 - pixels) * spec[:, None]
    pixels[dist > 0] *= outside
    canvas[band] = pixels


def relief(canvas: Canvas, marks: Field, light: Light, *, depth: float, raised: bool = False) -> None:
    """Engraving relief (in place): ``marks`` (0..1, where the surface is cut) become grooves lit by ``light``:
    the wall nearest the lamp in shadow, the far wall lit (``raised``: the other way round).  ``depth`` scales
    the effect (about 1: a clear line of a few percent of the brightness either side of each stroke)."""
    m = np.asarray(cv2.GaussianBlur(marks, (0, 0), 1.2), np.float32)
    gx = np.asarray(cv2.Sobel(m, cv2.CV_32F, 1, 0, ksize=3), np.float32) / 8
    gy = np.asarray(cv2.Sobel(m, cv2.CV_32F, 0, 1, ksize=3), np.float32) / 8
    # the surface height is -marks (a groove): its normal tilts by +grad(marks), so the brightness changes by
    # grad(marks) . light: dark where the stroke ends towards the lamp (that wall faces away), bright on the far wall
    slope = (gx * light.x + gy * light.y) * (-1.0 if raised else 1.0)
    shade = np.clip(1.0 + depth * 1.6 * slope / max(light.z, 0.3), 0.55, 1.45)
    canvas *= shade[..., None]


def texture(canvas: Canvas, rng: np.random.Generator, *, amount: float) -> None:
    """A faintly uneven body (in place): low-frequency brightness variation of about ``amount`` (0.02: 2 %)
    plus a fine grain."""
    h, w = canvas.shape[:2]
    low = smooth_field(rng, h, w, int(rng.integers(3, 8))) - 0.5
    grain = rng.standard_normal((h // 2, w // 2), dtype=np.float32)
    grain = np.asarray(cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
    canvas *= (1.0 + 2 * amount * low + 0.4 * amount * grain)[..., None]


def wear_ink(ink: Canvas, rng: np.random.Generator) -> Canvas:
    """The ink layer (canvas minus bare body, may be negative) as a used set shows it: some sets' ink bled a
    little, sits slightly out of its groove, is faded overall or worn away in patches.  Returns a new array."""
    h, w = ink.shape[:2]
    out = ink
    if rng.random() < 0.3:  # bled: soft stroke edges
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), rng.uniform(0.6, 1.6)), np.float32)
    if rng.random() < 0.3:  # misregistered: the paint shifted a pixel or two (at 2x) off its groove
        m = np.array([[1, 0, rng.uniform(-3, 3)], [0, 1, rng.uniform(-3, 3)]], np.float32)
        out = np.asarray(cv2.warpAffine(out, m, (w, h), borderMode=cv2.BORDER_CONSTANT), np.float32)
    if rng.random() < 0.3:  # faded overall
        out = out * np.float32(rng.uniform(0.7, 0.95))
    if rng.random() < 0.3:  # worn away in patches
        field = smooth_field(rng, h, w, int(rng.integers(3, 9)))
        out = out * (1.0 - rng.uniform(0.2, 0.5) * field * field)[..., None]
    return np.asarray(out, np.float32)
