"""Benchmark: frame-to-events latency of the table pipeline on 1280x720 frames, 2 threads.

``bench_pipeline()`` renders a busy table with the simulated camera (every seat with a pond of 12-18 tiles
and melds; 4 tiles appear per step so events keep flowing), then times ``TablePipeline.process`` per frame
(calibration re-checks included; wall clock, and the process CPU time, which other load on the machine
does not inflate) and scores the events against the scene.  The anchor from issue 6 is a
median of at most 50 ms per frame on this machine with 2 threads; the result says whether it is met.
The classifier is the committed ONNX model when present, else the template classifier (named in the
output).  Run standalone: ``.venv/bin/python -m vision.pipeline.bench`` prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.classifier import TileClassifier
from vision.pipeline.events import VisionEvent
from vision.pipeline.table import Image, TablePipeline
from vision.pipeline.template_classifier import enrolled_template
from vision.pipeline.tileart import Cc0TileArt, TileArt
from vision.scene import SceneMeld, SeatScene, TableScene
from vision.simcam import SimCamera

TARGET_MEDIAN_MS = 50.0
THREADS = 2
_PONDS = (
    ["1p", "9s", "4p", "1s", "6z", "2z", "0p", "7p", "3p", "8s", "2s", "7z", "9p", "6s", "5z", "1z", "3z", "2p"],
    ["7s", "2p", "5s", "9p", "1z", "4s", "8p", "3z", "6p", "1s", "0s", "2z", "6s", "9s", "7p", "4p", "5z", "8s"],
    ["3p", "6z", "8s", "2s", "9p", "1p", "5z", "7z", "4s", "6p", "2z", "9s", "1s", "3z", "7s", "0p", "8p", "5s"],
    ["2z", "8p", "1s", "7p", "5s", "3p", "9s", "6z", "4p", "1z", "6s", "2p", "7z", "8s", "3z", "9p", "0s", "4s"],
)
_MELDS = (
    (SceneMeld("pung", ("5p",) * 3, claimed_from=2), SceneMeld("chow", ("3s", "4s", "5s"), claimed_from=3)),
    (SceneMeld("kong", ("9p",) * 4, claimed_from=3),),
    (SceneMeld("concealed_kong", ("7s",) * 4),),
    (SceneMeld("pung", ("1z",) * 3, claimed_from=0),),
)


def _classifier(model: Path | None = None) -> tuple[TileClassifier, str]:
    try:
        from vision.classifier import ModelError, OnnxTileClassifier

        try:
            return OnnxTileClassifier.load(model, threads=1), "onnx"  # small batches: one ORT thread, no spinning pool
        except ModelError:
            pass
    except ImportError:
        pass
    return enrolled_template(Cc0TileArt()), "template"


def busy_scene(step: int) -> TableScene:
    """The benchmark table after ``step`` frames: ponds of 12-18 tiles per seat, melds of every kind."""
    seats = tuple(
        SeatScene(pond=tuple(_PONDS[s][: min(18, 12 + step // 3)]), melds=_MELDS[s], hand_size=13 - 3 * len(_MELDS[s]))
        for s in range(4)
    )
    return TableScene(seats=(seats[0], seats[1], seats[2], seats[3]))


def _score(events: list[tuple[int, VisionEvent]], scenes: list[TableScene]) -> tuple[int, int, int]:
    """(discard events incl. uncertain ones about a discard, discards right and confident, meld events)."""
    right = len(
        [
            1
            for i, e in events
            if e["type"] == "discard" and scenes[i].seats[e["seat"]].pond[e["position"]] == e["tiles"][0]
        ]
    )
    discards = len([1 for _, e in events if e["type"] == "discard" or e.get("about") == "discard"])
    melds = len(
        [
            1
            for _, e in events
            if e["type"] in ("meld", "concealed_kong") or e.get("about") in ("meld", "concealed_kong")
        ]
    )
    return discards, right, melds


def _events_only(pipe: TablePipeline, images: list[Image]) -> list[tuple[int, VisionEvent]]:
    events: list[tuple[int, VisionEvent]] = []
    for i, image in enumerate(images):
        events.extend((i, e) for e in pipe.process(image, i).events)
    return events


def bench_pipeline(
    frames: int = 60,
    seed: int = 11,
    model: Path | None = None,
    frame_size: tuple[int, int] = (1280, 720),
    threads: int = THREADS,
) -> dict[str, Any]:
    """Measure frame-to-events latency (ms) and event correctness; returns a JSON-ready dict.

    The same frames also go through the pipeline configured as before the accuracy follow-up (crop with
    no felt margin, one orientation, first read only: ``pipeline_single_read_*``), for comparison.
    ``model``: an ONNX file other than the committed one; ``frame_size``: the camera's, px (the issue's target
    is for 1280 x 720); ``threads``: OpenCV's threads (the classifier runs on one onnxruntime thread).
    """
    cv2.setNumThreads(threads)
    classifier, kind = _classifier(model)
    cam = SimCamera(art=Cc0TileArt(), seed=seed, frame_size=frame_size)
    scenes = [busy_scene(i) for i in range(frames)]
    images = [cam.render(scene) for scene in scenes]
    single = _events_only(TablePipeline(classifier, crop_margin=0.0, rotations=1, vote_frames=1), images)
    single_discards, single_right, _ = _score(single, scenes)
    pipe = TablePipeline(classifier)
    pipe.process(images[0], 0)  # warm-up: first calibration, caches
    times: list[float] = []
    cpu: list[float] = []
    events: list[tuple[int, VisionEvent]] = []
    tiles = 0
    for i, image in enumerate(images[1:], start=1):
        start, start_cpu = time.perf_counter(), time.process_time()
        report = pipe.process(image, i)
        times.append((time.perf_counter() - start) * 1000.0)
        cpu.append((time.process_time() - start_cpu) * 1000.0)
        events.extend((i, e) for e in report.events)
    for seat in scenes[-1].seats:
        tiles += len(seat.pond) + sum(len(m.tiles) for m in seat.melds)
    discards, right, melds = _score(events, scenes)
    median = float(np.median(times))
    return {
        "pipeline_frame_ms_median": round(median, 2),
        "pipeline_frame_ms_p99": round(float(np.percentile(times, 99)), 2),
        "pipeline_target_ms_median": TARGET_MEDIAN_MS,
        "pipeline_meets_target": median <= TARGET_MEDIAN_MS,
        "pipeline_frames": len(times),
        "pipeline_frame_size": list(frame_size),
        "pipeline_tiles_in_view": tiles,
        "pipeline_threads": threads,
        "pipeline_classifier": kind,
        "pipeline_discard_events": discards,
        "pipeline_discards_correct": right,
        "pipeline_meld_events": melds,
        "pipeline_crop": {
            "source": "frame",
            "margin": pipe.crop_margin,
            "rotations": pipe.rotations,
            "vote_frames": pipe.vote_frames,
        },
        "pipeline_single_read_discard_events": single_discards,
        "pipeline_single_read_discards_correct": single_right,
        "pipeline_frame_cpu_ms_median": round(float(np.median(cpu)), 2),
        "pipeline_load_average_1min": round(os.getloadavg()[0], 2),
    }


CALIBRATION_THRESHOLDS = (0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9)


def calibration(seeds: range, frames: int = 60, model: Path | None = None) -> dict[str, Any]:
    """How far the pipeline's confidences can be trusted: the benchmark table filmed by the simulated camera
    with each of ``seeds`` (other poses, lighting and noise), every discard read reported typed (threshold 0),
    then per threshold how many reads would be confident, how many of those are wrong, and how many would go
    to the referee as ``uncertain``.  About 20 s per seed on this machine.  ``model``: as ``bench_pipeline``."""
    classifier, _ = _classifier(model)
    reads: list[tuple[float, bool]] = []
    scenes = [busy_scene(i) for i in range(frames)]
    for seed in seeds:
        cam = SimCamera(art=Cc0TileArt(), seed=seed)
        events = _events_only(TablePipeline(classifier, confidence_threshold=0.0), [cam.render(s) for s in scenes])
        reads += [
            (float(e["confidence"]), scenes[i].seats[e["seat"]].pond[e["position"]] == e["tiles"][0])
            for i, e in events
            if e["type"] == "discard"
        ]
    table = {}
    for th in CALIBRATION_THRESHOLDS:
        sure = [right for conf, right in reads if conf >= th]
        table[str(th)] = {"confident": len(sure), "wrong": len(sure) - sum(sure), "uncertain": len(reads) - len(sure)}
    wrong = sorted(conf for conf, right in reads if not right)
    return {
        "seeds": [seeds.start, seeds.stop - 1],
        "discard_reads": len(reads),
        "by_threshold": table,
        "highest_wrong_confidence": round(wrong[-1], 3) if wrong else None,
    }


def _every_class_spread() -> tuple[tuple[str, ...], ...]:
    """Every class once, in reverse order, dealt over the four ponds (another order than the capture layout)."""
    from vision.pipeline.capture import DEFAULT_LAYOUT, parse_layout

    codes = [c for pond in parse_layout(DEFAULT_LAYOUT) for c in pond][::-1]
    spread = tuple(tuple(codes[i::4]) for i in range(4))
    return (spread[0], spread[1], spread[2], spread[3])


def _table_crops(
    art: TileArt, seed: int, clf: TileClassifier, frame_size: tuple[int, int] = (1280, 720)
) -> tuple[list[Image], list[str]]:
    """The pipeline's crops of every class laid out on the simulated table (camera ``seed``, ``frame_size``
    px), and their codes."""
    from vision.pipeline.capture import known_crops, layout_scene, layout_tiles

    spread = _every_class_spread()
    cam, pipe = SimCamera(art=art, seed=seed, frame_size=frame_size), TablePipeline(clf)
    frame = cam.render(layout_scene(spread))
    pipe.process(frame, 0)
    found = known_crops(pipe, frame, layout_tiles(pipe.geometry, spread))
    return [crop for _, crop, _ in found], [code for code, _, _ in found]


def _read_counts(pipe: TablePipeline, crops: list[Image], truth: list[str], threshold: float = 0.6) -> dict[str, int]:
    """Counts of ``pipe``'s reads of ``crops`` (in its ``rotations``): ``right``, ``under_0.6``,
    ``under_threshold`` (to the referee at ``threshold``) and ``confident_wrong`` (at or over ``threshold`` and
    wrong)."""
    preds = pipe.classify_crops(crops)
    pairs = list(zip(preds, truth, strict=True))
    return {
        "right": sum(p.code == t for p, t in pairs),
        "under_0.6": sum(p.confidence < 0.6 for p in preds),
        "under_threshold": sum(p.confidence < threshold for p in preds),
        "confident_wrong": sum(p.confidence >= threshold and p.code != t for p, t in pairs),
    }


def table_reads(
    styles: tuple[str, ...],
    seeds: tuple[int, ...] = (31, 32, 33),
    model: Path | None = None,
    frame_size: tuple[int, int] = (1280, 720),
) -> dict[str, Any]:
    """Every class laid out on the simulated table (``vision.synth`` styles, one set per seed, ``cc0-art`` the
    simulated camera's own CC0 artwork), filmed from ``seeds`` camera poses and read by the pipeline as in play
    (crop from the tops' plane, one read per crop as the service reads): the share read right and the reads under
    0.6 per style, and at the model card's ``min_confidence`` (the service's threshold, ``threshold``) the reads
    under it (``under_threshold``: to the referee) and those over it but wrong (``confident_wrong``), and for a
    card that reads a crop's mirror only when unsure the crops it read twice (``second_reads``).  This is
    the classifier judged on the table's crops (about 19 x 26 px a tile at 1280 x 720),
    not on its own training crops.  ``model``: an ONNX file other than the committed one; ``frame_size``: the
    camera's (px)."""
    from vision.classifier import OnnxTileClassifier
    from vision.pipeline.tileart import SynthTileArt

    clf = OnnxTileClassifier.load(model, threads=THREADS)
    threshold = clf.card_min_confidence()
    out: dict[str, Any] = {}
    for style in styles:
        total = {"reads": 0, "right": 0, "under_0.6": 0, "under_threshold": 0, "confident_wrong": 0, "second_reads": 0}
        for seed in seeds:
            art: TileArt = Cc0TileArt() if style == "cc0-art" else SynthTileArt(style=style, seed=seed)
            crops, truth = _table_crops(art, seed, clf, frame_size)
            total["reads"] += len(crops)
            total["second_reads"] += clf.second_reads(crops) or 0
            for key, n in _read_counts(TablePipeline(clf), crops, truth, threshold).items():
                total[key] += n
        out[style] = {
            "reads": total["reads"],
            "accuracy": round(total["right"] / max(1, total["reads"]), 4),
            "under_0.6": total["under_0.6"],
            "threshold": threshold,
            "under_threshold": total["under_threshold"],
            "confident_wrong": total["confident_wrong"],
            "second_reads": total["second_reads"] if clf.second_read_margin is not None else None,
        }
    return out


def table_enrollment(
    style: str = "cn-dark", poses: int = 3, model: Path | None = None, frame_size: tuple[int, int] = (1280, 720)
) -> dict[str, Any]:
    """A venue's set unlike the training styles (``vision.synth`` ``style``, one fixed set) on the simulated
    table, read by the pipeline before and after enrolling the crops ``mjtable vision capture`` files from the
    table's own camera (the default layout, ``poses`` camera poses: that many photos per face), scored on
    another camera with the classes laid out in another order over all four ponds.  ``model``: an ONNX file
    other than the committed one; ``frame_size``: both cameras' (px)."""
    from vision.classifier import OnnxTileClassifier, enroll
    from vision.pipeline.capture import DEFAULT_LAYOUT, known_crops, layout_scene, layout_tiles, parse_layout
    from vision.pipeline.tileart import SynthTileArt

    clf = OnnxTileClassifier.load(model, threads=THREADS)
    art = SynthTileArt(style=style, seed=5)
    layout = parse_layout(DEFAULT_LAYOUT)
    cam, pipe = SimCamera(art=art, seed=21, frame_size=frame_size), TablePipeline(clf)
    photos: dict[str, list[Image]] = {}
    for pose in range(poses):
        if pose:
            cam.bump(*((8.0, -6.0), (-7.0, 5.0), (5.0, 7.0), (-6.0, -8.0))[(pose - 1) % 4])
        frame = cam.render(layout_scene(layout))
        pipe.process(frame, pose)  # calibrates, and recalibrates after a bump
        for code, crop, _ in known_crops(pipe, frame, layout_tiles(pipe.geometry, layout)):
            photos.setdefault(code, []).append(crop)
    crops, truth = _table_crops(art, 22, clf, frame_size)
    enrollment = enroll.build(clf, photos)
    adapted = TablePipeline(clf.with_enrollment(enrollment))
    return {
        "style": style,
        "frame_size": list(frame_size),
        "photos_per_face": poses,
        "faces_enrolled": len(photos),
        "transform": enrollment.transform,
        "reads": len(crops),
        "accuracy_before": round(_read_counts(TablePipeline(clf), crops, truth)["right"] / max(1, len(crops)), 4),
        "accuracy_after": round(_read_counts(adapted, crops, truth)["right"] / max(1, len(crops)), 4),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.pipeline.bench [--frame-size 1920x1080] [--model FILE]``: one JSON line."""
    p = argparse.ArgumentParser(description="frame-to-events latency and event correctness on the simulated table")
    p.add_argument("--frame-size", default="1280x720", help="the simulated camera's frame, WxH px (default 1280x720)")
    p.add_argument("--model", type=Path, default=None, help="an ONNX model other than the committed one")
    args = p.parse_args(argv)
    try:
        w, h = (int(v) for v in args.frame_size.lower().split("x"))
    except ValueError:
        p.error(f"--frame-size wants WxH, e.g. 1920x1080, not {args.frame_size!r}")
    print(json.dumps(bench_pipeline(model=args.model, frame_size=(w, h))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
