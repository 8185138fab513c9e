"""Whole Sichuan SBR 2025 sessions played by simple legal bots through :mod:`controller.sichuan.table`.

Deterministic: one ``random.Random(seed)`` shuffles the walls and drives the bots.  Every hand keeps its event
list, so ``replay_hand`` can rebuild it and compare (replay equals live).  ``bench_ruleset`` times it for
``bench/engine.py``.  Pure CPU work; call from any thread.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mjtable.tiles import SICHUAN_TILESET, Tile

from .fans import NotWinningHand, WinSituation, score_win, winning_tiles
from .settlement import session_points
from .table import HandState, IllegalEventError, apply, new_hand, next_dealer, table_tiles
from .tiles_state import hand_of

RULES = "sichuan-sbr-2025"


@dataclass
class Bot:
    """Simple legal play: void the shortest suit, discard it first, keep pairs and neighbours, win when able.

    ``mistake_rate`` (0..1) makes it sometimes discard another suit while holding the void (主动花猪), so the
    penalty path is exercised.
    """

    seat: int
    rng: random.Random
    mistake_rate: float = 0.0

    def void(self, st: HandState) -> dict[str, Any]:
        counts = Counter(t.suit for t in st.seats[self.seat].concealed)
        suit = min("mps", key=lambda x: (counts.get(x, 0), self.rng.random()))
        return {"type": "void", "seat": self.seat, "suit": suit}

    def turn(self, st: HandState) -> dict[str, Any]:
        seat = st.seats[self.seat]
        void = st.voids[self.seat]
        if st.drawn is not None and not seat.dead:
            rest = list(seat.concealed)
            rest.remove(st.drawn)
            if _can_win(st, self.seat, st.drawn, rest):
                return {"type": "tsumo", "seat": self.seat}
        if st.drawn is not None and st.wall and not seat.dead:  # 停和陪打: no kongs (L654, kept simple)
            kinds = Counter(t.kind for t in seat.concealed)
            for t in seat.concealed:
                if t.suit != void and kinds[t.kind] == 4 and self.rng.random() < 0.8:
                    return {"type": "kong", "seat": self.seat, "tile": t.code, "kind": "concealed"}
                if t.suit != void and seat.has_pung(t) and self.rng.random() < 0.8:
                    return {"type": "kong", "seat": self.seat, "tile": t.code, "kind": "promoted"}
        return {"type": "discard", "seat": self.seat, "tile": self._discard(st).code}

    def _discard(self, st: HandState) -> Tile:
        seat = st.seats[self.seat]
        void = st.voids[self.seat]
        voids = [t for t in seat.concealed if t.suit == void]
        if voids and self.rng.random() >= self.mistake_rate:
            return voids[0]
        kinds = Counter(t.kind for t in seat.concealed)

        def keep(t: Tile) -> float:
            near = sum(kinds[t.kind + d] for d in (-2, -1, 1, 2)
                       if 0 <= t.kind + d < 27 and (t.kind + d) // 9 == t.kind // 9)
            return 3 * (kinds[t.kind] - 1) + near + self.rng.random() * 0.5

        others = [t for t in seat.concealed if t.suit != void] or list(seat.concealed)
        return min(others, key=keep)

    def claim(self, st: HandState, tile: Tile, discarder: int, robbing: bool) -> dict[str, Any] | None:
        seat = st.seats[self.seat]
        if self.seat == discarder or self.seat in st.winners:
            return None
        if not seat.dead and _can_win(st, self.seat, tile, list(seat.concealed)):
            return {"type": "win", "seats": [self.seat]}
        if robbing or tile.suit == st.voids[self.seat] or seat.dead:
            return None
        same = sum(1 for t in seat.concealed if t.kind == tile.kind)
        if same == 3 and st.wall and self.rng.random() < 0.7:
            return {"type": "kong", "seat": self.seat, "tile": tile.code, "kind": "called"}
        if same >= 2 and self.rng.random() < 0.6:
            return {"type": "pung", "seat": self.seat}
        return None


def _can_win(st: HandState, s: int, t: Tile, concealed: list[Tile]) -> bool:
    from mjtable.tiles import Hand

    hand = Hand(tuple(concealed), st.seats[s].melds)
    try:
        score_win(hand, t, WinSituation(self_drawn=False), void_suit=st.voids[s])
    except (NotWinningHand, ValueError):
        return False
    return True


@dataclass
class HandRun:
    """A played hand: the wall it started from, its events and the final state."""

    dealer: int
    wall: tuple[Tile, ...]
    events: list[dict[str, Any]] = field(default_factory=list)
    state: HandState | None = None


def _checked(st: HandState, ev: dict[str, Any]) -> HandState:
    out = apply(st, ev)
    if sorted(table_tiles(out)) != sorted(SICHUAN_TILESET.all_tiles()):
        raise AssertionError(f"tiles not conserved after {ev}")
    return out


def play_hand(rng: random.Random, dealer: int, *, mistake_rate: float = 0.0, check: bool = True,
              timings: list[float] | None = None) -> HandRun:
    """Shuffle, deal and play one hand to its end with four bots.

    ``timings`` collects, per discard, the CPU seconds of this thread (``time.thread_time``, so time the
    scheduler gives to other processes on a busy machine is not counted) to apply it plus to work out the
    other players' calls (win check with fan, pong, kong): the figure bench/engine.py reports."""
    wall = SICHUAN_TILESET.all_tiles()
    rng.shuffle(wall)
    run = HandRun(dealer, tuple(wall))
    bots = [Bot(s, random.Random(rng.random()), mistake_rate) for s in range(4)]
    st = new_hand(dealer, wall)
    step = _checked if check else apply
    pending: dict[str, Any] | None = None
    for _ in range(2000):
        if st.phase == "over":
            break
        t0 = time.thread_time()
        ev = pending or _next_event(st, bots)
        pending = None
        st = step(st, ev)
        run.events.append(ev)
        if timings is not None and ev["type"] == "discard" and st.phase != "over":
            pending = _next_event(st, bots)
            timings.append(time.thread_time() - t0)
    else:  # pragma: no cover - a bot loop would be a bug
        raise RuntimeError("hand did not finish")
    run.state = st
    return run


