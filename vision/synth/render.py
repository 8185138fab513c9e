"""Synthetic mahjong tile renderer: one upright tile (body, rim and engraved face) per call.

``render_tile_face(code, style=None, rng=rng)`` returns a BGR uint8 image of ``TILE_H x TILE_W`` pixels
(portrait 3:4 like a 26 x 35 mm tile face seen from above), the whole image being the tile: a rim in a
darker body shade, the face inside.  Codes are the shared notation (``1m``..``7z``, ``0m 0p 0s`` red fives,
``1f``..``8f``) plus ``back`` (face-down tile).

Styles (``STYLES``, all used in training; ``HELD_OUT_STYLES`` are never trained on and stand for an
unseen venue set in the enrollment tests):

- ``cc0``: the CC0 riichi artwork (../shared/tiles/riichi-mahjong-tiles, Export/Regular) recoloured onto
  random ivory/white bodies; its flowers are drawn in the Chinese way (the artwork has none);
- ``cn-serif``, ``cn-sans``, ``cn-kai``, ``cn-wqy``: Chinese sets, faces drawn here (dots, bamboo, bird) with
  characters from Noto Serif/Sans CJK Bold, AR PL UKai and WenQuanYi Zen Hei, engraved red/green/blue;
- ``symbola``: the U+1F000 mahjong glyphs of Symbola, coloured by suit;
- one-colour sets: ``ONE_INK_P`` of the ``cn-*`` training styles' and ``symbola``'s tiles are drawn in one
  ink (blue, black, green or purple; the red fives red), so that the shapes, not the colours, tell faces apart;
- held out: ``cn-ming`` (AR PL UMing, darker palette, green-white body), ``cn-mono`` (AR PL UMing, every
  face engraved in one dark blue ink on a white body, the red fives all red, as on one-colour sets: colour no
  longer tells the suits or the dragons apart) and ``cn-dark`` (AR PL UMing on black, dark jade or navy
  bodies engraved in pale inks and gold: nothing like any training style, the case enrollment is for).

Every call draws random per-set variation (body and ink colours, glyph placement) from ``rng``, so a
fixed seed gives the same image.  Pure function; safe from any thread (glyph caches are GIL-guarded).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from mjtable.tiles import ALL_CODES, NotationError
from vision.synth import faces, surface
from vision.synth.flowers import draw_flower
from vision.synth.glyphs import Canvas, Colour, FontMissingError, font_available, paint_glyph

Image = npt.NDArray[np.uint8]

BACK = "back"
#: Every class the classifier knows: the 45 tile codes of the shared notation plus ``back``.
CLASSES: tuple[str, ...] = (*ALL_CODES, BACK)
TILE_W, TILE_H = 120, 160
STYLES: tuple[str, ...] = ("cc0", "cn-serif", "cn-sans", "cn-kai", "cn-wqy", "symbola")
HELD_OUT_STYLES: tuple[str, ...] = ("cn-ming", "cn-mono", "cn-dark")

_CN_FONTS = {
    "cn-serif": "noto-serif",
    "cn-sans": "noto-sans",
    "cn-kai": "kai",
    "cn-wqy": "wqy",
    "cn-ming": "ming",
    "cn-mono": "ming",
    "cn-dark": "ming",
}
_CC0_DIRS = (
    Path(__file__).resolve().parents[3] / "shared" / "tiles" / "riichi-mahjong-tiles" / "Export" / "Regular",
    Path("/work/shared/tiles/riichi-mahjong-tiles/Export/Regular"),
)
_HONOR_FILES = ("Ton", "Nan", "Shaa", "Pei", "Haku", "Hatsu", "Chun")
_SUIT_FILES = {"m": "Man", "p": "Pin", "s": "Sou"}
#: Back colours of common sets (BGR): green, blue, orange, yellow, pink, dark green, red, purple.
_BACKS: tuple[Colour, ...] = (
    (60, 140, 40),
    (170, 90, 30),
    (40, 130, 230),
    (60, 200, 230),
    (170, 140, 240),
    (40, 90, 20),
    (40, 40, 180),
    (130, 60, 110),
)
_SCALE = 2  # drawing happens at twice the output size, then INTER_AREA gives anti-aliasing


class UnknownStyleError(ValueError):
    """The style name is not one of STYLES or HELD_OUT_STYLES."""


def available_styles() -> tuple[str, ...]:
    """The training styles whose fonts/artwork are installed here."""
    return tuple(s for s in STYLES if _style_ok(s))


def _style_ok(style: str) -> bool:
    if style == "cc0":
        return _cc0_dir() is not None
    if style == "symbola":
        return font_available("symbola")
    return font_available(_CN_FONTS[style])


def _cc0_dir() -> Path | None:
    for d in _CC0_DIRS:
        if (d / "Front.png").is_file():
            return d
    return None


def _jitter(rng: np.random.Generator, colour: Colour, amount: float) -> Colour:
    c = np.clip(np.asarray(colour) + rng.normal(0, amount, 3), 0, 255)
    return (float(c[0]), float(c[1]), float(c[2]))


def _ink(rng: np.random.Generator, dark: bool = False) -> faces.Ink:
    k = 0.7 if dark else 1.0
    return faces.Ink(
        red=_jitter(rng, (40 * k, 40 * k, 190 * k), 14),
        green=_jitter(rng, (70 * k, 130 * k, 30 * k), 14),
        blue=_jitter(rng, (150 * k, 70 * k, 30 * k), 14),
        black=_jitter(rng, (40, 30, 30), 10),
    )


def _light_ink(rng: np.random.Generator) -> faces.Ink:
    """Inks of a dark-bodied set: pale red, green and blue, gold where others use black."""
    return faces.Ink(
        red=_jitter(rng, (110, 110, 240), 12),
        green=_jitter(rng, (140, 220, 140), 12),
        blue=_jitter(rng, (235, 190, 140), 12),
        black=_jitter(rng, (90, 200, 230), 10),
    )


def _body_colour(rng: np.random.Generator, style: str) -> Colour:
    if style == "cn-ming":
        return _jitter(rng, (215, 235, 220), 6)
    if style == "cn-mono":
        return _jitter(rng, (238, 240, 240), 5)
    if style == "cn-dark":  # black, dark jade or navy bodies
        darks: tuple[Colour, ...] = ((35, 30, 30), (60, 80, 30), (80, 40, 25))
        return _jitter(rng, darks[int(rng.integers(len(darks)))], 6)
    bodies: tuple[Colour, ...] = ((200, 232, 245), (235, 240, 242), (215, 230, 238), (190, 225, 240))
    return _jitter(rng, bodies[int(rng.integers(len(bodies)))], 7)


def _body(rng: np.random.Generator, colour: Colour) -> tuple[Canvas, tuple[int, int, int, int]]:
    """Tile body at drawing scale (some sets with a border line in a darker shade); returns (canvas, face box)."""
    h, w = TILE_H * _SCALE, TILE_W * _SCALE
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = colour
    m = int(rng.uniform(0.02, 0.06) * w)
    if rng.random() < 0.4:
        canvas[:] = np.asarray(colour, np.float32) * rng.uniform(0.8, 0.95)
        cv2.rectangle(canvas, (m, m), (w - m, h - m), colour, -1)
    # sets differ in how much of the face the engraving covers: from nearly all of it to a wide ivory border
    pad = m + int(rng.uniform(0.0, 0.1) * w)
    jx, jy = rng.integers(-3, 4, 2)
    return canvas, (pad + int(jx), pad + int(jy), w - 2 * pad, h - 2 * pad)


def _finish(canvas: Canvas, body: Canvas, rng: np.random.Generator, *, raised: bool = False) -> Image:
    """The painted tile (``canvas``) as a photographed one: ``canvas - body`` is the ink; it may be worn, bled
    or misregistered; the body gets a faint texture; the marks become engraved grooves (``raised``: embossed)
    lit by one lamp, which also shades the rounded bevel round the top; then down to TILE_H x TILE_W."""
    light = surface.Light.random(rng)
    ink = canvas - body
    a = np.abs(ink)
    marks = np.clip(np.maximum(np.maximum(a[..., 0], a[..., 1]), a[..., 2]) / 40.0, 0.0, 1.0)
    out = body.copy()
    surface.texture(out, rng, amount=rng.uniform(0.004, 0.025))
    out += surface.wear_ink(ink, rng)
    if rng.random() < 0.85:
        surface.relief(out, marks, light, depth=rng.uniform(0.3, 1.5), raised=raised)
    w = out.shape[1]
    surface.bevel(
        out,
        light,
        width=rng.uniform(0.03, 0.09) * w,
        radius=surface.CORNER_RADIUS * w,
        gloss=rng.uniform(0.0, 0.7),
    )
    small = cv2.resize(out, (TILE_W, TILE_H), interpolation=cv2.INTER_AREA)
    return np.asarray(np.clip(small, 0, 255).astype(np.uint8), dtype=np.uint8)


def _render_back(rng: np.random.Generator) -> Image:
    colour = _jitter(rng, _BACKS[int(rng.integers(len(_BACKS)))], 12)
    canvas, _ = _body(rng, colour)
    body = canvas.copy()
    if rng.random() < 0.4:  # a few sets have a faint embossed pattern or logo on the back
        h, w = canvas.shape[:2]
        shade = tuple(c * 0.85 for c in colour)
        cv2.circle(canvas, (w // 2, h // 2), w // 5, shade, 3)
    return _finish(canvas, body, rng, raised=True)


@lru_cache(maxsize=64)
def _cc0_png(name: str) -> npt.NDArray[np.float32]:
    d = _cc0_dir()
    if d is None:
        raise FileNotFoundError("the CC0 tile artwork (riichi-mahjong-tiles/Export/Regular) is not present")
    img = cv2.imread(str(d / f"{name}.png"), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise FileNotFoundError(f"CC0 tile image {name}.png is missing or has no alpha channel")
    return np.asarray(cv2.resize(img, (TILE_W * _SCALE, TILE_H * _SCALE), interpolation=cv2.INTER_AREA), np.float32)


def _paste(canvas: Canvas, art: npt.NDArray[np.float32], ox: int, oy: int, hue: npt.NDArray[np.float32]) -> None:
    """Alpha-composite BGRA ``art`` onto ``canvas`` with its top-left corner at (ox, oy), clipped to the canvas."""
    h, w = canvas.shape[:2]
    x0, y0 = max(ox, 0), max(oy, 0)
    x1, y1 = min(ox + art.shape[1], w), min(oy + art.shape[0], h)
    if x1 <= x0 or y1 <= y0:
        return
    a = art[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
    alpha = a[..., 3:4] / 255.0
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - alpha) + np.clip(a[..., :3] * hue, 0, 255) * alpha


def _render_cc0(code: str, rng: np.random.Generator) -> Image:
    rank, suit = int(code[0]), code[1]
    hue = rng.uniform(0.85, 1.15, 3).astype(np.float32)  # mild recolour of the ink
    if suit != "f" and rng.random() < 0.3:
        # the artwork as its authors compose it: the overlay over the set's own Front.png body, filling the tile
        name = _HONOR_FILES[rank - 1] if suit == "z" else f"{_SUIT_FILES[suit]}{'5-Dora' if rank == 0 else rank}"
        canvas = np.empty((TILE_H * _SCALE, TILE_W * _SCALE, 3), np.float32)
        canvas[:] = _jitter(rng, (205, 228, 240), 10)
        _paste(canvas, _cc0_png("Front"), 0, 0, rng.uniform(0.9, 1.1, 3).astype(np.float32))
        body = canvas.copy()
        _paste(canvas, _cc0_png(name), 0, 0, hue)
        return _finish(canvas, body, rng)
    canvas, box = _body(rng, _body_colour(rng, "cc0"))
    body = canvas.copy()
    if suit == "f":
        draw_flower(canvas, box, rank, _ink(rng), "noto-sans", rng=rng)
        return _finish(canvas, body, rng)
    name = _HONOR_FILES[rank - 1] if suit == "z" else f"{_SUIT_FILES[suit]}{'5-Dora' if rank == 0 else rank}"
    art = _cc0_png(name)
    x, y, w, h = box
    # the artwork has its own margin: scale it so its drawn area fills the face box, or overflows it a little
    s = rng.uniform(1.0, 1.2)
    art = np.asarray(cv2.resize(art, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA), np.float32)
    _paste(canvas, art, x - (art.shape[1] - w) // 2, y - (art.shape[0] - h) // 2, hue)
    return _finish(canvas, body, rng)


def _symbola_char(code: str) -> str:
    rank, suit = int(code[0]), code[1]
    if suit == "z":  # U+1F004..6 are red, green, white dragon: the reverse of 5z..7z
        return chr(0x1F000 + rank - 1) if rank <= 4 else chr(0x1F004 + 7 - rank)
    if suit == "f":
        return chr(0x1F026 + rank - 1) if rank <= 4 else chr(0x1F022 + (0, 1, 3, 2)[rank - 5])
    base = {"m": 0x1F007, "s": 0x1F010, "p": 0x1F019}[suit]
    return chr(base + (5 if rank == 0 else rank) - 1)


#: Inks of one-colour sets (BGR): blue, black, green, purple.  Never red or brown: their red fives are the red ones.
_ONE_INKS: tuple[Colour, ...] = ((110, 50, 20), (40, 30, 30), (50, 110, 30), (90, 40, 70))
#: How often a training style draws a one-colour set (every face in one ink, the red fives red).
ONE_INK_P = 0.2


def _one_ink(rng: np.random.Generator, red_five: bool) -> faces.Ink:
    """Every face in one ink, as on one-colour sets: colour no longer tells suits or dragons apart."""
    one = _jitter(rng, (40, 40, 190) if red_five else _ONE_INKS[int(rng.integers(len(_ONE_INKS)))], 12)
    return faces.Ink(red=one, green=one, blue=one, black=one)


def _render_symbola(code: str, rng: np.random.Generator) -> Image:
    canvas, box = _body(rng, _body_colour(rng, "symbola"))
    body = canvas.copy()
    ink = _one_ink(rng, code[0] == "0") if rng.random() < ONE_INK_P else _ink(rng)
    suit = code[1]
    if code[0] == "0":
        colour = ink.red
    elif suit == "z":
        colour = (ink.black, ink.black, ink.black, ink.black, ink.blue, ink.green, ink.red)[int(code[0]) - 1]
    else:
        colour = {"m": ink.black, "p": ink.blue, "s": ink.green, "f": ink.red}[suit]
    x, y, w, h = box
    # Symbola draws its own tile outline around the face: let it overhang the face box a little
    grow = int(0.08 * w)
    paint_glyph(canvas, "symbola", _symbola_char(code), (x - grow, y - grow, w + 2 * grow, h + 2 * grow), colour)
    return _finish(canvas, body, rng)


def _render_chinese(code: str, style: str, rng: np.random.Generator) -> Image:
    font = _CN_FONTS[style]
    canvas, box = _body(rng, _body_colour(rng, style))
    body = canvas.copy()
    ink = _light_ink(rng) if style == "cn-dark" else _ink(rng, dark=style == "cn-ming")
    rank, suit = int(code[0]), code[1]
    red = rank == 0
    rank = 5 if red else rank
    if style == "cn-mono":  # one dark blue ink for every face; only the red fives are painted red
        one = _jitter(rng, (40, 40, 190) if red else (110, 50, 20), 10)
        ink = faces.Ink(red=one, green=one, blue=one, black=one)
    elif style in STYLES and rng.random() < ONE_INK_P:  # a one-colour set in a training font
        ink = _one_ink(rng, red)
    if suit == "m":
        faces.draw_characters(canvas, box, rank, ink, font=font, red_five=red, rng=rng)
    elif suit == "p":
        faces.draw_dots(canvas, box, rank, ink, red_five=red, rng=rng)
    elif suit == "s":
        faces.draw_bamboo(canvas, box, rank, ink, red_five=red, rng=rng)
    elif suit == "z":
        faces.draw_honour(canvas, box, rank, ink, font, rng=rng)
    else:
        draw_flower(canvas, box, rank, ink, font, rng=rng)
    return _finish(canvas, body, rng)


def render_tile_face(code: str, *, style: str | None = None, rng: np.random.Generator) -> Image:
    """An upright tile (BGR uint8, TILE_H x TILE_W x 3) showing ``code`` in ``style``.

    ``style=None`` picks one of the installed training styles at random from ``rng``.  ``back`` draws a
    face-down tile (the same for every style: a coloured back).  Raises NotationError for an unknown code,
    UnknownStyleError for an unknown style and FontMissingError / FileNotFoundError when that style's font or
    artwork is not installed.
    """
    if code != BACK and code not in ALL_CODES:
        raise NotationError(f"unknown tile code {code!r} (expected one of {' '.join(CLASSES)})")
    if style is None:
        styles = available_styles()
        if not styles:
            raise FontMissingError("no rendering style is available: install fonts-noto-cjk or the CC0 artwork")
        style = styles[int(rng.integers(len(styles)))]
    if style not in STYLES and style not in HELD_OUT_STYLES:
        raise UnknownStyleError(f"unknown style {style!r}; styles are {', '.join(STYLES + HELD_OUT_STYLES)}")
    if code == BACK:
        return _render_back(rng)
    if style == "cc0":
        return _render_cc0(code, rng)
    if style == "symbola":
        return _render_symbola(code, rng)
    return _render_chinese(code, style, rng)
