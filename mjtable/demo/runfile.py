"""What a demo run directory remembers about its run: ``demo-run.json`` with the seed and rules it started with.

``mjtable demo --run-dir DIR`` on an existing directory resumes the session from its journal; the walls and the
bots' choices continue from the seed the run started with, so the seed (and rules) come from this file unless
given again, and a different ``--seed``/``--rules`` on a resume is refused with a clear message instead of
silently playing (and reporting) another run.  Checked before anything starts: a bad ``--rules`` leaves no
broker running and no run folder behind.  Pure file I/O on the caller's thread.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

RUN_FILE = "demo-run.json"
DEFAULT_SEED = 1
DEFAULT_RULES = "mcr-2006"


class RunOptionsError(ValueError):
    """The demo's options cannot start (or resume) this run."""


@dataclass(frozen=True, slots=True)
class RunOptions:
    seed: int
    rules: str
    resumed: bool


def check_rules(rules: str) -> str:
    """``rules`` if an engine ruleset answers to it (profile options included), else :class:`RunOptionsError`."""
    from controller.engine.registry import ruleset_for

    try:
        ruleset_for(rules)
    except ValueError as exc:
        raise RunOptionsError(f"--rules {rules!r}: {exc}") from None
    return rules


def resolve(run_dir: Path | None, seed: int | None, rules: str | None) -> RunOptions:
    """The seed and rules of a new run (defaults filled in) or of the run ``run_dir`` holds."""
    saved: dict[str, object] = {}
    path = run_dir / RUN_FILE if run_dir is not None else None
    if path is not None and path.is_file():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunOptionsError(f"{path}: unreadable ({exc})") from None
        if isinstance(loaded, dict):
            saved = loaded
    if saved:
        s_seed, s_rules = saved.get("seed"), saved.get("rules")
        if not isinstance(s_seed, int) or not isinstance(s_rules, str):
            raise RunOptionsError(f"{path}: needs an integer 'seed' and a string 'rules'")
        if seed is not None and seed != s_seed:
            raise RunOptionsError(f"{run_dir} is a run with --seed {s_seed}: resume it without --seed (or with "
                                  f"--seed {s_seed}), or start a new run elsewhere")
        if rules is not None and rules != s_rules:
            raise RunOptionsError(f"{run_dir} is a run with --rules {s_rules}: resume it without --rules, or start "
                                  "a new run elsewhere")
        return RunOptions(seed=s_seed, rules=check_rules(s_rules), resumed=True)
    return RunOptions(seed=DEFAULT_SEED if seed is None else seed,
                      rules=check_rules(DEFAULT_RULES if rules is None else rules), resumed=False)


def save(run_dir: Path, opts: RunOptions) -> None:
    """Remember the run's seed and rules (written once, when the run starts)."""
    path = run_dir / RUN_FILE
    if not path.exists():
        path.write_text(json.dumps({"seed": opts.seed, "rules": opts.rules}) + "\n", encoding="utf-8")