def _next_event(st: HandState, bots: list[Bot]) -> dict[str, Any]:
    if st.phase == "void":
        return bots[next(s for s in range(4) if st.voids[s] is None)].void(st)
    if st.phase == "draw":
        return {"type": "draw", "seat": st.turn}
    if st.phase == "turn":
        return bots[st.turn].turn(st)
    if st.phase in ("claim", "rob"):
        src = st.promoted if st.phase == "rob" else st.last_discard
        assert src is not None
        d, t = src
        calls = [c for s in range(4) if (c := bots[s].claim(st, t, d, st.phase == "rob")) is not None]
        wins = [c["seats"][0] for c in calls if c["type"] == "win"]
        if wins:  # 和 beats 碰/杠; every winner wins (L470, L476)
            return {"type": "win", "seats": wins}
        if calls:
            return calls[0]
        return {"type": "pass"}
    raise IllegalEventError(f"no event in phase {st.phase}")


def replay_hand(run: HandRun) -> HandState:
    """Rebuild a hand from its wall and events (the journal path)."""
    st = new_hand(run.dealer, run.wall)
    for ev in run.events:
        st = apply(st, ev)
    return st


@dataclass
class SessionResult:
    """A session (盘): per-hand totals, 副分 per seat, penalties, 盘分."""

    hands: list[HandRun]
    scores: tuple[int, int, int, int]
    penalties: tuple[int, int, int, int]
    session_points: list[float]
    elapsed_s: float = 0.0

    def summary(self) -> dict[str, Any]:
        wins = sum(len(h.state.won) for h in self.hands if h.state)
        draws = sum(1 for h in self.hands if h.state and len(h.state.won) < 3)
        return {"rules": RULES, "hands": len(self.hands), "wins": wins, "exhaustive": draws,
                "scores": list(self.scores), "penalties": list(self.penalties),
                "session_points": self.session_points, "elapsed_s": self.elapsed_s}


