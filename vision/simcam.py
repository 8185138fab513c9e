"""Simulated overhead camera: renders 1280x720 BGR frames of the table from a :class:`~vision.scene.TableScene`.

The table is seen through a pinhole camera (:class:`~vision.pipeline.camera_model.CameraModel`: 66 degrees
across, about 1.4 m above the felt, a little toward seat 0 and looking at the centre, the pose jittered per
seed).  The felt and the rim are drawn top-down and projected, the four ArUco markers (DICT_4X4_50) at
``TableGeometry.marker_height_mm``; tiles
are boxes ``TableGeometry.tile_thickness_mm`` high placed with the same
:class:`~vision.pipeline.zones.TableGeometry` the pipeline reads (pond six per row, melds from the owner's
right end with the claimed tile sideways, concealed kongs face down, a hand laid face up after a win, the riichi
dead wall's stacks of two in a seat's wall row with the indicators turned up): each
shows its top (the face, or the back of a face-down tile) where perspective puts it, and the sides that
face the camera, two-layered (body colour and the back's colour) and shaded by a lamp above the table.
Standing hands are upright boxes showing their backs; arms passing over the table are drawn above
everything with their shadow on the felt.  Then uneven lighting, flicker, sensor noise and optional motion
blur.  :meth:`SimCamera.render_hand_camera` draws what a per-seat hand camera sees (the standing tiles from
the player's side).

Deterministic for a given seed.  One SimCamera per thread (it keeps a random generator).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.camera_model import DEFAULT_HFOV_DEG, CameraModel, intrinsics
from vision.pipeline.tileart import TileArt, default_tile_art, tile_top
from vision.pipeline.zones import DEFAULT_GEOMETRY, FloatArray, TableGeometry, seat_to_table
from vision.scene import BACK, DeadWall, PassingHand, SceneMeld, SeatScene, TableScene, sideways_index
from vision.sources import Frame

Image = npt.NDArray[np.uint8]
FRAME_W, FRAME_H = 1280, 720
_FELT = (38, 92, 28)
_RIM = (30, 45, 70)
_SKIN = (110, 150, 205)
#: colour of a tile's body (the face layer) seen on its side, BGR
_BODY_BGR = (196, 222, 236)
#: width of the bevelled tile edge seen from above, mm
BEVEL_MM = 2.2
#: share of a tile's thickness taken by the face layer (the rest is the coloured back layer)
FACE_LAYER = 0.6
#: height of an arm passing over the table, mm above the felt
ARM_HEIGHT_MM = 70.0
#: the camera's nominal place: this far toward seat 0 from the centre, and the margin (px) the table's
#: canvas keeps from the frame's top and bottom edges
_CAMERA_BACK_MM = 230.0
_FRAME_MARGIN_PX = 16.0


@dataclass(frozen=True, slots=True)
class Placed:
    """One tile as drawn: code, centre in the table frame (mm), quarter turns CCW, extra angle (deg)."""

    code: str
    u_mm: float
    v_mm: float
    quarter_turns: int
    angle_deg: float = 0.0
    #: tiles stacked (a dead-wall stack is 2 high: its top lies at twice the tile thickness)
    layers: int = 1


class SimCamera:
    """Renders table frames.

    Args:
        geometry: table layout shared with the pipeline (tile size and thickness included).
        art: tile artwork (default: CC0 set, see :func:`vision.pipeline.tileart.default_tile_art`).
        seed: random seed (camera pose jitter, lighting, noise).
        px_per_mm: resolution of the top-down felt canvas and of the tile tops before projection (default: 1.5
            at a 720 px high frame, in proportion to the frame's height, so the canvas is never the coarser image).
        noise_sigma: sensor noise, grey levels.
        concealed_kong_style: ``"all_down"`` (MCR: four backs) or ``"two_up"`` (ends face down).
        hfov_deg: the camera's horizontal field of view, degrees (its height follows: the table fills the
            frame's height).
        frame_size: the overhead frame's (width, height), px (1280 x 720 by default).  Hand cameras stay
            1280 x 720.
    """

    def __init__(
        self,
        geometry: TableGeometry = DEFAULT_GEOMETRY,
        art: TileArt | None = None,
        *,
        seed: int = 0,
        px_per_mm: float | None = None,
        noise_sigma: float = 3.0,
        concealed_kong_style: str = "all_down",
        hfov_deg: float = DEFAULT_HFOV_DEG,
        frame_size: tuple[int, int] = (FRAME_W, FRAME_H),
    ) -> None:
        if concealed_kong_style not in ("all_down", "two_up"):
            raise ValueError(f"unknown concealed_kong_style {concealed_kong_style!r}")
        self.geometry = geometry
        self.art = art or default_tile_art()
        self.rng = np.random.default_rng(seed)
        self.frame_w, self.frame_h = frame_size
        self.ppm = 1.5 * self.frame_h / FRAME_H if px_per_mm is None else px_per_mm
        self.noise_sigma = noise_sigma
        self.concealed_kong_style = concealed_kong_style
        self.canvas_px = round(2 * geometry.canvas_half_mm * self.ppm)
        self._base = self._draw_base()
        self._marker_images = self._markers()
        self._tiles: dict[tuple[str, int], Image] = {}
        self._noise = self.rng.normal(
            0.0, 1.0, (max(self.frame_h, FRAME_H) + 64, max(self.frame_w, FRAME_W) + 64, 3)
        ).astype(np.float32)
        self._gain = self._lighting()
        back = np.asarray(self.art.face(BACK), np.float32).reshape(-1, 3)
        self._back_layer: tuple[float, ...] = tuple(float(c) for c in np.median(back, axis=0))
        self._ambient = float(self.rng.uniform(0.4, 0.55))
        self.nominal = self._nominal_pose(hfov_deg)
        self.camera = self._jittered(self.rng.uniform(-1, 1, 3), (0.0, 0.0))
        #: the last scene rendered, the camera it was seen from, and its view before exposure
        self._last: tuple[TableScene, CameraModel, Image] | None = None

    # ----- camera pose and lighting -------------------------------------------------------------------
    def _nominal_pose(self, hfov_deg: float) -> CameraModel:
        """The camera toward seat 0, looking at the centre from the height at which the canvas just fits."""
        camera_matrix = intrinsics(hfov_deg, (self.frame_w, self.frame_h))
        half = self.geometry.canvas_half_mm
        corners = np.array([[-half, -half, 0.0], [half, -half, 0.0], [half, half, 0.0], [-half, half, 0.0]])
        jitter = self.rng.uniform(-1, 1, 4)
        eye_uv = (20.0 * jitter[0], _CAMERA_BACK_MM + 30.0 * jitter[1])
        target = (10.0 * jitter[2], 10.0 * jitter[3], 0.0)
        lo, hi = 300.0, 6000.0
        for _ in range(40):  # the lowest camera whose frame holds the whole canvas
            mid = (lo + hi) / 2
            ys = CameraModel.looking_at(camera_matrix, (*eye_uv, mid), target).project(corners)[:, 1]
            if ys.min() >= _FRAME_MARGIN_PX and ys.max() <= self.frame_h - _FRAME_MARGIN_PX:
                hi = mid
            else:
                lo = mid
        return CameraModel.looking_at(camera_matrix, (*eye_uv, hi), target)

    def _jittered(self, jitter: FloatArray, shift_px: tuple[float, float]) -> CameraModel:
        """The nominal camera turned so that the picture moves by about ``shift_px`` plus up to ~1.5 px of
        random play (``jitter`` in -1..1: yaw, pitch, roll)."""
        f = float(self.nominal.K[0, 0])
        yaw = -np.arctan2(shift_px[0] + 1.5 * jitter[0], f)
        pitch = -np.arctan2(shift_px[1] + 1.5 * jitter[1], f)
        return self.nominal.turned(float(yaw), float(pitch), float(0.002 * jitter[2]))

    def bump(self, dx_px: float, dy_px: float) -> None:
        """Move the camera (as if knocked): the table shifts by about (dx, dy) pixels in later frames."""
        self.camera = self._jittered(self.rng.uniform(-1, 1, 3), (dx_px, dy_px))

    def table_to_frame(self) -> FloatArray:
        """The true homography felt-plane mm -> frame px (for tests)."""
        return self.camera.plane_homography(0.0)

    def _lighting(self) -> npt.NDArray[np.float32]:
        fw, fh = self.frame_w, self.frame_h
        ys, xs = np.mgrid[0:fh, 0:fw].astype(np.float32)
        gx, gy = self.rng.uniform(-0.12, 0.12, 2)
        r2 = ((xs - fw / 2) / fw) ** 2 + ((ys - fh / 2) / fh) ** 2
        gain = 1.0 + gx * (xs / fw - 0.5) + gy * (ys / fh - 0.5) - 0.35 * r2
        return np.asarray(gain[..., None], dtype=np.float32)

    def _shade(self, normal_uv: FloatArray, point_uvz: FloatArray, lamp_uvz: FloatArray) -> float:
        """Brightness of a vertical face (outward normal ``normal_uv``) at ``point_uvz`` relative to a tile's
        top: room light plus a lamp at ``lamp_uvz`` (the camera's place; Lambert)."""
        to_lamp = lamp_uvz - point_uvz
        cos = float(np.dot(normal_uv, to_lamp[:2]) / np.linalg.norm(to_lamp))
        return self._ambient + (1.0 - self._ambient) * max(0.0, cos)

    # ----- static canvas ------------------------------------------------------------------------------
    def _mm_to_canvas(self, u_mm: float, v_mm: float) -> tuple[float, float]:
        half = self.geometry.canvas_half_mm
        return ((u_mm + half) * self.ppm, (v_mm + half) * self.ppm)

    def _canvas_to_mm(self) -> FloatArray:
        half = self.geometry.canvas_half_mm
        return np.array([[1 / self.ppm, 0.0, -half], [0.0, 1 / self.ppm, -half], [0.0, 0.0, 1.0]])

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
        return np.asarray(canvas, dtype=np.uint8)

    def _markers(self) -> list[tuple[Image, FloatArray]]:
        """Each ArUco marker with its white quiet zone (10 mm) as an image and its corners (table mm)."""
        g = self.geometry
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        side = round(g.marker_size_mm * self.ppm)
        quiet = round(10 * self.ppm)
        half = g.marker_size_mm / 2 + 10
        out: list[tuple[Image, FloatArray]] = []
        for mid, (cu, cv) in g.marker_centres().items():
            image = np.full((side + 2 * quiet, side + 2 * quiet, 3), 245, np.uint8)
            image[quiet : quiet + side, quiet : quiet + side] = cv2.aruco.generateImageMarker(dictionary, mid, side)[
                ..., None
            ]
            corners = np.array(
                [[cu - half, cv - half], [cu + half, cv - half], [cu + half, cv + half], [cu - half, cv + half]]
            )
            out.append((image, corners))
        return out

    def _tile_image(self, code: str, quarter_turns: int) -> Image:
        key = (code, quarter_turns % 4)
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
        if scene.dead_wall is not None:
            out.extend(self._layout_dead_wall(scene.dead_wall))
        return out

    def _layout_dead_wall(self, dead: DeadWall) -> list[Placed]:
        """Seven face-down stacks of two in the wall row of ``dead.seat``; the indicators turned up from stack 2
        leftward (``vision.scene.DeadWall``)."""
        out: list[Placed] = []
        for stack in range(7):
            k = stack - 2
            code = dead.indicators[k] if 0 <= k < len(dead.indicators) else BACK
            x, y = self.geometry.dead_wall_stack_centre(dead.x_mm, stack)
            u, v = seat_to_table(dead.seat, x, y)
            out.append(Placed(code, u, v, dead.seat, 0.0, layers=2))
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

    def footprint(self, p: Placed) -> FloatArray:
        """The tile's four corners on the felt (table mm, 4 x 2) in the order of its top image's corners:
        top-left, top-right, bottom-right, bottom-left of the image as drawn (turned by ``quarter_turns``)."""
        g = self.geometry
        turned = p.quarter_turns % 2 == 1
        half_w, half_h = (g.tile_h_mm / 2, g.tile_w_mm / 2) if turned else (g.tile_w_mm / 2, g.tile_h_mm / 2)
        box = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]])
        t = np.deg2rad(p.angle_deg)
        rotation = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])  # counter-clockwise on screen
        return np.asarray(box @ rotation.T + np.array([p.u_mm, p.v_mm]), np.float64)

    # ----- drawing ------------------------------------------------------------------------------------
    def _shadow(self, canvas: Image, corners_mm: FloatArray) -> None:
        """Darken the felt under and just beside a tile (its footprint moved 1.2 mm along +u, +v)."""
        pts = np.array([self._mm_to_canvas(u + 1.2, v + 1.2) for u, v in corners_mm], np.float32)
        x0, y0 = np.floor(pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round((pts - (x0, y0)) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        region = canvas[y0:y1, x0:x1]
        region[mask > 0] = (region[mask > 0].astype(np.uint16) * 3 // 5).astype(np.uint8)

    def _draw_sides(self, frame: Image, corners_mm: FloatArray, height: float, face_up: bool) -> None:
        """The vertical faces of a box (footprint ``corners_mm``, ``height`` mm) that face the camera, in two
        layers: the face layer (body colour) on top for a face-up tile, the back layer on top for a
        face-down one."""
        if height <= 0:
            return
        eye = np.asarray(self.camera.centre())
        centre = corners_mm.mean(axis=0)
        split = height * (1 - FACE_LAYER) if face_up else height * FACE_LAYER
        body: tuple[float, ...] = _BODY_BGR
        upper, lower = (body, self._back_layer) if face_up else (self._back_layer, body)
        for i in range(4):
            a, b = corners_mm[i], corners_mm[(i + 1) % 4]
            edge = b - a
            normal = np.array([edge[1], -edge[0]]) / np.linalg.norm(edge)
            if np.dot(normal, (a + b) / 2 - centre) < 0:
                normal = -normal
            if np.dot(normal, eye[:2] - a) <= 0:
                continue  # faces away from the camera
            shade = self._shade(normal, np.array([*(a + b) / 2, height / 2]), eye)
            px = self.camera.project(
                np.array([[*a, 0.0], [*b, 0.0], [*a, split], [*b, split], [*a, height], [*b, height]])
            )
            for (k0, k1), colour in (((2, 4), upper), ((0, 2), lower)):
                quad = px[[k0, k0 + 1, k1 + 1, k1]]
                fill = tuple(float(c) * shade for c in colour)
                cv2.fillPoly(frame, [np.round(quad * 16).astype(np.int32)], fill, cv2.LINE_AA, 4)

    def _draw_top(self, frame: Image, image: Image, corners_mm: FloatArray, height: float) -> None:
        """Warp a top image (its corners: ``corners_mm`` at ``height``) into the frame, anti-aliased edges."""
        dst = self.camera.project(np.column_stack([corners_mm, np.full(4, height)]))
        x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, self.frame_w), min(y1, self.frame_h)
        if x1 <= x0 or y1 <= y0:
            return
        h, w = image.shape[:2]
        # the image spans -0.5 .. w - 0.5 (a pixel's centre at its index), as the frame does
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
        warp = cv2.getPerspectiveTransform(src, (dst - (x0, y0)).astype(np.float32))
        size = (x1 - x0, y1 - y0)
        patch = cv2.warpPerspective(image, warp, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        alpha = cv2.warpPerspective(np.ones((h, w), np.float32), warp, size, flags=cv2.INTER_LINEAR)[..., None]
        region = frame[y0:y1, x0:x1]
        region[:] = (region * (1 - alpha) + patch * alpha).astype(np.uint8)

    def _standing_boxes(self, seat: int, count: int) -> list[FloatArray]:
        """Footprints (table mm) of a seat's standing tiles: upright, face toward the player."""
        g = self.geometry
        out: list[FloatArray] = []
        x = g.hand_left_x_mm + 10
        y0, y1 = g.hand_row_y_mm - max(g.tile_thickness_mm, 15.0), g.hand_row_y_mm
        for _ in range(count):
            corners = [(x, y0), (x + g.tile_w_mm - 0.6, y0), (x + g.tile_w_mm - 0.6, y1), (x, y1)]
            out.append(np.array([seat_to_table(seat, cx, cy) for cx, cy in corners]))
            x += g.tile_w_mm
        return out

    def _draw_standing(self, frame: Image, seat: int, box: FloatArray) -> None:
        """An upright tile: its back and ends (the sides facing the camera) and its top end, the half toward
        the table centre in the back's colour, the half toward the player in the body's."""
        g = self.geometry
        height = g.tile_h_mm
        self._draw_sides(frame, box, height, face_up=False)
        inner, outer = box[:2], box[2:][::-1]  # the long edges toward the centre and toward the player
        split = inner + (outer - inner) * (1 - FACE_LAYER)
        for quad, colour in (
            ((inner[0], inner[1], split[1], split[0]), self._back_layer),
            ((split[0], split[1], outer[1], outer[0]), _BODY_BGR),
        ):
            px = self.camera.project(np.column_stack([np.array(quad), np.full(4, height)]))
            cv2.fillPoly(frame, [np.round(px * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)

    def _arm_polygons(self, hand: PassingHand, offset_mm: float) -> list[FloatArray]:
        """The arm (a quad from beyond the table edge) and the hand (an ellipse), table mm."""
        g = self.geometry
        tip = hand.reach_mm
        far = g.canvas_half_mm + 40
        arm = [(hand.x_mm - 40, far), (hand.x_mm + 40, far), (hand.x_mm + 35, tip + 80), (hand.x_mm - 35, tip + 80)]
        t = np.linspace(0, 2 * np.pi, 36, endpoint=False)
        palm = [(hand.x_mm + hand.width_mm / 2 * np.cos(a), tip + 50 + 60 * np.sin(a)) for a in t]
        return [
            np.array([seat_to_table(hand.seat, x + offset_mm, y + offset_mm) for x, y in shape])
            for shape in (arm, palm)
        ]

    def _draw_hand(self, frame: Image, canvas: Image | None, hand: PassingHand) -> None:
        """The arm's shadow on the felt canvas (``canvas`` given) or the arm itself in the frame."""
        if canvas is not None:
            overlay = canvas.copy()
            for poly in self._arm_polygons(hand, 18.0):
                pts = np.array([self._mm_to_canvas(u, v) for u, v in poly])
                cv2.fillPoly(overlay, [np.round(pts).astype(np.int32)], (0, 0, 0))
            cv2.addWeighted(overlay, 0.35, canvas, 0.65, 0, dst=canvas)
            return
        for poly in self._arm_polygons(hand, 0.0):
            px = self.camera.project(np.column_stack([poly, np.full(len(poly), ARM_HEIGHT_MM)]))
            cv2.fillPoly(frame, [np.round(px * 16).astype(np.int32)], _SKIN, cv2.LINE_AA, 4)

    def render_scene(self, scene: TableScene) -> Image:
        """The camera's view of ``scene`` before exposure (no lighting gain, flicker or noise), BGR."""
        g = self.geometry
        canvas = self._base.copy()
        placed = [(p, self.footprint(p)) for p in self.layout(scene)]
        for _, corners in placed:
            self._shadow(canvas, corners)
        for hand in scene.hands:
            self._draw_hand(canvas, canvas, hand)
        warp = self.camera.plane_homography(0.0) @ self._canvas_to_mm()
        size = (self.frame_w, self.frame_h)
        frame = np.asarray(cv2.warpPerspective(canvas, warp, size, flags=cv2.INTER_AREA), np.uint8)
        for image, corners in self._marker_images:
            self._draw_top(frame, image, corners, g.marker_height_mm)
        height = g.tile_thickness_mm
        for p, corners in placed:  # every side before any top: a top is never below another tile's side
            self._draw_sides(frame, corners, height * p.layers, face_up=p.code != BACK)
        for p, corners in placed:
            self._draw_top(frame, self._tile_image(p.code, p.quarter_turns), corners, height * p.layers)
        cu, cv, _ = self.camera.centre()
        standing = [
            (seat, box)
            for seat, s in enumerate(scene.seats)
            if s.shown_hand is None
            for box in self._standing_boxes(seat, s.hand_size)
        ]
        standing.sort(key=lambda sb: -float(np.hypot(*(sb[1].mean(axis=0) - (cu, cv)))))
        for seat, box in standing:
            self._draw_standing(frame, seat, box)
        for hand in scene.hands:
            self._draw_hand(frame, None, hand)
        return frame

    def render(self, scene: TableScene, *, blur_px: int = 0) -> Image:
        """One 1280x720 BGR camera frame of ``scene``; ``blur_px`` > 0 adds horizontal motion blur of that length.
        The view of a scene unchanged since the last frame, from an unmoved camera, is reused (the exposure's
        flicker and noise are new every frame)."""
        if self._last is not None and self._last[1] is self.camera and self._last[0] == scene:
            frame = self._last[2]
        else:
            frame = self.render_scene(scene)
            self._last = (scene, self.camera, frame)
        if blur_px > 0:
            kernel = np.zeros((blur_px, blur_px), np.float32)
            kernel[blur_px // 2, :] = 1.0 / blur_px
            frame = np.asarray(cv2.filter2D(frame, -1, kernel), np.uint8)
        return self._expose(frame)

    def _expose(self, frame: Image) -> Image:
        flicker = float(self.rng.uniform(0.96, 1.04))
        oy, ox = (int(v) for v in self.rng.integers(0, 64, 2))
        h, w = frame.shape[:2]
        noise = self._noise[oy : oy + h, ox : ox + w] * self.noise_sigma
        gain = self._gain if frame.shape[:2] == (self.frame_h, self.frame_w) else 1.0
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
