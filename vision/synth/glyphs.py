"""Font glyphs and drawing primitives for the synthetic tile renderer.

Glyphs come from fonts installed by Debian packages (fonts-noto-cjk, fonts-wqy-zenhei, fonts-arphic-ukai /
uming, fonts-symbola).  A glyph is rendered once with Pillow into a float32 coverage mask (0..1) and cached;
callers scale it into a box and paint it in an ink colour.  Pure functions; the caches are guarded by the
GIL (lru_cache), so any thread may call them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont

Canvas = npt.NDArray[np.float32]
Mask = npt.NDArray[np.float32]
Colour = tuple[float, float, float]

#: Font files by short name: (path, face index inside a .ttc collection).  Index 3 of the Noto CJK
#: collections is the Traditional Chinese face (萬, 蘭, 發).
FONTS: dict[str, tuple[str, int]] = {
    "noto-serif": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 3),
    "noto-sans": ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 3),
    "noto-serif-regular": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 3),
    "wqy": ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    "kai": ("/usr/share/fonts/truetype/arphic/ukai.ttc", 0),
    "ming": ("/usr/share/fonts/truetype/arphic/uming.ttc", 0),
    "symbola": ("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf", 0),
}


class FontMissingError(FileNotFoundError):
    """A font file needed by a rendering style is not installed."""


def font_available(name: str) -> bool:
    """True when the font file ``name`` (a key of FONTS) exists on this machine."""
    return Path(FONTS[name][0]).is_file()


@lru_cache(maxsize=16)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    path, index = FONTS[name]
    if not Path(path).is_file():
        raise FontMissingError(f"font {name!r} is not installed ({path}); install its Debian package")
    return ImageFont.truetype(path, size, index=index)


@lru_cache(maxsize=4096)
def glyph(font: str, text: str) -> Mask:
    """Coverage mask (float32 0..1) of ``text`` in ``font``, cropped to its ink bounding box."""
    f = _font(font, 160)
    img = PILImage.new("L", (420, 260), 0)
    ImageDraw.Draw(img).text((30, 20), text, font=f, fill=255)
    arr = np.asarray(img, dtype=np.float32) / 255.0
    ys, xs = np.nonzero(arr > 0.05)
    if len(xs) == 0:
        raise FontMissingError(f"font {font!r} has no glyph for {text!r}")
    return np.ascontiguousarray(arr[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def paint(canvas: Canvas, mask: Mask, x: int, y: int, colour: Colour) -> None:
    """Blend ``colour`` into ``canvas`` (float32 HxWx3, 0..255) through ``mask`` placed at (x, y)."""
    h, w = mask.shape
    ch, cw = canvas.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, cw), min(y + h, ch)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y : y1 - y, x0 - x : x1 - x, None]
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1.0 - m) + np.asarray(colour, np.float32) * m


def paint_glyph(
    canvas: Canvas,
    font: str,
    text: str,
    box: tuple[int, int, int, int],
    colour: Colour,
    *,
    stretch: float = 0.0,
) -> None:
    """Paint ``text`` fitted into ``box`` = (x, y, w, h), centred; ``stretch`` 0..1 blends from keeping the
    glyph's aspect ratio (0) to filling the box exactly (1), as engraved tile characters often do."""
    m = glyph(font, text)
    bx, by, bw, bh = box
    gh, gw = m.shape
    s = min(bw / gw, bh / gh)
    w = round(gw * s + (bw - gw * s) * stretch)
    h = round(gh * s + (bh - gh * s) * stretch)
    w, h = max(w, 1), max(h, 1)
    scaled = np.asarray(cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA), dtype=np.float32)
    paint(canvas, scaled, bx + (bw - w) // 2, by + (bh - h) // 2, colour)


def shape_mask(h: int, w: int, draw: str, **kw: int) -> Mask:
    """A float mask with one anti-aliased cv2 shape: ``circle`` (cx, cy, r, t) or ``rect`` (x0, y0, x1, y1, t)."""
    m = np.zeros((h * 4, w * 4), np.uint8)
    t = kw.get("t", -1)
    t4 = t * 4 if t > 0 else -1
    if draw == "circle":
        cv2.circle(m, (kw["cx"] * 4, kw["cy"] * 4), kw["r"] * 4, 255, t4, cv2.LINE_AA)
    else:
        cv2.rectangle(m, (kw["x0"] * 4, kw["y0"] * 4), (kw["x1"] * 4, kw["y1"] * 4), 255, t4, cv2.LINE_AA)
    small = cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)
    return np.asarray(small, dtype=np.float32) / 255.0
