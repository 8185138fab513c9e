"""Benchmark: MCR scoring throughput and waits latency vs PyMahjongGB (the anchor), one JSON line.

Run: ``.venv/bin/python -m bench.score_mcr`` (``--hands N`` to change the 20,000-hand set).
Figures: our hands/s in steady state (the small per-suit caches warmed on a *different* hand set, every timed
hand new to the hand-level caches); on a cold first pass (every cache empty; the complete-suit table is
built at import, so it is not in the pass: its build time is reported beside it); with explanations (a
repeat pass); PyMahjongGB's hands/s on the same hands in the same run, the ratio, how many totals agree; and
``find_waits`` latency in ms over distinct 13-tile hands: the cold first query, p50, p99 and max.
``meets_target_*`` flags compare each figure with the issue's targets (20,000 hands/s in one process, a
waits query under 2 ms).  Single process; times are CPU time of this process (``time.process_time``), which
other jobs on a shared machine distort less than wall time (they still share caches and clock speed).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from statistics import quantiles

from controller.mcr import find_waits, is_complete, score_hand
from controller.mcr.gb_oracle import gb_score
from controller.mcr.generate import random_wins

SEED = 2006
TARGET_HANDS_PER_S = 20_000
TARGET_WAITS_MS = 2.0


def _clear_caches() -> None:
    from controller.mcr import combos, shapes

    for fn in (shapes.divisions, shapes._suit_divisions, shapes.waiting_tiles, shapes.wait_count,
               shapes._suit_completers, combos.chow_combos, combos.pung_combos):
        fn.cache_clear()


def _clear_hand_caches() -> None:
    from controller.mcr import shapes

    for fn in (shapes.divisions, shapes.waiting_tiles, shapes.wait_count):
        fn.cache_clear()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print one JSON line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--waits", type=int, default=2_000, help="number of waits queries")
    args = ap.parse_args(argv)
    samples = random_wins(args.hands, seed=SEED)

    from controller.mcr.shapes import build_complete_suits

    t0 = time.process_time()
    build_complete_suits()
    table_ms = (time.process_time() - t0) * 1000
    _clear_caches()
    t0 = time.process_time()
    ours = [score_hand(s.hand, s.ctx, explain=False).total for s in samples]
    first_s = time.process_time() - t0
    # steady state: a long-running engine has the small per-suit / per-combination caches filled, but every
    # hand it sees is new: warm up on a *different* hand set, then time the fixed set with the hand-level
    # caches emptied before each of 5 passes; the best pass is reported (least disturbed by other jobs)
    _clear_caches()
    for s in random_wins(args.hands, seed=SEED + 1):
        score_hand(s.hand, s.ctx, explain=False)
    steady_s = float("inf")
    for _ in range(5):
        _clear_hand_caches()
        t0 = time.process_time()
        for s in samples:
            score_hand(s.hand, s.ctx, explain=False)
        steady_s = min(steady_s, time.process_time() - t0)
    t0 = time.process_time()
    for s in samples:
        score_hand(s.hand, s.ctx, explain=True)
    explain_s = time.process_time() - t0
    t0 = time.process_time()
    gb = [gb_score(s.hand, s.ctx) for s in samples]
    gb_s = time.process_time() - t0
    same = sum(1 for a, b in zip(ours, gb, strict=True) if b is not None and a == sum(p * c for p, c in b.values()))

    _clear_hand_caches()
    t0 = time.process_time()
    for s in samples:
        is_complete(s.hand, s.ctx.win_tile)
    complete_us = (time.process_time() - t0) / len(samples) * 1e6

    _clear_caches()
    first = samples[0]
    t0 = time.process_time()
    find_waits(first.hand, seat_wind=first.ctx.seat_wind, round_wind=first.ctx.round_wind, flowers=first.ctx.flowers)
    waits_cold_ms = (time.process_time() - t0) * 1000
    lat: list[float] = []
    for s in samples[1: args.waits + 1]:
        t0 = time.process_time()
        find_waits(s.hand, seat_wind=s.ctx.seat_wind, round_wind=s.ctx.round_wind, flowers=s.ctx.flowers)
        lat.append((time.process_time() - t0) * 1000)
    q = quantiles(lat, n=100)
    n = len(samples)
    steady, cold = n / steady_s, n / first_s
    out = {
        "bench": "score_mcr",
        "hands": n,
        "seed": SEED,
        "hands_per_s": round(steady),
        "hands_per_s_first_pass_empty_caches": round(cold),
        "complete_suit_table_build_ms_at_import": round(table_ms, 1),
        "hands_per_s_explain_repeat": round(n / explain_s),
        "anchor": "PyMahjongGB 1.4 (C++), same hands, same run",
        "anchor_hands_per_s": round(n / gb_s),
        "ratio_vs_anchor": round(gb_s / steady_s, 3),
        "same_total_as_anchor": same,
        "is_complete_us_mean": round(complete_us, 2),
        "waits_queries": len(lat),
        "waits_p50_ms": round(q[49], 3),
        "waits_p99_ms": round(q[98], 3),
        "waits_max_ms": round(max(lat), 3),
        "waits_cold_first_query_ms": round(waits_cold_ms, 3),
        "target_hands_per_s": TARGET_HANDS_PER_S,
        "target_waits_ms": TARGET_WAITS_MS,
        "meets_target_hands_per_s": steady >= TARGET_HANDS_PER_S,
        "meets_target_hands_per_s_cold_first_pass": cold >= TARGET_HANDS_PER_S,
        "meets_target_waits_p99": q[98] < TARGET_WAITS_MS,
        "meets_target_waits_max": max(lat) < TARGET_WAITS_MS,
        "meets_target_waits_cold_first_query": waits_cold_ms < TARGET_WAITS_MS,
        "python": platform.python_version(),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
