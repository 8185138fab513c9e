"""Table geometry in millimetres: marker positions, seat frames, and the per-seat zones the pipeline reads.

Two coordinate frames, both in mm:

* **table frame** ``(u, v)``: origin at the table centre, ``u`` to the right and ``v`` down in the top-down
  view, seat 0 at the bottom edge (large ``v``);
* **seat frame** ``(x, y)`` of seat ``s``: ``x`` to that player's right, ``y`` from the table centre toward
  that player.  Seats run counter-clockwise: seat 1 at the right edge, seat 2 at the top, seat 3 at the left.

A :class:`Zone` is an axis-aligned rectangle in a seat frame.  The pipeline warps each zone straight from
the camera frame into an upright image *as the owner sees it* (row 0 toward the table centre), so tiles
in it appear upright whatever the seat.  The simulated camera places tiles with the same geometry.

Pure data and arithmetic; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

ZoneKind = Literal["pond", "melds", "shown", "dora"]
FloatArray = npt.NDArray[np.float64]

#: Seat-frame unit vectors (x axis, y axis) expressed in the table frame, per seat.
_SEAT_AXES: tuple[tuple[tuple[float, float], tuple[float, float]], ...] = (
    ((1.0, 0.0), (0.0, 1.0)),  # seat 0: bottom
    ((0.0, -1.0), (1.0, 0.0)),  # seat 1: right
    ((-1.0, 0.0), (0.0, -1.0)),  # seat 2: top
    ((0.0, 1.0), (-1.0, 0.0)),  # seat 3: left
)


def seat_to_table(seat: int, x_mm: float, y_mm: float) -> tuple[float, float]:
    """Map a point from seat ``seat``'s frame to the table frame (both mm)."""
    (ax, ay), (bx, by) = _SEAT_AXES[seat]
    return (x_mm * ax + y_mm * bx, x_mm * ay + y_mm * by)


