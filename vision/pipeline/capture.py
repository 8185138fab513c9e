"""Enrollment photos from the table's own camera: lay the venue's set out in the ponds, in a known order, and
keep the pipeline's crops of every tile, filed by code (``DIR/<code>/*.png``) for ``mjtable vision enroll``.

The crops are cut exactly as in play (the same camera, calibration, plane of the tops and crop), so the adapted
classifier learns the venue's tiles as the table sees them, which photographs taken by hand would not show.
A layout gives each seat's pond in discard order (six a row, first row nearest the centre) in the shared
notation, one seat a line, ``back`` for a face-down tile; :data:`DEFAULT_LAYOUT` puts every class down once
(seat 0: characters, dots and 1-6 bamboo; seat 1: 7-9 bamboo, honours, red fives, flowers, a back).

Called from one thread (the pipeline's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from mjtable.tiles import NotationError, parse_tiles
from vision.pipeline.table import TablePipeline
from vision.pipeline.zones import TableGeometry, seat_to_table
from vision.scene import BACK, SeatScene, TableScene

Image = npt.NDArray[np.uint8]
#: Every class once: 46 tiles in the first two ponds.
DEFAULT_LAYOUT = "123456789m123456789p123456s\n789s1234567z0m0p0s12345678f back\n\n"
#: A tile found within this distance (mm) of where the layout puts one is taken for it.
MATCH_MM = 8.0


def parse_layout(text: str) -> tuple[tuple[str, ...], ...]:
    """Four seats' ponds from a layout (one line a seat, tiles in the shared notation, ``back`` for a face-down
    tile, ``#`` starts a comment); raises NotationError naming the line for a bad tile or a pond over 24."""
    lines = [line.split("#", 1)[0] for line in text.splitlines()]
    if len(lines) > 4 and any(line.strip() for line in lines[4:]):
        raise NotationError(f"a layout has four lines, one a seat; got {len(lines)}")
    seats: list[tuple[str, ...]] = []
    for number, line in enumerate([*lines, "", "", "", ""][:4]):
        codes: list[str] = []
        for token in line.split():
            try:
                codes.extend([BACK] if token == BACK else [str(t) for t in parse_tiles(token)])
            except NotationError as exc:
                raise NotationError(f"layout line {number + 1}: {exc}") from exc
        if len(codes) > 24:
            raise NotationError(f"layout line {number + 1}: {len(codes)} tiles, a pond holds 24")
        seats.append(tuple(codes))
    return (seats[0], seats[1], seats[2], seats[3])


def layout_scene(layout: Sequence[Sequence[str]]) -> TableScene:
    """The table showing a layout (four ponds, no hands or melds): what the simulated camera films for it."""
    seats = [SeatScene(pond=tuple(pond), hand_size=0) for pond in layout]
    if len(seats) != 4:
        raise ValueError(f"a layout has four seats' ponds, got {len(seats)}")
    return TableScene(seats=(seats[0], seats[1], seats[2], seats[3]))


def layout_tiles(geometry: TableGeometry, layout: Sequence[Sequence[str]]) -> list[tuple[str, float, float]]:
    """(code, u, v) of every tile of a layout: its pond slot's centre in the table frame, mm."""
    out: list[tuple[str, float, float]] = []
    for seat, pond in enumerate(layout):
        for slot, code in enumerate(pond):
            u, v = seat_to_table(seat, *geometry.pond_slot_centre(slot))
            out.append((code, u, v))
    return out


def known_crops(
    pipeline: TablePipeline, frame: Image, tiles: Sequence[tuple[str, float, float]]
) -> list[tuple[str, Image, tuple[float, float]]]:
    """The pipeline's crop of every tile it finds in ``frame`` within :data:`MATCH_MM` of a known tile
    (``tiles``: code and centre in the table frame, mm): (code, crop, where the tile was found, mm).  The
    pipeline must be calibrated (``pipeline.process`` has seen a frame)."""
    centres = np.array([(u, v) for _, u, v in tiles], np.float64).reshape(-1, 2)
    out: list[tuple[str, Image, tuple[float, float]]] = []
    if not len(centres):
        return out
    for zone in pipeline.geometry.all_zones():
        found = pipeline.segment_zone(pipeline.warp_zone(frame, zone), zone)
        to_table = zone.zone_to_table(pipeline.ppm)
        for blob in found.tiles:
            u, v, _ = to_table @ np.array([blob.cx, blob.cy, 1.0])
            dists = np.hypot(centres[:, 0] - u, centres[:, 1] - v)
            nearest = int(np.argmin(dists))
            if dists[nearest] < MATCH_MM:
                out.append((tiles[nearest][0], pipeline.crop_tile(frame, zone, blob), (float(u), float(v))))
    return out


@dataclass
class Capture:
    """Files the crops of a laid-out set into ``out/<code>/``, frame after frame.

    Args:
        pipeline: the table pipeline (its calibration, blur gate and crops are used; no events are kept).
        layout: each seat's pond, as :func:`parse_layout` gives it.
        out: the enrollment directory.
    """

    pipeline: TablePipeline
    layout: tuple[tuple[str, ...], ...]
    out: Path
    saved: int = 0
    per_code: dict[str, int] = field(default_factory=dict)

    def take(self, frame: Image, frame_id: int) -> dict[str, object]:
        """Read one frame: saves the crops of the tiles found where the layout puts them; returns a JSON-ready
        report (``status`` as the pipeline's, ``saved``, ``missing``: the layout's tiles not found, as
        ``seat:slot``)."""
        report = self.pipeline.process(frame, frame_id)
        if report.status != "ok":
            return {"frame_id": frame_id, "status": report.status, "error": report.error, "saved": 0}
        tiles = layout_tiles(self.pipeline.geometry, self.layout)
        found = known_crops(self.pipeline, frame, tiles)
        seen: set[tuple[float, float]] = set()
        for code, crop, (u, v) in found:
            nearest = min(range(len(tiles)), key=lambda i: (tiles[i][1] - u) ** 2 + (tiles[i][2] - v) ** 2)
            seen.add((tiles[nearest][1], tiles[nearest][2]))
            folder = self.out / code
            folder.mkdir(parents=True, exist_ok=True)
            slot = self._slot(nearest)
            path = folder / f"s{slot[0]}p{slot[1]:02d}-f{frame_id:05d}.png"
            if not cv2.imwrite(str(path), crop):
                raise OSError(f"cannot write {path}")
            self.saved += 1
            self.per_code[code] = self.per_code.get(code, 0) + 1
        missing = [f"{s}:{p}" for i, (_, u, v) in enumerate(tiles) if (u, v) not in seen for s, p in [self._slot(i)]]
        return {"frame_id": frame_id, "status": "ok", "saved": len(found), "missing": missing}

    def _slot(self, index: int) -> tuple[int, int]:
        """(seat, slot) of the ``index``-th tile of the layout."""
        for seat, pond in enumerate(self.layout):
            if index < len(pond):
                return (seat, index)
            index -= len(pond)
        raise IndexError(index)

    def summary(self) -> dict[str, object]:
        """What was filed: the directory, crops in all, per code, and the layout's codes with no crop."""
        wanted = sorted({code for pond in self.layout for code in pond})
        return {
            "out": str(self.out),
            "crops": self.saved,
            "per_code": dict(sorted(self.per_code.items())),
            "codes_without_crops": [c for c in wanted if c not in self.per_code],
        }
