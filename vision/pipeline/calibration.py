"""Camera calibration from four ArUco markers at the table corners (a homography table mm <-> image px).

``calibrate(image, geometry)`` finds the markers (OpenCV >= 4.7 ``cv2.aruco.ArucoDetector``, dictionary
DICT_4X4_50), fits a homography on all sixteen marker corners and returns a :class:`Calibration`; when a
marker is missing it raises :class:`CalibrationError` naming which ones and where they should be.  From the
same corners and the camera's field of view it estimates where the camera is (its nadir on the table and its
height), so that :meth:`Calibration.plane_to_image` gives the homography of any plane above the felt: the
tiles' tops are ``TableGeometry.tile_thickness_mm`` up and, seen from 1.4 m, a quarter of a tile away from
their footprint at the table's edge (:mod:`vision.pipeline.camera_model`).

:class:`CalibrationCache` keeps the calibration between frames and re-checks it every ``recheck_every``
frames, and at once when two markers no longer look as they did (a cheap per-frame patch correlation),
so a bumped camera is noticed (``CalibrationCheck.moved``) and corrected before it misplaces tiles; a marker
hidden by a hand at a re-check keeps the cached calibration.  Called from the pipeline's worker thread only.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.camera_model import DEFAULT_HFOV_DEG, estimate_camera, lift_homography
from vision.pipeline.zones import FloatArray, TableGeometry

LOGGER = logging.getLogger(__name__)
Image = npt.NDArray[np.uint8]
_CORNER_NAMES = ("bottom-left (seat 0's left)", "bottom-right (seat 0's right)", "top-right", "top-left")


class CalibrationError(RuntimeError):
    """The table markers could not be found (or give no sane homography).

    Attributes:
        missing: marker ids not found.
        found: marker ids found.
    """

    def __init__(self, message: str, missing: tuple[int, ...] = (), found: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.missing = missing
        self.found = found


@dataclass(frozen=True, slots=True)
class Calibration:
    """A fitted camera calibration.

    Attributes:
        table_to_image: 3x3 homography, table-frame mm on the markers' plane -> image pixels.
        marker_px: marker id -> its 4 corners in the image (4x2 float).
        frame_size: (width, height) of the image it was fitted on, px.
        error_px: RMS reprojection error of the marker corners, px.
        marker_z_mm: height of the markers' plane above the felt, mm.
        camera_mm: the camera's estimated nadir and height above the felt ``(u, v, z)``, mm; None when no pose
            fitted (every plane is then read as the markers' plane).
        hfov_deg: the horizontal field of view the pose was estimated with, degrees.
    """

    table_to_image: FloatArray
    marker_px: dict[int, FloatArray]
    frame_size: tuple[int, int]
    error_px: float
    marker_z_mm: float = 0.0
    camera_mm: tuple[float, float, float] | None = None
    hfov_deg: float = DEFAULT_HFOV_DEG

    def plane_to_image(self, z_mm: float) -> FloatArray:
        """3x3 homography taking table-frame mm on the horizontal plane ``z_mm`` above the felt to image px."""
        if self.camera_mm is None or z_mm == self.marker_z_mm:
            return self.table_to_image
        u, v, height = self.camera_mm
        return lift_homography(self.table_to_image, (u, v), height, self.marker_z_mm, z_mm)

    def project(self, points_mm: FloatArray) -> FloatArray:
        """Table-frame mm (Nx2) -> image px (Nx2)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.table_to_image).reshape(-1, 2).astype(np.float64)

    def to_json(self) -> dict[str, object]:
        """JSON-ready summary (for ``mjtable vision calibrate``)."""
        return {
            "table_to_image": [[round(float(v), 6) for v in row] for row in self.table_to_image],
            "markers": {
                str(k): [[round(float(c), 1) for c in p] for p in v] for k, v in sorted(self.marker_px.items())
            },
            "frame_size": list(self.frame_size),
            "error_px": round(self.error_px, 3),
            "camera_mm": None if self.camera_mm is None else [round(c, 1) for c in self.camera_mm],
            "hfov_deg": self.hfov_deg,
        }


def make_detector() -> cv2.aruco.ArucoDetector:
    """An ArUco detector for DICT_4X4_50 with sub-pixel corner refinement."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def detect_markers(image: Image, detector: cv2.aruco.ArucoDetector | None = None) -> dict[int, FloatArray]:
    """Find ArUco markers; returns id -> 4x2 image corners (an id seen twice keeps the larger one)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids, _ = (detector or make_detector()).detectMarkers(grey)
    found: dict[int, FloatArray] = {}
    if ids is None:
        return found
    for quad, mid in zip(corners, ids.ravel(), strict=True):
        pts = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        key = int(mid)
        if key not in found or cv2.contourArea(pts.astype(np.float32)) > cv2.contourArea(found[key].astype(np.float32)):
            found[key] = pts
    return found


