"""Face drawings of the Chinese-style synthetic tiles: characters, dots, bamboo, honours, flowers.

Every function paints onto a float32 BGR canvas (0..255, HxWx3) inside the face box ``(x, y, w, h)`` in
pixels.  ``ink`` gives the style's palette.  Pure functions (callers own the canvas); any thread.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.glyphs import Canvas, Colour, paint_glyph

Box = tuple[int, int, int, int]

NUMERALS = "一二三四伍六七八九"
WAN = "萬"
WINDS = "東南西北"
#: Flower characters by rank 1..8 (1f-4f Spring..Winter, 5f-8f Plum, Orchid, Chrysanthemum, Bamboo).
FLOWER_CHARS = "春夏秋冬梅蘭菊竹"


@dataclass(frozen=True, slots=True)
class Ink:
    """The engraving colours of one tile set (BGR 0..255)."""

    red: Colour
    green: Colour
    blue: Colour
    black: Colour


_PIN = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.26), (0.5, 0.74)],
    3: [(0.22, 0.17), (0.5, 0.5), (0.78, 0.83)],
    4: [(0.28, 0.26), (0.72, 0.26), (0.28, 0.74), (0.72, 0.74)],
    5: [(0.25, 0.2), (0.75, 0.2), (0.5, 0.5), (0.25, 0.8), (0.75, 0.8)],
    6: [(0.3, 0.15), (0.7, 0.15), (0.3, 0.55), (0.7, 0.55), (0.3, 0.86), (0.7, 0.86)],
    7: [(0.2, 0.1), (0.5, 0.21), (0.8, 0.32), (0.3, 0.6), (0.7, 0.6), (0.3, 0.88), (0.7, 0.88)],
    8: [(x, y) for y in (0.12, 0.37, 0.63, 0.88) for x in (0.3, 0.7)],
    9: [(x, y) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
}
_PIN_RADIUS = {1: 0.42, 2: 0.21, 3: 0.17, 4: 0.19, 5: 0.16, 6: 0.14, 7: 0.12, 8: 0.12, 9: 0.13}

_SOU = {
    2: [(0.5, 0.26), (0.5, 0.74)],
    3: [(0.5, 0.26), (0.3, 0.74), (0.7, 0.74)],
    4: [(0.3, 0.26), (0.7, 0.26), (0.3, 0.74), (0.7, 0.74)],
    5: [(0.22, 0.26), (0.78, 0.26), (0.5, 0.5), (0.22, 0.74), (0.78, 0.74)],
    6: [(x, y) for y in (0.26, 0.74) for x in (0.2, 0.5, 0.8)],
    7: [(0.5, 0.16)] + [(x, y) for y in (0.5, 0.83) for x in (0.2, 0.5, 0.8)],
    8: [(x, y) for y in (0.26, 0.74) for x in (0.14, 0.38, 0.62, 0.86)],
    9: [(x, y) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
}
_SOU_RED = {5: {2}, 7: {0}, 9: {1, 4, 7}}


def _px(box: Box, fx: float, fy: float) -> tuple[int, int]:
    x, y, w, h = box
    return int(x + fx * w), int(y + fy * h)


def draw_dots(canvas: Canvas, box: Box, rank: int, ink: Ink, *, red_five: bool, rng: np.random.Generator) -> None:
    """Dots (筒): concentric engraved circles in the usual layout of ``rank``."""
    _, _, w, h = box
    r = int(_PIN_RADIUS[rank] * min(w, h * 0.75))
    palette = [ink.blue, ink.green, ink.red]
    for k, (fx, fy) in enumerate(_PIN[rank]):
        cx, cy = _px(box, fx, fy)
        if red_five:
            outer, inner = ink.red, ink.red
        elif rank == 1:
            outer, inner = ink.green, ink.red
        elif rank in (5, 9) and k == len(_PIN[rank]) // 2:
            outer, inner = ink.red, ink.red
        elif rank in (6, 7) and k < (2 if rank == 6 else 3):
            outer, inner = ink.green, ink.green
        else:
            outer = palette[(k + rank) % 2]
            inner = ink.red if rank in (3, 4, 8) and k % 2 else outer
        t = max(2, r // 5)
        cv2.circle(canvas, (cx, cy), r, outer, t)
        cv2.circle(canvas, (cx, cy), max(r * 3 // 5, 2), inner, max(1, t - 1))
        cv2.circle(canvas, (cx, cy), max(r // 4, 1), outer, -1)
        if rank == 1:
            for a in range(12):
                ang = a * np.pi / 6
                p = (int(cx + 0.8 * r * np.cos(ang)), int(cy + 0.8 * r * np.sin(ang)))
                cv2.circle(canvas, p, max(r // 10, 1), ink.blue, -1)


def _stick(canvas: Canvas, cx: int, cy: int, *, length: int, width: int, colour: Colour) -> None:
    y0, y1 = cy - length // 2, cy + length // 2
    cv2.rectangle(canvas, (cx - width // 2, y0), (cx + width // 2, y1), colour, -1)
    light = tuple(min(255.0, c + 90.0) for c in colour)
    cv2.line(canvas, (cx, y0 + 2), (cx, y1 - 2), light, max(1, width // 5))
    for fy in (0.0, 0.5, 1.0):
        yy = int(y0 + fy * (y1 - y0))
        cv2.rectangle(canvas, (cx - width // 2 - 1, yy - 1), (cx + width // 2 + 1, yy + 1), colour, -1)


def _bird(canvas: Canvas, box: Box, ink: Ink) -> None:
    x, y, w, h = box
    cx, cy = x + w // 2, y + h // 2
    cv2.ellipse(canvas, (cx, cy + h // 10), (w // 4, h // 6), -20, 0, 360, ink.green, -1)
    cv2.circle(canvas, (cx + w // 5, cy - h // 6), w // 9, ink.red, -1)
    cv2.circle(canvas, (cx + w // 5 + 2, cy - h // 6 - 2), max(w // 40, 1), ink.black, -1)
    beak = np.array([[cx + w // 4 + 4, cy - h // 6], [cx + w // 2 - 4, cy - h // 8], [cx + w // 4 + 4, cy - h // 9]])
    cv2.fillPoly(canvas, [beak.astype(np.int32)], ink.red)
    for k in range(4):
        end = (x + w // 8 + k * w // 12, y + h - h // 8 - k * h // 30)
        cv2.line(canvas, (cx - w // 8, cy + h // 6), end, ink.blue if k % 2 else ink.green, max(2, w // 30))
    cv2.line(canvas, (cx, cy + h // 4), (cx - w // 10, y + h - 4), ink.red, max(2, w // 40))


def draw_bamboo(canvas: Canvas, box: Box, rank: int, ink: Ink, *, red_five: bool, rng: np.random.Generator) -> None:
    """Bamboo (条): jointed sticks in the usual layout of ``rank``; 1s is a bird."""
    if rank == 1:
        _bird(canvas, box, ink)
        return
    _, _, w, h = box
    rows = 3 if rank in (7, 9) else 2
    length = int(h * (0.27 if rows == 3 else 0.4))
    width = max(4, int(w * (0.1 if rank == 8 else 0.13)))
    for k, (fx, fy) in enumerate(_SOU[rank]):
        colour = ink.red if red_five or k in _SOU_RED.get(rank, set()) else ink.green
        if rank == 8 and k in (1, 2, 5, 6):
            colour = ink.blue if not red_five else ink.red
        cx, cy = _px(box, fx, fy)
        _stick(canvas, cx, cy, length=length, width=width, colour=colour)


def draw_characters(
    canvas: Canvas, box: Box, rank: int, ink: Ink, *, font: str, red_five: bool, rng: np.random.Generator
) -> None:
    """Characters (萬): the numeral above, 萬 below in red."""
    x, y, w, h = box
    split = int(h * rng.uniform(0.4, 0.46))
    num_colour = ink.red if red_five else ink.black
    paint_glyph(canvas, font, NUMERALS[rank - 1], (x + w // 10, y, w - w // 5, split - 2), num_colour, stretch=0.3)
    paint_glyph(canvas, font, WAN, (x, y + split + 2, w, h - split - 2), ink.red, stretch=0.5)


def draw_honour(canvas: Canvas, box: Box, rank: int, ink: Ink, font: str, *, rng: np.random.Generator) -> None:
    """Winds 東南西北 (ranks 1-4), red dragon 中, green dragon 發, white dragon as a blue double frame."""
    x, y, w, h = box
    if rank == 7:
        paint_glyph(canvas, font, "中", (x + w // 12, y + h // 8, w - w // 6, h - h // 4), ink.red, stretch=0.4)
    elif rank == 6:
        paint_glyph(canvas, font, "發", (x + w // 16, y + h // 10, w - w // 8, h - h // 5), ink.green, stretch=0.4)
    elif rank == 5:
        t = max(2, w // 18)
        cv2.rectangle(canvas, (x + w // 10, y + h // 12), (x + w - w // 10, y + h - h // 12), ink.blue, t)
        cv2.rectangle(canvas, (x + w // 5, y + h // 6), (x + w - w // 5, y + h - h // 6), ink.blue, max(1, t // 2))
    else:
        colour = ink.black if rng.random() < 0.7 else ink.blue
        box_ = (x + w // 12, y + h // 8, w - w // 6, h - h // 4)
        paint_glyph(canvas, font, WINDS[rank - 1], box_, colour, stretch=0.3)


def draw_flower(canvas: Canvas, box: Box, rank: int, ink: Ink, font: str, *, rng: np.random.Generator) -> None:
    """Flowers and seasons: the flower's character, its number 1-4 in a corner and a small blossom motif."""
    x, y, w, h = box
    seasons = rank <= 4
    main = ink.green if seasons else ink.blue
    accent = ink.red
    number = (rank - 1) % 4 + 1
    paint_glyph(canvas, font, str(number), (x + 2, y + 2, w // 4, h // 6), accent)
    paint_glyph(canvas, font, FLOWER_CHARS[rank - 1], (x + w // 4, y + h // 2, w - w // 3, h // 2 - 4), main)
    cx, cy = x + w // 2 + w // 8, y + h // 4
    petals = 5 if seasons else 6
    pr = max(3, w // 10)
    for k in range(petals):
        ang = 2 * np.pi * k / petals + rank
        p = (int(cx + 1.4 * pr * np.cos(ang)), int(cy + 1.4 * pr * np.sin(ang)))
        cv2.circle(canvas, p, pr, accent if seasons else ink.green, -1)
    cv2.circle(canvas, (cx, cy), max(2, pr // 2 + 1), (40.0, 190.0, 230.0), -1)
    cv2.line(canvas, (cx, cy + 2 * pr), (x + w // 6, y + h // 2 - 2), ink.green, max(2, w // 40))
