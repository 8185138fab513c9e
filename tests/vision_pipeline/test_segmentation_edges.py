"""The segmentation's outline cue on synthetic zone images (1 px/mm): tiles of nearly the felt's colour are
found by their rim, plain noisy felt and an empty slot between tiles are not tiles, and a face whose
green strokes leave only thin light stripes stays one tile."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.segmentation import TileSize, colour_mask, felt_ab, foreground_mask, outlined_regions, segment

Image = npt.NDArray[np.uint8]
FELT = (38, 92, 28)  # BGR, the simulated camera's felt
INK = (20, 80, 15)  # BGR, dark green ink near the felt's colour
SIZE = TileSize(26.0, 35.0, 2.5)
TILE_W, TILE_H, GAP = 26, 35, 3


def felt(height: int, width: int, seed: int = 0) -> npt.NDArray[np.float32]:
    """Noisy felt: the felt colour, a smooth texture (6 levels) and sensor noise added later."""
    rng = np.random.default_rng(seed)
    image = np.empty((height, width, 3), np.float32)
    image[:] = FELT
    texture = cv2.GaussianBlur(rng.normal(0.0, 6.0, (height, width)).astype(np.float32), (0, 0), 2)
    return np.asarray(image + texture[..., None], dtype=np.float32)


def expose(image: npt.NDArray[np.float32], seed: int = 0) -> Image:
    """A camera's look: slight blur and 3 levels of sensor noise."""
    rng = np.random.default_rng(seed + 100)
    blurred = cv2.GaussianBlur(image, (0, 0), 0.7)
    return np.clip(blurred + rng.normal(0.0, 3.0, image.shape), 0, 255).astype(np.uint8)


def green_back(image: npt.NDArray[np.float32], x: int, y: int, rim: float) -> None:
    """A face-down tile whose back is the felt's colour, its 2 px rim ``rim`` levels brighter (a rounded
    edge catching the light), top-left at (x, y)."""
    image[y : y + TILE_H, x : x + TILE_W] = np.array(FELT, np.float32) + rim
    image[y + 2 : y + TILE_H - 2, x + 2 : x + TILE_W - 2] = FELT


def ivory(image: npt.NDArray[np.float32], x: int, y: int) -> None:
    """A face-up tile (light face), top-left at (x, y), casting a 2 px shadow to the right and down."""
    image[y + 2 : y + TILE_H + 2, x + 2 : x + TILE_W + 2] *= 0.6
    image[y : y + TILE_H, x : x + TILE_W] = (205, 225, 232)


def centres(image: Image, *, outline: bool = True, pond: bool = False) -> list[tuple[float, float]]:
    """Centres (zone px) of the tiles the segmentation finds, left to right, top to bottom; never occluded."""
    felt_colour = felt_ab(np.full((4, 4, 3), FELT, np.uint8))
    found = segment(foreground_mask(image, felt_colour, size=SIZE if outline else None), SIZE, split_rows=pond)
    assert not found.occluded
    return sorted(((t.cx, t.cy) for t in found.tiles), key=lambda c: (round(c[1] / TILE_H), c[0]))


def near(got: list[tuple[float, float]], tops: list[tuple[int, int]]) -> bool:
    """Whether ``got`` are the centres of tiles with these top-left corners, within 1.5 px."""
    want = [(x + TILE_W / 2, y + TILE_H / 2) for x, y in tops]
    return len(got) == len(want) and all(
        abs(gx - wx) <= 1.5 and abs(gy - wy) <= 1.5 for (gx, gy), (wx, wy) in zip(got, want, strict=True)
    )


def test_felt_coloured_tiles_are_found_by_their_rim() -> None:
    canvas = felt(60, 150)
    xs = [10 + i * (TILE_W + GAP) for i in range(4)]
    for x in xs:
        green_back(canvas, x, 12, rim=22.0)
    image = expose(canvas)
    assert centres(image, outline=False) == []  # the rim is too faint for the colour cue alone
    assert near(centres(image), [(x, 12) for x in xs])


def test_a_felt_coloured_tile_beside_face_up_tiles_is_found() -> None:
    canvas = felt(60, 150, seed=1)
    xs = [10 + i * (TILE_W + GAP) for i in range(3)]
    ivory(canvas, xs[0], 12)
    green_back(canvas, xs[1], 12, rim=22.0)
    ivory(canvas, xs[2], 12)
    assert near(centres(expose(canvas, seed=1)), [(x, 12) for x in xs])


def test_plain_noisy_felt_has_no_tile_and_no_outlined_region() -> None:
    for seed in range(5):
        image = expose(felt(120, 200, seed=seed), seed=seed)
        lab8 = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2Lab), dtype=np.uint8)
        colour = colour_mask(lab8, felt_ab(image))
        assert not outlined_regions(lab8, colour, colour, SIZE).any()
        assert centres(image) == []


def test_an_empty_slot_between_tiles_is_not_a_tile() -> None:
    """Felt closed in by the edges of the tiles round it (a pond slot left empty) is not taken for a
    felt-coloured tile: the ring round it lies on their bodies."""
    canvas = felt(3 * (TILE_H + GAP) + 20, 3 * (TILE_W + GAP) + 20, seed=2)
    slots = [(10 + c * (TILE_W + GAP), 10 + r * (TILE_H + GAP)) for r in range(3) for c in range(3)]
    for i, (x, y) in enumerate(slots):
        if i != 4:
            ivory(canvas, x, y)
    assert near(centres(expose(canvas, seed=2), pond=True), slots[:4] + slots[5:])


def test_a_face_of_green_strokes_stays_one_tile() -> None:
    """Vertical strokes of dark green ink near the felt's colour leave only 2 px light stripes and a 1 px light
    rim: the holes are filled before the mask is opened, so the tile is not cut into a comb and lost (the
    simulated 6s of style seed 3)."""
    canvas = felt(60, 60, seed=3)
    x, y = 15, 12
    ivory(canvas, x, y)
    for sx in range(x + 1, x + TILE_W - 2, 4):
        canvas[y + 1 : y + TILE_H - 1, sx : sx + 2] = INK
    assert near(centres(expose(canvas, seed=3), outline=False), [(x, y)])
