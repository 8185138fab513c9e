"""Tile artwork for the simulated camera: one upright BGR image of a tile's top face per code.

:class:`TileArt` is the seam.  :class:`Cc0TileArt` draws from the CC0 riichi artwork in
``../shared/tiles/riichi-mahjong-tiles/Export/Regular`` (face overlays composited on the ivory tile body;
flowers, absent from that set, come from the classifier team's cc0-style renderer, or are drawn here);
:class:`SynthTileArt` uses the vision classifier team's synthetic renderer
(``vision.synth.render.render_tile_face``) when it is installed.  ``default_tile_art()`` picks the CC0 set
when present, else the synthetic one, and raises a clear error when neither exists.

Images are cached per code; the art objects are safe to share between threads once built.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.scene import BACK, check_code

Image = npt.NDArray[np.uint8]

#: Environment variable naming the CC0 tile directory (Export/Regular of riichi-mahjong-tiles).
TILE_DIR_ENV = "MJTABLE_TILE_ART"
_DEFAULT_DIRS = (
    Path(__file__).resolve().parents[3] / "shared" / "tiles" / "riichi-mahjong-tiles" / "Export" / "Regular",
    Path("/work/shared/tiles/riichi-mahjong-tiles/Export/Regular"),
)
_HONOR_FILES = ("Ton", "Nan", "Shaa", "Pei", "Haku", "Hatsu", "Chun")
_SUIT_FILES = {"m": "Man", "p": "Pin", "s": "Sou"}
#: Face size in pixels that every art returns (portrait, 3:4 like a 26 x 35 mm tile face).
FACE_W, FACE_H = 120, 160


class TileArtMissingError(FileNotFoundError):
    """No tile artwork could be found."""


class TileArt(Protocol):
    """Gives an upright top-face image (BGR uint8, FACE_H x FACE_W x 3) for a tile code or ``back``."""

    def face(self, code: str) -> Image: ...


def _cc0_name(code: str) -> str | None:
    if code == BACK:
        return "Back"
    rank, suit = code[0], code[1]
    if suit == "z":
        return _HONOR_FILES[int(rank) - 1]
    if suit in _SUIT_FILES:
        return f"{_SUIT_FILES[suit]}5-Dora" if rank == "0" else f"{_SUIT_FILES[suit]}{rank}"
    return None


def _draw_flower(code: str) -> Image:
    """A flower/season face drawn here: coloured blossom, the flower's number and a seasonal bar."""
    number = int(code[0])
    img = np.full((FACE_H, FACE_W, 3), (226, 236, 242), np.uint8)
    colours = [(60, 60, 200), (40, 150, 40), (180, 90, 30), (150, 40, 140)]
    colour = colours[(number - 1) % 4]
    centre = (FACE_W // 2, FACE_H // 2 + 8)
    for k in range(5 + (number > 4)):
        angle = 2 * np.pi * k / (5 + (number > 4))
        petal = (int(centre[0] + 22 * np.cos(angle)), int(centre[1] + 22 * np.sin(angle)))
        cv2.circle(img, petal, 14, colour, -1, cv2.LINE_AA)
    cv2.circle(img, centre, 9, (40, 190, 230), -1, cv2.LINE_AA)
    cv2.putText(img, str(number), (8, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.1, colour, 3, cv2.LINE_AA)
    bar = (20, 20, 20) if number <= 4 else colour
    cv2.rectangle(img, (FACE_W - 26, 10), (FACE_W - 12, 40 + 10 * ((number - 1) % 4)), bar, -1)
    return img


def _flower(code: str) -> Image:
    """A flower face: the classifier team's cc0-style flower when their renderer is installed, else drawn here."""
    try:
        from vision.synth import render
    except ImportError:
        return _draw_flower(code)
    face = np.asarray(render.render_tile_face(code, style="cc0", rng=np.random.default_rng(int(code[0]))), np.uint8)
    return np.asarray(cv2.resize(face[..., :3], (FACE_W, FACE_H), interpolation=cv2.INTER_AREA), dtype=np.uint8)


class Cc0TileArt:
    """The CC0 riichi tile set (Export/Regular PNGs), composited on its ivory ``Front.png`` body."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or find_cc0_dir()
        front = self._load("Front")
        self._front = front
        self._cache: dict[str, Image] = {}

    def _load(self, name: str) -> Image:
        path = self.directory / f"{name}.png"
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise TileArtMissingError(f"tile image {path} is missing or unreadable")
        return np.asarray(cv2.resize(img, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA), dtype=np.uint8)

    def face(self, code: str) -> Image:
        """Upright face of ``code`` (FACE_H x FACE_W BGR); raises NotationError for an unknown code."""
        check_code(code)
        cached = self._cache.get(code)
        if cached is not None:
            return cached
        name = _cc0_name(code)
        if name is None:
            out = _flower(code)
        else:
            overlay = self._load(name)
            base = self._front[..., :3].astype(np.float32)
            alpha = overlay[..., 3:4].astype(np.float32) / 255.0
            out = (base * (1 - alpha) + overlay[..., :3].astype(np.float32) * alpha).astype(np.uint8)
        self._cache[code] = out
        return out


class SynthTileArt:
    """Faces from the classifier team's renderer ``vision.synth.render.render_tile_face`` (one fixed style)."""

    def __init__(self, style: str | None = None, seed: int = 0) -> None:
        from vision.synth import render  # type: ignore[attr-defined,unused-ignore]

        self._render = render.render_tile_face
        self._style = style
        self._rng = np.random.default_rng(seed)
        self._cache: dict[str, Image] = {}

    def face(self, code: str) -> Image:
        check_code(code)
        cached = self._cache.get(code)
        if cached is not None:
            return cached
        raw = np.asarray(self._render(code, style=self._style, rng=self._rng), dtype=np.uint8)
        if raw.ndim == 2:
            raw = np.asarray(cv2.cvtColor(raw, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
        out = np.asarray(cv2.resize(raw[..., :3], (FACE_W, FACE_H), interpolation=cv2.INTER_AREA), dtype=np.uint8)
        self._cache[code] = out
        return out


#: colour of a tile's bevelled edge as seen from above (BGR)
BEVEL_BGR = (150, 175, 190)


def tile_top(face: Image, w_px: int, h_px: int, bevel_px: int) -> Image:
    """A tile's top as seen from above: ``face`` inset in a bevelled edge, ``h_px`` x ``w_px`` BGR."""
    body = np.empty((h_px, w_px, 3), np.uint8)
    body[:] = BEVEL_BGR
    inner = cv2.resize(face, (w_px - 2 * bevel_px, h_px - 2 * bevel_px), interpolation=cv2.INTER_AREA)
    body[bevel_px : h_px - bevel_px, bevel_px : w_px - bevel_px] = inner
    return body


def find_cc0_dir() -> Path:
    """The CC0 tile directory: ``$MJTABLE_TILE_ART`` or the shared copy; raises TileArtMissingError."""
    env = os.environ.get(TILE_DIR_ENV)
    candidates = ([Path(env)] if env else []) + list(_DEFAULT_DIRS)
    for path in candidates:
        if (path / "Front.png").is_file():
            return path
    raise TileArtMissingError(
        f"no tile artwork: set {TILE_DIR_ENV} to riichi-mahjong-tiles/Export/Regular (looked in "
        + ", ".join(str(p) for p in candidates)
        + ")"
    )


def default_tile_art() -> TileArt:
    """CC0 artwork when present, else the synthetic renderer; raises TileArtMissingError if neither exists."""
    try:
        return Cc0TileArt()
    except TileArtMissingError:
        try:
            return SynthTileArt()
        except ImportError as exc:
            raise TileArtMissingError("neither the CC0 tile artwork nor vision.synth is available") from exc
