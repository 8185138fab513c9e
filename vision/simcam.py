"""Simulated overhead camera: renders 1280x720 BGR frames of the table from a :class:`~vision.scene.TableScene`.

The table is drawn top-down at ``px_per_mm`` (felt, rim, four ArUco markers DICT_4X4_50 on the rim), tiles
are placed with the same :class:`~vision.pipeline.zones.TableGeometry` the pipeline reads (pond six per
row, melds from the owner's right end with the claimed tile sideways, concealed kongs face down, standing
hands as thin top edges, a hand laid face up after a win), arms passing over the table are drawn on top,
then the canvas is seen through a tilted camera (a homography), with uneven lighting, flicker, sensor
noise and optional motion blur.  :meth:`SimCamera.render_hand_camera` draws what a per-seat hand camera
sees (the standing tiles from the player's side).

Deterministic for a given seed.  One SimCamera per thread (it keeps a random generator).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.tileart import TileArt, default_tile_art, tile_top
from vision.pipeline.zones import DEFAULT_GEOMETRY, FloatArray, TableGeometry, seat_to_table
from vision.scene import BACK, PassingHand, SceneMeld, SeatScene, TableScene, sideways_index
from vision.sources import Frame

Image = npt.NDArray[np.uint8]
FRAME_W, FRAME_H = 1280, 720
_FELT = (38, 92, 28)
_RIM = (30, 45, 70)
_SKIN = (110, 150, 205)
#: width of the bevelled tile edge seen from above, mm
BEVEL_MM = 2.2


@dataclass(frozen=True, slots=True)
class Placed:
    """One tile as drawn: code, centre in the table frame (mm), quarter turns CCW, extra angle (deg)."""

    code: str
    u_mm: float
    v_mm: float
    quarter_turns: int
    angle_deg: float = 0.0


class SimCamera:
    """Renders table frames.

    Args:
        geometry: table layout shared with the pipeline.
        art: tile artwork (default: CC0 set, see :func:`vision.pipeline.tileart.default_tile_art`).
        seed: random seed (camera pose jitter, lighting, noise).
        px_per_mm: top-down canvas resolution before the camera projection.
        noise_sigma: sensor noise, grey levels.
        concealed_kong_style: ``"all_down"`` (MCR: four backs) or ``"two_up"`` (ends face down).
    """

    def __init__(
        self,
        geometry: TableGeometry = DEFAULT_GEOMETRY,
        art: TileArt | None = None,
        *,
        seed: int = 0,
        px_per_mm: float = 1.5,
        noise_sigma: float = 3.0,
        concealed_kong_style: str = "all_down",
    ) -> None:
        if concealed_kong_style not in ("all_down", "two_up"):
            raise ValueError(f"unknown concealed_kong_style {concealed_kong_style!r}")
        self.geometry = geometry
        self.art = art or default_tile_art()
        self.rng = np.random.default_rng(seed)
        self.ppm = px_per_mm
        self.noise_sigma = noise_sigma
        self.concealed_kong_style = concealed_kong_style
        self.canvas_px = round(2 * geometry.canvas_half_mm * px_per_mm)
        self._base = self._draw_base()
        self._tiles: dict[tuple[str, int, bool], Image] = {}
        self._noise = self.rng.normal(0.0, 1.0, (FRAME_H + 64, FRAME_W + 64, 3)).astype(np.float32)
        self._gain = self._lighting()
        self.canvas_to_frame = self._pose(self.rng.uniform(-1, 1, 8))

    # ----- camera pose and lighting -------------------------------------------------------------------
    def _pose(self, jitter: FloatArray, shift_px: tuple[float, float] = (0.0, 0.0)) -> FloatArray:
        c = float(self.canvas_px)
        src = np.array([[0, 0], [c, 0], [c, c], [0, c]], np.float32)
        dst = np.array([[322, 16], [958, 16], [994, 704], [286, 704]], np.float64)
        dst += jitter.reshape(4, 2) * 4.0 + np.asarray(shift_px)
        return np.asarray(cv2.getPerspectiveTransform(src, dst.astype(np.float32)), dtype=np.float64)

    def bump(self, dx_px: float, dy_px: float) -> None:
        """Move the camera (as if knocked): the table shifts by about (dx, dy) pixels in later frames."""
        self.canvas_to_frame = self._pose(self.rng.uniform(-1, 1, 8), (dx_px, dy_px))

    def table_to_frame(self) -> FloatArray:
        """The true homography table mm -> frame px (for tests)."""
        half = self.geometry.canvas_half_mm
        mm_to_canvas = np.array([[self.ppm, 0, half * self.ppm], [0, self.ppm, half * self.ppm], [0, 0, 1.0]])
        return np.asarray(self.canvas_to_frame @ mm_to_canvas, dtype=np.float64)

    def _lighting(self) -> npt.NDArray[np.float32]:
        ys, xs = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
        gx, gy = self.rng.uniform(-0.12, 0.12, 2)
        r2 = ((xs - FRAME_W / 2) / FRAME_W) ** 2 + ((ys - FRAME_H / 2) / FRAME_H) ** 2
        gain = 1.0 + gx * (xs / FRAME_W - 0.5) + gy * (ys / FRAME_H - 0.5) - 0.35 * r2
        return np.asarray(gain[..., None], dtype=np.float32)

    # ----- static canvas ------------------------------------------------------------------------------
    def _mm_to_canvas(self, u_mm: float, v_mm: float) -> tuple[float, float]:
        half = self.geometry.canvas_half_mm
        return ((u_mm + half) * self.ppm, (v_mm + half) * self.ppm)

    def _draw_base(self) -> Image:
        g = self.geometry
        n = self.canvas_px
        canvas = np.empty((n, n, 3), np.uint8)
        canvas[:] = _RIM
        lo = self._mm_to_canvas(-g.felt_half_mm, -g.felt_half_mm)
        hi = self._mm_to_canvas(g.felt_half_mm, g.felt_half_mm)
        cv2.rectangle(canvas, (round(lo[0]), round(lo[1])), (round(hi[0]), round(hi[1])), _FELT, -1)
        texture = cv2.GaussianBlur(self.rng.normal(0, 6, (n, n)).astype(np.float32), (0, 0), 3)
        canvas = np.clip(canvas.astype(np.float32) + texture[..., None], 0, 255).astype(np.uint8)
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        side = round(g.marker_size_mm * self.ppm)
        quiet = round(10 * self.ppm)
        for mid, (cu, cv) in g.marker_centres().items():
            x, y = self._mm_to_canvas(cu, cv)
            x0, y0 = round(x - side / 2), round(y - side / 2)
            canvas[y0 - quiet : y0 + side + quiet, x0 - quiet : x0 + side + quiet] = 245
            marker = cv2.aruco.generateImageMarker(dictionary, mid, side)
            canvas[y0 : y0 + side, x0 : x0 + side] = marker[..., None]
        return np.asarray(canvas, dtype=np.uint8)

    def _tile_image(self, code: str, quarter_turns: int, standing: bool = False) -> Image:
        key = (code, quarter_turns % 4, standing)
        cached = self._tiles.get(key)
        if cached is not None:
            return cached
        g = self.geometry
        w, h = round(g.tile_w_mm * self.ppm), round(g.tile_h_mm * self.ppm)
        bevel = max(2, round(BEVEL_MM * self.ppm))
        body = tile_top(self.art.face(code), w, h, bevel)
        out = np.ascontiguousarray(np.rot90(body, quarter_turns % 4))
        self._tiles[key] = out
        return out

    # ----- scene layout -------------------------------------------------------------------------------
    def layout(self, scene: TableScene) -> list[Placed]:
        """Every face-up or face-down tile of ``scene`` with its table-frame placement (standing tiles excluded)."""
        out: list[Placed] = []
        for seat, seat_scene in enumerate(scene.seats):
            out.extend(self._layout_seat(seat, seat_scene))
        return out

    def _place(self, seat: int, code: str, x: float, y: float, *, sideways: bool, angle: float = 0.0) -> Placed:
        u, v = seat_to_table(seat, x, y)
        return Placed(code, u, v, seat + (1 if sideways else 0), angle)

    def _layout_seat(self, seat: int, s: SeatScene) -> list[Placed]:
        g = self.geometry
        out: list[Placed] = []
        knocks = dict(s.knocked)
        for index, code in enumerate(s.pond):
            x, y = g.pond_slot_centre(index)
            k = knocks.get(index)
            if k is not None:
                x, y = x + k.dx_mm, y + k.dy_mm
            out.append(self._place(seat, code, x, y, sideways=False, angle=k.angle_deg if k else 0.0))
        right = g.meld_right_x_mm
        for meld in s.melds:
            out.extend(self._layout_meld(seat, meld, right))
            right -= self.meld_width_mm(meld, seat) + g.meld_gap_mm
        if s.shown_hand is not None:
            x = g.hand_left_x_mm + 10 + g.tile_w_mm / 2
            for code in s.shown_hand:
                out.append(self._place(seat, code, x, g.hand_row_y_mm - g.tile_h_mm / 2, sideways=False))
                x += g.tile_w_mm + g.tile_gap_mm
        return out

    def _sideways(self, seat: int, meld: SceneMeld) -> int | None:
        if meld.type == "concealed_kong" or meld.claimed_from is None:
            return None
        return sideways_index(seat, meld.claimed_from, 3 if meld.promoted else len(meld.tiles))

    def meld_width_mm(self, meld: SceneMeld, seat: int) -> float:
        """Length of ``meld`` along the meld row, mm."""
        g = self.geometry
        lying = meld.tiles[:3] if meld.promoted else meld.tiles
        side = self._sideways(seat, meld)
        widths = [g.tile_h_mm if i == side else g.tile_w_mm for i in range(len(lying))]
        return sum(widths) + g.tile_gap_mm * (len(widths) - 1)

    def _layout_meld(self, seat: int, meld: SceneMeld, right_mm: float) -> list[Placed]:
        g = self.geometry
        side = self._sideways(seat, meld)
        lying = meld.tiles[:3] if meld.promoted else meld.tiles
        x = right_mm - self.meld_width_mm(meld, seat)
        out: list[Placed] = []
        for i, code in enumerate(lying):
            shown = code
            if meld.type == "concealed_kong" and (self.concealed_kong_style == "all_down" or i in (0, 3)):
                shown = BACK
            width = g.tile_h_mm if i == side else g.tile_w_mm
            depth = g.tile_w_mm if i == side else g.tile_h_mm
            out.append(self._place(seat, shown, x + width / 2, g.meld_row_y_mm - depth / 2, sideways=i == side))
            if meld.promoted and i == side:
                y = g.meld_row_y_mm - g.tile_w_mm - g.tile_gap_mm - g.tile_w_mm / 2
                out.append(self._place(seat, meld.tiles[3], x + width / 2, y, sideways=True))
            x += width + g.tile_gap_mm
        return out

    # ----- drawing ------------------------------------------------------------------------------------
    def _paste(self, canvas: Image, tile_img: Image, u_mm: float, v_mm: float, angle_deg: float) -> None:
        cx, cy = self._mm_to_canvas(u_mm, v_mm)
        h, w = tile_img.shape[:2]
        shadow = round(1.2 * self.ppm)
        if angle_deg == 0.0:
            x0, y0 = round(cx - w / 2), round(cy - h / 2)
            region = canvas[y0 + shadow : y0 + h + shadow, x0 + shadow : x0 + w + shadow]
            region[:] = (region.astype(np.uint16) * 3 // 5).astype(np.uint8)
            canvas[y0 : y0 + h, x0 : x0 + w] = tile_img
            return
        size = int(np.hypot(w, h)) + 4
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
        m[:, 2] += (size / 2 - w / 2, size / 2 - h / 2)
        patch = cv2.warpAffine(tile_img, m, (size, size), flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (size, size), flags=cv2.INTER_LINEAR)
        x0, y0 = round(cx - size / 2), round(cy - size / 2)
        region = canvas[y0 : y0 + size, x0 : x0 + size]
        alpha = mask[..., None].astype(np.float32) / 255.0
        region[:] = (region * (1 - alpha) + patch * alpha).astype(np.uint8)

    def _draw_standing(self, canvas: Image, seat: int, count: int) -> None:
        g = self.geometry
        x = g.hand_left_x_mm + 10
        for _ in range(count):
            corners = [(x, g.hand_row_y_mm - 15), (x + g.tile_w_mm - 0.6, g.hand_row_y_mm)]
            (u0, v0), (u1, v1) = (seat_to_table(seat, *c) for c in corners)
            p0, p1 = self._mm_to_canvas(min(u0, u1), min(v0, v1)), self._mm_to_canvas(max(u0, u1), max(v0, v1))
            cv2.rectangle(canvas, (round(p0[0]), round(p0[1])), (round(p1[0]), round(p1[1])), (205, 225, 235), -1)
            x += g.tile_w_mm

    def _draw_hand(self, canvas: Image, hand: PassingHand) -> None:
        g = self.geometry
        tip = hand.reach_mm
        far = g.canvas_half_mm + 40
        arm = [(hand.x_mm - 40, far), (hand.x_mm + 40, far), (hand.x_mm + 35, tip + 80), (hand.x_mm - 35, tip + 80)]
        for offset, colour in ((18.0, None), (0.0, _SKIN)):
            pts = [self._mm_to_canvas(*seat_to_table(hand.seat, x + offset, y + offset)) for x, y in arm]
            poly = np.array(pts, np.int32)
            centre = self._mm_to_canvas(*seat_to_table(hand.seat, hand.x_mm + offset, tip + 50 + offset))
            axes = (round(hand.width_mm / 2 * self.ppm), round(60 * self.ppm))
            angle = 90.0 * (hand.seat % 2)
            if colour is None:
                overlay = canvas.copy()
                cv2.fillPoly(overlay, [poly], (0, 0, 0))
                cv2.ellipse(overlay, (round(centre[0]), round(centre[1])), axes, angle, 0, 360, (0, 0, 0), -1)
                cv2.addWeighted(overlay, 0.35, canvas, 0.65, 0, dst=canvas)
            else:
                cv2.fillPoly(canvas, [poly], colour)
                cv2.ellipse(canvas, (round(centre[0]), round(centre[1])), axes, angle, 0, 360, colour, -1)

    def render_topdown(self, scene: TableScene) -> Image:
        """The top-down canvas (before the camera), BGR."""
        canvas = self._base.copy()
        for seat, s in enumerate(scene.seats):
            if s.shown_hand is None:
                self._draw_standing(canvas, seat, s.hand_size)
        for p in self.layout(scene):
            self._paste(canvas, self._tile_image(p.code, p.quarter_turns), p.u_mm, p.v_mm, p.angle_deg)
        for hand in scene.hands:
            self._draw_hand(canvas, hand)
        return canvas

    def render(self, scene: TableScene, *, blur_px: int = 0) -> Image:
        """One 1280x720 BGR camera frame of ``scene``; ``blur_px`` > 0 adds horizontal motion blur of that length."""
        top = self.render_topdown(scene)
        frame = cv2.warpPerspective(top, self.canvas_to_frame, (FRAME_W, FRAME_H), flags=cv2.INTER_AREA)
        if blur_px > 0:
            kernel = np.zeros((blur_px, blur_px), np.float32)
            kernel[blur_px // 2, :] = 1.0 / blur_px
            frame = cv2.filter2D(frame, -1, kernel)
        return self._expose(np.asarray(frame, dtype=np.uint8))

    def _expose(self, frame: Image) -> Image:
        flicker = float(self.rng.uniform(0.96, 1.04))
        oy, ox = (int(v) for v in self.rng.integers(0, 64, 2))
        h, w = frame.shape[:2]
        noise = self._noise[oy : oy + h, ox : ox + w] * self.noise_sigma
        gain = self._gain if frame.shape[:2] == (FRAME_H, FRAME_W) else 1.0
        out = frame.astype(np.float32) * gain * flicker + noise
        return np.clip(out, 0, 255).astype(np.uint8)

    def render_hand_camera(self, tiles: tuple[str, ...] | list[str]) -> Image:
        """What a seat's hand camera sees: the standing tiles, faces toward the camera, 1280x720 BGR."""
        canvas = np.empty((FRAME_H, FRAME_W, 3), np.uint8)
        canvas[:] = (50, 70, 40)
        canvas[: FRAME_H // 3] = (60, 60, 60)
        tile_w, tile_h = 76, 102
        gap = 2
        x = (FRAME_W - len(tiles) * (tile_w + gap)) // 2
        y = FRAME_H // 2 - tile_h // 2
        for code in tiles:
            face = tile_top(self.art.face(code), tile_w, tile_h, max(2, round(tile_w * BEVEL_MM / 26)))
            canvas[y + 4 : y + tile_h + 10, x + 3 : x + tile_w + 3] = (35, 50, 30)
            canvas[y : y + tile_h, x : x + tile_w] = face
            x += tile_w + gap
        jitter = self.rng.uniform(-8, 8, (4, 2)).astype(np.float32)
        src = np.array([[0, 0], [FRAME_W, 0], [FRAME_W, FRAME_H], [0, FRAME_H]], np.float32)
        dst = src + jitter + np.array([[30, 0], [-30, 0], [0, 0], [0, 0]], np.float32)
        warped = cv2.warpPerspective(canvas, cv2.getPerspectiveTransform(src, dst), (FRAME_W, FRAME_H))
        return self._expose(np.asarray(warped, dtype=np.uint8))


class SimulatedSource:
    """A :class:`vision.sources.FrameSource` that renders whatever ``scene()`` returns at each read.

    For the demo: pass ``lambda: scene_from_public_state(engine_view)``.  ``frames`` bounds the stream
    (None: endless); ``t_s`` is ``frame_id / fps``.  Call from one thread.
    """

    def __init__(
        self, camera: SimCamera, scene: Callable[[], TableScene], *, frames: int | None = None, fps: float = 10.0
    ) -> None:
        self.camera = camera
        self.scene = scene
        self.frames = frames
        self.fps = fps
        self._next = 0

    def read(self) -> Frame | None:
        if self.frames is not None and self._next >= self.frames:
            return None
        frame = Frame(self.camera.render(self.scene()), self._next, self._next / self.fps)
        self._next += 1
        return frame

    def close(self) -> None:
        self.frames = self._next
