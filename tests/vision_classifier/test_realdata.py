"""Issue 15: the real photographs' loader (split by source photo, crops, negatives), the mixed training batch and
the calibration maths, on a small fake data set written here (no real photos needed)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import realdata, realeval
from vision.synth.negatives import KINDS, negative


def _fake_set(root: Path, sources: int = 10) -> Path:
    """``sources`` source photos x 2 versions, 640 x 640, each with three boxed tiles on felt.  Numbered from 9000:
    the real data set's photos are 0000-0429, and ``read_labels`` applies the shipped fixes to any photo of that
    name (a fake 0005-0.jpg met the fixes of the real one's boxes)."""
    (root / "images").mkdir(parents=True)
    rng = np.random.default_rng(0)
    rows = ["file,tile,x,y,w,h"]
    codes = ["1m", "5p", "7z", "2f"]
    for s in range(sources):
        for v in range(2):
            name = f"{9000 + s:04d}-{v}.jpg"
            img = np.full((640, 640, 3), (60, 110, 30), np.uint8)
            for k in range(3):
                x, y = 60 + 180 * k, 100 + 30 * v
                cv2.rectangle(img, (x, y), (x + 80, y + 110), (235, 240, 242), -1)
                cv2.putText(img, str(k), (x + 20, y + 70), cv2.FONT_HERSHEY_SIMPLEX, 2, (0, 0, 200), 3)
                rows.append(f"{name},{codes[(s + k) % 4]},{x},{y},80,110")
            img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
            cv2.imwrite(str(root / "images" / name), img)
    (root / "labels.csv").write_text("\n".join(rows) + "\n")
    return root


def test_split_keeps_each_source_photo_on_one_side_and_is_seeded(tmp_path: Path) -> None:
    boxes = realdata.read_labels(_fake_set(tmp_path))
    train, val = realdata.split_sources(boxes, seed=0, val_fraction=0.3)
    assert len(val) == 3 and not train & val and len(train | val) == 10
    assert realdata.split_sources(boxes, seed=0, val_fraction=0.3) == (train, val)
    for b in boxes:  # both versions of a source photo: same side
        assert (b.source in val) == (b.file.split("-")[0] in val)
    first, second = realdata.halves(val, seed=0)
    assert first | second == val and not first & second and abs(len(first) - len(second)) <= 1


def test_crops_keep_the_margin_and_negatives_stay_off_the_boxes(tmp_path: Path) -> None:
    root = _fake_set(tmp_path)
    boxes = realdata.read_labels(root)
    photo = realdata.read_photo(root, boxes[0].file)
    crop = realdata.crop(photo, boxes[0])
    assert abs(crop.shape[0] - 110 * 1.1) <= 1 and abs(crop.shape[1] - 80 * 1.1) <= 1  # the margin, whole pixels
    reg = realdata.region(photo, boxes[0])
    assert reg.shape == (realdata.REGION, realdata.REGION, 3)
    mine = [b for b in boxes if b.file == boxes[0].file]
    negs = realdata.negative_boxes(mine, np.random.default_rng(3), 20)
    assert len(negs) == 20
    for n in negs:
        assert n.code == "not_a_tile" and n.x >= 0 and n.x + n.w <= 640 and n.y + n.h <= 640
        for b in mine:
            ix = max(0.0, min(n.x + n.w, b.x + b.w) - max(n.x, b.x))
            iy = max(0.0, min(n.y + n.h, b.y + b.h) - max(n.y, b.y))
            assert ix * iy <= 0.12 * b.w * b.h + 1e-6
    out = realdata.augment_region(reg, np.random.default_rng(4), 48)
    assert out.shape == (48, 48, 3) and out.dtype == np.uint8


def test_mixed_batch_holds_real_faces_negatives_and_synthetic_tiles(tmp_path: Path) -> None:
    from vision import train
    from vision.synth.render import available_styles

    root = _fake_set(tmp_path)
    real = train.RealPool(root, seed=0)
    assert {train.MODEL_CLASSES[i] for i in real.present} <= {"1m", "5p", "7z", "2f"}
    assert real.negatives and all(r.shape == (realdata.REGION, realdata.REGION, 3) for r in real.negatives)
    pool = train.face_pool(available_styles()[:1], 1, 0)
    args = (pool, 20, np.random.default_rng([0, 1]), 1, 2)
    x, y = train.make_batch(*args, real=real, real_share=0.5, neg_share=0.2)
    rng = np.random.default_rng([0, 1])
    again, y2 = train.make_batch(pool, 20, rng, 1, 2, real=real, real_share=0.5, neg_share=0.2)
    assert np.array_equal(x, again) and np.array_equal(y, y2)  # a function of the seed
    assert x.shape == (20, 3, train.INPUT_SIZE, train.INPUT_SIZE)
    not_a_tile = train.MODEL_CLASSES.index(train.NOT_A_TILE)
    assert int((y[:10] != not_a_tile).sum()) == 10 and set(y[:10].tolist()) <= set(real.present)
    assert (y[10:14] == not_a_tile).all()
    assert (y[14:] < not_a_tile).all()  # synthetic tiles: faces and backs


def test_every_negative_kind_draws_an_image() -> None:
    rng = np.random.default_rng(9)
    for kind in KINDS:
        img = negative(kind, rng, 48)
        assert img.shape == (48, 48, 3) and img.dtype == np.uint8, kind


def test_temperature_fit_recovers_an_overconfident_model_and_the_threshold_bounds_wrong_reads() -> None:
    rng = np.random.default_rng(0)
    n, c = 4000, 6
    truth = rng.integers(c, size=n)
    true_logits = rng.normal(0, 1, (n, c))
    true_logits[np.arange(n), truth] += 2.0
    # draw labels from the calibrated model, then make it 3x overconfident
    probs = realeval.softmax(true_logits.astype(np.float32))
    labels = np.array([rng.choice(c, p=p / p.sum()) for p in probs.astype(np.float64)])
    t = realeval.fit_temperature((true_logits * 3).astype(np.float32), labels)
    assert 2.6 < t < 3.4
    conf = probs.max(1)
    correct = probs.argmax(1) == labels
    th = realeval.choose_threshold(conf, correct, max_wrong=0.05)
    assert realeval.rates(conf, correct, th)[0] <= 0.05
    if th > 0.30:
        assert realeval.rates(conf, correct, round(th - 0.01, 2))[0] > 0.05  # the lowest such threshold


def test_the_threshold_never_breaks_the_confident_and_wrong_bound() -> None:
    """When no threshold below 1 meets the bound (confident wrong reads above every right one), the threshold
    is one at which nothing wrong is confident: not a fallback that lets the wrong reads through."""
    conf = np.array([0.995] * 990 + [0.9995] * 10, np.float32)
    correct = np.array([True] * 990 + [False] * 10)
    th = realeval.choose_threshold(conf, correct)
    assert realeval.rates(conf, correct, th)[0] <= realeval.MAX_CONFIDENT_WRONG


def test_the_threshold_is_the_lowest_to_a_ten_thousandth() -> None:
    """Three wrong reads of 1000 at 0.90, 0.95 and 0.993 and a bound of 0.2 %: the lowest threshold that leaves
    out the read at 0.90 (0.9001), not the next step of a coarse grid."""
    conf = np.concatenate([np.linspace(0.5, 0.999, 997), [0.90, 0.95, 0.993]]).astype(np.float32)
    correct = np.array([True] * 997 + [False] * 3)
    th = realeval.choose_threshold(conf, correct)
    assert th == pytest.approx(0.9001, abs=1e-6)
    assert realeval.rates(conf, correct, th)[0] <= 0.002 < realeval.rates(conf, correct, th - 1e-4)[0]


def test_the_simulated_cameras_threshold_follows_the_real_rule_on_the_synthetic_reads() -> None:
    """vision.modelcard: the synthetic reads at the real temperature, pooled over the styles.  Six of 1000 reads
    are wrong and the bound (0.2 %) lets two through: unsure (0.25) they leave the threshold at its floor 0.30,
    sure they push it above themselves."""
    from vision import modelcard

    def reads(wrong_logit: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        logits = np.zeros((500, 4), np.float32)
        logits[:, 1] = 6.0  # right and sure (softmax about 0.99)
        labels = np.ones(500, np.int64)
        labels[:3] = 2  # three wrong reads, as sure as ``wrong_logit`` makes them
        logits[:3, 1] = wrong_logit
        return {"a": (logits, labels), "b": (logits.copy(), labels.copy())}

    low = modelcard.simulated_camera_card(reads(0.0), temperature=1.0)  # wrong at 0.25
    assert low["min_confidence"] == 0.30 and low["confident"] == 0.994 and low["confident_wrong"] == 0.0
    high = modelcard.simulated_camera_card(reads(7.0), temperature=1.0)  # sure wrong reads
    assert high["min_confidence"] > 0.99 and high["confident_wrong"] <= 0.002
    assert "1000" in high["measured_on"]


def test_label_fixes_relabel_or_drop_their_box_and_skip_other_data_sets(tmp_path: Path) -> None:
    root = _fake_set(tmp_path, sources=2)
    published = realdata.read_labels(root, fixes=None)
    first, second = published[0], published[1]
    fixes = tmp_path / "fixes.csv"
    fixes.write_text(
        "file,x,y,tile,fix,reason\n"
        f"{first.file},{first.x},{first.y},{first.code},9m,a 9 of characters\n"
        f"{second.file},{second.x},{second.y},{second.code},drop,felt only\n"
        "9999-0.jpg,1,2,1m,drop,a photo of another data set\n"
    )
    fixed = realdata.read_labels(root, fixes=fixes)
    assert len(fixed) == len(published) - 1
    assert fixed[0] == realdata.Box(first.file, "9m", first.x, first.y, first.w, first.h)
    assert fixed[1:] == published[2:]


def test_a_label_fix_that_matches_no_box_is_an_error(tmp_path: Path) -> None:
    root = _fake_set(tmp_path, sources=2)
    b = realdata.read_labels(root, fixes=None)[0]
    fixes = tmp_path / "fixes.csv"
    fixes.write_text(f"file,x,y,tile,fix,reason\n{b.file},{b.x + 3},{b.y},{b.code},9m,moved\n")
    with pytest.raises(ValueError, match="matches 0 boxes"):
        realdata.read_labels(root, fixes=fixes)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("0001-0.jpg,ten,5,1m,2m,typo\n", "line 2: x 'ten' is not a number"),
        ("0001-0.jpg,1,5,1m,2m,ok\n0001-0.jpg,1,nan,1m,2m,nan\n", "line 3: y 'nan' is not a number"),
        ("0001-0.jpg,1,5,1m,9x,no such tile\n", "line 2: fix '9x' is neither a tile code nor drop"),
        ("0001-0.jpg,1,5,0m,2m,red five\n", "line 2: tile '0m' is not a tile code"),
        ("0001-0.jpg,1,5,1m,1m,same\n", "line 2: fix '1m' is the published tile"),
        ("0001-0.jpg,1,5,1m\n", "line 2: fix is missing"),
        ("0001-0.jpg,1,5,1m,2m,\n", "line 2: reason is missing"),
    ],
)
def test_a_malformed_label_fix_is_an_error_naming_its_line(tmp_path: Path, rows: str, message: str) -> None:
    fixes = tmp_path / "fixes.csv"
    fixes.write_text("file,x,y,tile,fix,reason\n" + rows)
    with pytest.raises(ValueError, match=f"^{fixes}: " + re.escape(message)):
        realdata.read_label_fixes(fixes)


