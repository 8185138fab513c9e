"""Find tiles in a zone image (upright as the zone's owner sees it) and cut them out for the classifier.

Tiles are told from the felt by colour: a pixel is foreground when its CIELAB distance from the felt
(chroma fully, lightness at half weight against the zone's own felt lightness, so uneven lighting does not
matter) exceeds ``threshold``, or when it is brighter than the felt by ``threshold``; holes (face art that
looks like felt) are filled, before the mask is cleaned by an opening so that thin light stripes between
green strokes keep a face whole.  Tiles of nearly the felt's colour (green backs on green felt) are found by
their outline instead: felt-like regions of a tile's size and shape closed all round by edges (a Lab
channel's local range well above the felt's noise), not lying between other tiles' bodies (an empty slot).
Connected components are explained as tiles: a single tile (any small
rotation: a tile knocked out of line), or a row of touching tiles split by the column-height profile
(tall columns: upright tiles, short columns: a sideways tile, double-height: a promoted kong's two stacked
sideways tiles).  A component that cannot be explained as tiles (an arm or a hand over the zone) marks
the zone *occluded*: the tracker then ignores that zone for the frame.  Thin strips (standing tiles seen
from above) are neither tiles nor occluders.

Pure functions over numpy arrays; safe to call from any thread.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.blobs import TileBlob, TileSize, ZoneTiles
from vision.pipeline.row_layout import explain_row
from vision.pipeline.sides import SideStrips, trim_to_top

Image = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.uint8]
__all__ = ["Mask", "TileBlob", "TileSize", "ZoneTiles", "crop", "crop_from_frame", "foreground_mask", "segment"]


def felt_ab(image: Image) -> tuple[float, float]:
    """The felt's (a, b) in OpenCV 8-bit Lab: the median chroma of a table-wide image (mostly felt)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    return (float(np.median(lab[..., 1])), float(np.median(lab[..., 2])))


