"""Tile classifier: ONNX CNN inference on crops of single tiles, plus venue enrollment.

``from vision.classifier import OnnxTileClassifier, Prediction, TileClassifier``;
``OnnxTileClassifier.load(path=None).classify(crops) -> list[Prediction]``.
"""

from vision.classifier.model import (
    DEFAULT_MODEL_PATH,
    ModelError,
    OnnxTileClassifier,
    Prediction,
    TileClassifier,
    predictions,
)
from vision.classifier.preprocess import BadCropError

__all__ = [
    "DEFAULT_MODEL_PATH",
    "BadCropError",
    "ModelError",
    "OnnxTileClassifier",
    "Prediction",
    "TileClassifier",
    "predictions",
]