def seat_affine(seat: int) -> FloatArray:
    """3x3 matrix taking homogeneous seat-frame mm to table-frame mm."""
    (ax, ay), (bx, by) = _SEAT_AXES[seat]
    return np.array([[ax, bx, 0.0], [ay, by, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True, slots=True)
class Zone:
    """An axis-aligned rectangle in a seat frame (mm): ``x0 <= x < x1``, ``y0 <= y < y1``."""

    seat: int
    kind: ZoneKind
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width_mm(self) -> float:
        return self.x1 - self.x0

    @property
    def height_mm(self) -> float:
        return self.y1 - self.y0

    def zone_to_table(self, px_per_mm: float) -> FloatArray:
        """3x3 matrix taking zone-image pixels (col, row) to table-frame mm."""
        to_seat = np.array([[1.0 / px_per_mm, 0.0, self.x0], [0.0, 1.0 / px_per_mm, self.y0], [0.0, 0.0, 1.0]])
        return np.asarray(seat_affine(self.seat) @ to_seat, dtype=np.float64)

    def size_px(self, px_per_mm: float) -> tuple[int, int]:
        """(width, height) of the zone image in pixels."""
        return (round(self.width_mm * px_per_mm), round(self.height_mm * px_per_mm))


@dataclass(frozen=True, slots=True)
class TableGeometry:
    """Physical layout of one table model (all lengths in mm).

    Defaults describe an automatic table with an 840 mm felt square, riichi-size tiles (26 x 35 mm face,
    20 mm thick) and four 50 mm ArUco markers (DICT_4X4_50) just outside the felt corners, level with the
    felt.
    """

    felt_half_mm: float = 420.0
    #: half of the top-down canvas the simulated camera draws (felt plus rim with markers)
    canvas_half_mm: float = 490.0
    marker_size_mm: float = 50.0
    #: distance of each marker centre from the centre along u and v
    marker_offset_mm: float = 455.0
    #: marker ids at the corners: seat 0's left corner, seat 0's right corner, then counter-clockwise
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    tile_w_mm: float = 26.0
    tile_h_mm: float = 35.0
    #: height of a lying tile's top above the felt (its thickness), mm; the camera reads tiles on that plane
    tile_thickness_mm: float = 20.0
    #: height of the markers above the felt (stuck on a raised rim), mm
    marker_height_mm: float = 0.0
    #: gap between neighbouring tiles (pond, meld, shown hand), mm
    tile_gap_mm: float = 2.5
    #: gap between two melds, mm
    meld_gap_mm: float = 12.0
    pond_cols: int = 6
    pond_rows: int = 4
    #: seat-frame y of the pond's first row edge nearest the centre
    pond_y0_mm: float = 95.0
    #: seat-frame y of the near edge (toward the player) of the meld row
    meld_row_y_mm: float = 410.0
    #: seat-frame x where the first meld ends (its right edge)
    meld_right_x_mm: float = 405.0
    meld_left_x_mm: float = -260.0
    #: seat-frame y of the near edge of the standing / shown hand row
    hand_row_y_mm: float = 350.0
    hand_left_x_mm: float = -320.0
    hand_right_x_mm: float = 205.0
    #: seat-frame y of the near edge (toward the player) of the wall row between the pond and the hand, where
    #: the riichi dead wall lies (7 stacks of two, face down, indicators turned up; ``vision.scene.DeadWall``)
    wall_row_y_mm: float = 300.0
    #: half the length of the wall row the pipeline reads for the dead wall, mm (short of the corners, where
    #: the neighbours' rows begin)
    wall_half_mm: float = 245.0

    def marker_centres(self) -> dict[int, tuple[float, float]]:
        """Marker id -> centre in the table frame (mm)."""
        o = self.marker_offset_mm
        corners = ((-o, o), (o, o), (o, -o), (-o, -o))
        return dict(zip(self.marker_ids, corners, strict=True))

    def marker_corners(self) -> dict[int, FloatArray]:
        """Marker id -> its four corners (4x2, table mm) in ArUco order: top-left, top-right, bottom-right,
        bottom-left as the marker image is drawn upright in the top-down view."""
        half = self.marker_size_mm / 2
        out: dict[int, FloatArray] = {}
        for mid, (cu, cv) in self.marker_centres().items():
            out[mid] = np.array(
                [[cu - half, cv - half], [cu + half, cv - half], [cu + half, cv + half], [cu - half, cv + half]]
            )
        return out

    @property
    def pond_pitch_x_mm(self) -> float:
        return self.tile_w_mm + self.tile_gap_mm

    @property
    def pond_pitch_y_mm(self) -> float:
        return self.tile_h_mm + self.tile_gap_mm

    def pond_slot_centre(self, index: int) -> tuple[float, float]:
        """Seat-frame centre (mm) of pond slot ``index`` (row-major, 6 per row, first row nearest the centre)."""
        row, col = divmod(index, self.pond_cols)
        x = (col - (self.pond_cols - 1) / 2) * self.pond_pitch_x_mm
        y = self.pond_y0_mm + self.tile_h_mm / 2 + row * self.pond_pitch_y_mm
        return (x, y)

    def zones(self, seat: int) -> tuple[Zone, Zone, Zone]:
        """The pond, meld and shown-hand zones of ``seat`` (margins included for knocked tiles, and toward the
        table centre for the sides of tiles the camera sees there: see :mod:`vision.pipeline.sides`)."""
        margin = 8.0
        inward = 14.0
        half_pond = self.pond_cols * self.pond_pitch_x_mm / 2
        pond = Zone(
            seat,
            "pond",
            -half_pond - margin,
            self.pond_y0_mm - margin,
            half_pond + margin,
            self.pond_y0_mm + self.pond_rows * self.pond_pitch_y_mm + margin,
        )
        melds = Zone(
            seat,
            "melds",
            self.meld_left_x_mm,
            self.meld_row_y_mm - 2 * self.tile_w_mm - self.tile_gap_mm - inward,
            self.meld_right_x_mm + 6.0,
            self.meld_row_y_mm + 6.0,
        )
        shown = Zone(
            seat,
            "shown",
            self.hand_left_x_mm,
            self.hand_row_y_mm - self.tile_h_mm - inward,
            self.hand_right_x_mm,
            self.hand_row_y_mm + 4.0,
        )
        return (pond, melds, shown)

    def dead_wall_stack_centre(self, x_mm: float, stack: int) -> tuple[float, float]:
        """Seat-frame centre (mm) of dead-wall stack ``stack`` (0 = the right-hand end as the owner sees it) of a
        dead wall whose seven stacks are centred at ``x_mm``."""
        return (x_mm + (3 - stack) * self.pond_pitch_x_mm, self.wall_row_y_mm - self.tile_h_mm / 2)

    def dora_zone(self, seat: int) -> Zone:
        """The wall row of ``seat`` where the dead wall's indicators are read (riichi).  The stacks are two tiles
        high: on the plane of their tops their sides show as strips toward the camera's nadir (up to about 15 mm
        on the far side of the table), which the zone keeps so that they are not taken for an arm reaching in;
        it ends short of the pond's last row."""
        inward = 20.0
        return Zone(seat, "dora", -self.wall_half_mm, self.wall_row_y_mm - self.tile_h_mm - inward,
                    self.wall_half_mm, self.wall_row_y_mm + 4.0)

    def all_zones(self) -> list[Zone]:
        """Every seat's zones, seat by seat."""
        return [z for seat in range(4) for z in self.zones(seat)]


DEFAULT_GEOMETRY = TableGeometry()
