"""Benchmark: MCR scoring throughput and waits latency vs PyMahjongGB (the anchor), one JSON line.

Run: ``.venv/bin/python -m bench.score_mcr`` (``--hands N`` to change the 20,000-hand set).
Figures: our hands/s in steady state (the small per-suit caches warmed on a *different* hand set, every timed
hand new to the hand-level caches), on a first pass with empty caches, and with explanations (a repeat pass);
PyMahjongGB's hands/s on the same hands in the same run, the ratio, how many totals agree, and
``find_waits`` p50/p99 in ms over distinct 13-tile hands.  Single process; times are CPU time of this
process (``time.process_time``) so other jobs on a shared machine do not distort them.
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


def _clear_caches() -> None:
    from controller.mcr import combos, shapes

    for fn in (shapes.divisions, shapes._suit_divisions, shapes.waiting_tiles, shapes.wait_count, shapes._suit_ok,
               shapes._suit_state, shapes._suit_completers,
               combos.chow_combos, combos.pung_combos):
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

    lat: list[float] = []
    for s in samples[: args.waits]:
        t0 = time.process_time()
        find_waits(s.hand, seat_wind=s.ctx.seat_wind, round_wind=s.ctx.round_wind, flowers=s.ctx.flowers)
        lat.append((time.process_time() - t0) * 1000)
    q = quantiles(lat, n=100)
    n = len(samples)
    out = {
        "bench": "score_mcr",
        "hands": n,
        "seed": SEED,
        "hands_per_s": round(n / steady_s),
        "hands_per_s_first_pass_empty_caches": round(n / first_s),
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
        "target_hands_per_s": 20_000,
        "target_waits_ms": 2.0,
        "python": platform.python_version(),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
