"""Engine benchmark: simulated hands per second, and the time to process one discard.

    .venv/bin/python -m bench.engine [--hands 400] [--seed 1] [--rules all|<profile>] [--anchor REV]

With ``--rules all`` (the default) the MCR 2006 figures stay at the top level and ``per_rules`` repeats the same
figures for MCR 2006, Sichuan SBR 2025 and HKMA riichi, measured in the same run against the same anchor.

``--anchor REV`` (a git revision, e.g. ``main`` or a commit) also measures that revision in the same run: the
bench checks REV out into a temporary ``git worktree`` and runs its own ``bench.engine`` there with the same
arguments (a subprocess, same interpreter, REV's code first on ``sys.path``), interleaved rulebook by rulebook
with this tree's runs so that both see the same machine load.  The result gains ``anchor_rev`` and, per
rulebook, ``anchor`` (REV's figures) and ``p99_best_of_3_change`` (ours / REV's).  ``--anchor`` needs git.

A discard step includes the claim options of the other three players (win check with the fan total, pung,
kong, chow), computed exactly as on a full-information table.  Anchor (issue 3): p99 under 1 ms on this
machine.  Each discard is timed once as it happens (``discard_p99_ms``, includes GC and whatever else the
2 shared cores are doing; ``discard_cpu_p99_ms``: the same single run on this thread's CPU clock, GC included,
time spent preempted by other processes excluded) and as the best of 3 runs of the same pure step
(``discard_best_of_3_p99_ms``: the engine's own cost; the repeats find the waits of hand states the first run
met already cached, as the next discard of a real game does).  ``hands_per_s`` includes the bots' decisions.
Prints ONE JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from controller.engine.effects import Rejected
from controller.engine.events import Discard
from controller.engine.simulate import SimRun
from controller.engine.step import step

TARGET_P99_MS = 1.0
ALL_RULES = ("mcr-2006", "sichuan-sbr-2025", "riichi-hkma-2025")  # --rules all: MCR, Sichuan and riichi


def _percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    if not s:
        return 0.0
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[k]


def run(hands: int, seed: int, rules: str) -> dict[str, object]:
    discard_ms: list[float] = []
    cpu_ms: list[float] = []
    best_ms: list[float] = []
    played = 0
    events = 0
    game = 0
    t_start = time.perf_counter()
    while played < hands:
        run_ = SimRun(rules=rules, seed=seed, game=game, hands_total=min(16, hands - played))
        state = run_.start()
        while (ev := run_.next_event(state)) is not None:
            c0 = time.thread_time()
            t0 = time.perf_counter()
            new, fx = step(state, ev)
            dt = time.perf_counter() - t0
            dc = time.thread_time() - c0
            if fx and isinstance(fx[0], Rejected):
                raise RuntimeError(f"bot event rejected: {fx[0]}")
            if isinstance(ev, Discard):
                discard_ms.append(dt * 1000.0)
                cpu_ms.append(dc * 1000.0)
                best = dt
                for _ in range(2):  # the step is pure: repeat it to separate its cost from CPU contention
                    t1 = time.perf_counter()
                    step(state, ev)
                    best = min(best, time.perf_counter() - t1)
                best_ms.append(best * 1000.0)
            state = new
            events += 1
        played += len(state.history)
        game += 1
    wall_s = time.perf_counter() - t_start - sum(best_ms) / 1000.0 * 2
    p99 = _percentile(discard_ms, 0.99)
    p99_best = _percentile(best_ms, 0.99)
    return {
        "bench": "engine",
        "rules": rules,
        "hands": played,
        "events": events,
        "wall_s": round(wall_s, 3),
        "hands_per_s": round(played / wall_s, 1),
        "events_per_s": round(events / wall_s, 1),
        "discards": len(discard_ms),
        "discard_p50_ms": round(_percentile(discard_ms, 0.5), 4),
        "discard_p99_ms": round(p99, 4),
        "discard_max_ms": round(max(discard_ms), 4) if discard_ms else 0.0,
        "discard_mean_ms": round(statistics.fmean(discard_ms), 4) if discard_ms else 0.0,
        "discard_cpu_p99_ms": round(_percentile(cpu_ms, 0.99), 4),
        "discard_best_of_3_p50_ms": round(_percentile(best_ms, 0.5), 4),
        "discard_best_of_3_p99_ms": round(p99_best, 4),
        "anchor": "issue 3 target: discard p99 < 1 ms",
        "target_p99_ms": TARGET_P99_MS,
        "meets_target": p99 < TARGET_P99_MS,
        "meets_target_best_of_3": p99_best < TARGET_P99_MS,
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        "note": "hands/s includes the bots' own decisions (shanten search, scoring), which dominate",
        "python": platform.python_version(),
    }


def _anchor_worktree(rev: str, dest: Path) -> Path:
    """Check ``rev`` out (detached, no branch) into ``dest``; raises SystemExit when git refuses."""
    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "--quiet", str(dest), rev],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench.engine: cannot check out anchor {rev!r}: {done.stderr.strip()}")
    return dest


def _remove_worktree(dest: Path) -> None:
    """Remove the anchor's worktree, also a half-made (locked) one left by a stop during ``worktree add``."""
    repo = Path(__file__).resolve().parent.parent
    git = ["git", "-C", str(repo), "worktree"]
    subprocess.run([*git, "unlock", str(dest)], capture_output=True, check=False)
    subprocess.run([*git, "remove", "--force", "--force", str(dest)], capture_output=True, check=False)