def test_a_label_fixes_file_without_its_columns_is_an_error(tmp_path: Path) -> None:
    fixes = tmp_path / "fixes.csv"
    fixes.write_text("file,x,y,tile\n0001-0.jpg,1,5,1m\n")
    with pytest.raises(ValueError, match="columns file,x,y,tile,fix,reason"):
        realdata.read_label_fixes(fixes)


def test_the_shipped_label_fixes_name_real_codes_and_give_reasons() -> None:
    from vision.synth.render import CLASSES

    fixes = realdata.read_label_fixes()
    assert fixes
    for fx in fixes:
        assert fx.tile in CLASSES and (fx.fix in CLASSES or fx.fix == "drop") and fx.fix != fx.tile, fx
        assert len(fx.reason) > 10, fx
    if (realdata.DEFAULT_REAL_DIR / "labels.csv").is_file():  # each matches exactly one published box
        assert len(realdata.read_labels(realdata.DEFAULT_REAL_DIR)) == len(
            realdata.read_labels(realdata.DEFAULT_REAL_DIR, fixes=None)
        ) - sum(fx.fix == "drop" for fx in fixes)


def test_the_upper_bound_of_a_share_is_clopper_pearsons() -> None:
    """One-sided upper bound at level L of a binomial share with k of n: the p at which P(X <= k) = 1 - L.  For
    k = 0 that is 1 - (1 - L)^(1/n) in closed form (the 'rule of three': about 3/n at 95 %); for k = n it is 1."""
    assert realeval.upper_bound(0, 2958) == pytest.approx(1 - 0.05 ** (1 / 2958), rel=1e-6)
    assert realeval.upper_bound(0, 2958) * 2958 == pytest.approx(3.0, abs=0.01)
    assert realeval.upper_bound(10, 10) == 1.0
    for k, n in ((1, 2958), (2, 2958), (5, 2958), (3, 40)):
        p = realeval.upper_bound(k, n)
        cdf = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))
        assert cdf == pytest.approx(0.05, abs=1e-6), (k, n)
        assert p > k / n
    assert realeval.upper_bound(1, 2958) * 2958 == pytest.approx(4.74, abs=0.01)
    assert realeval.upper_bound(2, 2958, level=0.5) < realeval.upper_bound(2, 2958)
    with pytest.raises(ValueError):
        realeval.upper_bound(3, 2)


