"""Flower and season faces (``1f``-``8f``) of the synthetic Chinese sets: a picture, the character, the number.

Real sets differ in how they compose these tiles: a small blossom above a large character, a picture filling
the face with the character and the number tucked into corners, or a large character with a small picture.
The number (1-4 within seasons and within flowers) is an Arabic digit or a Chinese numeral, in any corner.
Each rank has its own picture (spring: a blossoming tree, summer: a lotus, autumn: a maple leaf, winter: a
snowflake, plum: a blossoming branch, orchid: arching leaves, chrysanthemum: a many-petalled flower, bamboo:
jointed stalks with leaves), as on real sets, so the picture is evidence too.

Paints onto a float32 BGR canvas (0..255) inside the face box ``(x, y, w, h)`` in pixels; pure (callers own
the canvas); any thread.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.synth.faces import FLOWER_CHARS, Box, Ink
from vision.synth.glyphs import Canvas, Colour, paint_glyph

CHINESE_NUMBERS = "一二三四"
_GOLD: Colour = (40.0, 190.0, 230.0)


def _blossom(canvas: Canvas, c: tuple[int, int], r: int, *, petals: int, colour: Colour, turn: float) -> None:
    """A blossom of ``petals`` round petals of radius ``r`` round a golden heart at ``c``."""
    for k in range(petals):
        ang = 2 * np.pi * k / petals + turn
        cv2.circle(canvas, (int(c[0] + 1.3 * r * np.cos(ang)), int(c[1] + 1.3 * r * np.sin(ang))), r, colour, -1)
    cv2.circle(canvas, c, max(1, r // 2 + 1), _GOLD, -1)


def _spring(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A blossoming tree: a trunk and a round crown of blossoms."""
    x, y, w, h = box
    cv2.line(canvas, (x + w // 2, y + h), (x + w // 2, y + h // 2), ink.black, max(3, w // 12))
    for k, (fx, fy) in enumerate([(0.5, 0.3), (0.25, 0.42), (0.75, 0.42), (0.35, 0.15), (0.65, 0.15)]):
        _blossom(
            canvas,
            (int(x + fx * w), int(y + fy * h)),
            max(2, w // 14),
            petals=5,
            colour=ink.red if k % 2 else ink.green,
            turn=k,
        )


def _summer(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A lotus on the water: pointed petals fanned upwards, a round leaf, ripples."""
    x, y, w, h = box
    base = (x + w // 2, y + int(h * 0.62))
    for k in range(5):
        ang = -90 + (k - 2) * 28
        c = (int(base[0] + 0.2 * w * np.cos(np.radians(ang))), int(base[1] + 0.2 * w * np.sin(np.radians(ang))))
        cv2.ellipse(canvas, c, (w // 6, w // 14), ang, 0, 360, ink.red, -1)
    cv2.ellipse(canvas, (x + w // 4, y + int(h * 0.78)), (w // 5, h // 14), 0, 0, 360, ink.green, -1)
    for k in range(2):
        yy = y + int(h * (0.88 + 0.08 * k))
        cv2.line(canvas, (x + w // 10, yy), (x + w - w // 10, yy), ink.blue, max(2, w // 40))


def _autumn(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A maple leaf: a five-lobed star on a stem."""
    x, y, w, h = box
    c = (x + w // 2, y + int(h * 0.45))
    r = min(w, h) * 0.4
    pts = []
    for k in range(10):
        ang = -np.pi / 2 + np.pi * k / 5
        rr = r if k % 2 == 0 else r * 0.45
        pts.append((int(c[0] + rr * np.cos(ang)), int(c[1] + rr * np.sin(ang))))
    cv2.fillPoly(canvas, [np.asarray(pts, np.int32)], ink.red)
    cv2.line(canvas, c, (c[0], int(c[1] + 1.2 * r)), ink.black, max(2, w // 30))


def _winter(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A snowflake: three crossing bars with side branches."""
    x, y, w, h = box
    c = (x + w // 2, y + h // 2)
    r = min(w, h) * 0.42
    t = max(2, w // 25)
    for k in range(6):
        ang = np.pi * k / 3
        end = (int(c[0] + r * np.cos(ang)), int(c[1] + r * np.sin(ang)))
        cv2.line(canvas, c, end, ink.blue, t)
        mid = (c[0] + 0.6 * r * np.cos(ang), c[1] + 0.6 * r * np.sin(ang))
        for side in (-1, 1):
            b = ang + side * np.pi / 4
            tip = (int(mid[0] + 0.3 * r * np.cos(b)), int(mid[1] + 0.3 * r * np.sin(b)))
            cv2.line(canvas, (int(mid[0]), int(mid[1])), tip, ink.blue, max(1, t - 1))


def _plum(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A plum branch with three five-petalled blossoms."""
    x, y, w, h = box
    cv2.line(canvas, (x + w // 10, y + h - h // 10), (x + w - w // 6, y + h // 8), ink.black, max(3, w // 18))
    cv2.line(canvas, (x + w // 2, y + h // 2), (x + w - w // 10, y + int(h * 0.6)), ink.black, max(2, w // 28))
    for fx, fy in [(0.3, 0.62), (0.62, 0.3), (0.8, 0.58)]:
        _blossom(canvas, (int(x + fx * w), int(y + fy * h)), max(2, w // 12), petals=5, colour=ink.red, turn=0.3)


def _orchid(canvas: Canvas, box: Box, ink: Ink) -> None:
    """An orchid: long arching leaves from one root and a small flower."""
    x, y, w, h = box
    root = (x + w // 2, y + h - h // 10)
    t = max(2, w // 30)
    for k, (ax, start) in enumerate([(0.35, 180), (0.25, 200), (0.3, 0), (0.45, 330)]):
        cx = root[0] + (-1 if k < 2 else 1) * int(ax * w)
        cv2.ellipse(canvas, (cx, root[1]), (int(ax * w), int(h * 0.7)), 0, start, start + 80, ink.green, t)
    _blossom(canvas, (x + int(0.6 * w), y + int(0.35 * h)), max(2, w // 16), petals=3, colour=ink.blue, turn=1.0)


def _chrysanthemum(canvas: Canvas, box: Box, ink: Ink) -> None:
    """A chrysanthemum: a round head of many thin petals, two leaves below."""
    x, y, w, h = box
    c = (x + w // 2, y + int(h * 0.4))
    r = min(w, h) * 0.36
    for k in range(20):
        ang = np.pi * k / 10
        cv2.line(canvas, c, (int(c[0] + r * np.cos(ang)), int(c[1] + r * np.sin(ang))), ink.blue, max(2, w // 35))
    cv2.circle(canvas, c, max(2, int(r * 0.3)), _GOLD, -1)
    cv2.line(canvas, c, (c[0], y + h - 2), ink.green, max(2, w // 35))
    for side in (-1, 1):
        cv2.ellipse(
            canvas, (c[0] + side * w // 6, y + int(h * 0.82)), (w // 7, h // 18), side * 25, 0, 360, ink.green, -1
        )


def _bamboo(canvas: Canvas, box: Box, ink: Ink) -> None:
    """Bamboo: two jointed stalks and narrow leaves."""
    x, y, w, h = box
    t = max(3, w // 14)
    for fx in (0.38, 0.62):
        cx = x + int(fx * w)
        cv2.line(canvas, (cx, y + 2), (cx, y + h - 2), ink.green, t)
        for fy in (0.25, 0.5, 0.75):
            cv2.line(canvas, (cx - t, y + int(fy * h)), (cx + t, y + int(fy * h)), ink.black, max(1, t // 3))
    for k in range(4):
        p = (x + int(w * (0.2 if k % 2 else 0.8)), y + int(h * (0.2 + 0.18 * k)))
        cv2.ellipse(canvas, p, (w // 6, max(2, w // 30)), 30 if k % 2 else -30, 0, 360, ink.green, -1)


_PICTURES: dict[int, Callable[[Canvas, Box, Ink], None]] = {
    1: _spring,
    2: _summer,
    3: _autumn,
    4: _winter,
    5: _plum,
    6: _orchid,
    7: _chrysanthemum,
    8: _bamboo,
}


def _corner(box: Box, fw: float, fh: float, corner: int) -> Box:
    """A box ``fw`` x ``fh`` of the face box's size in one of its corners (0 tl, 1 tr, 2 bl, 3 br)."""
    x, y, w, h = box
    bw, bh = int(w * fw), int(h * fh)
    return (x + (w - bw if corner % 2 else 0) + 2 - 4 * (corner % 2), y + (h - bh if corner >= 2 else 0) + 2, bw, bh)


def draw_flower(canvas: Canvas, box: Box, rank: int, ink: Ink, font: str, *, rng: np.random.Generator) -> None:
    """Flower/season ``rank`` (1-8) in one of three compositions, its number (Arabic or Chinese) in a corner."""
    x, y, w, h = box
    seasons = rank <= 4
    main = ink.green if seasons else ink.blue
    number = (rank - 1) % 4 + 1
    numeral = str(number) if rng.random() < 0.6 else CHINESE_NUMBERS[number - 1]
    layout = int(rng.choice(3, p=(0.4, 0.35, 0.25)))
    char = FLOWER_CHARS[rank - 1]
    if layout == 0:  # a blossom (or the rank's picture) above a large character, the number in a top corner
        corner = int(rng.integers(2))
        paint_glyph(canvas, font, numeral, _corner(box, 0.25, 1 / 6, corner), ink.red)
        paint_glyph(canvas, font, char, (x + w // 4, y + h // 2, w - w // 3, h // 2 - 4), main)
        if rng.random() < 0.5:
            _PICTURES[rank](canvas, (x + w // 4 + (w // 8 if corner == 0 else -w // 8), y + 4, w // 2, h // 2 - 8), ink)
            return
        cx, cy = x + w // 2 + (w // 8 if corner == 0 else -w // 8), y + h // 4
        pr = max(3, w // 10)
        _blossom(canvas, (cx, cy), pr, petals=5 if seasons else 6, colour=ink.red if seasons else ink.green, turn=rank)
        cv2.line(canvas, (cx, cy + 2 * pr), (x + w // 6, y + h // 2 - 2), ink.green, max(2, w // 40))
    elif layout == 1:  # the picture fills the face; character and number tucked into opposite corners
        _PICTURES[rank](canvas, (x + w // 8, y + h // 6, w - w // 4, h - h // 3), ink)
        corner = int(rng.integers(4))
        paint_glyph(canvas, font, char, _corner(box, 0.36, 0.26, corner), main)
        paint_glyph(canvas, font, numeral, _corner(box, 0.24, 0.17, 3 - corner), ink.red)
    else:  # a large character, the number in a corner, a small picture in the opposite one
        paint_glyph(canvas, font, char, (x + w // 8, y + h // 5, w - w // 4, h - 2 * h // 5), main)
        corner = int(rng.integers(4))
        paint_glyph(canvas, font, numeral, _corner(box, 0.22, 0.15, corner), ink.red)
        _PICTURES[rank](canvas, _corner(box, 0.3, 0.2, 3 - corner), ink)
