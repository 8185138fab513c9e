"""The physical look of rendered tiles: bevel and corners, engraving relief, ink wear, and the tile's side."""

from __future__ import annotations

import numpy as np

from vision.synth import surface
from vision.synth.augment import is_body_colour, side_layers
from vision.synth.render import TILE_H, TILE_W, render_tile_face

FROM_RIGHT = surface.Light(0.6, 0.0, 0.8)  # a lamp up and to the right of the tile


def _flat(h: int = 120, w: int = 90, level: float = 200.0) -> np.ndarray:
    return np.full((h, w, 3), level, np.float32)


def test_bevel_rounds_the_corners_and_lights_the_edge_facing_the_lamp() -> None:
    canvas = _flat()
    surface.bevel(canvas, FROM_RIGHT, width=8, radius=9, gloss=0.0, outside=0.4)
    h, w = canvas.shape[:2]
    assert canvas[h // 2, w // 2, 0] == 200.0  # the flat top keeps its brightness
    assert canvas[0, 0, 0] < 0.45 * 200  # outside the rounded corner: the gap down to the felt
    assert canvas[h // 2, 0, 0] < 200  # the edge turned away from the lamp falls off
    right, left = canvas[h // 2, w - 3, 0], canvas[h // 2, 2, 0]
    assert right > left + 20  # the edge facing the lamp is brighter than the opposite one
    glossy = _flat()
    surface.bevel(glossy, FROM_RIGHT, width=8, radius=9, gloss=1.0, outside=0.4)
    assert glossy[h // 2, w - 5 : w - 1, 0].max() > canvas[h // 2, w - 5 : w - 1, 0].max()  # a highlight line


def test_relief_shades_the_wall_nearest_the_lamp_and_lights_the_far_one() -> None:
    marks = np.zeros((60, 60), np.float32)
    marks[:, 25:35] = 1.0  # one vertical engraved stroke
    canvas = _flat(60, 60)
    surface.relief(canvas, marks, FROM_RIGHT, depth=1.0)
    row = canvas[30, :, 0]
    assert row[35] < 195 and row[24] > 205  # dark where the stroke ends towards the lamp, bright on the far wall
    assert abs(row[5] - 200) < 1 and abs(row[55] - 200) < 1  # the body away from the stroke is untouched
    raised = _flat(60, 60)
    surface.relief(raised, marks, FROM_RIGHT, depth=1.0, raised=True)
    assert raised[30, 35, 0] > 205 and raised[30, 24, 0] < 195  # embossed marks: the other way round


def test_worn_ink_never_adds_ink_where_there_was_none_far_from_strokes() -> None:
    ink = np.zeros((80, 60, 3), np.float32)
    ink[30:50, 20:40] = -150.0  # dark ink on the body
    for seed in range(20):
        worn = surface.wear_ink(ink, np.random.default_rng(seed))
        assert worn.shape == ink.shape
        assert np.abs(worn[:10]).max() < 1e-3 and np.abs(worn[:, :8]).max() < 1e-3
        assert worn[40, 30].min() < -40  # the middle of the stroke keeps most of its ink


def test_rendered_tiles_have_rounded_dark_corners() -> None:
    rng = np.random.default_rng(3)
    for code in ("3m", "back", "7p"):
        img = render_tile_face(code, style="cn-sans", rng=rng).astype(np.float32)
        assert img.shape == (TILE_H, TILE_W, 3)
        corner, centre_row = img[0, 0].mean(), img[TILE_H // 2, 4:8].mean()
        assert corner < 0.75 * centre_row, code


def test_side_layers_put_the_body_next_to_a_face_up_top_and_the_back_next_to_a_face_down_one() -> None:
    ivory = np.array([200, 232, 245], np.float32)
    green_back = np.array([60, 140, 40], np.float32)
    assert is_body_colour(ivory) and not is_body_colour(green_back)
    assert not is_body_colour(np.array([35, 30, 30], np.float32))  # a dark body is not an ivory one
    for seed in range(10):
        near, far, split = side_layers(ivory, np.random.default_rng(seed))
        assert np.array_equal(near, ivory) and not is_body_colour(far) and 0.4 < split < 0.75
        near, far, split = side_layers(green_back, np.random.default_rng(seed))
        assert np.array_equal(near, green_back) and is_body_colour(far) and 0.25 < split < 0.6


def test_the_side_shows_past_the_edges_facing_the_camera_body_layer_first() -> None:
    """An ivory tile on felt: where the scene has a side past the right edge, the strip next to the edge is the
    body's colour, darker than the top, and its far end the coloured back layer."""
    from vision.synth.augment import _scene

    ivory = np.array([200, 232, 245], np.float32)
    tile = np.empty((96, 72, 3), np.float32)
    tile[:] = ivory
    pad, seen = 24, 0
    for seed in range(200):
        canvas, offset = _scene(tile, np.random.default_rng(seed), pad, ())
        if offset is None or offset[0] < 8 or abs(offset[1]) > 3:
            continue
        seen += 1
        y = pad + 48
        near = canvas[y, pad + 72 + 1]
        far = canvas[y, pad + 72 + int(offset[0])]
        assert near.mean() < 0.9 * ivory.mean(), seed  # a vertical face under a lamp above: darker than the top
        assert np.allclose(near / near.mean(), ivory / ivory.mean(), atol=0.05), seed  # the body's colour
        assert not is_body_colour(far), seed  # then the back's colour
    assert seen >= 3
