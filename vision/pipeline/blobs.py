"""What the segmentation finds in a zone image: tile sizes, tile blobs, a zone's tiles.

Pure data; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass


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
