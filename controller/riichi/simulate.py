"""Whole HKMA riichi half-games (East 1 - South 4) played by simple legal bots through
:mod:`controller.riichi.table`.

Deterministic from the seed; each hand keeps its wall and events so ``replay_hand`` rebuilds it (replay
equals live).  ``bench_ruleset`` gives the figures for ``bench/engine.py``.  Pure CPU; any thread.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mahjong.agari import Agari

from controller.sichuan.simulate import discard_figures
from mjtable.tiles import RIICHI_TILESET, Hand, Tile, tile_counts

from .scoring import DEFAULT_OPTIONS, NotWinningHand, RiichiOptions, RiichiSituation, score_hand
from .settlement import DIVISIONS, FinalScores, final_scores, next_hand
from .table import WINDS, HandState, IllegalEventError, apply, furiten, new_hand, seat_wind, table_tiles
from .tenpai import completing_tiles

RULES = "riichi-hkma-2025"


def _wins(st: HandState, s: int, t: Tile, *, tsumo: bool) -> bool:
    seat = st.seats[s]
    concealed = list(seat.concealed)
    if tsumo:
        concealed.remove(t)
    counts = tile_counts([*concealed, t])
    if not Agari.is_agari(counts):  # shape first: the full scorer only for complete hands
        return False
    sit = RiichiSituation(self_drawn=tsumo, seat_wind=seat_wind(st, s), round_wind=st.round_wind,
                          riichi=seat.riichi, double_riichi=seat.double_riichi)
    try:
        score_hand(Hand(tuple(concealed), seat.melds), t, sit)
    except NotWinningHand:
        return False
    return True


@dataclass
class Bot:
    """Legal, simple play: win when possible (not furiten), riichi when closed and tenpai, keep pairs and
    neighbours, pon yakuhai and sometimes other pairs, chi rarely."""

    seat: int
    rng: random.Random

    def turn(self, st: HandState) -> dict[str, Any]:
        seat = st.seats[self.seat]
        if st.drawn is not None and _wins(st, self.seat, st.drawn, tsumo=True):
            return {"type": "tsumo", "seat": self.seat}
        if seat.riichi and st.drawn is not None:
            return {"type": "discard", "seat": self.seat, "tile": st.drawn.code}
        if st.drawn is not None and st.kans < 4 and len(st.live) > 1:
            kinds = Counter(t.kind for t in seat.concealed)
            for t in seat.concealed:
                if kinds[t.kind] == 4 and self.rng.random() < 0.5:
                    return {"type": "kan", "seat": self.seat, "tile": t.code, "kind": "concealed"}
        t = self._discard(seat.concealed)
        rest = list(seat.concealed)
        rest.remove(t)
        riichi = (seat.closed and not seat.riichi and len(st.live) >= 4
                  and bool(completing_tiles(Hand(tuple(rest), seat.melds))))
        return {"type": "discard", "seat": self.seat, "tile": t.code, "riichi": riichi}

    def _discard(self, concealed: tuple[Tile, ...]) -> Tile:
        kinds = Counter(t.kind for t in concealed)

        def keep(t: Tile) -> float:
            near = 0 if t.is_honor else sum(kinds[t.kind + d] for d in (-2, -1, 1, 2)
                                            if 0 <= t.kind + d < 27 and (t.kind + d) // 9 == t.kind // 9)
            return 3 * (kinds[t.kind] - 1) + near + (0.5 if t.red else 0) + self.rng.random() * 0.5

        return min(concealed, key=keep)

    def call(self, st: HandState, d: int, t: Tile, robbing: bool) -> dict[str, Any] | None:
        s = self.seat
        seat = st.seats[s]
        if s == d:
            return None
        if _wins(st, s, t, tsumo=False) and not furiten(st, s):
            return {"type": "ron", "seats": [s]}
        if robbing or seat.riichi or not st.live:
            return None
        same = [x for x in seat.concealed if x.kind == t.kind]
        valued = t.kind >= 31 or t == seat_wind(st, s) or t == st.round_wind
        if len(same) >= 2 and (valued or self.rng.random() < 0.15):
            return {"type": "pon", "seat": s}
        if s == (d + 1) % 4 and t.is_suited and self.rng.random() < 0.05:
            for a, b in ((-2, -1), (-1, 1), (1, 2)):
                ka, kb = t.kind + a, t.kind + b
                if ka >= 0 and kb < 27 and ka // 9 == t.kind // 9 == kb // 9:
                    ta = next((x for x in seat.concealed if x.kind == ka), None)
                    tb = next((x for x in seat.concealed if x.kind == kb), None)
                    if ta and tb:
                        return {"type": "chi", "seat": s, "tiles": [ta.code, tb.code]}
        return None


@dataclass
class HandRun:
    """A played hand: how it started, its events and its end state."""

    dealer: int
    round_wind: Tile
    honba: int
    sticks: int
    wall: tuple[Tile, ...]
    events: list[dict[str, Any]] = field(default_factory=list)
    state: HandState | None = None


def _next_event(st: HandState, bots: list[Bot]) -> dict[str, Any]:
    if st.phase == "draw":
        return {"type": "draw", "seat": st.turn}
    if st.phase == "turn":
        return bots[st.turn].turn(st)
    src = st.added if st.phase == "rob" else st.last_discard
    if src is None:
        raise IllegalEventError(f"no event in phase {st.phase}")
    d, t = src
    calls = [c for k in range(1, 4) if (c := bots[(d + k) % 4].call(st, d, t, st.phase == "rob")) is not None]
    rons = [c["seats"][0] for c in calls if c["type"] == "ron"]
    if rons:
        return {"type": "ron", "seats": rons}
    for kind in ("pon", "chi"):  # pon beats chi (L414)
        for c in calls:
            if c["type"] == kind:
                return c
    return {"type": "pass"}


def play_hand(rng: random.Random, dealer: int, round_wind: Tile, honba: int, sticks: int,
              *, check: bool = True, timings: list[float] | None = None) -> HandRun:
    """Shuffle, deal and play one hand; ``timings`` as in :func:`controller.sichuan.simulate.play_hand`."""
    wall = RIICHI_TILESET.all_tiles()
    rng.shuffle(wall)
    run = HandRun(dealer, round_wind, honba, sticks, tuple(wall))
    bots = [Bot(s, random.Random(rng.random())) for s in range(4)]
    st = new_hand(dealer, wall, round_wind=round_wind, honba=honba, sticks=sticks)
    pending: dict[str, Any] | None = None
    for _ in range(2000):
        if st.phase == "over":
            break
        t0 = time.thread_time()
        ev = pending or _next_event(st, bots)
        pending = None
        st = apply(st, ev)
        run.events.append(ev)
        if timings is not None and ev["type"] == "discard" and st.phase != "over":
            pending = _next_event(st, bots)
            timings.append(time.thread_time() - t0)
        if check and sorted(table_tiles(st)) != sorted(RIICHI_TILESET.all_tiles()):
            raise AssertionError(f"tiles not conserved after {ev}")
    else:  # pragma: no cover
        raise RuntimeError("hand did not finish")
    run.state = st
    return run


def replay_hand(run: HandRun) -> HandState:
    st = new_hand(run.dealer, run.wall, round_wind=run.round_wind, honba=run.honba, sticks=run.sticks)
    for ev in run.events:
        st = apply(st, ev)
    return st


@dataclass
class HalfGame:
    hands: list[HandRun]
    points: tuple[int, int, int, int]
    leftover_sticks: int
    final: FinalScores

    def summary(self) -> dict[str, Any]:
        wins = sum(1 for h in self.hands if h.state and h.state.winner is not None)
        return {"rules": RULES, "hands": len(self.hands), "wins": wins, "draws": len(self.hands) - wins,
                "points": list(self.points), "leftover_sticks": self.leftover_sticks, **self.final.to_json()}


def play_half_game(seed: int, *, options: RiichiOptions = DEFAULT_OPTIONS, check: bool = True,
                   max_hands: int = 40, timings: list[float] | None = None) -> HalfGame:
    """East 1 to South 4 with renchan and honba (L13, L26, L440, L450); final scores with uma (L19)."""
    rng = random.Random(f"riichi:{seed}")
    start, _ = DIVISIONS[options.division]
    points = [start] * 4
    dealer, round_no, in_round, honba, sticks = 0, 0, 0, 0, 0
    runs: list[HandRun] = []
    for _ in range(max_hands):
        run = play_hand(rng, dealer, WINDS[round_no], honba, sticks, check=check, timings=timings)
        st = run.state
        assert st is not None
        for i, x in enumerate(st.totals()):
            points[i] += x
        sticks = st.sticks
        runs.append(run)
        dealer_tenpai = bool(st.tenpai and st.tenpai[dealer])
        nxt = next_hand(dealer=dealer, round_no=round_no, hand_in_round=in_round, honba=honba,
                        dealer_won=st.winner == dealer, non_dealer_won=st.winner not in (None, dealer),
                        dealer_tenpai=dealer_tenpai)
        if nxt.finished:
            break
        dealer, round_no, in_round, honba = nxt.dealer, nxt.round_no, nxt.hand_in_round, nxt.honba
    fin = final_scores(points, sticks, options)
    return HalfGame(runs, (points[0], points[1], points[2], points[3]), sticks, fin)


def bench_ruleset(rules: str = RULES, games: int = 3, seed: int = 0) -> dict[str, Any]:
    """Figures for bench/engine.py: hands/s and events/s of bot play (tile checks off)."""
    if rules != RULES:
        raise ValueError(f"this bench is for {RULES}")
    t0 = time.perf_counter()
    hands = events = wins = 0
    timings: list[float] = []
    for g in range(games):
        hg = play_half_game(seed * 1000 + g, check=False, timings=timings)
        hands += len(hg.hands)
        events += sum(len(h.events) for h in hg.hands)
        wins += hg.summary()["wins"]
    dt = time.perf_counter() - t0
    return {"rules": rules, "games": games, "hands": hands, "seconds": round(dt, 3),
            "hands_per_s": round(hands / dt, 1), "events_per_s": round(events / dt, 1), "wins": wins,
            **discard_figures(timings)}


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.riichi.simulate [--seed N] [--games N] [--division A|B] [--bench]``: one JSON line
    per half-game (the full HKMA procedure: riichi, dora, furiten, head bump, honba, noten, uma)."""
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m controller.riichi.simulate", description=main.__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--division", choices=("A", "B"), default="A")
    ap.add_argument("--bench", action="store_true", help="print the bench figures instead")
    args = ap.parse_args(argv)
    if args.bench:
        print(json.dumps(bench_ruleset(RULES, games=args.games, seed=args.seed)))
        return 0
    options = RiichiOptions(division=args.division)
    for g in range(args.games):
        hg = play_half_game(args.seed * 1000 + g, options=options)
        print(json.dumps({"game": g, "seed": args.seed, **hg.summary()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
