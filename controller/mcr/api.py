"""The MCR scorer's entry points: :func:`score_hand`, :func:`is_complete`, :func:`find_waits`.

Called synchronously from any thread or event loop (no I/O, no shared mutable state except LRU caches).
Typical costs on the target machine: ``is_complete`` a few microseconds (cached), ``score_hand`` tens of
microseconds, ``find_waits`` well under 2 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from itertools import compress

from controller.mcr import shapes, special
from controller.mcr.calculator import Candidate, FullSet, Job, score_regular
from controller.mcr.fans import FAN_BY_ID, NUM_FANS, FanId
from controller.mcr.model import MINIMUM_POINTS, Fan, NotWinningHand, ScoreResult, WinContext
from controller.mcr.profiles import RuleProfile, get_profile
from controller.mcr.shapes import CHOW, KONG, PUNG
from mjtable.tiles import MCR_TILESET, Hand, MeldKind, Tile

_KINDS = range(34)
_MELD_KIND = {MeldKind.CHOW: CHOW, MeldKind.PUNG: PUNG, MeldKind.KONG: KONG, MeldKind.CONCEALED_KONG: KONG}


class InvalidHand(NotWinningHand):
    """The input cannot describe a real win: wrong tile count, a fifth copy, impossible flags.

    A subclass of :class:`NotWinningHand`, so callers that only catch that are safe."""


def _wind(t: Tile, what: str) -> int:
    if not t.is_wind:
        raise InvalidHand(f"{what} must be a wind tile 1z-4z, got {t.code}")
    return t.kind - 27


def _fixed(hand: Hand) -> tuple[FullSet, ...]:
    return tuple((_MELD_KIND[m.kind], m.tiles[0].kind, m.kind is not MeldKind.CONCEALED_KONG) for m in hand.melds)


def _counts(tiles: list[Tile]) -> list[int]:
    c = [0] * 34
    for t in tiles:
        c[t.kind] += 1
    return c


def _check_copies(tiles: list[Tile]) -> None:
    """At most 4 copies of a face and 1 of each flower (the 144-tile MCR set, [004:L192-200])."""
    seen = [0] * 42
    for t in tiles:
        seen[t.kind] += 1
        if seen[t.kind] > MCR_TILESET.counts[t.kind]:
            what = "fifth copy" if t.kind < 34 else "second copy"
            raise InvalidHand(f"{what} of {t.plain.code}: the MCR set has {MCR_TILESET.counts[t.kind]}")


def _check_size(hand: Hand) -> None:
    if hand.size != 13:
        raise InvalidHand(f"wrong tile count: the hand has {hand.size} tiles (kongs count 3) without the winning "
                          "tile, expected 13")


def _prepare(hand: Hand, ctx: WinContext, prof: RuleProfile) -> Job:
    _check_size(hand)
    win = ctx.win_tile
    if win.is_flower:
        raise InvalidHand(f"the winning tile cannot be a flower ({win.code})")
    conc = [0] * 34
    for t in hand.concealed:
        conc[t.kind] += 1
    total = conc.copy()
    for m in hand.melds:
        for t in m.tiles:
            total[t.kind] += 1
    held = conc[win.kind]
    conc[win.kind] += 1
    total[win.kind] += 1
    if max(total) > 4 or hand.flowers:
        _check_copies([*hand.all_tiles, *hand.flowers, win])
    fixed = _fixed(hand)
    seat, prevalent = _wind(ctx.seat_wind, "seat_wind"), _wind(ctx.round_wind, "round_wind")
    last_of_kind = ctx.last_of_kind
    if last_of_kind and held:
        raise InvalidHand(f"last_of_kind is impossible: the hand already holds {win.code} concealed, so three "
                          "others cannot all be visible")
    if total[win.kind] - conc[win.kind] == 3:
        last_of_kind = True  # the other three are in the player's own declared sets, all visible
    if ctx.kong:
        if ctx.self_drawn and not any(k == KONG for k, _, _ in fixed):
            raise InvalidHand("kong with self_drawn means out on a kong replacement, but the hand has no kong")
        if not ctx.self_drawn and total[win.kind] != 1:
            raise InvalidHand(f"robbing the kong is impossible: the hand already uses {win.code}")
    if ctx.heavenly and (not ctx.self_drawn or fixed):
        raise InvalidHand("heavenly hand needs a self-drawn win with nothing declared")
    if ctx.earthly and (ctx.self_drawn or fixed):
        raise InvalidHand("earthly hand is a win on the dealer's first discard with nothing declared")
    if not 0 <= ctx.flowers <= 8:
        raise InvalidHand(f"flowers must be 0..8, got {ctx.flowers}")
    present = 0
    for k in compress(_KINDS, total):
        present |= 1 << k
    return Job(tuple(conc), fixed, tuple(total), win.kind, ctx.self_drawn, last_of_kind, ctx.kong, ctx.last_tile,
               seat, prevalent, prof, ctx.heavenly, ctx.earthly, ctx.concealed_ready, present)


def _readings(job: Job) -> list[Callable[[bool], Candidate]]:
    """Every way to read the hand, as thunks ``explain -> Candidate``."""
    out: list[Callable[[bool], Candidate]] = []
    conc = job.conc
    nfixed = len(job.fixed)
    if nfixed == 0:
        if shapes.is_thirteen_orphans(conc):
            out.append(partial(special.thirteen_orphans, job))
        pat = shapes.honors_and_knitted(conc)
        if pat is not None:
            out.append(partial(special.honors_and_knitted, job, pat))
        if shapes.is_seven_pairs(conc):
            out.append(partial(special.seven_pairs, job))
    if nfixed <= 1:
        for pat2, rest in shapes.knitted_straight_divisions(conc):
            out.append(partial(special.knitted_straight, job, pat2, rest))
    divs = shapes.divisions(conc)
    if divs:
        if nfixed == 0:
            job.nine_gates = _is_nine_gates(conc, job.win)
        if not job.heavenly:
            left = list(conc)
            left[job.win] -= 1
            job.unique_wait = shapes.wait_count(tuple(left), nfixed == 0, job.prof.waits_count_held_fourth) == 1
        for d in divs:
            out.append(partial(score_regular, job, d))
    return out


def _is_nine_gates(conc: tuple[int, ...], win: int) -> bool:
    if win >= 27:
        return False
    s = win // 9 * 9
    if sum(conc[s : s + 9]) != 14:
        return False
    c = list(conc[s : s + 9])
    c[win - s] -= 1
    return c == [3, 1, 1, 1, 1, 1, 1, 1, 3]


_NAMES = tuple(FAN_BY_ID[f].name if f in FAN_BY_ID else "" for f in range(NUM_FANS))
_FANS = range(NUM_FANS)


@lru_cache(maxsize=4096)
def _plain_fan(f: int, points: int, count: int) -> Fan:
    """A shared immutable :class:`Fan` without explanation (building one costs more than the lookup)."""
    return Fan(_NAMES[f], points, count, "")


def _result(job: Job, cand: Candidate, flowers: int) -> ScoreResult:
    pts = job.prof.points
    fans: list[Fan] = []
    tab = cand.table
    notes, override = cand.notes, cand.override
    for f in compress(_FANS, tab):
        n = tab[f]
        p = override.get(f, pts[f]) if override else pts[f]
        if f in notes:
            fans.append(Fan(_NAMES[f], p, n, "; ".join(notes[f])))
        else:
            fans.append(_plain_fan(f, p, n))
    fans.sort(key=lambda x: -x.points)
    base = cand.total
    if flowers:
        fans.append(Fan(FAN_BY_ID[FanId.FLOWER_TILES].name, 1, flowers, f"{flowers} flower(s), not towards the "
                        "minimum"))
    return ScoreResult(tuple(fans), base + flowers, base >= MINIMUM_POINTS)


def score_hand(hand: Hand, ctx: WinContext, rules: str | RuleProfile = "mcr-2006", *,
               explain: bool = True) -> ScoreResult:
    """Score a win.  ``hand`` excludes the winning tile (13 tiles, kongs count 3).

    Every decomposition and special shape is scored; the highest total wins.  Flowers: ``ctx.flowers`` if
    non-zero, else the flower tiles written in the hand.  ``explain=False`` skips the explanation strings
    (faster).  Raises :class:`NotWinningHand` if no shape fits, :class:`InvalidHand` for impossible input,
    ``ValueError`` for an unknown ``rules``.
    """
    prof = rules if isinstance(rules, RuleProfile) else get_profile(rules)
    job = _prepare(hand, ctx, prof)
    readings = _readings(job)
    if not readings:
        raise NotWinningHand(f"{hand.code} + {ctx.win_tile.code} is not a winning hand")
    best_i = 0
    best_total = -1
    if len(readings) == 1:
        best = readings[0](explain)
    else:
        for i, r in enumerate(readings):
            cand = r(False)
            if cand.total > best_total:
                best_total, best_i = cand.total, i
        best = readings[best_i](explain)
    flowers = ctx.flowers or len(hand.flowers)
    return _result(job, best, flowers)


def all_readings(hand: Hand, ctx: WinContext, rules: str | RuleProfile = "mcr-2006") -> list[ScoreResult]:
    """Every reading of the win (each decomposition / special shape) scored, best first: lets a referee see
    why the chosen one wins.  Raises like :func:`score_hand`."""
    prof = rules if isinstance(rules, RuleProfile) else get_profile(rules)
    job = _prepare(hand, ctx, prof)
    readings = _readings(job)
    if not readings:
        raise NotWinningHand(f"{hand.code} + {ctx.win_tile.code} is not a winning hand")
    flowers = ctx.flowers or len(hand.flowers)
    out = [_result(job, r(True), flowers) for r in readings]
    out.sort(key=lambda r: -r.total)
    return out


def is_complete(hand: Hand, win_tile: Tile) -> bool:
    """Whether ``hand`` (13 tiles) plus ``win_tile`` has a winning shape (no points check, microseconds)."""
    if hand.size != 13 or win_tile.is_flower:
        return False
    conc = [0] * 34
    for t in hand.concealed:
        conc[t.kind] += 1
    conc[win_tile.kind] += 1
    return shapes.is_complete_counts(tuple(conc), len(hand.melds))


def waits_detail(hand: Hand, *, seat_wind: Tile, round_wind: Tile, flowers: int = 0,
                 rules: str | RuleProfile = "mcr-2006", explain: bool = False) -> list[tuple[Tile, ScoreResult]]:
    """Each tile that completes ``hand`` with the full :class:`ScoreResult` of a win on a discard of it.

    A tile whose four copies are all in the hand is not listed.  Raises :class:`InvalidHand` for a hand that
    is not 13 tiles or has a fifth copy.
    """
    _check_size(hand)
    prof = rules if isinstance(rules, RuleProfile) else get_profile(rules)
    _check_copies([*hand.all_tiles, *hand.flowers])
    conc = tuple(_counts(list(hand.concealed)))
    total = _counts(hand.all_tiles)
    out: list[tuple[Tile, ScoreResult]] = []
    for k in shapes.waiting_tiles(conc, len(hand.melds)):
        if total[k] >= 4:
            continue
        tile = Tile(k)
        ctx = WinContext(tile, False, seat_wind, round_wind, flowers)
        out.append((tile, score_hand(hand, ctx, prof, explain=explain)))
    return out


def find_waits(hand: Hand, *, seat_wind: Tile, round_wind: Tile, flowers: int = 0,
               rules: str = "mcr-2006") -> list[tuple[Tile, int]]:
    """Each tile that completes ``hand`` with its fan total on a discard win (flowers included, as in
    :attr:`ScoreResult.total`); tiles scoring under the minimum are listed too.  Use :func:`waits_detail`
    for ``meets_minimum``."""
    return [(t, r.total) for t, r in waits_detail(hand, seat_wind=seat_wind, round_wind=round_wind,
                                                    flowers=flowers, rules=rules)]
