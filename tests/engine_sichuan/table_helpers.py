"""Shared helpers for the Sichuan and riichi live-engine tests (``controller/engine/ext_*.py``): stacked walls for any
tile set, a table driver with automatic ids and times, tile counting for the conservation property."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from controller.engine.effects import Effect, Rejected
from controller.engine.events import SessionStart, event_from_json
from controller.engine.ext_sichuan import sichuan_live_wall
from controller.engine.procedure import linear_wall
from controller.engine.registry import ruleset_for
from controller.engine.state import GameState, Phase
from controller.engine.step import start_session, step
from controller.sichuan.ruleset import SichuanRuleset
from mjtable.tiles import Tile, parse_tiles

T0 = 1_767_225_600.0
DICE = ((1, 1), (1, 1))  # dealer 0 throws 2 -> seat 1 throws; break after 4 stacks


def stacked_wall(rules: str, hands: dict[int, str], draws: str = "", dead: str = "", *, dealer: int = 0,
                 dice: tuple[tuple[int, int], ...] = DICE) -> tuple[str, ...]:
    """Physical wall codes so that the deal gives ``hands`` (13 each, the dealer 14; missing tiles are
    filler), the front draws come in ``draws`` order and the last ``len(dead)`` tiles of the wall in draw
    order are ``dead`` (riichi: the 14-tile dead wall, indicator at ``dead[4]``)."""
    ruleset = ruleset_for(rules)
    size = ruleset.tileset.total
    pool = ruleset.tileset.all_tiles()

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
    tail = take(dead)
    rest = list(pool)

    for s in range(4):
        while len(dealt[s]) < (14 if s == dealer else 13):
            dealt[s].append(rest.pop(0))
    order = [(dealer + i) % 4 for i in range(4)]
    linear: list[Tile | None] = [None] * size
    pos = 0
    for r in range(3):
        for s in order:
            for k in range(4):
                linear[pos] = dealt[s][r * 4 + k]
                pos += 1
    for i in range(4):
        linear[48 + i] = dealt[order[i]][12]
    linear[52] = dealt[order[0]][13]
    for i, t in enumerate(front):
        linear[53 + i] = t
    for i, t in enumerate(tail):
        linear[size - len(tail) + i] = t
    for i in range(size):
        if linear[i] is None:
            linear[i] = rest.pop(0)
    if rules.startswith("sichuan"):  # one throw, 14/13-stack sides (L310-L332)
        where: tuple[int, ...] = sichuan_live_wall(cast(SichuanRuleset, ruleset), tuple(range(size)), dealer,
                                                   dice[0])
    else:
        second = ruleset.dice_to_seat(dealer, sum(dice[0]))
        where = cast(tuple[int, ...], linear_wall(cast(tuple[Tile, ...], tuple(range(size))), second,
                                                  sum(dice[0]) + sum(dice[1])))
    physical: list[str] = [""] * size
    for i, p in enumerate(where):
        got = linear[i]
        assert got is not None
        physical[p] = got.code
    return tuple(physical)


@dataclass
class Table:
    """Drives the engine with JSON-like events; ``fx`` holds the last step's effects."""

    rules: str
    mode: str = "full"
    state: GameState = field(init=False)
    fx: tuple[Effect, ...] = ()
    n: int = 1
    events: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state, self.fx = start_session(SessionStart(id="e1", at_s=T0, rules=self.rules, mode=self.mode,
                                                         fast_claims=False))

    def send(self, obj: dict[str, Any]) -> tuple[Effect, ...]:
        """Step one event (id and at_s filled in); returns its effects."""
        self.n += 1
        full = {"id": f"e{self.n}", "at_s": T0 + self.n * 0.01, **obj}  # well inside every time limit
        self.state, self.fx = step(self.state, event_from_json(full))
        if not (self.fx and isinstance(self.fx[0], Rejected)):
            self.events.append(full)
        return self.fx

    def ok(self, obj: dict[str, Any]) -> tuple[Effect, ...]:
        fx = self.send(obj)
        assert not (fx and isinstance(fx[0], Rejected)), fx
        return fx

    def rejected(self, obj: dict[str, Any]) -> Rejected:
        fx = self.send(obj)
        assert fx and isinstance(fx[0], Rejected), fx
        return fx[0]

    def phase(self) -> Phase:
        """The table's phase now (a method, so that type checkers do not keep an earlier narrowing)."""
        return self.state.phase

    def build(self, tiles: tuple[str, ...], dice: tuple[tuple[int, int], ...] = DICE) -> None:
        self.ok({"type": "table_built", "tiles": list(tiles), "dice": [list(d) for d in dice]})

    def pass_all(self) -> None:
        """Every seat that may still act in the open claim window passes."""
        hand = self.state.hand
        assert hand is not None and hand.claim is not None
        w = hand.claim
        for s in sorted(w.eligible - w.passed - {c.seat for c in w.calls}):
            if self.state.phase in (Phase.CLAIMS, Phase.ROB_KONG):
                self.ok({"type": "button", "seat": s, "button": "pass"})


def tiles_on_table(state: GameState, total: int, dead_wall: int, won_discards: int = 0) -> int:
    """Every physical tile the engine accounts for during a hand: wall (live + dead), concealed, melds,
    uncalled discards, the tile open to robbing, plus ``won_discards``: tiles won on a discard (or robbed)
    earlier in a bloody-battle hand, which the engine keeps only in ``hand.wins`` (see :class:`TileCounter`)."""
    hand = state.hand
    if hand is None:
        return total
    n = hand.wall_remaining + dead_wall + won_discards
    if state.phase is Phase.ROB_KONG and hand.promoted is not None:
        n += 1
    for seat in hand.seats:
        n += len(seat.known) + seat.unknown + sum(len(m.tiles) for m in seat.melds)
        n += sum(1 for p in seat.pond if not p.called)
    return n


@dataclass
class TileCounter:
    """Follows a session step by step and checks tile conservation after every event: each step in which
    bloody-battle wins on a discard were added took one physical tile (several winners share it)."""

    total: int
    dead_wall: int
    hand_no: int = -1
    wins: int = 0
    won_discards: int = 0

    def check(self, state: GameState) -> None:
        hand = state.hand
        if hand is None:
            return
        if hand.hand_no != self.hand_no:
            self.hand_no, self.wins, self.won_discards = hand.hand_no, 0, 0
        new = hand.wins[self.wins:]
        if any(not r.self_drawn for r in new):
            self.won_discards += 1
        self.wins = len(hand.wins)
        if hand.result is None and hand.seats[0].known:
            assert tiles_on_table(state, self.total, self.dead_wall, self.won_discards) == self.total