def fit_calibration(
    found: dict[int, FloatArray],
    geometry: TableGeometry,
    frame_size: tuple[int, int],
    hfov_deg: float = DEFAULT_HFOV_DEG,
) -> Calibration:
    """Fit the homography from detected markers, and the camera's place from them and ``hfov_deg`` (degrees);
    raises CalibrationError if a table marker is missing."""
    wanted = geometry.marker_ids
    missing = tuple(m for m in wanted if m not in found)
    present = tuple(sorted(found))
    if missing:
        names = ", ".join(f"id {m} ({_CORNER_NAMES[wanted.index(m)]})" for m in missing)
        raise CalibrationError(
            f"table markers missing: {names}; found ids {list(present)}. Check the camera sees all four corners "
            "and nothing covers the markers.",
            missing=missing,
            found=present,
        )
    ref = geometry.marker_corners()
    src = np.concatenate([ref[m] for m in wanted]).astype(np.float64)
    dst = np.concatenate([found[m] for m in wanted]).astype(np.float64)
    matrix, _ = cv2.findHomography(src, dst, 0)
    if matrix is None:
        raise CalibrationError("the four markers give no homography (are they collinear?)", (), present)
    h = np.asarray(matrix, dtype=np.float64)
    proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), h).reshape(-1, 2)
    error = float(np.sqrt(np.mean(np.sum((proj - dst) ** 2, axis=1))))
    if error > 8.0:
        raise CalibrationError(
            f"markers found but inconsistent (reprojection error {error:.1f} px): are ids {list(wanted)} placed "
            "at the corners in order bottom-left, bottom-right, top-right, top-left?",
            (),
            present,
        )
    z = geometry.marker_height_mm
    try:
        camera = estimate_camera(src, dst, plane_z_mm=z, hfov_deg=hfov_deg, frame_size=frame_size).centre()
    except (ValueError, cv2.error) as exc:
        LOGGER.warning("no camera pose from the markers (%s): tiles are read on the markers' plane", exc)
        camera = None
    return Calibration(h, {m: found[m] for m in wanted}, frame_size, error, z, camera, hfov_deg)


def calibrate(
    image: Image,
    geometry: TableGeometry,
    detector: cv2.aruco.ArucoDetector | None = None,
    *,
    hfov_deg: float = DEFAULT_HFOV_DEG,
) -> Calibration:
    """Detect the four table markers in ``image`` and fit a calibration (raises CalibrationError); ``hfov_deg``:
    the camera's horizontal field of view, degrees."""
    height, width = image.shape[:2]
    return fit_calibration(detect_markers(image, detector), geometry, (width, height), hfov_deg)


@dataclass(frozen=True, slots=True)
class CalibrationCheck:
    """What happened to the calibration on one frame.

    Attributes:
        checked: markers were looked for on this frame.
        moved: the camera moved since the last calibration (the new one replaced it).
        shift_px: largest marker-centre displacement seen at this check, px.
        missing: markers not seen at this check (the cached calibration was kept if there was one).
    """

    checked: bool
    moved: bool = False
    shift_px: float = 0.0
    missing: tuple[int, ...] = ()


@dataclass
class CalibrationCache:
    """Keeps a calibration and re-checks it every ``recheck_every`` frames.

    ``move_tolerance_px``: a marker centre moving further than this (px) means the camera was bumped.
    ``hfov_deg``: the camera's horizontal field of view, degrees (:func:`fit_calibration`).
    """

    geometry: TableGeometry
    recheck_every: int = 30
    move_tolerance_px: float = 3.0
    hfov_deg: float = DEFAULT_HFOV_DEG
    calibration: Calibration | None = None
    _detector: cv2.aruco.ArucoDetector = field(default_factory=make_detector)
    _since_check: int = 0
    _reference: list[npt.NDArray[np.float32]] = field(default_factory=list)

    def _marker_patches(self, image: Image, cal: Calibration) -> list[npt.NDArray[np.float32]]:
        """Grey patches of the image where the markers were at calibration (mean removed, unit norm)."""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        out: list[npt.NDArray[np.float32]] = []
        for mid in self.geometry.marker_ids:
            x0, y0 = np.floor(cal.marker_px[mid].min(axis=0)).astype(int)
            x1, y1 = np.ceil(cal.marker_px[mid].max(axis=0)).astype(int)
            patch = grey[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)].astype(np.float32)
            patch = patch - float(patch.mean()) if patch.size else patch
            out.append(patch / (float(np.linalg.norm(patch)) + 1e-6))
        return out

    def _looks_moved(self, image: Image) -> bool:
        """Cheap per-frame test: do at least two markers no longer look like they did at calibration?"""
        if self.calibration is None or not self._reference:
            return False
        now = self._marker_patches(image, self.calibration)
        changed = sum(
            1 for a, b in zip(now, self._reference, strict=True) if a.shape != b.shape or float((a * b).sum()) < 0.6
        )
        return changed >= 2

    def update(self, image: Image) -> CalibrationCheck:
        """Re-check if due, if the markers no longer look the same, or while uncalibrated; raises
        CalibrationError only while no calibration exists."""
        due = self.calibration is None or self._since_check >= self.recheck_every - 1
        if not due and not self._looks_moved(image):
            self._since_check += 1
            return CalibrationCheck(checked=False)
        self._since_check = 0
        height, width = image.shape[:2]
        found = detect_markers(image, self._detector)
        try:
            fresh = fit_calibration(found, self.geometry, (width, height), self.hfov_deg)
        except CalibrationError as exc:
            if self.calibration is None:
                raise
            LOGGER.info("calibration re-check skipped: %s", exc)
            return CalibrationCheck(checked=True, missing=exc.missing)
        if self.calibration is None:
            self.calibration = fresh
            self._reference = self._marker_patches(image, fresh)
            return CalibrationCheck(checked=True)
        old = self.calibration
        shift = max(
            float(np.linalg.norm(fresh.marker_px[m].mean(axis=0) - old.marker_px[m].mean(axis=0)))
            for m in self.geometry.marker_ids
        )
        moved = shift > self.move_tolerance_px or (width, height) != old.frame_size
        if moved:
            LOGGER.warning("camera moved by %.1f px: recalibrated", shift)
            self.calibration = fresh
        self._reference = self._marker_patches(image, self.calibration)
        return CalibrationCheck(checked=True, moved=moved, shift_px=shift)
