"""The overhead-camera pipeline: camera frame in, vision events out.

Per frame: keep the ArUco calibration (re-checked every ``recheck_every`` frames), reject a blurred frame
(variance of the Laplacian over the table markers against the recent median), warp every seat's zones
upright on the plane of the tiles' tops (``TableGeometry.tile_thickness_mm`` above the felt, through the
camera's place estimated at calibration: a top is then where its tile lies, and its sides show as strips
toward the camera's nadir, see :mod:`vision.pipeline.sides`), segment tiles (an occluded zone is skipped
for the frame), classify all crops in one batch, read
pond slots, melds, the shown hand and (``read_dora``, riichi) the dead wall's turned-up indicators in the
wall rows (their tops two tiles above the felt, warped on that plane), and debounce each reading over
``stable_frames`` frames before an event is emitted.  Tiles already reported that are read again in place
(the camera was bumped and recalibrated) vote on with their earlier reads, and a meld or shown hand is
reported once until its slot is seen empty (or a meld's layout changes: a promoted kong).
The pipeline never touches game state; it only reports.

``TablePipeline.process`` is synchronous and CPU-bound: call it from one worker thread (e.g. via
``asyncio.to_thread``), never from the event loop.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.classifier import OnnxTileClassifier, Prediction, TileClassifier
from vision.pipeline.calibration import Calibration, CalibrationCache, CalibrationError
from vision.pipeline.camera_model import DEFAULT_HFOV_DEG
from vision.pipeline.events import VisionEvent, make_event
from vision.pipeline.segmentation import (
    Mask,
    TileBlob,
    TileSize,
    ZoneTiles,
    crop_from_frame,
    felt_ab,
    foreground_mask,
    segment,
)
from vision.pipeline.sides import SideStrips
from vision.pipeline.tracking import EMPTY, Commit, SlotTracker
from vision.pipeline.zones import DEFAULT_GEOMETRY, TableGeometry, Zone, seat_affine
from vision.scene import BACK, claimed_from_index

LOGGER = logging.getLogger(__name__)
Image = npt.NDArray[np.uint8]
CROP_W, CROP_H = 48, 64
#: the classifier's answer for a crop that is not a tile face nor a back (felt, hands, dice ...)
NOT_A_TILE = "not_a_tile"


@dataclass(frozen=True, slots=True)
class FrameReport:
    """What one frame gave.

    Attributes:
        frame_id: as passed in.
        events: vision events committed on this frame.
        status: ``ok``, ``uncalibrated`` (no markers yet: see ``error``) or ``blurred``.
        occluded: zones skipped because something covered them, as ``"seat:kind"``.
        camera_moved: the re-check found the camera moved (recalibrated).
        sharpness: median over the four table markers of the variance of the Laplacian (grey, full
            resolution) inside the marker's box (:func:`marker_sharpness`).
        error: the calibration error message when ``status`` is ``uncalibrated``.
    """

    frame_id: int
    events: list[VisionEvent]
    status: str
    occluded: list[str] = field(default_factory=list)
    camera_moved: bool = False
    sharpness: float = 0.0
    error: str | None = None


@dataclass
class _Read:
    """One zone tile awaiting classification."""

    zone: Zone
    blob: TileBlob
    index: int = -1


@dataclass(frozen=True, slots=True)
class _Thumb:
    """What the last frame knew about one tile: its box (zone px), a patch for change detection, the
    (voted) prediction, how many frames' reads it averages, and whether it lies sideways."""

    cx: float
    cy: float
    half_w: float
    half_h: float
    patch: npt.NDArray[np.float32]
    pred: Prediction
    reads: int
    live: bool = True
    missed: int = 0
    sideways: bool = False


def average_predictions(weighted: list[tuple[Prediction, float]]) -> Prediction:
    """Weighted mean of predictions' top-3 probabilities (a class missing from one top 3 counts 0 there);
    weights should sum to 1."""
    votes: dict[str, float] = {}
    for pred, weight in weighted:
        for code, p in pred.top3 or [(pred.code, pred.confidence)]:
            votes[code] = votes.get(code, 0.0) + p * weight
    top3 = sorted(votes.items(), key=lambda kv: -kv[1])[:3]
    return Prediction(top3[0][0], top3[0][1], top3)


