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
        if st.drawn is not None and st.wall:
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
        if self.seat == discarder or self.seat in st.winners or seat.dead:
            return None
        if _can_win(st, self.seat, tile, list(seat.concealed)):
            return {"type": "win", "seats": [self.seat]}
        if robbing or tile.suit == st.voids[self.seat]:
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


def play_hand(rng: random.Random, dealer: int, *, mistake_rate: float = 0.0, check: bool = True) -> HandRun:
    """Shuffle, deal and play one hand to its end with four bots."""
    wall = SICHUAN_TILESET.all_tiles()
    rng.shuffle(wall)
    run = HandRun(dealer, tuple(wall))
    bots = [Bot(s, random.Random(rng.random()), mistake_rate) for s in range(4)]
    st = new_hand(dealer, wall)
    step = _checked if check else apply
    for _ in range(2000):
        if st.phase == "over":
            break
        ev = _next_event(st, bots)
        st = step(st, ev)
        run.events.append(ev)
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

    def summary(self) -> dict[str, Any]:
        wins = sum(len(h.state.won) for h in self.hands if h.state)
        draws = sum(1 for h in self.hands if h.state and len(h.state.won) < 3)
        return {"rules": RULES, "hands": len(self.hands), "wins": wins, "exhaustive": draws,
                "scores": list(self.scores), "penalties": list(self.penalties),
                "session_points": self.session_points}


def play_session(seed: int, hands: int = 8, *, mistake_rate: float = 0.0, check: bool = True) -> SessionResult:
    """Play ``hands`` hands; the dealer follows L478-L482; 副分 are summed and ranked into 盘分 (L161)."""
    rng = random.Random(f"sichuan:{seed}")
    dealer = rng.randrange(4)
    runs: list[HandRun] = []
    scores = [0, 0, 0, 0]
    pens = [0, 0, 0, 0]
    for _ in range(hands):
        run = play_hand(rng, dealer, mistake_rate=mistake_rate, check=check)
        assert run.state is not None
        for i, x in enumerate(run.state.totals()):
            scores[i] += x
        for s, _code, pts in run.state.penalties:
            pens[s] += pts
        runs.append(run)
        dealer = next_dealer(run.state)
    net = [scores[i] - pens[i] for i in range(4)]
    return SessionResult(runs, (scores[0], scores[1], scores[2], scores[3]), (pens[0], pens[1], pens[2], pens[3]),
                         session_points(net))


def bench_ruleset(rules: str = RULES, hands: int = 200, seed: int = 0) -> dict[str, Any]:
    """Figures for bench/engine.py: hands/s and events/s of bot play (tile checks off), win/draw mix."""
    if rules != RULES:
        raise ValueError(f"this bench is for {RULES}")
    t0 = time.perf_counter()
    res = play_session(seed, hands, check=False)
    dt = time.perf_counter() - t0
    events = sum(len(h.events) for h in res.hands)
    s = res.summary()
    return {"rules": rules, "hands": hands, "seconds": round(dt, 3), "hands_per_s": round(hands / dt, 1),
            "events_per_s": round(events / dt, 1), "wins": s["wins"], "exhaustive": s["exhaustive"]}


__all__ = ["Bot", "HandRun", "SessionResult", "bench_ruleset", "hand_of", "play_hand", "play_session",
           "replay_hand", "winning_tiles"]
