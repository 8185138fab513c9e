"""Legal, seeded bots that try to win: greedy shanten-reducing discards, claims that help, wins of 8+ points.

A bot sees only what its player could see: its own concealed tiles and the public table.  ``decide`` is pure
given the bot's ``random.Random``; the simulator calls it from one thread.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from controller.engine.claims import chow_options
from controller.engine.events import Event, event_from_json
from controller.engine.ext import Action, ext_of
from controller.engine.query import ruleset_of, scoring_hand
from controller.engine.ruleset import ClaimKind
from controller.engine.shanten import is_complete, maybe_knitted, shanten
from controller.engine.state import GameState, Phase, SeatState
from controller.engine.wins import situation
from mjtable.tiles import MeldKind, Tile, tile_counts


def _counts(tiles: tuple[Tile, ...] | list[Tile]) -> list[int]:
    return tile_counts(tiles)


def _isolation(t: Tile, counts: list[int]) -> int:
    """Lower = more useless: honours and terminals with no neighbours go first."""
    if t.is_honor:
        return counts[t.kind] * 3
    base = t.kind - t.kind % 9
    near = sum(counts[k] for k in range(max(base, t.kind - 2), min(base + 9, t.kind + 3)) if k != t.kind)
    edge = 0 if t.is_terminal else 1
    return counts[t.kind] * 3 + near + edge


class Bot:
    """One seat's player.  ``rng`` breaks ties so games differ by seed."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng

    def best_discard(self, s: SeatState) -> Tile:
        tiles = s.known
        counts = _counts(tiles)
        melds = len(s.melds)
        best: list[tuple[int, int, float, Tile]] = []
        for t in sorted(set(tiles), key=lambda x: (x.kind, x.red)):
            if t.is_flower:
                return t
            counts[t.kind] -= 1
            sh = shanten(counts, melds)
            counts[t.kind] += 1
            best.append((sh, _isolation(t, counts), self.rng.random(), t))
        best.sort(key=lambda x: (x[0], x[1], x[2]))
        return best[0][3]

    def decide(self, state: GameState) -> Action | None:
        """The bot's action now, or None if it has nothing to do."""
        # the rules extension (ext.py) may adjust it (Sichuan 定缺 and void-first discards, riichi declarations)
        return ext_of(state).bot_action(self, state, self._generic(state))

    def _generic(self, state: GameState) -> Action | None:
        """The generic (MCR-minded) decision."""
        hand = state.hand
        if hand is None or state.paused:
            return None
        s = hand.seats[self.seat]
        if state.phase is Phase.FLOWERS and hand.flower_seat == self.seat:
            fl = next((t for t in s.known if t.is_flower), None)
            if fl is not None:
                return Action("flower", (("tile", fl.code),))
            return Action("button", (("button", "ready"),))
        if not s.fully_known:  # a bot plays from its own tiles: it cannot act for a seat nobody has seen
            return None
        if state.phase is Phase.TURN and hand.turn == self.seat:
            return self._turn(state, s)
        if state.phase in (Phase.CLAIMS, Phase.ROB_KONG) and hand.claim is not None:
            w = hand.claim
            if self.seat not in w.eligible or self.seat in w.passed or any(c.seat == self.seat for c in w.calls):
                return None
            return self._claim(state, s)
        return None

    def _turn(self, state: GameState, s: SeatState) -> Action:
        hand = state.hand
        assert hand is not None
        fl = next((t for t in s.known if t.is_flower), None)
        if fl is not None and hand.wall_remaining > 0:
            return Action("flower", (("tile", fl.code),))
        counts = _counts(s.known)
        if hand.drew and is_complete(counts, len(s.melds)) and s.dead is None:
            win = hand.drawn if hand.drawn is not None else s.known[-1]
            rest = list(s.known)
            rest.remove(win)
            check = ruleset_of(state).check_win(scoring_hand(hand, self.seat, tuple(rest)),
                                                situation(state, self.seat, win, self_drawn=True, discarder=None))
            if check.ok:
                return Action("declare_win", ())
        if hand.drew and hand.wall_remaining > 0:
            before = shanten(counts, len(s.melds))
            for k, c in enumerate(counts):
                if c == 4:
                    counts[k] = 0
                    if shanten(counts, len(s.melds) + 1) <= before:
                        return Action("concealed_kong", (("tile", Tile(k).code),))
                    counts[k] = 4
            for m in s.melds:
                if m.kind is MeldKind.PUNG and counts[m.tiles[0].kind] >= 1:
                    return Action("promoted_kong", (("tile", m.tiles[0].code),))
        return Action("discard", (("tile", self.best_discard(s).code),))

    def _claim(self, state: GameState, s: SeatState) -> Action:
        hand = state.hand
        assert hand is not None and hand.claim is not None
        w = hand.claim
        t = w.tile
        counts = _counts(s.known)
        melds = len(s.melds)
        if s.dead is None:
            counts[t.kind] += 1
            complete = is_complete(counts, melds)
            counts[t.kind] -= 1
            knitted = melds <= 1 and maybe_knitted([*counts[:t.kind], counts[t.kind] + 1, *counts[t.kind + 1:]])
            if complete or knitted:
                check = ruleset_of(state).check_win(
                    scoring_hand(hand, self.seat, s.known),
                    situation(state, self.seat, t, self_drawn=False, discarder=w.discard_seat, robbing=w.robbing))
                if check.ok:
                    return Action("claim", (("kind", "win"),))
        if w.robbing or hand.wall_remaining <= 0:
            return Action("button", (("button", "pass"),))
        now = shanten(counts, melds)
        if counts[t.kind] >= 3 and ClaimKind.KONG in ruleset_of(state).claim_kinds():
            counts[t.kind] -= 3
            after = shanten(counts, melds + 1)  # a kong is followed by a replacement draw, not a discard
            counts[t.kind] += 3
            if after <= now:
                return Action("claim", (("kind", "kong"),))
        if counts[t.kind] >= 2 and ClaimKind.PUNG in ruleset_of(state).claim_kinds():
            counts[t.kind] -= 2
            after = self._after_discard(counts, melds + 1)
            counts[t.kind] += 2
            if after < now:
                return Action("claim", (("kind", "pung"),))
        if self.seat == (w.discard_seat + 1) % 4 and ClaimKind.CHOW in ruleset_of(state).claim_kinds():
            for a, b in chow_options(s, t):
                counts[a.kind] -= 1
                counts[b.kind] -= 1
                after = self._after_discard(counts, melds + 1)
                counts[a.kind] += 1
                counts[b.kind] += 1
                if after < now:
                    return Action("claim", (("kind", "chow"), ("tiles", (a.code, b.code))))
        return Action("button", (("button", "pass"),))

    @staticmethod
    def _after_discard(counts: list[int], melds: int) -> int:
        best = 9
        for k in range(34):
            if counts[k]:
                counts[k] -= 1
                best = min(best, shanten(counts, melds))
                counts[k] += 1
        return best


def claim_order(state: GameState) -> Iterator[int]:
    """Seats to ask in a claim window: counter-clockwise from the discarder."""
    hand = state.hand
    if hand is None or hand.claim is None:
        return iter(())
    d = hand.claim.discard_seat
    return iter([(d + i) % 4 for i in (1, 2, 3)])




def bot_event(state: GameState, seat: int, rng: random.Random, *, event_id: str, at_s: float) -> Event | None:
    """The event ``seat``'s bot player would produce now (discard, claim, pass, win, flower, ready), or None.

    For ``mjtable.demo``: turn it into a physical act (simulated camera scene, fake button press) or submit it.
    """
    act = Bot(seat, rng).decide(state)
    if act is None:
        return None
    obj: dict[str, object] = {"type": act.kind, "id": event_id, "at_s": at_s, "seat": seat}
    obj.update({k: list(v) if isinstance(v, tuple) else v for k, v in act.fields})
    return event_from_json(obj)


__all__ = ["Action", "Bot", "ClaimKind", "bot_event", "claim_order"]