def foreground_mask(
    zone: Image,
    felt: tuple[float, float],
    threshold: float = 24.0,
    *,
    size: TileSize | None = None,
) -> Mask:
    """255 where ``zone`` is not felt (tiles, hands), 0 on felt.

    Args:
        zone: BGR zone image.
        felt: the felt's (a, b) in OpenCV 8-bit Lab (:func:`felt_ab`).
        threshold: colour distance from the felt (8-bit Lab units) above which a pixel is not felt.
        size: tile size in zone px; given, tiles of nearly the felt's colour are found by their outline
            (:func:`outlined_regions`), else by colour only.
    """
    lab8 = np.asarray(cv2.cvtColor(zone, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    colour = colour_mask(lab8, felt, threshold, bgr=zone)
    # holes are filled before the opening: the 2 px light stripes between a face's green strokes would not
    # survive it, and the tile would fall apart into a comb
    mask = fill_holes(colour)
    if size is not None:
        mask = np.asarray(mask | outlined_regions(lab8, colour, mask, size), dtype=np.uint8)
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # a 2 x 2 closing that does not move the mask: dilate toward +x +y, erode back from the same side (a plain
    # MORPH_CLOSE with an even kernel shifts every blob by a pixel)
    two = np.ones((2, 2), np.uint8)
    closed = cv2.erode(cv2.dilate(opened, two, anchor=(1, 1)), two, anchor=(0, 0))
    return fill_holes(np.asarray(closed, dtype=np.uint8))


def colour_mask(lab8: Image, felt: tuple[float, float], threshold: float = 24.0, *, bgr: Image | None = None) -> Mask:
    """255 where a pixel's colour is not the felt's: CIELAB distance from the felt (chroma fully, lightness at
    half weight against the zone's own felt lightness) above ``threshold``, or brighter than that felt by
    ``threshold`` (8-bit Lab units).  ``lab8``: the zone in OpenCV 8-bit Lab; ``bgr``: the same zone in BGR,
    given: the felt in shadow (its own colour, 30-100 % as bright: :func:`felt_in_shadow`) is felt too, however
    dark (a tile's shadow would otherwise close the gap to its neighbour).  No clean-up."""
    lab = lab8.astype(np.float32)
    da = lab[..., 1] - felt[0]
    db = lab[..., 2] - felt[1]
    chroma2 = da * da + db * db
    feltish = np.asarray(chroma2 < (threshold * 0.6) ** 2, dtype=np.uint8)
    lightness = lab[..., 0]
    ref = _median_u8(lab8, 0, feltish if cv2.countNonZero(feltish) > 50 else None)
    dl = (lightness - ref) * 0.5
    brighter = lightness > ref + threshold
    out = ((chroma2 + dl * dl) > threshold * threshold) | brighter
    if bgr is not None:
        out &= ~felt_in_shadow(bgr, (ref, felt[0], felt[1]))
    return np.asarray(out, dtype=np.uint8) * 255


def felt_in_shadow(bgr: Image, felt_lab: tuple[float, float, float]) -> npt.NDArray[np.bool_]:
    """Where ``bgr`` is the felt's colour dimmed by a shadow: along the felt's BGR direction at 30-100 % of its
    brightness, and off that direction by at most 6 levels plus 10 % of its length (noise).  ``felt_lab``: the
    felt's (L, a, b) in OpenCV 8-bit Lab."""
    ref = cv2.cvtColor(np.array([[felt_lab]], np.uint8), cv2.COLOR_Lab2BGR).reshape(3).astype(np.float32)
    norm2 = float(ref @ ref) or 1.0
    x = bgr.astype(np.float32)
    gain = (x @ ref) / norm2
    off2 = (x * x).sum(axis=-1) - gain * gain * norm2
    allowed = 6.0 + 0.1 * gain * np.sqrt(norm2)
    return np.asarray((gain >= 0.3) & (gain <= 1.0) & (off2 <= allowed * allowed), dtype=np.bool_)


def _median_u8(image: Image, channel: int, mask: Mask | None) -> float:
    """``np.median`` of one channel of an 8-bit image (under ``mask`` when given), from its histogram: the
    same value, without sorting."""
    hist = cv2.calcHist([image], [channel], mask, [256], [0, 256]).ravel()
    cum = np.cumsum(hist)
    n = int(cum[-1])
    upper = float(np.searchsorted(cum, n // 2 + 1))
    if n % 2:
        return upper
    return (float(np.searchsorted(cum, n // 2)) + upper) / 2


#: a pixel is an edge when a Lab channel's 3x3 range (after a 3x3 Gaussian) exceeds EDGE_K x that channel's
#: median range off the colour mask (the felt's noise), and at least EDGE_FLOOR (8-bit Lab units)
EDGE_K = 2.5
EDGE_FLOOR = 5.0


def edge_mask(lab8: Image, colour: Mask) -> Mask:
    """255 where the zone has an edge: in any 8-bit Lab channel, after a 3x3 Gaussian, the range over the 3x3
    neighbourhood (morphological gradient) exceeds ``max(EDGE_FLOOR, EDGE_K x its median off colour)``.
    The felt is flat with noise (median range 2-3 levels in the simulated camera, 8 at most); a tile's
    outline, rim or shadow is a step of 10 levels or more."""
    smooth = cv2.GaussianBlur(lab8, (3, 3), 0)
    grad = np.asarray(cv2.morphologyEx(smooth, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)), dtype=np.uint8)
    # the felt's noise from every other pixel off the colour mask (a quarter of the work, about the same median)
    sample = np.ascontiguousarray(grad[::2, ::2])
    off = np.ascontiguousarray(colour[::2, ::2] == 0).astype(np.uint8)
    if cv2.countNonZero(off) < 50:
        off[:] = 1
    out = np.zeros(colour.shape, np.uint8)
    for c, channel in enumerate(cv2.split(grad)):
        hist = cv2.calcHist([sample], [c], off, [256], [0, 256]).ravel()
        noise = float(np.searchsorted(np.cumsum(hist), hist.sum() / 2))
        _, above = cv2.threshold(channel, max(EDGE_FLOOR, EDGE_K * noise), 255, cv2.THRESH_BINARY)
        out = np.asarray(cv2.bitwise_or(out, above), dtype=np.uint8)
    return out


def outlined_regions(lab8: Image, colour: Mask, filled: Mask, size: TileSize) -> Mask:
    """Tiles of nearly the felt's colour (a green back on green felt) found by their outline: regions that the
    colour mask does not cover, closed all round by edges (:func:`edge_mask`) or colour, of a tile's size, and
    not lying between other tiles' bodies; each is grown by up to 2 px into the edge band round it (its rim).

    A region counts when its area is 0.2-1.2 tile tops and its bounding box at least half a tile wide, and when
    at most 15 % of the ring 0.15 tile widths round it lies on a tile body (``filled`` opened by 5 x 5 px:
    thin rims do not count).  An empty pond slot surrounded by tiles is closed by their edges too, but that
    ring lies on their bodies (37-46 % measured); a felt-coloured tile's ring lies on its own rim (0-3 %).

    Args:
        lab8: the zone in OpenCV 8-bit Lab.
        colour: :func:`colour_mask` of the zone.
        filled: ``colour`` with its holes filled.
        size: tile size in zone px.
    """
    edge = edge_mask(lab8, colour)
    # closed by 3 x 3 px: a faint rim gives a broken double line (its inner and outer edge)
    walls = np.asarray(cv2.morphologyEx(colour | edge, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), np.uint8)
    # holes the colour mask did not fill already
    holes = cv2.bitwise_and(fill_holes(walls), cv2.bitwise_not(cv2.bitwise_or(walls, filled)))
    out = np.zeros_like(colour)
    tile_area = size.w * size.h
    if cv2.countNonZero(holes) < 0.2 * tile_area:
        return out
    count, labels, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
    reach = max(2, round(0.15 * size.w))
    bodies: Mask | None = None
    height, width = colour.shape[:2]
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if not (0.2 * tile_area <= area <= 1.2 * tile_area and min(w, h) >= 0.5 * size.w):
            continue
        if bodies is None:
            bodies = np.asarray(cv2.morphologyEx(filled, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)), np.uint8)
        x0, y0 = max(0, x - reach), max(0, y - reach)
        x1, y1 = min(width, x + w + reach), min(height, y + h + reach)
        region = np.asarray(labels[y0:y1, x0:x1] == label, dtype=np.uint8)
        if not _tile_shaped(region, area, size):
            continue
        ring = cv2.dilate(region, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)) > region
        if float((bodies[y0:y1, x0:x1][ring] > 0).mean()) > 0.15:
            continue  # felt showing between other tiles (an empty slot), not a tile
        grown = cv2.dilate(region, np.ones((5, 5), np.uint8)) & ((region | (edge[y0:y1, x0:x1] > 0)).astype(np.uint8))
        out[y0:y1, x0:x1] |= grown * 255
    return out


def _tile_shaped(region: Mask, area: int, size: TileSize) -> bool:
    """Whether a region (its own mask, ``area`` px) is a tile top seen inside its rim: a rectangle (at least
    80 % of its rotated bounding box) whose sides are 55-105 % of a tile's, either way round."""
    points = cv2.findNonZero(region)
    (_, _), (rw, rh), _ = cv2.minAreaRect(points)
    short, long_ = sorted((rw, rh))
    if area < 0.8 * rw * rh:
        return False
    return 0.55 * size.w <= short <= 1.05 * size.w and 0.55 * size.h <= long_ <= 1.05 * size.h


def fill_holes(mask: Mask) -> Mask:
    """Fill every hole enclosed by foreground (green or dark face art that looks like felt)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, thickness=-1)
    return filled


def _single(points: npt.NDArray[np.int32], area: int, size: TileSize, slack: float = 0.0) -> TileBlob | None:
    """A component explained as one tile (``slack``: px a visible side may add to either side's length)."""
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(points.astype(np.float32))
    # normalise: angle in (-45, 45], rw along x
    if angle > 45:
        angle -= 90
        rw, rh = rh, rw
    elif angle < -45:
        angle += 90
        rw, rh = rh, rw
    short, long_ = sorted((rw, rh))
    if not (0.72 * size.w <= short <= 1.3 * size.w + slack and 0.8 * size.h <= long_ <= 1.25 * size.h + slack):
        return None
    if area < 0.72 * rw * rh:
        return None
    sideways = rw > rh
    return TileBlob(float(cx), float(cy), float(rw), float(rh), float(angle), sideways)


def _runs(categories: list[int], size: TileSize) -> list[tuple[int, int, int]]:
    """(category, start, end) runs of column categories; slivers (a half-bridged gap between two tiles,
    anti-aliased edges) shorter than 60 % of a tile are merged into the neighbouring tile run or dropped."""
    runs: list[list[int]] = []
    for i, cat in enumerate(categories):
        if runs and runs[-1][0] == cat:
            runs[-1][2] = i + 1
        else:
            runs.append([cat, i, i + 1])
    expected = {_SIDE: size.h, _UP: size.w, _STACK: size.h, _OVER: 0.0}
    merged: list[list[int]] = []
    for run in runs:
        short = run[0] != _GAP and run[2] - run[1] < 0.6 * expected[run[0]]
        if short and merged and merged[-1][0] not in (_GAP,) and merged[-1][2] == run[1]:
            merged[-1][2] = run[2]
        elif short:
            merged.append([_GAP, run[1], run[2]] if run[0] != _OVER else run)
        elif merged and merged[-1][0] == _GAP and merged[-1][2] - merged[-1][1] < 0.25 * size.w and len(merged) > 1:
            # a sliver turned gap just before this run: give it to this run
            sliver = merged.pop()
            if merged and merged[-1][0] == run[0] and merged[-1][2] == sliver[1] and sliver[0] != _GAP:
                merged[-1][2] = run[2]
            else:
                merged.append([run[0], sliver[1] if sliver[0] != _GAP else run[1], run[2]])
        else:
            merged.append(run)
    return [(r[0], r[1], r[2]) for r in merged]


_GAP, _SIDE, _UP, _STACK, _OVER = 0, 1, 2, 3, 4


def _split_row(comp: Mask, x0: int, y0: int, size: TileSize) -> list[TileBlob] | None:
    """Explain a component (its own mask, offset x0, y0) as a row of tiles, or None if it is not tiles."""
    heights = (comp > 0).sum(axis=0)
    cats: list[int] = []
    for hc in heights:
        if hc < 0.4 * size.w:
            cats.append(_GAP)
        elif hc < (size.w + size.h) / 2:
            cats.append(_SIDE)
        elif hc < (size.h + 2 * size.w) / 2 + 2:
            cats.append(_UP)
        elif hc <= 2 * size.w + size.gap + 7:
            cats.append(_STACK)
        else:
            cats.append(_OVER)
    out: list[TileBlob] = []
    for cat, start, end in _runs(cats, size):
        if cat == _GAP:
            continue
        if cat == _OVER:
            return None
        length = end - start
        pitch = size.w + size.gap if cat == _UP else size.h + size.gap
        k = max(1, round((length + size.gap) / pitch))
        step = length / k
        for i in range(k):  # extents in px, a pixel's centre at its index
            lo, hi = start - 0.5 + i * step, start - 0.5 + (i + 1) * step
            a, b = max(start, round(lo + 0.5)), min(end, round(hi + 0.5))
            if b <= a:
                return None
            cols = comp[:, a:b] > 0
            rows = np.flatnonzero(cols.any(axis=1))
            if rows.size == 0:
                return None
            top, bottom = int(rows[0]), int(rows[-1]) + 1
            fill = float(cols[top:bottom].mean())
            if fill < 0.7:
                return None
            cx, along = x0 + (lo + hi) / 2, hi - lo
            upper, lower = top - 0.5, bottom - 0.5
            if cat == _STACK:
                mid = (upper + lower) / 2
                for yc in ((upper + mid) / 2, (mid + lower) / 2):
                    out.append(TileBlob(cx, y0 + yc, along, (lower - upper) / 2, 0.0, True))
            else:
                out.append(TileBlob(cx, y0 + (upper + lower) / 2, along, lower - upper, 0.0, cat == _SIDE))
    return out


def segment(
    mask: Mask,
    size: TileSize,
    *,
    split_rows: bool = False,
    strips: SideStrips | None = None,
    standing: bool = False,
) -> ZoneTiles:
    """Explain the foreground ``mask`` of a zone as tiles.

    Args:
        mask: foreground mask of the zone image (255 = not felt).
        size: tile size in zone pixels.
        split_rows: the zone holds rows of tiles that may touch across rows (the pond).
        strips: where the tiles' sides show (the zone warped on the plane of the tops): blobs may be longer by
            a strip, and each tile found is trimmed back to its top (:func:`vision.pipeline.sides.trim_to_top`).
        standing: the zone is where the standing hand is (and where it is laid face up after a win): every
            tile lying there lies upright, so a component less deep than an upright tile's top is the standing
            hand (its tiles' top ends and backs), neither tiles nor an occluder.
    """
    slack = max(strips.extent(mask.shape)) if strips is not None else 0.0

    eroded = cv2.erode(mask, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(eroded, connectivity=4)
    tiles: list[TileBlob] = []
    occluded = False
    min_area = 0.25 * size.w * size.h
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if area < min_area:
            continue
        if standing and h < (size.w + size.h) / 2 + (0.7 * abs(strips.at(x + w / 2, y)[1]) if strips else 0.0):
            continue  # the standing hand
        comp = (labels[y : y + h, x : x + w] == label).astype(np.uint8)
        if area > 1.5 * size.w * size.h and _border_contact(comp, x, y, eroded.shape) > 0.5 * size.w:
            occluded = True  # an arm reaching in from outside the zone
            break
        if min(w, h) + 2 < 0.75 * size.w:
            continue  # a thin strip: standing tiles seen from above, a tile edge at the zone border
        found = _explain(comp, x, y, _Context(size, strips, split_rows, slack))
        if found is None:
            occluded = True
            break
        tiles.extend(found)
    grown = [_grow(t) for t in tiles]
    if strips is not None:
        grown = [trim_to_top(t, strips, size) for t in grown]
    return ZoneTiles(tuple(grown), occluded)


@dataclass(frozen=True, slots=True)
class _Context:
    """How one zone's components are explained (see :func:`segment`)."""

    size: TileSize
    strips: SideStrips | None
    split_rows: bool
    slack: float


def _explain(comp: Mask, x: int, y: int, ctx: _Context, depth: int = 0) -> list[TileBlob] | None:
    """A component (its own 0/1 mask, eroded by a pixel each side, offset ``x, y`` in the zone) as tiles: a
    single tile; else tiles touching only at a corner or over a thin bridge, each part explained in turn
    (:func:`_parts`); else a row (rows, in the pond) of touching tiles; None when it is not tiles."""
    size = ctx.size
    shrunk = TileSize(size.w - 2, size.h - 2, size.gap)
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    points = (np.concatenate(contours).reshape(-1, 2) + np.array([x, y])).astype(np.int32)
    single = _single(points, int(comp.sum()), shrunk, ctx.slack)
    if single is not None:
        return [single]
    parts = _parts(comp, size) if depth < 2 else None
    if parts is not None:
        tiles: list[TileBlob] = []
        for part, px, py in parts:
            found = _explain(part, x + px, y + py, ctx, depth + 1)
            if found is None:
                break
            tiles.extend(found)
        else:
            return tiles
    h = comp.shape[0]
    bands = [(0, h)]
    if ctx.split_rows and h > 1.5 * size.h:
        n_rows = max(1, round((h + size.gap) / (size.h + size.gap)))
        bands = [(round(i * h / n_rows), round((i + 1) * h / n_rows)) for i in range(n_rows)]
    out: list[TileBlob] = []
    for top, bottom in bands:
        band = comp[top:bottom]
        if ctx.strips is None:
            row = _split_row(band, x, y + top, TileSize(size.w - 2, size.h - 2, size.gap + 2))
        else:
            row = explain_row(band, x, y + top, size, ctx.strips, upright_only=ctx.split_rows)
        if row is None and ctx.split_rows:
            row = _peel_row(band, x, y + top, ctx)
        if row is None:
            return None
        out.extend(row)
    return out


def _peel_row(band: Mask, x: int, y: int, ctx: _Context) -> list[TileBlob] | None:
    """A pond row (0/1 mask, eroded, offset ``x, y``) of upright tiles with one tile out of line (knocked
    against a neighbour, touching it through the side seen between them): upright tiles are peeled off both
    ends while a tile-sized box there is full, and what is left between them must be one single tile, at
    whatever angle.  None when the row is not so."""
    w, h, gap = ctx.size.w - 2, ctx.size.h - 2, ctx.size.gap + 2
    cols = np.flatnonzero(band.any(axis=0))
    if cols.size == 0:
        return None
    left, right = int(cols[0]), int(cols[-1]) + 1
    tiles: list[TileBlob] = []

    def upright(a: int) -> TileBlob | None:
        b = a + round(w)
        rows = np.flatnonzero(band[:, a:b].mean(axis=1) >= 0.9)
        if b > band.shape[1] or rows.size < 0.9 * h:
            return None
        top, bottom = int(rows[0]), int(rows[-1]) + 1
        if float(band[top:bottom, a:b].mean()) < 0.9:
            return None
        return TileBlob(x + (a + b - 1) / 2, y + (top + bottom - 1) / 2, float(b - a), float(bottom - top), 0.0, False)

    while right - left > 1.5 * w and (tile := upright(left)) is not None:
        tiles.append(tile)
        left += round(w + gap)
    while right - left > 1.5 * w and (tile := upright(right - round(w))) is not None:
        tiles.append(tile)
        right -= round(w + gap)
    rest = np.ascontiguousarray(band[:, max(0, left - 1) : right + 1])
    if int(rest.sum()) < 0.25 * w * h:
        return tiles or None
    contours, _ = cv2.findContours(rest, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    points = (np.concatenate(contours).reshape(-1, 2) + np.array([x + max(0, left - 1), y])).astype(np.int32)
    single = _single(points, int(rest.sum()), TileSize(w, h, ctx.size.gap), ctx.slack)
    return None if single is None or not tiles else [*tiles, single]


def _parts(comp: Mask, size: TileSize) -> list[tuple[Mask, int, int]] | None:
    """The pieces of a component (0/1 mask) that touch only at a corner or over a thin bridge (a tile knocked
    against its neighbour, a side strip or a shadow closing a gap): eroded once or twice more it falls apart
    into cores of at least a quarter tile; each grown back inside the component, cut to its box, with its
    offset.  None when it does not fall apart so."""
    kernel = np.ones((3, 3), np.uint8)
    for k in (1, 2):
        cores = cv2.erode(comp, kernel, iterations=k)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(cores, connectivity=4)
        big = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 0.25 * size.w * size.h]
        if len(big) < 2:
            continue
        out: list[tuple[Mask, int, int]] = []
        for i in big:
            core = np.asarray(labels == i, np.uint8)
            region = np.asarray(cv2.bitwise_and(cv2.dilate(core, kernel, iterations=k), comp), np.uint8)
            bx, by, bw, bh = cv2.boundingRect(region)
            out.append((np.ascontiguousarray(region[by : by + bh, bx : bx + bw]), bx, by))
        return out
    return None


def _border_contact(comp: Mask, x: int, y: int, shape: tuple[int, ...]) -> int:
    """How many pixels of the component lie on the zone image's border."""
    height, width = shape[:2]
    h, w = comp.shape
    contact = 0
    if y == 0:
        contact += int(comp[0].sum())
    if y + h == height:
        contact += int(comp[-1].sum())
    if x == 0:
        contact += int(comp[:, 0].sum())
    if x + w == width:
        contact += int(comp[:, -1].sum())
    return contact


def _grow(blob: TileBlob) -> TileBlob:
    """Undo the one-pixel erosion on each side."""
    return TileBlob(blob.cx, blob.cy, blob.length + 2, blob.depth + 2, blob.angle_deg, blob.sideways)


def crop(zone: Image, blob: TileBlob, out_w: int, out_h: int) -> Image:
    """The tile under ``blob``, de-rotated and turned upright (portrait), resized to ``out_w`` x ``out_h``.

    A sideways tile lies with its face top toward the owner's left (the box's left side), so it is turned
    a quarter clockwise: the output's top-left comes from the box's bottom-left corner.
    """
    t = np.deg2rad(blob.angle_deg)
    ex = np.array([np.cos(t), np.sin(t)]) * blob.length / 2
    ey = np.array([-np.sin(t), np.cos(t)]) * blob.depth / 2
    c = np.array([blob.cx, blob.cy])
    top_left, top_right, bottom_left = c - ex - ey, c + ex - ey, c - ex + ey
    if blob.sideways:
        src = np.array([bottom_left, top_left, c + ex + ey], np.float32)
    else:
        src = np.array([top_left, top_right, bottom_left], np.float32)
    dst = np.array([[0, 0], [out_w, 0], [0, out_h]], np.float32)
    affine = cv2.getAffineTransform(src, dst)
    return np.asarray(cv2.warpAffine(zone, affine, (out_w, out_h), flags=cv2.INTER_LINEAR), dtype=np.uint8)


def _box_corners(blob: TileBlob, margin: float) -> npt.NDArray[np.float64]:
    """The blob's box grown by ``margin`` x its size on each side: top-left, top-right, bottom-right,
    bottom-left, zone px (upright tile: top = away from the owner)."""
    t = np.deg2rad(blob.angle_deg)
    ex = np.array([np.cos(t), np.sin(t)]) * blob.length * (0.5 + margin)
    ey = np.array([-np.sin(t), np.cos(t)]) * blob.depth * (0.5 + margin)
    c = np.array([blob.cx, blob.cy])
    return np.array([c - ex - ey, c + ex - ey, c + ex + ey, c - ex + ey], np.float64)


def crop_from_frame(
    frame: Image,
    zone_to_image: npt.NDArray[np.float64],
    blob: TileBlob,
    *,
    out_w: int,
    out_h: int,
    margin: float = 0.05,
) -> Image:
    """The tile under ``blob`` (found in a zone image) cut straight out of the camera frame.

    One resampling instead of two: the box's corners go through ``zone_to_image`` (zone px -> frame px,
    the homography the zone was warped with) and the frame is warped once to ``out_w`` x ``out_h``
    (portrait, upright as the owner sees it; a sideways tile is turned as in :func:`crop`).  ``margin``
    (fraction of the tile's size per side) keeps a rim of felt round the tile, as the classifier was
    trained on loose framing.
    """
    tl, tr, br, bl = _box_corners(blob, margin)
    quad = np.array([[bl, tl, tr, br]] if blob.sideways else [[tl, tr, br, bl]], np.float64)
    src = cv2.perspectiveTransform(quad, zone_to_image)[0].astype(np.float32)
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    warp = cv2.getPerspectiveTransform(src, dst)
    flags = cv2.INTER_LINEAR
    return np.asarray(cv2.warpPerspective(frame, warp, (out_w, out_h), flags=flags), dtype=np.uint8)