def test_a_bounded_threshold_keeps_the_upper_bound_of_confident_wrong_reads_under_the_limit() -> None:
    """2958 reads, five wrong at 0.90, 0.95, 0.97, 0.98 and 0.99.  The card's rule (at most 0.2 % = 5.9 reads)
    lets all five through at its floor 0.30.  With ``level`` the 95 % upper bound must stay at or under 0.2 %:
    one wrong read (bound 0.16 %) may stay confident, two (0.21 %) may not, so the threshold leaves out all but the
    surest wrong read: just above 0.98."""
    conf = np.concatenate([np.linspace(0.5, 0.9999, 2953), [0.90, 0.95, 0.97, 0.98, 0.99]]).astype(np.float32)
    correct = np.array([True] * 2953 + [False] * 5)
    assert realeval.choose_threshold(conf, correct) == 0.30
    th = realeval.choose_threshold(conf, correct, level=0.95)
    assert th == pytest.approx(0.9801, abs=1e-6)
    sure = conf >= th
    assert int((sure & ~correct).sum()) == 1
    assert realeval.upper_bound(1, len(conf)) <= realeval.MAX_CONFIDENT_WRONG
    none = np.zeros(0, np.float32)
    assert realeval.choose_threshold(none, none.astype(bool), level=0.95) == 1.0  # no reads: nothing to promise on


