"""A row of touching tiles whose sides show, explained as upright and sideways tiles.

On the plane of the tops (:mod:`vision.pipeline.sides`) a side strip fills the gap between two tiles, so a meld,
a pond row or a laid-down hand is one blob.  Each column's height is its tile's depth (35 mm upright, 26 mm
sideways) plus the strip above it, and the strip is a slanted parallelogram that tapers over a tile's last
columns: a column's height alone cannot tell an upright tile with little strip from a sideways one with its
strip and shadow.  A row is therefore explained as a whole: the layouts whose lengths (26 mm upright, 35 mm
sideways, gaps, the strips at the row's two ends) add up to the row's length are tried, with up to two
sideways tiles, and the one whose tiles' mean heights fit (a sideways tile lower than an upright one by
9 mm, whatever the strip adds to both) wins.  Stacked columns (a promoted kong's two sideways tiles, one
behind the other) are found by height, as they are twice as deep as anything else.

Pure functions over numpy arrays; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import numpy.typing as npt

from vision.pipeline.blobs import TileBlob, TileSize
from vision.pipeline.sides import SideStrips

Mask = npt.NDArray[np.uint8]
_GAP, _TILE, _STACK, _OVER = 0, 1, 2, 3
#: most sideways tiles tried in one row (a meld has one; two are two melds' worth)
MAX_SIDEWAYS = 2


def place(lo: float, hi: float, lengths: Sequence[float], strips: tuple[float, float]) -> list[tuple[float, float]]:
    """Where tiles of ``lengths`` (px) lie, in order, in a row spanning ``lo``..``hi`` (px) whose first and last
    tiles may have a side strip outside them (``strips``: their widths, px): the strips are taken off the row's
    ends, the rest of the slack is shared between the gaps.  A single tile goes to the end away from its strip."""
    n = len(lengths)
    slack = max(0.0, hi - lo - sum(lengths))
    if n == 1:
        length = lengths[0]
        if strips[0] > strips[1]:
            return [(hi - length, hi)]
        return [(lo, lo + length)] if strips[1] > 0 else [((lo + hi - length) / 2, (lo + hi + length) / 2)]
    first = min(strips[0], slack)
    last = min(strips[1], slack - first)
    gap = (slack - first - last) / (n - 1)
    out: list[tuple[float, float]] = []
    x = lo + first
    for length in lengths:
        out.append((x, x + length))
        x += length + gap
    return out


def _lift(strips: SideStrips, x: float, y: float) -> float:
    """How much the side strip at zone px ``(x, y)`` (a component's far edge) adds to its columns' heights, at
    most: the strip's depth."""
    return abs(strips.at(x, y)[1])


def _column_runs(heights: npt.NDArray[np.int64], size: TileSize, lift: float) -> list[tuple[int, int, int]]:
    """(category, start, end) runs of columns: gaps, tiles, stacked pairs, and columns too tall for anything
    (an arm).  A gap narrower than 30 % of a tile's width between two runs of tiles is a gap inside the row (the
    row's layout accounts for it); another run that narrow joins the run before it (or after it, first)."""
    w, h = size.w - 2, size.h - 2  # the component is eroded by a pixel each side
    cats = np.full(heights.shape, _TILE)
    cats[heights < 0.4 * w] = _GAP
    cats[heights >= (h + 2 * w) / 2 + 2 + lift] = _STACK
    cats[heights > 2 * w + size.gap + 9 + lift] = _OVER
    runs = _runs_of(cats.tolist())
    for i, (cat, start, end) in enumerate(runs):
        inside = 0 < i < len(runs) - 1 and runs[i - 1][0] == runs[i + 1][0] == _TILE
        if cat == _GAP and end - start < 0.3 * w and inside:
            cats[start:end] = _TILE
    merged: list[list[int]] = []
    for cat, start, end in _runs_of(cats.tolist()):
        if merged and end - start < 0.3 * w and cat != _OVER:
            merged[-1][2] = end
        elif merged and merged[-1][2] - merged[-1][1] < 0.3 * w and merged[-1][0] != _OVER:
            merged[-1] = [cat, merged[-1][1], end]
        else:
            merged.append([cat, start, end])
    return [(r[0], r[1], r[2]) for r in merged]


def _runs_of(cats: list[int]) -> list[tuple[int, int, int]]:
    """(category, start, end) of each run of equal categories."""
    runs: list[tuple[int, int, int]] = []
    for i, cat in enumerate(cats):
        if runs and runs[-1][0] == cat:
            runs[-1] = (cat, runs[-1][1], i + 1)
        else:
            runs.append((cat, i, i + 1))
    return runs


def _fit_layout(
    heights: npt.NDArray[np.int64],
    lo: float,
    hi: float,
    size: TileSize,
    strips: tuple[float, float],
    *,
    most_sideways: int,
) -> list[tuple[bool, float, float]] | None:
    """The best layout of a run of tile columns: (sideways, start, end) per tile, px; None if no layout fits.

    ``heights``: the component's column heights (eroded mask), indexed by column; ``lo``..``hi``: the run's
    extent (px, not eroded); ``strips``: the side strips' widths at its two ends (px); ``most_sideways``: how
    many sideways tiles a layout may have."""
    usable = hi - lo - strips[0] - strips[1]
    w, h, gap = size.w, size.h, size.gap
    cumulative = np.concatenate([[0.0], np.cumsum(heights, dtype=np.float64)])
    best: tuple[float, list[tuple[bool, float, float]]] | None = None
    for sideways in range(most_sideways + 1):
        n = round((usable + gap - sideways * (h + gap)) / (w + gap)) + sideways
        if n < max(1, sideways):
            continue
        misfit = abs((n - sideways) * w + sideways * h + (n - 1) * gap - usable)
        if misfit > max(4.0, 0.06 * usable):
            continue
        for chosen in combinations(range(n), sideways):
            lengths = [h if i in chosen else w for i in range(n)]
            tiles = place(lo, hi, lengths, strips)
            residual = []
            for i, (a, b) in enumerate(tiles):
                c0, c1 = max(0, round(a + 2.5)), min(len(heights), round(b - 1.5))
                if c1 <= c0:
                    break
                mean = (cumulative[c1] - cumulative[c0]) / (c1 - c0)
                residual.append(mean + (h - w) * (i in chosen))
            else:
                score = float(np.var(residual)) + 0.5 * misfit**2
                if best is None or score < best[0]:
                    best = (score, [(i in chosen, a, b) for i, (a, b) in enumerate(tiles)])
    return None if best is None else best[1]


def _rows(comp: Mask, a: int, b: int) -> tuple[int, int] | None:
    """The longest run of rows where at least half of columns ``a..b-1`` are foreground: the tile's depth
    (a neighbour's slanted strip over a corner of it is not)."""
    rows = (comp[:, a:b] > 0).mean(axis=1) >= 0.5
    best: tuple[int, int] | None = None
    start = -1
    for r, on in enumerate([*rows.tolist(), False]):
        if on and start < 0:
            start = r
        elif not on and start >= 0:
            if best is None or r - start > best[1] - best[0]:
                best = (start, r)
            start = -1
    return best


def explain_row(
    comp: Mask, x0: int, y0: int, size: TileSize, strips: SideStrips, *, upright_only: bool = False
) -> list[TileBlob] | None:
    """Explain a component (its own mask, eroded by a pixel each side, offset ``x0, y0`` in the zone) as a row
    of tiles of ``size`` (true size, zone px) whose sides show as ``strips``; None if it is not tiles.  Blobs
    are returned eroded (a pixel less each side), as the segmentation's others.  ``upright_only``: the row
    has no sideways tiles (a pond row)."""
    heights = (comp > 0).sum(axis=0).astype(np.int64)
    mid_y = y0 + comp.shape[0] / 2
    out: list[TileBlob] = []
    for cat, start, end in _column_runs(heights, size, _lift(strips, x0 + comp.shape[1] / 2, y0)):
        if cat == _GAP:
            continue
        if cat == _OVER:
            return None
        lo, hi = start - 1.5, end + 0.5  # the run's columns, not eroded, a pixel's centre at its index
        ends = (max(0.0, -strips.at(x0 + lo, mid_y)[0]), max(0.0, strips.at(x0 + hi, mid_y)[0]))
        if cat == _STACK:
            n = max(1, round((hi - lo - ends[0] - ends[1] + size.gap) / (size.h + size.gap)))
            layout = [(True, a, b) for a, b in place(lo, hi, [size.h] * n, ends)]
        else:
            fitted = _fit_layout(heights, lo, hi, size, ends, most_sideways=0 if upright_only else MAX_SIDEWAYS)
            if fitted is None:
                return None
            layout = fitted
        for sideways, a, b in layout:
            c0, c1 = max(start, round(a + 0.5)), min(end, round(b + 0.5))
            rows = _rows(comp, c0, c1) if c1 > c0 else None
            if rows is None or float((comp[rows[0] : rows[1], c0:c1] > 0).mean()) < 0.7:
                return None
            upper, lower = rows[0] - 0.5, rows[1] - 0.5
            cx, along = x0 + (a + b) / 2, b - a - 2
            if cat == _STACK:
                mid = (upper + lower) / 2
                for yc in ((upper + mid) / 2, (mid + lower) / 2):
                    out.append(TileBlob(cx, y0 + yc, along, (lower - upper) / 2, 0.0, True))
            else:
                out.append(TileBlob(cx, y0 + (upper + lower) / 2, along, lower - upper, 0.0, sideways))
    return out
