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


#: Dot styles of real sets: concentric rings, a ring of petals (the ornate "flower" dots of Chinese sets), a coin
#: (solid disc with a hole) and a spoked wheel.
DOT_STYLES = ("rings", "petals", "coin", "wheel")


def _dot(canvas: Canvas, c: tuple[int, int], r: int, *, outer: Colour, inner: Colour, style: str) -> None:
    """One dot of radius ``r`` centred at ``c`` in ``style`` (one of DOT_STYLES)."""
    cx, cy = c
    t = max(2, r // 5)
    if style == "petals":
        cv2.circle(canvas, c, r, outer, max(1, t // 2))
        n = 8 if r > 12 else 6
        for a in range(n):
            ang = 2 * np.pi * a / n
            p = (int(cx + 0.62 * r * np.cos(ang)), int(cy + 0.62 * r * np.sin(ang)))
            cv2.circle(canvas, p, max(r // 4, 1), inner, -1)
        cv2.circle(canvas, c, max(r // 4, 1), outer, -1)
    elif style == "coin":
        cv2.circle(canvas, c, r, outer, -1)
        cv2.circle(canvas, c, max(r * 3 // 5, 2), inner, max(1, t - 1))
        h = max(r // 5, 1)
        cv2.rectangle(canvas, (cx - h, cy - h), (cx + h, cy + h), (235.0, 235.0, 235.0), -1)
    elif style == "wheel":
        cv2.circle(canvas, c, r, outer, t)
        for a in range(8):
            ang = np.pi * a / 4
            p = (int(cx + r * np.cos(ang)), int(cy + r * np.sin(ang)))
            cv2.line(canvas, c, p, inner, max(1, t // 2))
        cv2.circle(canvas, c, max(r // 3, 1), outer, -1)
    else:
        cv2.circle(canvas, c, r, outer, t)
        cv2.circle(canvas, c, max(r * 3 // 5, 2), inner, max(1, t - 1))
        cv2.circle(canvas, c, max(r // 4, 1), outer, -1)


def _big_dot(canvas: Canvas, c: tuple[int, int], r: int, ink: Ink, variant: int) -> None:
    """The 1-dot: a large ornate wheel (three variants: rings with a bead ring, a many-petalled flower, a sun)."""
    cx, cy = c
    t = max(2, r // 6)
    if variant == 1:  # a flower: petals round a ringed heart
        for a in range(12):
            ang = a * np.pi / 6
            p = (int(cx + 0.72 * r * np.cos(ang)), int(cy + 0.72 * r * np.sin(ang)))
            cv2.ellipse(canvas, p, (max(r // 4, 2), max(r // 8, 1)), float(np.degrees(ang)), 0, 360, ink.blue, -1)
        cv2.circle(canvas, c, r, ink.green, max(1, t // 2))
        cv2.circle(canvas, c, r * 2 // 5, ink.red, -1)
        cv2.circle(canvas, c, r // 5, ink.green, -1)
    elif variant == 2:  # a sun: rays between two rings
        cv2.circle(canvas, c, r, ink.green, t)
        for a in range(16):
            ang = a * np.pi / 8
            p0 = (int(cx + 0.45 * r * np.cos(ang)), int(cy + 0.45 * r * np.sin(ang)))
            p1 = (int(cx + 0.85 * r * np.cos(ang)), int(cy + 0.85 * r * np.sin(ang)))
            cv2.line(canvas, p0, p1, ink.red if a % 2 else ink.blue, max(1, t // 2))
        cv2.circle(canvas, c, r * 2 // 5, ink.green, t)
        cv2.circle(canvas, c, r // 6, ink.red, -1)
    else:
        _dot(canvas, c, r, outer=ink.green, inner=ink.red, style="rings")
        for a in range(12):
            ang = a * np.pi / 6
            p = (int(cx + 0.8 * r * np.cos(ang)), int(cy + 0.8 * r * np.sin(ang)))
            cv2.circle(canvas, p, max(r // 10, 1), ink.blue, -1)


def draw_dots(canvas: Canvas, box: Box, rank: int, ink: Ink, *, red_five: bool, rng: np.random.Generator) -> None:
    """Dots (筒) in the usual layout of ``rank``, each in one of DOT_STYLES (one style per set); 1p a large wheel."""
    _, _, w, h = box
    r = int(_PIN_RADIUS[rank] * min(w, h * 0.75))
    style = DOT_STYLES[int(rng.choice(len(DOT_STYLES), p=(0.4, 0.25, 0.15, 0.2)))]
    if rank == 1:
        _big_dot(canvas, _px(box, 0.5, 0.5), r, ink, int(rng.integers(3)))
        return
    palette = [ink.blue, ink.green, ink.red]
    for k, (fx, fy) in enumerate(_PIN[rank]):
        if red_five or (rank in (5, 9) and k == len(_PIN[rank]) // 2):
            outer, inner = ink.red, ink.red
        elif rank in (6, 7) and k < (2 if rank == 6 else 3):
            outer, inner = ink.green, ink.green
        else:
            outer = palette[(k + rank) % 2]
            inner = ink.red if rank in (3, 4, 8) and k % 2 else outer
        _dot(canvas, _px(box, fx, fy), r, outer=outer, inner=inner, style=style)


#: Bamboo stick styles: jointed bars with a light centre line, rounded canes, hollow outlines, bones (flared ends).
STICK_STYLES = ("bar", "cane", "outline", "bone")


def _stick(canvas: Canvas, cx: int, cy: int, *, length: int, width: int, colour: Colour, style: str) -> None:
    if style in ("cane", "bone"):  # rounded ends and knobs: shorter, so that a gap stays between the rows
        length = length * 17 // 20
    y0, y1 = cy - length // 2, cy + length // 2
    hw = width // 2
    if style == "cane":
        cv2.ellipse(canvas, (cx, (y0 + cy) // 2), (hw, (cy - y0) // 2), 0, 0, 360, colour, -1)
        cv2.ellipse(canvas, (cx, (cy + y1) // 2), (hw, (y1 - cy) // 2), 0, 0, 360, colour, -1)
        cv2.line(canvas, (cx - hw - 1, cy), (cx + hw + 1, cy), colour, 2)
        return
    if style == "outline":
        t = max(2, width // 4)
        cv2.rectangle(canvas, (cx - hw, y0), (cx + hw, y1), colour, t)
        cv2.line(canvas, (cx - hw, cy), (cx + hw, cy), colour, t)
        return
    if style == "bone":
        cv2.rectangle(canvas, (cx - max(1, width // 4), y0), (cx + max(1, width // 4), y1), colour, -1)
        for yy in (y0, cy, y1):
            cv2.ellipse(canvas, (cx, yy), (hw + 1, max(2, width // 3)), 0, 0, 360, colour, -1)
        return
    cv2.rectangle(canvas, (cx - hw, y0), (cx + hw, y1), colour, -1)
    light = tuple(min(255.0, c + 90.0) for c in colour)
    cv2.line(canvas, (cx, y0 + 2), (cx, y1 - 2), light, max(1, width // 5))
    for fy in (0.0, 0.5, 1.0):
        yy = int(y0 + fy * (y1 - y0))
        cv2.rectangle(canvas, (cx - hw - 1, yy - 1), (cx + hw + 1, yy + 1), colour, -1)


def _sparrow(canvas: Canvas, box: Box, ink: Ink) -> None:
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


def _peacock(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A peacock: a fanned tail of eye-spotted feathers above a small body, as on many Chinese sets."""
    x, y, w, h = box
    base = (x + w // 2, y + int(h * 0.72))
    for k in range(7):
        ang = np.pi * (1.1 + 0.8 * k / 6)
        tip = (int(base[0] + 0.45 * w * np.cos(ang)), int(base[1] + 0.6 * h * np.sin(ang)))
        cv2.line(canvas, base, tip, ink.green, max(2, w // 40))
        cv2.circle(canvas, tip, max(3, w // 14), ink.blue, -1)
        cv2.circle(canvas, tip, max(1, w // 30), ink.red, -1)
    cv2.ellipse(canvas, (base[0], base[1] + h // 12), (w // 9, h // 7), 0, 0, 360, ink.blue, -1)
    head = (base[0] + w // 12, base[1] - h // 14)
    cv2.circle(canvas, head, max(3, w // 16), ink.green, -1)
    cv2.line(canvas, head, (head[0] + w // 10, head[1] + 2), ink.red, max(2, w // 50))
    cv2.line(canvas, (base[0] - w // 20, base[1] + h // 5), (base[0] - w // 12, y + h - 3), ink.red, max(2, w // 50))


def _branch_bird(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A small bird perched on a bamboo branch with leaves."""
    x, y, w, h = box
    cv2.line(canvas, (x + w // 8, y + h - h // 10), (x + w - w // 8, y + h // 2), ink.green, max(3, w // 25))
    for k in range(3):
        p = (x + w // 4 + k * w // 5, y + h - h // 6 - k * h // 10)
        cv2.ellipse(canvas, p, (w // 9, max(2, w // 30)), -30 - 20 * k, 0, 360, ink.green, -1)
    body = (x + w // 2, y + int(h * 0.42))
    cv2.ellipse(canvas, body, (w // 5, h // 9), 25, 0, 360, ink.red, -1)
    cv2.circle(canvas, (body[0] - w // 6, body[1] - h // 10), w // 11, ink.blue, -1)
    cv2.line(canvas, (body[0] - w // 4, body[1] - h // 10), (body[0] - w // 3, body[1] - h // 12), ink.red, 3)
    tail = np.array([[body[0] + w // 6, body[1]], [x + w - w // 10, body[1] - h // 5], [x + w - w // 8, body[1] + 4]])
    cv2.fillPoly(canvas, [tail.astype(np.int32)], ink.blue)


def draw_bamboo(canvas: Canvas, box: Box, rank: int, ink: Ink, *, red_five: bool, rng: np.random.Generator) -> None:
    """Bamboo (条): sticks in one of STICK_STYLES in the usual layout of ``rank``; 1s is a bird (sparrow, peacock
    or a bird on a branch)."""
    if rank == 1:
        (_sparrow, _peacock, _branch_bird)[int(rng.integers(3))](canvas, box, ink)
        return
    _, _, w, h = box
    style = STICK_STYLES[int(rng.choice(len(STICK_STYLES), p=(0.45, 0.25, 0.15, 0.15)))]
    rows = 3 if rank in (7, 9) else 2
    length = int(h * (0.27 if rows == 3 else 0.4))
    width = max(4, int(w * (0.1 if rank == 8 else 0.13)))
    if rank == 8 and rng.random() < 0.4:  # the M-over-W eight of many sets
        _eight_mw(
            canvas,
            box,
            length=length,
            width=width,
            inner=ink.blue if not red_five else ink.red,
            outer=ink.green,
            style=style,
        )
        return
    for k, (fx, fy) in enumerate(_SOU[rank]):
        colour = ink.red if red_five or k in _SOU_RED.get(rank, set()) else ink.green
        if rank == 8 and k in (1, 2, 5, 6):
            colour = ink.blue if not red_five else ink.red
        cx, cy = _px(box, fx, fy)
        _stick(canvas, cx, cy, length=length, width=width, colour=colour, style=style)


def _eight_mw(canvas: Canvas, box: Box, *, length: int, width: int, inner: Colour, outer: Colour, style: str) -> None:
    """Eight sticks as an M above a W: upright outer sticks, the inner ones leaning to meet."""
    for row, fy in enumerate((0.26, 0.74)):
        for k, fx in enumerate((0.14, 0.38, 0.62, 0.86)):
            cx, cy = _px(box, fx, fy)
            colour = inner if k in (1, 2) else outer
            tile = np.zeros((length + width * 2, width * 3, 3), np.float32)
            centre = (width * 3 // 2, tile.shape[0] // 2)
            _stick(tile, *centre, length=length, width=width, colour=(1.0, 1.0, 1.0), style=style)
            lean = (20.0 if k == 1 else -20.0) * (1 if row == 0 else -1) if k in (1, 2) else 0.0
            rot = cv2.getRotationMatrix2D((tile.shape[1] / 2, tile.shape[0] / 2), lean, 1.0)
            tile = np.asarray(cv2.warpAffine(tile, rot, (tile.shape[1], tile.shape[0])), np.float32)
            mask = tile[..., 0]
            th, tw = mask.shape
            x0, y0 = cx - tw // 2, cy - th // 2
            xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + tw, canvas.shape[1]), min(y0 + th, canvas.shape[0])
            if xb <= xa or yb <= ya:
                continue
            m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0, None]
            region = canvas[ya:yb, xa:xb]
            region[:] = region * (1 - m) + np.asarray(colour, np.float32) * m


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
    """Winds 東南西北 (ranks 1-4), red dragon 中, green dragon 發, white dragon (see ``_white_dragon``)."""
    x, y, w, h = box
    if rank == 7:
        paint_glyph(canvas, font, "中", (x + w // 12, y + h // 8, w - w // 6, h - h // 4), ink.red, stretch=0.4)
    elif rank == 6:
        paint_glyph(canvas, font, "發", (x + w // 16, y + h // 10, w - w // 8, h - h // 5), ink.green, stretch=0.4)
    elif rank == 5:
        _white_dragon(canvas, box, ink, int(rng.choice(4, p=(0.45, 0.15, 0.22, 0.18))))
    else:
        colour = ink.black if rng.random() < 0.7 else ink.blue
        box_ = (x + w // 12, y + h // 8, w - w // 6, h - h // 4)
        paint_glyph(canvas, font, WINDS[rank - 1], box_, colour, stretch=0.3)


def _white_dragon(canvas: Canvas, box: Box, ink: Ink, variant: int) -> None:
    """The white dragon: a blue double frame (0), a blank face (1, as on many Chinese sets), one thick frame (2)
    or a frame with notched corners (3)."""
    x, y, w, h = box
    t = max(2, w // 18)
    x0, y0, x1, y1 = x + w // 10, y + h // 12, x + w - w // 10, y + h - h // 12
    if variant == 0:
        cv2.rectangle(canvas, (x0, y0), (x1, y1), ink.blue, t)
        cv2.rectangle(canvas, (x + w // 5, y + h // 6), (x + w - w // 5, y + h - h // 6), ink.blue, max(1, t // 2))
    elif variant == 2:
        cv2.rectangle(canvas, (x0, y0), (x1, y1), ink.blue, 2 * t)
    elif variant == 3:
        c = w // 8
        pts = np.array(
            [
                [x0 + c, y0],
                [x1 - c, y0],
                [x1 - c, y0 + c],
                [x1, y0 + c],
                [x1, y1 - c],
                [x1 - c, y1 - c],
                [x1 - c, y1],
                [x0 + c, y1],
                [x0 + c, y1 - c],
                [x0, y1 - c],
                [x0, y0 + c],
                [x0 + c, y0 + c],
            ],
            np.int32,
        )
        cv2.polylines(canvas, [pts], True, ink.blue, t)
