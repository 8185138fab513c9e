"""A pinhole camera over the table, and the planes at the height of the tiles' tops.

Tiles are not flat: a lying tile's top is ``TableGeometry.tile_thickness_mm`` (about 20 mm) above the felt.
Seen from a camera ``H`` mm above the table, a point at height ``z`` appears where the felt point
``N + (p - N) * H / (H - z)`` would (``N``: the nadir, the felt point straight below the camera): at the
meld row, 400 mm from a nadir 1.4 m below the camera, a tile's top is 6 mm (a quarter of a tile) away from
its footprint, and the side of the tile facing the camera shows as a strip as wide.  The pipeline therefore
reads tiles on the plane of their tops (:meth:`CameraModel.plane_homography`), not on the felt's.

Frames: the table frame ``(u, v)`` of :mod:`vision.pipeline.zones` (mm, ``u`` right and ``v`` toward seat 0
in the top-down view) with heights ``z`` above the felt (mm, up).  In 3-D the right-handed frame is
``(u, v, w)`` with ``w = -z`` (into the table).  Camera frame: ``x`` right, ``y`` down in the image, ``z``
forward; pixels ``K @ (R @ X + t)``.

Pure arithmetic; thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Horizontal field of view assumed when none is configured: the Raspberry Pi Camera Module 3 (standard
#: lens) in its full-width modes, degrees.
DEFAULT_HFOV_DEG = 66.0


def intrinsics(hfov_deg: float, frame_size: tuple[int, int]) -> FloatArray:
    """Camera matrix for square pixels and the principal point at the image centre.

    Args:
        hfov_deg: horizontal field of view of the frame as delivered (after any sensor crop), degrees.
        frame_size: (width, height), px.
    """
    if not 5.0 <= hfov_deg <= 170.0:
        raise ValueError(f"horizontal field of view {hfov_deg} degrees is out of range (5..170)")
    width, height = frame_size
    f = (width / 2) / np.tan(np.deg2rad(hfov_deg) / 2)
    return np.array([[f, 0.0, width / 2], [0.0, f, height / 2], [0.0, 0.0, 1.0]])


@dataclass(frozen=True, slots=True)
class CameraModel:
    """A pinhole camera: ``K`` (3x3, px), ``R`` (3x3) and ``t`` (3, mm) taking table points ``(u, v, w)`` to the
    camera frame."""

    K: FloatArray
    R: FloatArray
    t: FloatArray

    @classmethod
    def looking_at(
        cls, camera_matrix: FloatArray, eye_uvz: tuple[float, float, float], target_uvz: tuple[float, float, float]
    ) -> CameraModel:
        """A camera at ``eye_uvz`` (mm; z = height above the felt) looking at ``target_uvz``, rolled so that
        the image's down direction is as close as possible to the table's ``+v`` (seat 0 at the bottom)."""
        eye = _uvw(eye_uvz)
        forward = _uvw(target_uvz) - eye
        forward /= np.linalg.norm(forward)
        x_axis = np.cross(np.array([0.0, 1.0, 0.0]), forward)
        x_axis /= np.linalg.norm(x_axis)
        y_axis = np.cross(forward, x_axis)
        rotation = np.stack([x_axis, y_axis, forward])
        return cls(np.asarray(camera_matrix, np.float64), rotation, -rotation @ eye)

    def turned(self, yaw_rad: float, pitch_rad: float, roll_rad: float = 0.0) -> CameraModel:
        """The same camera turned about its own centre: ``yaw`` moves the picture's content left for a positive
        angle (the camera turns right), ``pitch`` moves it up (the camera tilts down), ``roll`` about the
        optical axis."""
        rvec = np.array([pitch_rad, -yaw_rad, roll_rad], np.float64)
        turn, _ = cv2.Rodrigues(rvec)
        rotation = np.asarray(turn, np.float64) @ self.R
        centre = self.centre_uvw()
        return CameraModel(self.K, rotation, -rotation @ centre)

    def centre_uvw(self) -> FloatArray:
        """The camera centre in table coordinates ``(u, v, w)``, mm."""
        return np.asarray(-self.R.T @ self.t, np.float64)

    def centre(self) -> tuple[float, float, float]:
        """The camera centre as ``(u, v, height above the felt)``, mm."""
        c = self.centre_uvw()
        return (float(c[0]), float(c[1]), float(-c[2]))

    def plane_homography(self, z_mm: float) -> FloatArray:
        """3x3 homography taking ``(u, v)`` on the horizontal plane ``z_mm`` above the felt to image px."""
        r = self.R
        return np.asarray(self.K @ np.column_stack([r[:, 0], r[:, 1], self.t - z_mm * r[:, 2]]), np.float64)

    def project(self, points_uvz: FloatArray) -> FloatArray:
        """Points ``(u, v, z)`` (N x 3, mm) to image px (N x 2)."""
        pts = np.asarray(points_uvz, np.float64).reshape(-1, 3)
        cam = (self.R @ np.column_stack([pts[:, 0], pts[:, 1], -pts[:, 2]]).T).T + self.t
        px = (self.K @ cam.T).T
        return np.asarray(px[:, :2] / px[:, 2:3], np.float64)


def _uvw(uvz: tuple[float, float, float]) -> FloatArray:
    return np.array([uvz[0], uvz[1], -uvz[2]], np.float64)


def estimate_camera(
    table_mm: FloatArray, image_px: FloatArray, *, plane_z_mm: float, hfov_deg: float, frame_size: tuple[int, int]
) -> CameraModel:
    """The camera's pose from points on one horizontal plane (the markers' corners) and an assumed field of view.

    Args:
        table_mm: N x 2 points ``(u, v)`` on the plane ``plane_z_mm`` above the felt, mm (N >= 4).
        image_px: where they are seen, N x 2 px.
        plane_z_mm: height of that plane above the felt, mm.
        hfov_deg: the camera's horizontal field of view, degrees (:func:`intrinsics`).
        frame_size: (width, height), px.

    A wrong field of view scales the camera's estimated distance roughly by the same factor as the focal length
    error, and the parallax corrections with its inverse; the homography fitted on the markers stays exact.
    Raises ValueError when no pose fits.
    """
    camera_matrix = intrinsics(hfov_deg, frame_size)
    obj = np.column_stack([table_mm, np.full(len(table_mm), -plane_z_mm)]).astype(np.float64)
    image = np.asarray(image_px, np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, image, camera_matrix, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise ValueError("no camera pose fits the markers")
    rotation, _ = cv2.Rodrigues(rvec)
    model = CameraModel(camera_matrix, np.asarray(rotation, np.float64), np.asarray(tvec, np.float64).reshape(3))
    if model.centre()[2] <= plane_z_mm:
        raise ValueError("the fitted camera lies below the markers")
    return model


def lift_homography(
    plane_to_image: FloatArray, nadir_uv: tuple[float, float], camera_z_mm: float, plane_z_mm: float, z_mm: float
) -> FloatArray:
    """The homography of the plane ``z_mm`` above the felt from that of the plane ``plane_z_mm``.

    A point ``p`` at height ``z`` lies on the camera's ray through ``N + k (p - N)`` of the lower plane, with
    ``k = (H - plane_z) / (H - z)`` (``N`` the nadir, ``H`` the camera's height above the felt, mm).  Keeping the
    fitted homography and only scaling about the nadir keeps the markers' fit exact: the field of view assumed
    by :func:`estimate_camera` only enters through ``N`` and ``H``.
    """
    if camera_z_mm <= max(z_mm, plane_z_mm):
        raise ValueError(f"camera height {camera_z_mm:.0f} mm is not above the plane at {z_mm:.0f} mm")
    k = (camera_z_mm - plane_z_mm) / (camera_z_mm - z_mm)
    nu, nv = nadir_uv
    scale = np.array([[k, 0.0, (1 - k) * nu], [0.0, k, (1 - k) * nv], [0.0, 0.0, 1.0]])
    return np.asarray(plane_to_image @ scale, np.float64)


def side_strip_mm(
    point_uv: tuple[float, float], nadir_uv: tuple[float, float], camera_z_mm: float, thickness_mm: float
) -> tuple[float, float]:
    """Where the side of a tile shows, seen on the plane of the tops: a tile top edge at ``point_uv`` has its
    side face (from its top, ``thickness_mm`` above the felt, down to the felt) appear as a strip from that
    edge by this vector (table frame, mm) toward the nadir, when that side faces the camera."""
    f = thickness_mm / camera_z_mm
    return (-(point_uv[0] - nadir_uv[0]) * f, -(point_uv[1] - nadir_uv[1]) * f)