def _row_of_tiles() -> tuple[np.ndarray, realdata.Box]:
    """Dark felt with a white tile (80 x 110 px) between two red ones, touching: the box is the white one."""
    photo = np.full((640, 640, 3), (30, 60, 20), np.uint8)
    for k, colour in enumerate([(0, 0, 220), (250, 250, 250), (0, 0, 220)]):
        cv2.rectangle(photo, (200 + 80 * k, 260), (279 + 80 * k, 369), colour, -1)
    return photo, realdata.Box("9000-0.jpg", "1m", 280.0, 260.0, 80.0, 110.0)


def test_a_loose_crop_holds_the_tile_turned_at_its_centre_with_its_neighbours(monkeypatch: pytest.MonkeyPatch) -> None:
    """``augment_loose`` cuts what a photo turned after labelling gives: the tile at the crop's centre, turned,
    and its neighbours in the crop's corners.  The filming step is left out here to see the framing alone."""
    from vision.synth import augment

    monkeypatch.setattr(augment, "film", lambda img, rng, size, **_: np.clip(np.rint(img), 0, 255).astype(np.uint8))
    photo, box = _row_of_tiles()
    reg = realdata.loose_region(photo, box)
    assert reg.shape == (realdata.LOOSE_REGION, realdata.LOOSE_REGION, 3)
    rng = np.random.default_rng(7)
    white, red = [], []
    for _ in range(200):
        out = realdata.augment_loose(reg, (80 / 110, 1.0), rng, 48)
        assert out.shape == (48, 48, 3) and out.dtype == np.uint8
        assert (out[22:26, 22:26] > 200).all()  # the tile itself, at the centre
        white.append(float((out.min(axis=2) > 200).mean()))
        red.append(float(((out[..., 2] > 150) & (out[..., 1] < 80)).mean()))
    tight = realdata.augment_region(realdata.region(photo, box), np.random.default_rng(7), 48)
    assert tight.shape == (48, 48, 3)
    # turned by up to 45 degrees, the tile fills less of its hull than of its own box, and neighbours come in
    assert np.median(white) < float((tight.min(axis=2) > 200).mean())
    assert min(white) < 0.6 < max(white) and np.median(red) > 0.05 and max(red) < 0.5


