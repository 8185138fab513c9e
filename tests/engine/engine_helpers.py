"""Test helpers: stacked walls that deal chosen hands, and a table driver with automatic ids and times."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.engine.effects import Effect, Rejected
from controller.engine.events import SessionStart, event_from_json
from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from controller.engine.step import start_session, step
from controller.journal import JournaledTable
from mjtable.tiles import MCR_TILESET, Tile, parse_tiles

T0 = 1_767_225_600.0
DICE = ((1, 1), (1, 1))  # dealer 0 throws 2 -> seat 1 throws; break after 4 stacks


def stacked_wall(hands: dict[int, str], draws: str = "", back: str = "", dealer: int = 0,
                 dice: tuple[tuple[int, int], ...] = DICE) -> tuple[str, ...]:
    """Physical wall codes so that the deal gives ``hands`` (13 each, the dealer 14; missing seats get filler),
    then the front draws come in ``draws`` order and replacements in ``back`` order."""
    pool = MCR_TILESET.all_tiles()

    def take(codes: str) -> list[Tile]:
        out = []
        for t in parse_tiles(codes):
            for i, p in enumerate(pool):
                if p.kind == t.kind and p.red == t.red:
                    out.append(pool.pop(i))
                    break
            else:
                raise ValueError(f"no copy of {t.code} left")
        return out

    dealt = {s: take(hands.get(s, "")) for s in range(4)}
    front = take(draws)
    backs = take(back)
    rest = [t for t in pool if not t.is_flower] + [t for t in pool if t.is_flower]

    def fill(n: int, have: list[Tile]) -> list[Tile]:
        while len(have) < n:
            have.append(rest.pop(0))
        return have

    for s in range(4):
        fill(14 if s == dealer else 13, dealt[s])
    order = [(dealer + i) % 4 for i in range(4)]
    linear: list[Tile | None] = [None] * 144
    pos = 0
    for r in range(3):
        for s in order:
            for k in range(4):
                linear[pos] = dealt[s][r * 4 + k]
                pos += 1
    linear[48] = dealt[order[0]][12]
    linear[49] = dealt[order[1]][12]
    linear[50] = dealt[order[2]][12]
    linear[51] = dealt[order[3]][12]
    linear[52] = dealt[order[0]][13]
    for i, t in enumerate(front):
        linear[53 + i] = t
    # replacements: last stack top, bottom, then the stack before
    back_positions = [142, 143, 140, 141, 138, 139, 136, 137]
    for i, t in enumerate(backs):
        linear[back_positions[i]] = t
    free = sorted((i for i, t in enumerate(linear) if t is None), key=lambda i: abs(i - 95))
    flowers = [t for t in rest if t.is_flower]
    plain = [t for t in rest if not t.is_flower]
    for i in free:  # flowers sit mid-wall, away from the chosen draws and replacements
        linear[i] = flowers.pop(0) if flowers else plain.pop(0)
    # invert linear_wall: physical stack g holds linear stack (g - first) mod 72
    second_seat = (dealer + sum(dice[0]) - 1) % 4
    total = sum(dice[0]) + sum(dice[1])
    first = (((-second_seat) % 4) * 18 + total) % 72
    physical: list[Tile | None] = [None] * 144
    for i in range(72):
        g = (first + i) % 72
        physical[2 * g] = linear[2 * i]
        physical[2 * g + 1] = linear[2 * i + 1]
    return tuple(t.code for t in physical if t is not None)


@dataclass
class Table:
    """Drive the engine by hand: ``send("discard", seat=0, tile="5p")`` returns the effects."""

    rules: str = "mcr-2006"
    mode: str = "full"
    options: dict[str, Any] = field(default_factory=dict)
    now_s: float = T0
    n: int = 0
    state: GameState = field(init=False)
    last_fx: tuple[Effect, ...] = ()

    def __post_init__(self) -> None:
        ev = SessionStart(id="start", at_s=self.now_s, rules=self.rules, mode=self.mode, **self.options)
        self.state, self.last_fx = start_session(ev)

    def send(self, etype: str, /, *, dt_s: float = 0.5, **fields: Any) -> tuple[Effect, ...]:
        self.n += 1
        self.now_s += dt_s
        obj = {"type": etype, "id": f"e{self.n}", "at_s": self.now_s, **fields}
        self.state, self.last_fx = step(self.state, event_from_json(obj))
        return self.last_fx

    def ok(self, etype: str, /, **fields: Any) -> tuple[Effect, ...]:
        fx = self.send(etype, **fields)
        assert not (fx and isinstance(fx[0], Rejected)), fx
        return fx

    def rejected(self, etype: str, /, **fields: Any) -> Rejected:
        before = self.state
        fx = self.send(etype, **fields)
        assert fx and isinstance(fx[0], Rejected), fx
        assert self.state is before
        return fx[0]

    def deal(self, hands: dict[int, str], draws: str = "", back: str = "") -> None:
        """Build, roll and deal; flowers are not in the chosen hands unless asked for."""
        self.ok("table_built", tiles=list(stacked_wall(hands, draws, back, dealer=self.state.session.dealer)),
                dice=[list(d) for d in DICE])

    def seat(self, s: int) -> Any:
        assert self.state.hand is not None
        return self.state.hand.seats[s]

    def concealed(self, s: int) -> str:
        from mjtable.tiles import format_tiles

        return format_tiles(self.seat(s).known)


def pass_all(t: Table) -> None:
    """Every seat still able to act in the open window passes."""
    hand = t.state.hand
    while hand is not None and hand.claim is not None:
        w = hand.claim
        left = sorted(w.eligible - w.passed - {c.seat for c in w.calls})
        if not left:
            break
        t.ok("button", seat=left[0], button="pass")
        hand = t.state.hand


def discard_the_draws(t: Table, seats: tuple[int, ...]) -> None:
    """Each of ``seats`` in turn discards the tile it has just drawn, and everyone passes on it."""
    for seat in seats:
        hand = t.state.hand
        assert hand is not None and hand.turn == seat and hand.drawn is not None
        t.ok("discard", seat=seat, tile=hand.drawn.code)
        pass_all(t)


def promote_the_fourth_7z(t: Table, seat3: str, back: str = "") -> None:
    """The promoted-kong scenario: seat 1 pungs the dealer's 7z, later draws the fourth 7z and adds it (加杠);
    ``seat3`` is seat 3's dealt hand (the robber's, or not).  Ends right after the ``promoted_kong``."""
    hands = {
        0: "7z2m2m3m3m4p4p5s5s6s8m8m2z3m",
        1: "7z7z9p2s2s3s6m6m7m8s8s2p3p",
        2: "456m7p7p8p2s3s4s6p6p5m5p",
        3: seat3,
    }
    t.deal(hands, draws="1s2m4m7z", back=back)
    t.ok("discard", seat=0, tile="7z")
    t.ok("claim", seat=1, kind="pung")
    pass_all(t)
    t.ok("discard", seat=1, tile="9p")
    pass_all(t)
    discard_the_draws(t, (2, 3, 0))
    hand = t.state.hand
    assert hand is not None and hand.drawn is not None and hand.drawn.code == "7z"
    t.ok("promoted_kong", seat=1, tile="7z")


# Scenario hands (checked for copy counts by hand; see tests for which tile each waits on).
PRIORITY_HANDS = {
    0: "5p1m1m2m2m7m7m9m3z3z4z4z6z7z",   # dealer discards 5p
    1: "34p345m8m1s1s2z2z6z7z9m",          # 下家: chow 345p
    2: "55p6m6m8m2s2s3s5z5z6z7z9p",        # 对家: pung 5p
    3: "123456789s46p11z",                 # 上家: waits 5p (Pure Straight)
}
TWO_WINNERS_HANDS = {
    0: "5p1s1s2s2s7s7s9s3z3z4z4z6z7z",
    1: "123456789m46p22z",                 # waits 5p
    2: "345m8m8s3s5s5z5z6z7z9p1p",
    3: "123456789s46p11z",                 # waits 5p too
}


def play_into_journal(path: Path, run: SimRun, stop_after: int | None = None) -> GameState:
    """Feed ``run``'s events (all, or the first ``stop_after``) into a journal at ``path``; the final state."""
    table = JournaledTable(path, run.session_start())
    try:
        n = 0
        while stop_after is None or n < stop_after:
            ev = run.next_event(table.state)
            if ev is None:
                break
            table.submit(ev)
            n += 1
        return table.state
    finally:
        table.close()
