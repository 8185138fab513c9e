"""Find tiles in a zone image (upright as the zone's owner sees it) and cut them out for the classifier.

Tiles are told from the felt by colour: a pixel is foreground when its CIELAB distance from the felt
(chroma fully, lightness at half weight against the zone's own felt lightness, so uneven lighting does not
matter) exceeds ``threshold``, or when it is brighter than the felt by ``threshold``; holes (face art that
looks like felt) are filled.  Connected components are explained as tiles: a single tile (any small
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

Image = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class TileSize:
    """Tile face size and gap in zone-image pixels."""

    w: float
    h: float
    gap: float


@dataclass(frozen=True, slots=True)
class TileBlob:
    """One tile found in a zone image.

    Attributes:
        cx, cy: centre, zone px.
        length, depth: extent along the row (x) and across it (y), zone px, before rotation.
        angle_deg: small rotation of a knocked tile, degrees, clockwise on screen (image y points down).
        sideways: the tile lies across (its long side along the row).
    """

    cx: float
    cy: float
    length: float
    depth: float
    angle_deg: float
    sideways: bool


@dataclass(frozen=True, slots=True)
class ZoneTiles:
    """Segmentation of one zone image: tiles found, and whether something not a tile covers the zone."""

    tiles: tuple[TileBlob, ...]
    occluded: bool


def felt_ab(image: Image) -> tuple[float, float]:
    """The felt's (a, b) in OpenCV 8-bit Lab: the median chroma of a table-wide image (mostly felt)."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    return (float(np.median(lab[..., 1])), float(np.median(lab[..., 2])))


def foreground_mask(zone: Image, felt: tuple[float, float], threshold: float = 24.0) -> Mask:
    """255 where ``zone`` is not felt (tiles, hands), 0 on felt."""
    lab = cv2.cvtColor(zone, cv2.COLOR_BGR2Lab).astype(np.float32)
    da = lab[..., 1] - felt[0]
    db = lab[..., 2] - felt[1]
    chroma2 = da * da + db * db
    feltish = chroma2 < (threshold * 0.6) ** 2
    lightness = lab[..., 0]
    ref = float(np.median(lightness[feltish])) if int(feltish.sum()) > 50 else float(np.median(lightness))
    dl = (lightness - ref) * 0.5
    brighter = lightness > ref + threshold
    mask = (((chroma2 + dl * dl) > threshold * threshold) | brighter).astype(np.uint8) * 255
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    closed = cv2.morphologyEx(opened, cv2.MORPH_CLOSE, np.ones((2, 2), np.uint8))
    return fill_holes(np.asarray(closed, dtype=np.uint8))


def fill_holes(mask: Mask) -> Mask:
    """Fill every hole enclosed by foreground (green or dark face art that looks like felt)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, thickness=-1)
    return filled


def _single(points: npt.NDArray[np.int32], area: int, size: TileSize) -> TileBlob | None:
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(points.astype(np.float32))
    # normalise: angle in (-45, 45], rw along x
    if angle > 45:
        angle -= 90
        rw, rh = rh, rw
    elif angle < -45:
        angle += 90
        rw, rh = rh, rw
    short, long_ = sorted((rw, rh))
    if not (0.72 * size.w <= short <= 1.3 * size.w and 0.8 * size.h <= long_ <= 1.25 * size.h):
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
        for i in range(k):
            a, b = round(start + i * step), round(start + (i + 1) * step)
            cols = comp[:, a:b] > 0
            rows = np.flatnonzero(cols.any(axis=1))
            if rows.size == 0:
                return None
            top, bottom = int(rows[0]), int(rows[-1]) + 1
            fill = float(cols[top:bottom].mean())
            if fill < 0.7:
                return None
            if cat == _STACK:
                mid = (top + bottom) / 2
                for yc in ((top + mid) / 2, (mid + bottom) / 2):
                    out.append(TileBlob(x0 + (a + b) / 2, y0 + yc, b - a, (bottom - top) / 2, 0.0, True))
            else:
                out.append(TileBlob(x0 + (a + b) / 2, y0 + (top + bottom) / 2, b - a, bottom - top, 0.0, cat == _SIDE))
    return out


def segment(mask: Mask, size: TileSize, *, split_rows: bool = False) -> ZoneTiles:
    """Explain the foreground ``mask`` of a zone as tiles.

    Args:
        mask: foreground mask of the zone image (255 = not felt).
        size: tile size in zone pixels.
        split_rows: the zone holds rows of tiles that may touch across rows (the pond).
    """
    eroded = cv2.erode(mask, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(eroded, connectivity=4)
    tiles: list[TileBlob] = []
    occluded = False
    min_area = 0.25 * size.w * size.h
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if area < min_area:
            continue
        comp = (labels[y : y + h, x : x + w] == label).astype(np.uint8)
        if area > 1.5 * size.w * size.h and _border_contact(comp, x, y, eroded.shape) > 0.5 * size.w:
            occluded = True  # an arm reaching in from outside the zone
            break
        if min(w, h) + 2 < 0.75 * size.w:
            continue  # a thin strip: standing tiles seen from above, a tile edge at the zone border
        contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        points = (np.concatenate(contours).reshape(-1, 2) + np.array([x, y])).astype(np.int32)
        single = _single(points, area, TileSize(size.w - 2, size.h - 2, size.gap))
        if single is not None:
            tiles.append(single)
            continue
        bands = [(0, h)]
        if split_rows and h > 1.5 * size.h:
            n_rows = max(1, round((h + size.gap) / (size.h + size.gap)))
            bands = [(round(i * h / n_rows), round((i + 1) * h / n_rows)) for i in range(n_rows)]
        for top, bottom in bands:
            row = _split_row(comp[top:bottom], x, y + top, TileSize(size.w - 2, size.h - 2, size.gap + 2))
            if row is None:
                occluded = True
                break
            tiles.extend(row)
        if occluded:
            break
    return ZoneTiles(tuple(_grow(t) for t in tiles), occluded)


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
