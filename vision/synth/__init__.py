"""Synthetic tile images: renderer (render.py) and camera-like augmentation (augment.py)."""
