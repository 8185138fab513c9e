"""The sides of tiles in a zone image warped on the plane of the tiles' tops.

On that plane every top lies exactly where the tile lies, at its true size, and nothing covers it (a top is
the highest thing on the table); the sides facing the camera show as strips from the tops' edges toward the
camera's nadir, as wide as the tile is thick times the edge's distance from the nadir over the camera's
height (:func:`vision.pipeline.camera_model.side_strip_mm`): about 1.5 mm in the pond's first row and 6 mm
at the meld row for a camera 1.4 m up.  A strip fills the gap to the next tile when it is wider than the
gap, joining the tiles into one blob.  The segmentation allows for the strips when it sizes blobs and then
trims each tile back to its top with :func:`trim_to_top`.

Pure arithmetic; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.pipeline.blobs import TileBlob, TileSize

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class SideStrips:
    """The strip field of one zone image: at zone px ``(x, y)`` a side facing the camera shows as a strip from
    the top's edge by ``matrix @ (x, y, 1)`` zone px (an affine field: the strip grows linearly with the
    distance from the nadir)."""

    matrix: FloatArray

    @classmethod
    def for_zone(
        cls,
        zone_to_table: FloatArray,
        nadir_uv: tuple[float, float],
        camera_z_mm: float,
        thickness_mm: float,
        px_per_mm: float,
    ) -> SideStrips:
        """The field of a zone image (``zone_to_table``: 3x3 affine, zone px -> table mm; the camera's nadir
        (mm) and height above the felt (mm); the tiles' thickness (mm); the zone image's px per mm)."""
        linear = np.asarray(zone_to_table[:2, :2], np.float64)
        shift = np.asarray(zone_to_table[:2, 2], np.float64)
        f = thickness_mm / camera_z_mm
        # strip (table mm) = -(p - N) f with p = linear @ q + shift; back to zone px through linear's inverse
        back = np.linalg.inv(linear) * px_per_mm
        matrix = np.column_stack([-f * back @ linear, -f * back @ (shift - np.asarray(nadir_uv, np.float64))])
        return cls(np.asarray(matrix, np.float64))

    def at(self, x: float, y: float) -> tuple[float, float]:
        """The strip vector (zone px) at zone px ``(x, y)``."""
        v = self.matrix @ np.array([x, y, 1.0])
        return (float(v[0]), float(v[1]))

    def extent(self, shape: tuple[int, ...]) -> tuple[float, float]:
        """The largest strip width along x and along y anywhere in a zone image of ``shape`` (px)."""
        h, w = shape[:2]
        corners = [self.at(x, y) for x in (0.0, float(w)) for y in (0.0, float(h))]
        return (max(abs(c[0]) for c in corners), max(abs(c[1]) for c in corners))

    def mean(self, shape: tuple[int, ...]) -> tuple[float, float]:
        """The strip widths along x and along y at the zone image's centre (px)."""
        h, w = shape[:2]
        sx, sy = self.at(w / 2, h / 2)
        return (abs(sx), abs(sy))


def trim_to_top(blob: TileBlob, strips: SideStrips, size: TileSize) -> TileBlob:
    """``blob`` without the side strip it may include: along each axis, whatever it is longer than the tile
    (at most the strip's width there, plus a pixel) is cut off on the strip's side, toward the nadir."""
    sx, sy = strips.at(blob.cx, blob.cy)
    length, depth = (size.h, size.w) if blob.sideways else (size.w, size.h)
    cut_x = min(max(0.0, blob.length - length), abs(sx) + 1.0)
    cut_y = min(max(0.0, blob.depth - depth), abs(sy) + 1.0)
    # the strip lies on the side the strip vector points to: the top is on the other side
    cx = blob.cx - np.sign(sx) * cut_x / 2
    cy = blob.cy - np.sign(sy) * cut_y / 2
    return TileBlob(float(cx), float(cy), blob.length - cut_x, blob.depth - cut_y, blob.angle_deg, blob.sideways)
