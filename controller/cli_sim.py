"""``mjtable sim``: play whole sessions with bots through the engine; one JSON line per game.

    mjtable sim --rules mcr-2006 --games 3 --seed 7 [--hands 16] [--journal-dir runs/sim]

Each hand of ``hand_results`` keeps its seat numbers and names the players who sat there in that hand (``seating``,
``winner_players``, ``discarder_player``, ``payments_by_player``); ``players`` and the scores are in registration
order.  Same seed, same output.  With ``--journal-dir`` each game is journaled to ``game-<n>.jsonl``; an existing
journal is resumed (so a run killed mid-game continues exactly where it stopped).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.engine.registry import UnknownRules, ruleset_for
from controller.engine.simulate import BotError, SimRun, summary
from controller.journal import JournaledTable, fold
from controller.views import HandSeatings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="mcr-2006",
                        help="rulebook: mcr-1998, mcr-2006 (default), mcr-2017, sichuan-sbr-2025, riichi-hkma-2025 "
                             "(with profile options as in the table config, e.g. riichi-hkma-2025:division=B)")
    parser.add_argument("--games", type=int, default=1, help="number of sessions to play")
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same output)")
    parser.add_argument("--hands", type=int, default=None,
                        help="hands per session, at least 1 (default: the ruleset's, e.g. 16 for MCR)")
    parser.add_argument("--journal-dir", type=Path, default=None, help="journal each game here (resumes)")


def play_game(rules: str, seed: int, game: int, hands: int | None, journal_dir: Path | None) -> dict[str, object]:
    """Play (or resume) one session and return its summary line (the players of each hand named in its seating)."""
    seats = HandSeatings()
    run = SimRun(rules=rules, seed=seed, game=game, hands_total=hands, sink=lambda _ev, st, _fx: seats.observe(st))
    if journal_dir is None:
        state = run.play()
        return summary(state, game=game, seed=seed, seatings=seats.seatings)
    table = JournaledTable(journal_dir / f"game-{game}.jsonl", run.session_start())
    try:
        if table.resumed:  # the hands played before the run stopped: who sat where, from the journal
            fold(list(table.journal.events()), on_step=seats.observe)
        seats.observe(table.state)
        while True:
            ev = run.next_event(table.state)
            if ev is None:
                break
            fx = table.submit(ev)
            if fx and fx[0].type == "rejected":
                raise BotError(f"rejected {ev.to_json()}: {fx[0].to_json()}")
            seats.observe(table.state)
        return summary(table.state, game=game, seed=seed, seatings=seats.seatings)
    finally:
        table.close()


def run(args: argparse.Namespace) -> int:
    try:
        ruleset_for(args.rules)
    except (UnknownRules, ValueError) as exc:  # unknown family, profile or profile option
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 2
    if args.hands is not None and args.hands < 1:
        print(json.dumps({"error": f"--hands must be at least 1, got {args.hands}"}), file=sys.stderr)
        return 2
    if args.games < 1:
        print(json.dumps({"error": "--games must be at least 1"}), file=sys.stderr)
        return 2
    for game in range(args.games):
        line = play_game(args.rules, args.seed, game, args.hands, args.journal_dir)
        print(json.dumps(line, separators=(",", ":"), ensure_ascii=False), flush=True)
    return 0
