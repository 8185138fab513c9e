"""Crop preprocessing shared by inference (onnxruntime) and training: resize, scale, normalise, NCHW; plus the
input transforms a venue enrollment may choose (``TRANSFORMS``).

Pure functions; any thread.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]


#: What a transparent pixel of a BGRA crop shows (BGR): the green felt of a table, as tiles are seen in play, so
#: a tile face cut out on a transparent ground reads as a tile on the felt, and a fully transparent image as felt.
TRANSPARENT_BACKGROUND = (60, 110, 30)


def flatten_alpha(crop: Image) -> Image:
    """A BGRA image composited over TRANSPARENT_BACKGROUND (alpha 0: felt, 255: the pixel) as BGR uint8."""
    alpha = crop[..., 3:4].astype(np.float32) / 255.0
    ground = np.asarray(TRANSPARENT_BACKGROUND, np.float32)
    out = crop[..., :3].astype(np.float32) * alpha + ground * (1.0 - alpha)
    return np.asarray(np.clip(np.rint(out), 0, 255).astype(np.uint8), dtype=np.uint8)


class BadCropError(ValueError):
    """A crop is not an image the classifier can read (wrong type, shape or empty)."""


def as_bgr(crop: object, index: int = 0) -> Image:
    """``crop`` as a BGR uint8 HxWx3 array: grey (HxW) is converted, BGRA flattened on the felt
    (``flatten_alpha``); anything else raises BadCropError."""
    if not isinstance(crop, np.ndarray):
        raise BadCropError(f"crop {index}: expected a numpy array, got {type(crop).__name__}")
    if crop.dtype != np.uint8:
        raise BadCropError(f"crop {index}: expected dtype uint8, got {crop.dtype}")
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    elif crop.ndim == 3 and crop.shape[2] == 4:
        crop = flatten_alpha(crop)
    if crop.ndim != 3 or crop.shape[2] != 3:
        raise BadCropError(f"crop {index}: expected an HxWx3 BGR image, got shape {crop.shape}")
    if crop.shape[0] < 2 or crop.shape[1] < 2:
        raise BadCropError(f"crop {index}: image of {crop.shape[1]}x{crop.shape[0]} pixels is too small")
    return np.asarray(crop, dtype=np.uint8)


def to_input(crops: Sequence[object], size: int, mean: float, std: float) -> npt.NDArray[np.float32]:
    """Resize every crop to ``size`` x ``size`` (INTER_AREA when shrinking, else linear; aspect not kept:
    a sideways tile is squashed the same way in training), scale to 0..1, normalise with ``mean``/``std``;
    returns N x 3 x size x size."""
    out = np.empty((len(crops), size, size, 3), np.float32)
    for i, crop in enumerate(crops):
        img = as_bgr(crop, i)
        if img.shape[:2] != (size, size):
            shrink = img.shape[0] >= size and img.shape[1] >= size
            interp = cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
            img = np.asarray(cv2.resize(img, (size, size), interpolation=interp), dtype=np.uint8)
        out[i] = img
    out *= 1.0 / 255.0
    out -= mean
    out *= 1.0 / std
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2))


def invert_lightness(img: Image) -> Image:
    """``img`` (BGR uint8) with its CIE Lab lightness inverted and its hues kept: a dark body engraved in pale
    inks becomes a light body engraved in dark inks of the same colours (red stays red), the look the network
    was trained on."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return np.asarray(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), dtype=np.uint8)


#: Input transforms an enrollment can apply before the network (by name, as saved in the enrollment file).
TRANSFORMS = {"none": None, "invert-lightness": invert_lightness}


def transform_crops(crops: Sequence[object], name: str) -> list[Image]:
    """``crops`` as BGR uint8 images (see ``as_bgr``) through the transform ``name`` (a key of TRANSFORMS)."""
    if name not in TRANSFORMS:
        raise ValueError(f"unknown input transform {name!r} (known: {', '.join(TRANSFORMS)})")
    fn = TRANSFORMS[name]
    images = [as_bgr(c, i) for i, c in enumerate(crops)]
    return images if fn is None else [fn(img) for img in images]