def play_session(seed: int, hands: int = 8, *, mistake_rate: float = 0.0, check: bool = True,
                 timings: list[float] | None = None, session_s: float | None = None,
                 seconds_per_event: float = 2.0) -> SessionResult:
    """Play a 盘 of ``hands`` hands, or until ``session_s`` (35-80 min, L290) of simulated time has passed, the
    running hand being finished first; the dealer follows L478-L482; 副分 are ranked into 盘分 (L161).

    Simulated time advances ``seconds_per_event`` per event (no real clock)."""
    if session_s is not None and not 35 * 60 <= session_s <= 80 * 60:
        raise ValueError("a Sichuan session lasts 35-80 minutes (L290)")
    rng = random.Random(f"sichuan:{seed}")
    dealer = rng.randrange(4)
    runs: list[HandRun] = []
    scores = [0, 0, 0, 0]
    pens = [0, 0, 0, 0]
    elapsed_s = 0.0
    limit = hands if session_s is None else 10_000
    while len(runs) < limit and (session_s is None or elapsed_s < session_s):
        run = play_hand(rng, dealer, mistake_rate=mistake_rate, check=check, timings=timings)
        assert run.state is not None
        elapsed_s += seconds_per_event * len(run.events)
        for i, x in enumerate(run.state.totals()):
            scores[i] += x
        for s, _code, pts in run.state.penalties:
            pens[s] += pts
        runs.append(run)
        dealer = next_dealer(run.state)
    net = [scores[i] - pens[i] for i in range(4)]
    return SessionResult(runs, (scores[0], scores[1], scores[2], scores[3]), (pens[0], pens[1], pens[2], pens[3]),
                         session_points(net), elapsed_s)


def bench_ruleset(rules: str = RULES, hands: int = 200, seed: int = 0) -> dict[str, Any]:
    """Figures for bench/engine.py: hands/s and events/s of bot play (tile checks off), win/draw mix."""
    if rules != RULES:
        raise ValueError(f"this bench is for {RULES}")
    timings: list[float] = []
    t0 = time.perf_counter()
    res = play_session(seed, hands, check=False, timings=timings)
    dt = time.perf_counter() - t0
    events = sum(len(h.events) for h in res.hands)
    s = res.summary()
    return {"rules": rules, "hands": hands, "seconds": round(dt, 3), "hands_per_s": round(hands / dt, 1),
            "events_per_s": round(events / dt, 1), "wins": s["wins"], "exhaustive": s["exhaustive"],
            **discard_figures(timings)}


def discard_figures(timings: list[float]) -> dict[str, Any]:
    """p50/p99 of the per-discard step in CPU ms against the engine issue's anchor (p99 under 1 ms)."""
    ms = sorted(x * 1000.0 for x in timings)
    if not ms:
        return {"discards": 0}

    def pct(q: float) -> float:
        return round(ms[min(len(ms) - 1, round(q * (len(ms) - 1)))], 4)

    return {"discards": len(ms), "clock": "thread_cpu", "discard_ms_p50": pct(0.5), "discard_ms_p99": pct(0.99),
            "anchor_p99_ms": 1.0, "meets_anchor": pct(0.99) < 1.0}


__all__ = ["Bot", "HandRun", "SessionResult", "bench_ruleset", "hand_of", "play_hand", "play_session",
           "replay_hand", "winning_tiles"]


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.sichuan.simulate [--seed N] [--games N] [--hands N] [--bench]``: one JSON line per
    session (the full SBR procedure: 定缺, bloody battle, kong money, 查花猪/查大叫)."""
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m controller.sichuan.simulate", description=main.__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--minutes", type=float, default=None, help="session by time (35-80 min) instead of hands")
    ap.add_argument("--mistake-rate", type=float, default=0.0, help="bots' chance of an active-pig discard")
    ap.add_argument("--bench", action="store_true", help="print the bench figures instead")
    args = ap.parse_args(argv)
    if args.bench:
        print(json.dumps(bench_ruleset(RULES, hands=args.hands, seed=args.seed)))
        return 0
    for g in range(args.games):
        res = play_session(args.seed * 1000 + g, args.hands, mistake_rate=args.mistake_rate,
                           session_s=None if args.minutes is None else args.minutes * 60)
        print(json.dumps({"game": g, "seed": args.seed, **res.summary()}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