def _mean_prediction(old: Prediction, n: int, new: Prediction) -> Prediction:
    """Running mean of ``n`` reads (``old``, already their mean) with one more read (``new``)."""
    return average_predictions([(old, n / (n + 1)), (new, 1 / (n + 1))])


def sharpness(frame: Image) -> float:
    """Variance of the Laplacian of the half-size grey frame (higher is sharper)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    small = cv2.resize(grey, (grey.shape[1] // 2, grey.shape[0] // 2), interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(small, cv2.CV_32F).var())


def marker_sharpness(frame: Image, marker_px: Mapping[int, npt.NDArray[np.float64]]) -> float:
    """Sharpness of the frame measured where it does not depend on the game: the median over the table
    markers (image px quads, e.g. ``Calibration.marker_px``) of the variance of the Laplacian of the grey
    frame inside each marker's bounding box (higher is sharper).  The whole frame's sharpness falls by a
    factor of five when a hand ends and the tiles are swept away, which is not blur; the markers' does not,
    and a hand over one marker moves the median little.  Falls back to :func:`sharpness` when no marker box
    lies inside the frame."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    height, width = grey.shape[:2]
    values: list[float] = []
    for quad in marker_px.values():
        x0, y0 = (max(0, int(v)) for v in np.floor(quad.min(axis=0)))
        x1, y1 = (int(v) for v in np.ceil(quad.max(axis=0)))
        x1, y1 = min(width, x1), min(height, y1)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        values.append(float(cv2.Laplacian(np.ascontiguousarray(grey[y0:y1, x0:x1]), cv2.CV_32F).var()))
    return float(np.median(values)) if values else sharpness(frame)


