"""Real photographs of tile sets with per-tile boxes (``../shared/data/real-tiles``): labels, the split by source
photo, tile crops as the pipeline cuts them, and negative regions (felt, hands, rims ... outside every box).

The data set ("Chinese Mahjong Detection" v4 by riichimahjongdetection on Roboflow Universe, CC BY 4.0) holds
``images/NNNN-V.jpg`` (640 x 640, NNNN the source photo, V one of its augmented versions) and ``labels.csv``
(``file,tile,x,y,w,h``: pixel boxes, x, y the top-left corner).  Both versions of a source photo are one scene,
so ``split_sources`` puts every source photo wholly on one side.  The publisher flipped some images, so some
glyphs are mirrored: training draws every real crop mirrored or not with equal odds (``vision.train``), so a
mirrored view is not a separate look to learn, and a mirror of any face is still that face (no two faces are
mirror images of each other).  Some published boxes are wrong (a box labelled 6z round a 4m, a box over felt):
``read_labels`` applies the corrections in ``real_label_fixes.csv`` beside this module, each checked by eye on
the photo (docs/vision.md, "Label fixes").

Pure functions of their arguments (the photos are read from disk); any thread.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from mjtable.tiles import ALL_FACES, ALL_FLOWERS

Image = npt.NDArray[np.uint8]

#: Where the data set lies relative to a worktree of the project (``../shared``).
DEFAULT_REAL_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "real-tiles"
#: The credit the data set's licence asks for (model card, docs/vision.md).
CREDIT = "Chinese Mahjong Detection v4 by riichimahjongdetection on Roboflow Universe, CC BY 4.0"
#: Felt kept round a tile crop per side, as a fraction of the box (the pipeline's ``crop_margin``).
CROP_MARGIN = 0.05
#: Training regions: the box grown by this fraction per side, resized to REGION x REGION (``regions``).
REGION_PAD = 0.25
REGION = 80
#: Loose training regions (``loose_region``): a square round the box's centre, its side the box's longer side
#: grown by this fraction per side, resized to LOOSE_REGION x LOOSE_REGION (aspect kept): room for a crop of the
#: tile turned by up to 45 degrees with its neighbours (``augment_loose``).
LOOSE_PAD = 0.8
LOOSE_REGION = 128
#: Largest turn (degrees) of a loose crop (``augment_loose``): the publisher turned photos by up to this much.
LOOSE_MAX_TURN = 45.0
#: Corrections of published boxes (``read_label_fixes``): ``file,x,y,tile,fix,reason``, ``fix`` a tile code or
#: ``drop`` (no tile face in the box).
LABEL_FIXES = Path(__file__).resolve().parent / "real_label_fixes.csv"
#: The columns a fixes file must have (``read_label_fixes``).
LABEL_FIX_COLUMNS = ("file", "x", "y", "tile", "fix", "reason")
#: The data set's tile codes (the 34 faces and 8 flowers of ``mjtable.tiles``, no red fives): what a label fix
#: may name.
DATA_SET_CODES = frozenset(t.code for t in (*ALL_FACES, *ALL_FLOWERS))
#: A fix names its box by file, code and top-left corner, to this many pixels.
FIX_TOLERANCE_PX = 0.05
#: Odds of the simulated camera's low-resolution and blur steps on a real training crop (``augment_region``):
#: lower than a rendered tile's (0.5, 0.4), a photograph being blurred and sampled once already.
REAL_LOW_RES_P = 0.2
REAL_BLUR_P = 0.15
#: Share of the source photos put in validation (``split_sources``).
VAL_FRACTION = 0.2


def source_of(file: str) -> str:
    """The source photo of an image file: ``NNNN`` of ``NNNN-V.jpg`` (the split is by source)."""
    return file.split("-", 1)[0]


@dataclass(frozen=True, slots=True)
class Box:
    """One labelled tile: image file name, tile code and the pixel box (x, y top-left; w, h)."""

    file: str
    code: str
    x: float
    y: float
    w: float
    h: float

    @property
    def source(self) -> str:
        """The source photo (``NNNN`` of ``NNNN-V.jpg``)."""
        return source_of(self.file)


@dataclass(frozen=True, slots=True)
class LabelFix:
    """One corrected box: the published ``tile`` at top-left ``x``, ``y`` of ``file`` is ``fix`` (a tile code) or
    is dropped (``fix`` == "drop"); ``reason`` says what the photo shows."""

    file: str
    x: float
    y: float
    tile: str
    fix: str
    reason: str


def _corner(value: str, name: str) -> float:
    try:
        v = float(value)
    except ValueError:
        v = float("nan")
    if not np.isfinite(v):
        raise ValueError(f"{name} {value!r} is not a number")
    return v


def _label_fix(row: dict[str, str | None]) -> LabelFix:
    """One row of the fixes file, checked (ValueError saying what is wrong)."""
    for key in LABEL_FIX_COLUMNS:
        if not row.get(key):
            raise ValueError(f"{key} is missing")
    file, tile, fix, reason = (str(row[k]) for k in ("file", "tile", "fix", "reason"))
    x, y = _corner(str(row["x"]), "x"), _corner(str(row["y"]), "y")
    if tile not in DATA_SET_CODES:
        raise ValueError(f"tile {tile!r} is not a tile code")
    if fix != "drop" and fix not in DATA_SET_CODES:
        raise ValueError(f"fix {fix!r} is neither a tile code nor drop")
    if fix == tile:
        raise ValueError(f"fix {fix!r} is the published tile")
    return LabelFix(file, x, y, tile, fix, reason)


def read_label_fixes(path: Path = LABEL_FIXES) -> list[LabelFix]:
    """The fixes of ``path`` (columns ``LABEL_FIX_COLUMNS``); OSError for an unreadable file, ValueError naming
    the file and line for a malformed one (a missing column or field, a corner that is not a number, a code
    that is not one of the data set's)."""
    out = []
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None or not set(LABEL_FIX_COLUMNS) <= set(reader.fieldnames):
            raise ValueError(f"{path}: needs the columns {','.join(LABEL_FIX_COLUMNS)} (has {reader.fieldnames})")
        for row in reader:
            try:
                out.append(_label_fix(row))
            except ValueError as exc:
                raise ValueError(f"{path}: line {reader.line_num}: {exc}") from exc
    return out


def apply_fixes(boxes: list[Box], fixes: list[LabelFix]) -> list[Box]:
    """``boxes`` with ``fixes`` applied (order kept, dropped boxes left out).  A fix for a file the data set does
    not hold is skipped (another data set); one that matches no box, or several, of a file it holds is a
    ValueError (the data set changed: check the fixes again)."""
    files = {b.file for b in boxes}
    out: list[Box | None] = list(boxes)
    for fx in fixes:
        if fx.file not in files:
            continue
        hits = [
            i
            for i, b in enumerate(boxes)
            if b.file == fx.file
            and b.code == fx.tile
            and abs(b.x - fx.x) <= FIX_TOLERANCE_PX
            and abs(b.y - fx.y) <= FIX_TOLERANCE_PX
        ]
        if len(hits) != 1:
            raise ValueError(f"label fix {fx.file} {fx.tile} at ({fx.x}, {fx.y}) matches {len(hits)} boxes, not 1")
        b = boxes[hits[0]]
        out[hits[0]] = None if fx.fix == "drop" else Box(b.file, fx.fix, b.x, b.y, b.w, b.h)
    return [b for b in out if b is not None]


def read_labels(directory: Path, fixes: Path | None = LABEL_FIXES) -> list[Box]:
    """Every box of ``directory/labels.csv`` in file order, with the corrections of ``fixes`` (None: the labels
    as published); raises OSError / ValueError for a bad file."""
    out = []
    with open(directory / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            x, y, w, h = (float(row[k]) for k in ("x", "y", "w", "h"))
            out.append(Box(row["file"], row["tile"], x, y, w, h))
    if not out:
        raise ValueError(f"{directory}/labels.csv has no boxes")
    return out if fixes is None else apply_fixes(out, read_label_fixes(fixes))


def split_sources(boxes: list[Box], seed: int = 0, val_fraction: float = VAL_FRACTION) -> tuple[set[str], set[str]]:
    """(train, validation) sets of source photos: a seeded permutation of the sorted sources, the first
    ``val_fraction`` of them (rounded) to validation."""
    sources = sorted({b.source for b in boxes})
    order = np.random.default_rng([seed, 15]).permutation(len(sources))
    n_val = round(len(sources) * val_fraction)
    val = {sources[int(i)] for i in order[:n_val]}
    return set(sources) - val, val


def halves(sources: set[str], seed: int = 0) -> tuple[set[str], set[str]]:
    """``sources`` cut in two seeded halves (enrollment photos from the first, reads from the second)."""
    ordered = sorted(sources)
    order = np.random.default_rng([seed, 16]).permutation(len(ordered))
    first = {ordered[int(i)] for i in order[: len(ordered) // 2]}
    return first, set(ordered) - first


def by_file(boxes: list[Box]) -> dict[str, list[Box]]:
    """Boxes grouped by image file (files sorted)."""
    out: dict[str, list[Box]] = defaultdict(list)
    for b in boxes:
        out[b.file].append(b)
    return dict(sorted(out.items()))


def read_photo(directory: Path, name: str) -> Image:
    """One photo as BGR uint8; ValueError when unreadable."""
    img = cv2.imread(str(directory / "images" / name), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"cannot read {directory / 'images' / name}")
    return np.asarray(img, np.uint8)


def photos_of(directory: Path, boxes: list[Box], sources: set[str]) -> Iterator[tuple[str, Image, list[Box]]]:
    """(file name, photo, its boxes) for every photo of ``sources``, files sorted (``by_file``), each photo read
    once (``read_photo``)."""
    for name, items in by_file([b for b in boxes if b.source in sources]).items():
        yield name, read_photo(directory, name), items


def _grown(box: Box, pad: float) -> tuple[float, float, float, float]:
    return box.x - pad * box.w, box.y - pad * box.h, box.w * (1 + 2 * pad), box.h * (1 + 2 * pad)


def crop(photo: Image, box: Box, margin: float = CROP_MARGIN) -> Image:
    """The box grown by ``margin`` of its size per side, clipped to the photo (at least 2 x 2 px)."""
    x, y, w, h = _grown(box, margin)
    x0, y0 = max(0, int(np.floor(x))), max(0, int(np.floor(y)))
    x1, y1 = min(photo.shape[1], int(np.ceil(x + w))), min(photo.shape[0], int(np.ceil(y + h)))
    x1, y1 = max(x1, x0 + 2), max(y1, y0 + 2)
    return np.ascontiguousarray(photo[y0:y1, x0:x1])


def region(photo: Image, box: Box, pad: float = REGION_PAD, size: int = REGION) -> Image:
    """The box grown by ``pad`` per side, resampled to ``size`` x ``size`` (aspect not kept; outside the photo
    the border is replicated): the stored form of a training sample, re-framed by the training augmentation."""
    x, y, w, h = _grown(box, pad)
    m = np.array([[size / w, 0, -x * size / w], [0, size / h, -y * size / h]], np.float64)
    shrink = min(w, h) > size
    out = cv2.warpAffine(
        cv2.GaussianBlur(photo, (0, 0), 0.5 * min(w, h) / size) if shrink else photo,
        m,
        (size, size),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(out, np.uint8)


def loose_region(photo: Image, box: Box, pad: float = LOOSE_PAD, size: int = LOOSE_REGION) -> Image:
    """A square round the box's centre, its side the box's longer side grown by ``pad`` per side, resampled to
    ``size`` x ``size`` (aspect kept; outside the photo the border is replicated): the stored form of a loose
    training sample (``augment_loose``, which also needs the box's shape, ``box.w`` and ``box.h``)."""
    side = max(box.w, box.h)
    square = Box(box.file, box.code, box.x + (box.w - side) / 2, box.y + (box.h - side) / 2, side, side)
    return region(photo, square, pad, size)


def _overlap(a: Box, b: Box) -> float:
    """Area of a's intersection with b."""
    ix = max(0.0, min(a.x + a.w, b.x + b.w) - max(a.x, b.x))
    iy = max(0.0, min(a.y + a.h, b.y + b.h) - max(a.y, b.y))
    return ix * iy


def negative_boxes(boxes: list[Box], rng: np.random.Generator, n: int, *, size: int = 640) -> list[Box]:
    """Up to ``n`` boxes of tile size (a labelled box's size x 0.6..1.6, aspect varied) in the same photo that
    cover at most 12 % of any labelled box and are at most 12 % covered by labelled boxes: felt, hands, rims,
    walls of backs ... everything but a labelled face (code ``not_a_tile``)."""
    out: list[Box] = []
    if not boxes:
        return out
    for _ in range(n * 30):
        if len(out) >= n:
            break
        ref = boxes[int(rng.integers(len(boxes)))]
        w = ref.w * rng.uniform(0.6, 1.6)
        h = ref.h * rng.uniform(0.6, 1.6)
        if w >= size or h >= size or w < 8 or h < 8:
            continue
        cand = Box(ref.file, "not_a_tile", float(rng.uniform(0, size - w)), float(rng.uniform(0, size - h)), w, h)
        covered = sum(_overlap(cand, b) for b in boxes)
        if covered > 0.12 * w * h or any(_overlap(cand, b) > 0.12 * b.w * b.h for b in boxes):
            continue
        out.append(cand)
    return out


def val_crops(
    directory: Path, sources: set[str], boxes: list[Box], margin: float = CROP_MARGIN
) -> tuple[list[Image], list[str]]:
    """The crops (``crop`` with ``margin``) and codes of every box whose source photo is in ``sources``."""
    crops, codes = [], []
    for _, photo, items in photos_of(directory, boxes, sources):
        for b in items:
            crops.append(crop(photo, b, margin))
            codes.append(b.code)
    return crops, codes


def val_negatives(
    directory: Path, sources: set[str], boxes: list[Box], per_photo: int = 3, seed: int = 0
) -> list[Image]:
    """Negative crops (``negative_boxes``, ``per_photo`` per photo, seeded) of the photos of ``sources``."""
    out: list[Image] = []
    rng = np.random.default_rng([seed, 17])
    for _, photo, items in photos_of(directory, boxes, sources):
        out.extend(crop(photo, b, 0.0) for b in negative_boxes(items, rng, per_photo, size=photo.shape[0]))
    return out


def augment_region(reg: Image, rng: np.random.Generator, size: int = 48) -> Image:
    """A training crop from a stored region (``region``: the box grown by REGION_PAD per side): re-framed (the
    pipeline's margin, looser or tighter, shifted, stretched, turned a few degrees), mirrored with odds 1/2
    (the data holds mirrored photos; a face mirrored is the same face), then turned, lit and filmed by
    ``vision.synth.augment.film`` (its low resolution and blur less often: ``REAL_LOW_RES_P``, ``REAL_BLUR_P``)."""
    side = reg.shape[0] / (1 + 2 * REGION_PAD)
    centre = reg.shape[0] / 2 + rng.normal(0, 0.04, 2) * side
    half = side * (0.5 + rng.uniform(-0.03, 0.15)) * rng.uniform(0.9, 1.1, 2)
    return _cut_and_film(reg, centre, half, np.deg2rad(rng.uniform(-6, 6)), rng=rng, size=size)


def _cut_and_film(
    reg: Image,
    centre: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    turn: float,
    *,
    rng: np.random.Generator,
    size: int,
) -> Image:
    """The ``size`` x ``size`` crop of ``reg`` centred on ``centre`` (px), ``half`` (px, x and y) from its centre
    to its edges, turned by ``turn`` (radians), mirrored with odds 1/2, then filmed (``vision.synth.augment.film``,
    the real odds of low resolution and blur)."""
    from vision.synth.augment import film

    c, s = np.cos(turn), np.sin(turn)
    # destination pixel (u, v) -> source: centre + R @ diag(2 * half / size) @ ((u, v) - size / 2)
    a = np.array([[c, -s], [s, c]]) @ np.diag(2 * half / size)
    t = centre - a @ np.array([size / 2, size / 2])
    m = np.hstack([a, t[:, None]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    out = cv2.warpAffine(reg.astype(np.float32), m, (size, size), flags=flags, borderMode=cv2.BORDER_REFLECT)
    framed = np.asarray(out, np.float32)
    if rng.random() < 0.5:
        framed = np.ascontiguousarray(framed[:, ::-1])
    return film(framed, rng, size, low_res_p=REAL_LOW_RES_P, blur_p=REAL_BLUR_P)


def augment_loose(
    reg: Image, shape: tuple[float, float], rng: np.random.Generator, size: int = 48, pad: float = LOOSE_PAD
) -> Image:
    """A training crop as a photo turned after it was labelled gives it: the photo round the tile turned by up to
    LOOSE_MAX_TURN degrees, and the axis-aligned hull of the turned box (with the pipeline's margin, a little
    looser or tighter, shifted) cut from it, so the crop holds the tile turned, with parts of its neighbours in
    its corners.  ``reg``: a ``loose_region`` (``pad`` its pad); ``shape``: the box's width and height over its
    longer side.  Then mirrored with odds 1/2 and filmed as ``augment_region`` does."""
    side = reg.shape[0] / (1 + 2 * pad)
    w, h = shape[0] * side, shape[1] * side
    turn = np.deg2rad(rng.uniform(-LOOSE_MAX_TURN, LOOSE_MAX_TURN))
    c, s = abs(np.cos(turn)), abs(np.sin(turn))
    hull = np.array([w * c + h * s, w * s + h * c])
    half = hull / 2 * (1 + 2 * (CROP_MARGIN + rng.uniform(-0.03, 0.1))) * rng.uniform(0.95, 1.05, 2)
    centre = reg.shape[0] / 2 + rng.normal(0, 0.04, 2) * side
    return _cut_and_film(reg, centre, half, turn, rng=rng, size=size)