def test_loose_crops_are_drawn_only_when_asked_and_keep_the_labels(tmp_path: Path) -> None:
    from vision import train
    from vision.synth.render import available_styles

    root = _fake_set(tmp_path)
    plain = train.RealPool(root, seed=0)
    loose = train.RealPool(root, seed=0, loose=True)
    assert not any(plain.loose)
    assert [len(f) for f in loose.loose] == [len(f) for f in loose.faces]
    assert all(r.shape == (realdata.LOOSE_REGION, realdata.LOOSE_REGION, 3) for f in loose.loose for r, _ in f)
    assert {shape for f in loose.loose for _, shape in f} == {(80 / 110, 1.0)}
    pool = train.face_pool(available_styles()[:1], 1, 0)

    def batch(real: train.RealPool, share: float) -> tuple[np.ndarray, np.ndarray]:
        return train.make_batch(
            pool, 20, np.random.default_rng([0, 1]), 1, 2, real=real, real_share=0.5, neg_share=0.2, loose_share=share
        )

    x0, y0 = batch(plain, 0.0)
    x1, y1 = batch(loose, 0.0)
    assert np.array_equal(x0, x1) and np.array_equal(y0, y1)  # a share of 0 draws what was drawn before
    with pytest.raises(ValueError, match="loose"):  # a pool built without the loose regions cannot draw them
        batch(plain, 0.5)
    x2, y2 = batch(loose, 1.0)
    assert y2[0] == y0[0] and set(y2[:10].tolist()) <= set(loose.present)  # the loose draw comes after the face's
    assert not np.array_equal(x0[0], x2[0])


@pytest.mark.parametrize("share", ["-0.1", "1.5"])
def test_a_loose_share_outside_0_to_1_is_refused(share: str, capsys: pytest.CaptureFixture[str]) -> None:
    from vision import train

    with pytest.raises(SystemExit):
        train.main(["--loose-share", share])
    assert "--loose-share" in capsys.readouterr().err