def _run_anchor(tree: Path, hands: int, seed: int, rules: str) -> dict[str, object]:
    """One ``--rules`` run of the anchor revision's own bench, in a subprocess whose imports come from ``tree``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    child = subprocess.Popen([sys.executable, "-m", "bench.engine", "--hands", str(hands), "--seed", str(seed),
                              "--rules", rules], cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        stdout, stderr = child.communicate()
    finally:
        if child.poll() is None:  # we are being stopped: do not leave the anchor's run behind
            child.kill()
            child.wait()
    if child.returncode != 0:
        raise SystemExit(f"bench.engine: the anchor's bench failed for {rules}: {stderr.strip()[-400:]}")
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    return dict(json.loads(lines[-1]))


def _compare(ours: dict[str, object], anchor: dict[str, object]) -> None:
    ours["anchor"] = anchor
    a = float(str(anchor.get("discard_best_of_3_p99_ms", 0.0)))
    if a > 0:
        ours["p99_best_of_3_change"] = round(float(str(ours["discard_best_of_3_p99_ms"])) / a, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="all",
                        help="one profile, or all (default): MCR 2006 figures at the top level plus every ruleset "
                             "(MCR, Sichuan, riichi) under per_rules, same anchor, same run")
    parser.add_argument("--anchor", default=None, metavar="REV",
                        help="also run the bench of git revision REV (temporary worktree) in the same run")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl-C, so that the anchor's worktree and run are removed (the finally below)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        dest = Path(tmp) / "anchor"
        try:
            tree = _anchor_worktree(args.anchor, dest) if args.anchor else None
            out = _measure(args.hands, args.seed, args.rules, tree)
        finally:
            if args.anchor:
                _remove_worktree(dest)
    if args.anchor:
        out["anchor_rev"] = args.anchor
    print(json.dumps(out, separators=(",", ":")))


def _measure(hands: int, seed: int, rules: str, tree: Path | None) -> dict[str, object]:
    """This tree's figures (and the anchor's, interleaved per rulebook, when ``tree`` is given)."""
    names = ALL_RULES if rules == "all" else (rules,)
    per_rules: dict[str, dict[str, object]] = {}
    for name in names:
        per_rules[name] = run(hands, seed, name)
        if tree is not None:
            _compare(per_rules[name], _run_anchor(tree, hands, seed, name))
    if rules != "all":
        return per_rules[rules]
    # the same figures for the Sichuan and riichi rulesets (issue 4), in the same run
    out = dict(per_rules["mcr-2006"])
    out["per_rules"] = per_rules
    out["all_meet_target_best_of_3"] = all(bool(r["meets_target_best_of_3"]) for r in per_rules.values())
    out["p99_best_of_3_ms"] = {name: r["discard_best_of_3_p99_ms"] for name, r in per_rules.items()}
    out["p99_ms"] = {name: r["discard_p99_ms"] for name, r in per_rules.items()}
    out["p99_cpu_ms"] = {name: r["discard_cpu_p99_ms"] for name, r in per_rules.items()}
    return out


if __name__ == "__main__":
    main()