class TablePipeline:
    """Frame-to-events pipeline for the overhead camera.

    Args:
        classifier: batch tile classifier (``vision.classifier.OnnxTileClassifier`` on real cameras).
        geometry: the table layout.
        stable_frames: frames a reading must repeat before it counts.
        confidence_threshold: below this an event becomes ``uncertain``.
        recheck_every: frames between calibration re-checks.
        px_per_mm: zone-image resolution.
        blur_ratio: a frame whose marker sharpness is at least ``blur_ratio`` x the median of the last 15
            accepted frames is accepted (the markers' sharpness does not change with the tiles on the table).
        crop_margin: felt kept round each tile crop, as a fraction of the tile's size per side.  ``None``:
            0.05 for ``OnnxTileClassifier`` (trained on loose framing), else 0 (templates are tight).
        rotations: quarter turns each crop is classified in (1, 2 or 4; the top-3 probabilities are
            averaged).  ``None``: 1, the read the model card's ``min_confidence`` was fitted on (a vote over
            turns gives flatter probabilities than that threshold assumes, and costs 4x the network time; at
            1920 x 1080 it reads no better: docs/vision.md, "One read per crop on the table").
        vote_frames: frames a new tile is classified in, its answer being the mean of those reads (then
            reused while the tile stays unchanged).  ``None``: ``stable_frames``; 1 = first read only.
        hfov_deg: the camera's horizontal field of view, degrees: with the markers it places the camera, for
            the plane of the tiles' tops (:mod:`vision.pipeline.camera_model`).
        read_dora: also read each seat's wall row for the riichi dead wall's face-up indicators
            (``dora_indicator`` events, issue 16 point 15); off for rules without them (MCR, Sichuan).
    """

    def __init__(
        self,
        classifier: TileClassifier,
        geometry: TableGeometry = DEFAULT_GEOMETRY,
        *,
        stable_frames: int = 3,
        confidence_threshold: float = 0.6,
        recheck_every: int = 30,
        px_per_mm: float = 1.0,
        blur_ratio: float = 0.6,
        crop_margin: float | None = None,
        rotations: int | None = None,
        vote_frames: int | None = None,
        hfov_deg: float = DEFAULT_HFOV_DEG,
        read_dora: bool = False,
    ) -> None:
        onnx = isinstance(classifier, OnnxTileClassifier)
        if crop_margin is None:
            crop_margin = 0.05 if onnx else 0.0
        if rotations is None:
            rotations = 1
        if rotations not in (1, 2, 4):
            raise ValueError(f"rotations must be 1, 2 or 4, not {rotations}")
        self.crop_margin = crop_margin
        self.rotations = rotations
        self.classifier = classifier
        self.geometry = geometry
        self.threshold = confidence_threshold
        self.ppm = px_per_mm
        self.blur_ratio = blur_ratio
        self.calibration = CalibrationCache(geometry, recheck_every=recheck_every, hfov_deg=hfov_deg)
        #: the calibration the tops' homography and the zones' side strips were computed for
        self._planes_of: Calibration | None = None
        self._tops = np.eye(3)
        self._strips: dict[Zone, SideStrips | None] = {}
        self._on_felt: dict[Zone, Mask] = {}
        self.tracker = SlotTracker(stable_frames, unsettled_frames=4 * stable_frames)
        self.size = TileSize(geometry.tile_w_mm * px_per_mm, geometry.tile_h_mm * px_per_mm, geometry.tile_gap_mm)
        self._felt: tuple[float, float] | None = None
        self._sharp: deque[float] = deque(maxlen=15)
        self._blurred_run = 0  # consecutive frames the blur gate rejected
        self._zones = geometry.all_zones() + ([geometry.dora_zone(s) for s in range(4)] if read_dora else [])
        self._walls = np.eye(3)  # table mm on the plane of the dead wall's tops -> frame px
        self._thumbs: dict[Zone, list[_Thumb]] = {}
        self.vote_frames = max(1, stable_frames if vote_frames is None else vote_frames)
        #: crops sent to the classifier so far (the rest reused an unchanged tile's answer)
        self.classified = 0
        #: meld and shown-hand readings not reported because they re-read tiles already reported in place
        self.rereads = 0

    # ----- frame gates ---------------------------------------------------------------------------------
    def _estimate_felt(self, frame: Image) -> tuple[float, float]:
        cal = self.calibration.calibration
        assert cal is not None
        half = self.geometry.felt_half_mm
        step = 4.0
        zone_to_table = np.array([[step, 0, -half], [0, step, -half], [0, 0, 1.0]])
        n = round(2 * half / step)
        felt = cal.plane_to_image(0.0)
        small = cv2.warpPerspective(frame, felt @ zone_to_table, (n, n), flags=cv2.WARP_INVERSE_MAP)
        return felt_ab(np.asarray(small, dtype=np.uint8))

    def _tops_homography(self) -> npt.NDArray[np.float64]:
        """Table mm on the plane of the tiles' tops -> frame px, for the current calibration; the zones' side
        strips are recomputed with it."""
        cal = self.calibration.calibration
        if cal is None:
            raise CalibrationError("not calibrated")
        if cal is not self._planes_of:
            g = self.geometry
            self._tops = cal.plane_to_image(g.tile_thickness_mm)
            self._walls = cal.plane_to_image(2 * g.tile_thickness_mm)
            self._strips = {}
            self._on_felt = {zone: self._felt_seen(cal, zone) for zone in self._zones}
            for zone in self._zones:
                flat = cal.camera_mm is None or g.tile_thickness_mm <= 0
                self._strips[zone] = (
                    None
                    if flat or cal.camera_mm is None
                    else SideStrips.for_zone(
                        zone.zone_to_table(self.ppm),
                        cal.camera_mm[:2],
                        cal.camera_mm[2],
                        self._top_mm(zone),
                        self.ppm,
                    )
                )
            self._planes_of = cal
        return self._tops

    def _top_mm(self, zone: Zone) -> float:
        """Height of the tops read in ``zone`` above the felt, mm: a dead-wall stack is two tiles high."""
        return 2 * self.geometry.tile_thickness_mm if zone.kind == "dora" else self.geometry.tile_thickness_mm

    def _plane(self, zone: Zone) -> npt.NDArray[np.float64]:
        """Table mm on the plane of ``zone``'s tops -> frame px (current calibration)."""
        tops = self._tops_homography()
        return self._walls if zone.kind == "dora" else tops

    def _blurred(self, value: float) -> bool:
        """Whether a frame of sharpness ``value`` is blurred against the recent accepted frames.  A drop that
        lasts ``2 * maxlen`` frames is a new baseline (lighting changed, markers restuck), not motion blur:
        the history restarts from this frame instead of rejecting every later frame."""
        if len(self._sharp) >= 3 and value < self.blur_ratio * float(np.median(self._sharp)):
            self._blurred_run += 1
            if self._blurred_run < 2 * (self._sharp.maxlen or 15):
                return True
            LOGGER.warning(
                "sharpness %.0f below %.0f %% of the recent median for %d frames: new baseline",
                value,
                100 * self.blur_ratio,
                self._blurred_run,
            )
            self._sharp.clear()
        self._blurred_run = 0
        self._sharp.append(value)
        return False

    def _felt_seen(self, cal: Calibration, zone: Zone) -> Mask:
        """255 where the zone image (on the plane of the tops) shows what lies on the felt, 0 where the camera's
        ray meets the rim beyond the felt's edge, or passes through a standing hand on its way down (outside
        the shown-hand zones, where the standing hand is looked for): seen from above the tops, the rim comes
        inward by the tiles' parallax (6 mm at the meld row) and the standing hand's taller tiles reach out
        over the meld row, and either would join the melds' blobs."""
        g = self.geometry
        w, h = zone.size_px(self.ppm)
        cols, rows = np.meshgrid(np.arange(w, dtype=np.float64) + 0.5, np.arange(h, dtype=np.float64) + 0.5)
        uv = np.stack([cols, rows, np.ones_like(cols)], axis=-1) @ zone.zone_to_table(self.ppm).T
        if cal.camera_mm is None:
            felt = uv[..., :2]
            rays = [felt]
        else:  # where the ray through the top-plane point is at the felt and at the standing tiles' heights
            nu, nv, height = cal.camera_mm
            nadir = np.array([nu, nv])
            t = self._top_mm(zone)

            def at(z: float) -> npt.NDArray[np.float64]:
                return np.asarray(nadir + (uv[..., :2] - nadir) * (height - z) / (height - t), np.float64)

            felt = at(0.0)
            rays = [at(z) for z in np.linspace(0.0, g.tile_h_mm, 8)] if zone.kind != "shown" else []
        half = g.felt_half_mm - 1.0
        inside = (np.abs(felt[..., 0]) <= half) & (np.abs(felt[..., 1]) <= half)
        depth = max(g.tile_thickness_mm, 15.0)  # as the simulated camera stands them
        for seat in range(4) if zone.kind != "shown" else ():
            to_seat = seat_affine(seat)[:2, :2].T
            for point in rays:
                x, y = np.moveaxis(point @ to_seat.T, -1, 0)
                inside &= ~(
                    (x >= g.hand_left_x_mm)
                    & (x <= g.hand_right_x_mm)
                    & (y >= g.hand_row_y_mm - depth)
                    & (y <= g.hand_row_y_mm)
                )
        return np.asarray(inside, np.uint8) * 255

    def segment_zone(self, image: Image, zone: Zone) -> ZoneTiles:
        """The tiles in a zone image from :meth:`warp_zone` (felt colour from the last calibration, the rim
        masked off, side strips trimmed)."""
        if self._felt is None:
            raise CalibrationError("not calibrated")
        self._tops_homography()
        mask = cv2.bitwise_and(foreground_mask(image, self._felt, size=self.size), self._on_felt[zone])
        return segment(
            np.asarray(mask, np.uint8),
            self.size,
            split_rows=zone.kind == "pond",
            strips=self._strips.get(zone),
            standing=zone.kind == "shown",
        )

    def warp_zone(self, frame: Image, zone: Zone) -> Image:
        """The zone on the plane of the tiles' tops, upright as its owner sees it, at ``px_per_mm``."""
        matrix = self._plane(zone) @ zone.zone_to_table(self.ppm)
        flags = cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR
        return np.asarray(cv2.warpPerspective(frame, matrix, zone.size_px(self.ppm), flags=flags), dtype=np.uint8)

    # ----- main entry ----------------------------------------------------------------------------------
    def process(self, frame: Image, frame_id: int) -> FrameReport:
        """Run one BGR frame through the pipeline (see module doc); never raises for a bad frame."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            return FrameReport(frame_id, [], "uncalibrated", error=f"not a BGR uint8 image: {frame.shape}")
        try:
            check = self.calibration.update(frame)
        except CalibrationError as exc:
            return FrameReport(frame_id, [], "uncalibrated", error=str(exc))
        if self._felt is None or check.moved:
            self._felt = self._estimate_felt(frame)
        cal = self.calibration.calibration
        assert cal is not None
        sharp = marker_sharpness(frame, cal.marker_px)
        if self._blurred(sharp):
            return FrameReport(frame_id, [], "blurred", camera_moved=check.moved, sharpness=sharp)
        reads: list[_Read] = []
        occluded: list[str] = []
        readable: list[Zone] = []
        images: dict[Zone, Image] = {}
        for zone in self._zones:
            image = self.warp_zone(frame, zone)
            found = self.segment_zone(image, zone)
            if found.occluded:
                occluded.append(f"{zone.seat}:{zone.kind}")
                continue
            readable.append(zone)
            images[zone] = image
            for blob in found.tiles:
                reads.append(_Read(zone, blob, len(reads)))
        predictions = self._classify(frame, reads, images)
        # a blob the classifier calls not a tile (a hand, a sleeve, dice ...) is no tile of its zone
        tiles = [r for r in reads if predictions[r.index].code != NOT_A_TILE]
        events: list[VisionEvent] = []
        for zone in readable:
            mine = [r for r in tiles if r.zone == zone]
            if zone.kind == "pond":
                events.extend(self._read_pond(zone, mine, predictions, frame_id))
            elif zone.kind == "melds":
                events.extend(self._read_melds(zone, mine, predictions, frame_id))
            elif zone.kind == "dora":
                events.extend(self._read_dora(zone, mine, predictions, frame_id))
            else:
                events.extend(self._read_shown(zone, mine, predictions, frame_id))
        return FrameReport(frame_id, events, "ok", occluded, check.moved, sharp)

    @staticmethod
    def _patch(image: Image, cx: float, cy: float, half_w: float, half_h: float) -> npt.NDArray[np.float32]:
        """Grey, half-size, mean-removed patch of a zone image around a fixed box (for change detection)."""
        x0, y0 = max(0, round(cx - half_w)), max(0, round(cy - half_h))
        x1, y1 = round(cx + half_w), round(cy + half_h)
        grey = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY)
        small = np.asarray(cv2.resize(grey, (max(1, (x1 - x0) // 2), max(1, (y1 - y0) // 2))), dtype=np.float32)
        return small - float(small.mean())

    def crop_tile(self, frame: Image, zone: Zone, blob: TileBlob) -> Image:
        """The classifier's crop of a tile found in ``zone``'s image: cut from the full-resolution frame
        through the tops' homography (one resampling), upright, ``CROP_W`` x ``CROP_H``, with
        ``crop_margin`` of felt round it."""
        matrix = np.asarray(self._plane(zone) @ zone.zone_to_table(self.ppm), dtype=np.float64)
        return crop_from_frame(frame, matrix, blob, out_w=CROP_W, out_h=CROP_H, margin=self.crop_margin)

    def classify_crops(self, crops: list[Image]) -> list[Prediction]:
        """Classify upright crops, each in ``rotations`` quarter turns with the top-3 probabilities
        averaged (a class missing from one turn's top 3 counts 0 there)."""
        if not crops or self.rotations == 1:
            return self.classifier.classify(crops) if crops else []
        turns = (0, 2) if self.rotations == 2 else (0, 1, 2, 3)
        batch = [np.ascontiguousarray(np.rot90(c, k)) for k in turns for c in crops]
        preds = self.classifier.classify(batch)
        n = len(crops)
        return [average_predictions([(preds[t * n + i], 1 / len(turns)) for t in range(len(turns))]) for i in range(n)]

    def _held_in_place(self, read: _Read) -> _Thumb | None:
        """Last frame's tile at this tile's place in its zone, lying the same way (seen, not carried over an
        occlusion): centre within 0.4 tile widths, both sideways or both upright."""
        reach = 0.4 * self.size.w
        for thumb in self._thumbs.get(read.zone, []):
            if (
                thumb.live
                and abs(thumb.cx - read.blob.cx) <= reach
                and abs(thumb.cy - read.blob.cy) <= reach
                and thumb.sideways == read.blob.sideways
            ):
                return thumb
        return None

    def _classify(self, frame: Image, reads: list[_Read], images: dict[Zone, Image]) -> list[Prediction]:
        """Classify crops in one batch.  A tile that has not changed since last frame (same zone, centre
        within 2.5 px, and the zone image under last frame's box the same within noise: mean absolute
        difference of a grey, brightness-normalised, half-size patch under 7 levels) is classified again
        until it has been read in ``stable_frames`` frames, its answer being the running mean of those
        reads' top-3 probabilities (a vote, not the first read); after that the answer is reused.  A tile
        (pond, meld or shown hand) whose patch changed (noise, a neighbour touching it, a knock, the camera
        moved and was recalibrated) while it stayed in place (centre within 0.4 tile widths of a tile seen in
        the zone last frame, lying the same way) is read again and the read joins its vote, so one borderline
        re-read from a new pose cannot turn a settled discard or meld tile into another tile."""
        out: list[Prediction | None] = [None] * len(reads)
        counts = [1] * len(reads)  # reads each answer averages
        prior: dict[int, _Thumb] = {}
        used: set[int] = set()  # id() of last frame's thumbs that a tile of this frame matched
        todo: list[int] = []
        for read in reads:
            image = images[read.zone]
            for thumb in self._thumbs.get(read.zone, []):
                if abs(thumb.cx - read.blob.cx) > 2.5 or abs(thumb.cy - read.blob.cy) > 2.5:
                    continue
                patch = self._patch(image, thumb.cx, thumb.cy, thumb.half_w, thumb.half_h)
                if patch.shape == thumb.patch.shape and float(np.abs(thumb.patch - patch).mean()) < 7.0:
                    if thumb.reads >= self.vote_frames:
                        out[read.index], counts[read.index] = thumb.pred, thumb.reads
                    else:
                        prior[read.index] = thumb
                    used.add(id(thumb))
                    break
            else:
                held = self._held_in_place(read)
                if held is not None:
                    prior[read.index] = held
                    used.add(id(held))
            if out[read.index] is None:
                todo.append(read.index)
        crops = [self.crop_tile(frame, reads[i].zone, reads[i].blob) for i in todo]
        fresh = self.classify_crops(crops)
        for index, pred in zip(todo, fresh, strict=True):
            old = prior.get(index)
            out[index] = pred if old is None else _mean_prediction(old.pred, old.reads, pred)
            counts[index] = 1 if old is None else old.reads + 1
        cache: dict[Zone, list[_Thumb]] = {}
        for read in reads:
            known = out[read.index]
            assert known is not None
            b = read.blob
            half_w, half_h = (b.length / 2, b.depth / 2)
            patch = self._patch(images[read.zone], b.cx, b.cy, half_w, half_h)
            thumb = _Thumb(b.cx, b.cy, half_w, half_h, patch, known, counts[read.index], sideways=b.sideways)
            cache.setdefault(read.zone, []).append(thumb)
        for zone, entries in self._thumbs.items():
            if zone not in images:  # occluded this frame: keep what we knew, but not as "in place"
                cache[zone] = [replace(t, live=False) for t in entries]
                continue
            for t in entries:  # a tile not found for a frame or two (segmentation) keeps its vote meanwhile
                if id(t) not in used and t.missed + 1 < self.tracker.stable_frames:
                    cache.setdefault(zone, []).append(replace(t, missed=t.missed + 1))
        self._thumbs = cache
        self.classified += len(todo)
        return [p for p in out if p is not None]

    # ----- readers -------------------------------------------------------------------------------------
    def _seat_mm(self, zone: Zone, blob: TileBlob) -> tuple[float, float]:
        return (zone.x0 + blob.cx / self.ppm, zone.y0 + blob.cy / self.ppm)

    def _emit(self, commit: Commit | None, type_: str, frame_id: int, **fields: object) -> list[VisionEvent]:
        if commit is None:
            return []
        seat, _, position = commit.key
        tiles = fields.pop("tiles")
        claimed = fields.pop("claimed_from", None)
        event = make_event(
            type_,
            seat=int(seat),
            tiles=list(tiles),  # type: ignore[call-overload]
            claimed_from=claimed if isinstance(claimed, int) else None,
            position=int(position),
            confidence=commit.confidence,
            frame_id=frame_id,
            threshold=1.01 if commit.unsettled else self.threshold,
        )
        return [event]

    def _read_pond(self, zone: Zone, reads: list[_Read], preds: list[Prediction], frame_id: int) -> list[VisionEvent]:
        g = self.geometry
        slots = g.pond_cols * g.pond_rows
        centres = np.array([g.pond_slot_centre(i) for i in range(slots)])
        taken: dict[int, tuple[float, _Read]] = {}
        for read in reads:
            x, y = self._seat_mm(zone, read.blob)
            dist = np.hypot(centres[:, 0] - x, centres[:, 1] - y)
            for index in np.argsort(dist)[:2]:
                d = float(dist[index])
                if d > 0.6 * g.pond_pitch_x_mm:
                    break
                if int(index) not in taken or taken[int(index)][0] > d:
                    taken[int(index)] = (d, read)
                    break
        out: list[VisionEvent] = []
        for index in range(slots):
            key = (zone.seat, "pond", index)
            entry = taken.get(index)
            if entry is None:
                self.tracker.observe(key, EMPTY, 1.0)
                continue
            pred = preds[entry[1].index]
            commit = self.tracker.observe(key, (pred.code,), pred.confidence)
            if commit is not None:
                out += self._emit(commit, "discard", frame_id, tiles=list(commit.value))
        return out

    def _meld_groups(self, zone: Zone, reads: list[_Read]) -> tuple[list[list[_Read]], bool]:
        """Split a meld zone's tiles into melds, first exposed (the owner's right-hand end) first.

        Returns the melds that chain from the right-hand end (the first ending within two tile lengths of
        ``meld_right_x_mm``, each next one at most ``meld_gap_mm`` + two tile widths left of the one before)
        and whether every group found chained.  A meld the segmentation missed this frame leaves a hole at
        least a meld wide (three tile widths and the gaps); a group beyond it would shift into the missed
        meld's slot, so it and the later slots are left unread this frame.  The slack leaves room for melds
        laid by hand a little off the standard places."""
        g = self.geometry
        ordered = sorted(reads, key=lambda r: -r.blob.cx)
        groups: list[list[_Read]] = []
        split = (g.meld_gap_mm + g.tile_gap_mm) / 2 * self.ppm
        for read in ordered:
            if groups:
                prev = min(groups[-1], key=lambda r: r.blob.cx)
                gap = (prev.blob.cx - prev.blob.length / 2) - (read.blob.cx + read.blob.length / 2)
                if gap < split:
                    groups[-1].append(read)
                    continue
            groups.append([read])
        chained: list[list[_Read]] = []
        expected_right = g.meld_right_x_mm
        slack = 2 * g.tile_h_mm
        for group in groups:
            right = zone.x0 + max(r.blob.cx + r.blob.length / 2 for r in group) / self.ppm
            if right < expected_right - slack:
                break
            chained.append(group)
            expected_right = zone.x0 + min(r.blob.cx - r.blob.length / 2 for r in group) / self.ppm - g.meld_gap_mm
            slack = 2 * g.tile_w_mm
        return chained, len(chained) == len(groups)

    @staticmethod
    def _promotes(previous: tuple[object, ...], value: tuple[object, ...]) -> bool:
        """Whether meld reading ``value`` is reading ``previous`` promoted to a kong: three exposed tiles, now
        with a fourth lying on the sideways one."""
        if len(previous) != 3 or len(value) != 3:
            return False
        (old_kind, old_tiles, old_side), (kind, tiles, side) = previous, value
        return (
            old_kind == "exposed"
            and kind == "promoted"
            and isinstance(old_tiles, tuple)
            and isinstance(tiles, tuple)
            and (len(old_tiles), len(tiles)) == (3, 4)
            and side == old_side
        )

    def _read_melds(self, zone: Zone, reads: list[_Read], preds: list[Prediction], frame_id: int) -> list[VisionEvent]:
        """Meld slots of one seat.  A meld partly read this frame (not 3 or 4 columns: tiles being laid, a tile
        the segmentation missed, which also splits the meld in two groups) leaves its slot and every later slot
        unobserved this frame.  A meld already reported at a slot and read again (re-read after the camera
        moved, a flickering face, a tile of a kong missed) is not a new event: the tiles were not lifted (the
        slot would have been seen empty).  The one change reported at a reported slot is a promoted kong."""
        groups, complete = self._meld_groups(zone, reads)
        out: list[VisionEvent] = []
        for position in range(4):
            key = (zone.seat, "melds", position)
            if position >= len(groups):
                if complete:
                    self.tracker.observe(key, EMPTY, 1.0)
                continue
            value, confidence = self._meld_signature(groups[position], preds)
            if value[0] == "partial":
                break
            commit = self.tracker.observe(key, value, confidence)
            if commit is None:
                continue
            if commit.previous != EMPTY and not self._promotes(commit.previous, commit.value):
                self.rereads += 1
                LOGGER.info(
                    "seat %d meld %d re-read as %s (reported as %s): not a new meld",
                    zone.seat,
                    position,
                    commit.value,
                    commit.previous,
                )
                continue
            kind, tiles, side = commit.value
            if kind == "concealed_kong":
                faces = [t for t in tiles if t != BACK]
                shown = [faces[0]] * 4 if faces else [BACK] * 4
                out += self._emit(commit, "concealed_kong", frame_id, tiles=shown)
            elif side < 0:
                out += self._emit(replace(commit, confidence=0.0, unsettled=True), "meld", frame_id, tiles=list(tiles))
            else:
                columns = 3 if len(tiles) == 4 and kind == "promoted" else len(tiles)
                claimed = claimed_from_index(zone.seat, side, columns)
                out += self._emit(commit, "meld", frame_id, tiles=list(tiles), claimed_from=claimed)
        return out

    def _meld_signature(self, group: list[_Read], preds: list[Prediction]) -> tuple[tuple[object, ...], float]:
        """(kind, tiles left to right, sideways column) of one meld group, and its weakest confidence."""
        columns: list[list[_Read]] = []
        for read in sorted(group, key=lambda r: r.blob.cx):
            if columns and abs(columns[-1][0].blob.cx - read.blob.cx) < 0.4 * self.size.w:
                columns[-1].append(read)
            else:
                columns.append([read])
        confidence = min(preds[r.index].confidence for r in group)
        if len(columns) not in (3, 4):
            return (("partial",), confidence)
        tiles: list[str] = []
        extra: list[str] = []
        side = -1
        for i, column in enumerate(columns):
            column.sort(key=lambda r: -r.blob.cy)  # nearest the owner first
            tiles.append(preds[column[0].index].code)
            if column[0].blob.sideways:
                side = i
            extra += [preds[r.index].code for r in column[1:]]
        codes = tuple(tiles + extra)
        if len(codes) == 4 and BACK in codes and side < 0:
            return (("concealed_kong", codes, -1), confidence)
        kind = "promoted" if extra else "exposed"
        return ((kind, codes, side), confidence)

    def _read_dora(self, zone: Zone, reads: list[_Read], preds: list[Prediction], frame_id: int) -> list[VisionEvent]:
        """The dead wall's face-up tops in this wall row, from its owner's right: the dora indicator (position
        0) then the kan-dora indicators (``vision.scene.DeadWall``, seed 002 L37).  Face-down tops (``back``)
        are the wall itself; a row with no face-up top reports nothing."""
        up = [r for r in reads if not r.blob.sideways and preds[r.index].code != BACK]
        up.sort(key=lambda r: -r.blob.cx)  # the owner's right first
        out: list[VisionEvent] = []
        for position in range(5):
            key = (zone.seat, "dora", position)
            if position >= len(up):
                self.tracker.observe(key, EMPTY, 1.0)
                continue
            pred = preds[up[position].index]
            commit = self.tracker.observe(key, (pred.code,), pred.confidence)
            if commit is not None:
                out += self._emit(commit, "dora_indicator", frame_id, tiles=list(commit.value))
        return out

    def _read_shown(self, zone: Zone, reads: list[_Read], preds: list[Prediction], frame_id: int) -> list[VisionEvent]:
        key = (zone.seat, "shown", 0)
        upright = sorted((r for r in reads if not r.blob.sideways), key=lambda r: r.blob.cx)
        if len(upright) < 2:
            self.tracker.observe(key, EMPTY, 1.0)
            return []
        codes = tuple(preds[r.index].code for r in upright)
        confidence = min(preds[r.index].confidence for r in upright)
        commit = self.tracker.observe(key, codes, confidence)
        if commit is None:
            return []
        if commit.previous != EMPTY and len(commit.value) <= len(commit.previous):
            # the same laid-down hand read again (camera moved, a tile missed): reported once; only a hand still
            # being laid down (more tiles than reported) is reported again
            self.rereads += 1
            LOGGER.info("seat %d shown hand re-read as %s: not a new event", zone.seat, commit.value)
            return []
        return self._emit(commit, "win_shown", frame_id, tiles=list(commit.value))
