"""Random winning MCR hands built by construction (seeded), for the differential test and the benchmark.

Every shape is covered: 4 sets + pair (chows, pungs, melded and concealed kongs, claimed sets), Seven Pairs
(with four-of-a-kind), Thirteen Orphans, Honors and Knitted Tiles, Knitted Straight + set + pair.  Flags are
drawn only where they are possible (robbing the kong needs a tile the hand does not use; out on a replacement
needs a kong).  The 4-copies limit holds.  Pure; each call uses its own ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from controller.mcr.model import WinContext
from controller.mcr.shapes import KNITTED, ORPHANS
from mjtable.tiles import Hand, Meld, MeldKind, Relative, Tile

WINDS = tuple(Tile(27 + i) for i in range(4))


@dataclass(frozen=True, slots=True)
class Sample:
    """One generated win: the hand without the winning tile, the context, and the shape family name."""

    hand: Hand
    ctx: WinContext
    shape: str


def _suit_pool(rng: random.Random) -> list[int]:
    """Kinds to draw from: often restricted (flushes, honors-heavy, terminals) to reach rare fans."""
    mode = rng.random()
    if mode < 0.45:
        return list(range(34))
    if mode < 0.60:
        s = rng.randrange(3) * 9
        return list(range(s, s + 9)) + (list(range(27, 34)) if rng.random() < 0.5 else [])
    if mode < 0.70:
        return [0, 8, 9, 17, 18, 26, *range(27, 34)]
    if mode < 0.78:
        return [*list(range(27, 34)), rng.randrange(27)]
    if mode < 0.86:
        lo, hi = rng.choice(((0, 3), (0, 4), (3, 6), (5, 9), (6, 9), (1, 8)))
        return [s * 9 + r for s in range(3) for r in range(lo, hi)]
    if mode < 0.93:
        return [19, 20, 21, 23, 25, 32]
    s = rng.randrange(3) * 9
    return list(range(s, s + 9))


def _regular(rng: random.Random) -> tuple[list[tuple[str, int]], int] | None:
    pool = _suit_pool(rng)
    used = [0] * 34
    sets: list[tuple[str, int]] = []
    for _ in range(4):
        for _try in range(30):
            t = rng.choice(pool)
            r = rng.random()
            if t < 27 and t % 9 <= 6 and r < 0.5 and t + 2 in pool and all(used[t + i] < 4 for i in range(3)):
                for i in range(3):
                    used[t + i] += 1
                sets.append(("chow", t))
                break
            if r >= 0.5 and used[t] == 0 and rng.random() < 0.18:
                used[t] = 4
                sets.append(("kong", t))
                break
            if r >= 0.5 and used[t] <= 1:
                used[t] += 3
                sets.append(("pung", t))
                break
        else:
            return None
    for _try in range(30):
        t = rng.choice(pool)
        if used[t] <= 2:
            return sets, t
    return None


def _flags(rng: random.Random, hand: Hand, win: Tile, shape: str) -> WinContext:
    self_drawn = rng.random() < 0.45
    has_kong = any(m.is_kong for m in hand.melds)
    total = sum(1 for t in hand.all_tiles if t.kind == win.kind)
    held = sum(1 for t in hand.concealed if t.kind == win.kind)
    kong = False
    if self_drawn and has_kong:
        kong = rng.random() < 0.3
    elif not self_drawn and total == 0:
        kong = rng.random() < 0.15
    last_of_kind = held == 0 and rng.random() < 0.15
    return WinContext(win, self_drawn, rng.choice(WINDS), rng.choice(WINDS), flowers=rng.choice((0, 0, 0, 1, 2, 3, 8)),
                      last_of_kind=last_of_kind, kong=kong, last_tile=rng.random() < 0.08)


def _build_regular(rng: random.Random) -> Sample | None:
    got = _regular(rng)
    if got is None:
        return None
    sets, pair = got
    melds: list[Meld] = []
    concealed: list[Tile] = [Tile(pair), Tile(pair)]
    n_melded = rng.choice((0, 0, 1, 1, 2, 3, 4))
    order = list(range(4))
    rng.shuffle(order)
    rels = (Relative.LEFT, Relative.OPPOSITE, Relative.RIGHT)
    for i, (kind, t) in enumerate(sets):
        declared = order.index(i) < n_melded
        if kind == "chow":
            tiles = (Tile(t), Tile(t + 1), Tile(t + 2))
            if declared:
                melds.append(Meld(MeldKind.CHOW, tiles, Relative.LEFT))
            else:
                concealed.extend(tiles)
        elif kind == "pung":
            if declared:
                melds.append(Meld(MeldKind.PUNG, (Tile(t),) * 3, rng.choice(rels)))
            else:
                concealed.extend([Tile(t)] * 3)
        elif declared or rng.random() < 0.5:
            melds.append(Meld(MeldKind.KONG, (Tile(t),) * 4, rng.choice(rels)))
        else:
            melds.append(Meld(MeldKind.CONCEALED_KONG, (Tile(t),) * 4))
    win = concealed.pop(rng.randrange(len(concealed)))
    hand = Hand(tuple(sorted(concealed)), tuple(melds))
    return Sample(hand, _flags(rng, hand, win, "regular"), "regular")


def _concealed_sample(rng: random.Random, tiles: list[int], shape: str) -> Sample:
    rng.shuffle(tiles)
    win = Tile(tiles.pop())
    hand = Hand(tuple(sorted(Tile(t) for t in tiles)))
    return Sample(hand, _flags(rng, hand, win, shape), shape)


def _seven_pairs(rng: random.Random) -> Sample:
    pool = _suit_pool(rng)
    kinds: list[int] = []
    while len(kinds) < 7:
        t = rng.choice(pool) if rng.random() < 0.9 else rng.randrange(34)
        if kinds.count(t) < (2 if rng.random() < 0.1 else 1):
            kinds.append(t)
    if rng.random() < 0.1:  # seven shifted pairs
        s = rng.randrange(3) * 9 + rng.randrange(3)
        kinds = list(range(s, s + 7))
    return _concealed_sample(rng, [t for t in kinds for _ in range(2)], "seven_pairs")


def _thirteen_orphans(rng: random.Random) -> Sample:
    return _concealed_sample(rng, [*ORPHANS, rng.choice(ORPHANS)], "thirteen_orphans")


def _honors_knitted(rng: random.Random) -> Sample:
    pat = rng.choice(KNITTED)
    pool = [*pat, *range(27, 34)]
    rng.shuffle(pool)
    return _concealed_sample(rng, pool[:14], "honors_knitted")


def _knitted_straight(rng: random.Random) -> Sample | None:
    pat = rng.choice(KNITTED)
    used = [0] * 34
    for t in pat:
        used[t] += 1
    t = rng.randrange(34)
    kind = rng.choice(("chow", "pung", "kong")) if t < 27 and t % 9 <= 6 else rng.choice(("pung", "kong"))
    extra = [t, t + 1, t + 2] if kind == "chow" else [t] * (4 if kind == "kong" else 3)
    for x in extra:
        used[x] += 1
    pair = rng.randrange(34)
    if used[pair] > 2 or max(used) > 4:
        return None
    concealed = [*pat, pair, pair]
    melds: list[Meld] = []
    if kind == "kong" or rng.random() < 0.3:
        if kind == "chow":
            melds.append(Meld(MeldKind.CHOW, tuple(Tile(x) for x in extra), Relative.LEFT))
        elif kind == "pung":
            melds.append(Meld(MeldKind.PUNG, (Tile(t),) * 3, Relative.RIGHT))
        else:
            mk = MeldKind.KONG if rng.random() < 0.5 else MeldKind.CONCEALED_KONG
            melds.append(Meld(mk, (Tile(t),) * 4, Relative.RIGHT if mk is MeldKind.KONG else None))
    else:
        concealed.extend(extra)
    win = Tile(concealed.pop(rng.randrange(len(concealed))))
    hand = Hand(tuple(sorted(Tile(x) for x in concealed)), tuple(melds))
    return Sample(hand, _flags(rng, hand, win, "knitted_straight"), "knitted_straight")


def random_wins(n: int, seed: int = 2006) -> list[Sample]:
    """``n`` random winning hands (about 80% regular, the rest special shapes), reproducible by ``seed``."""
    rng = random.Random(seed)
    out: list[Sample] = []
    while len(out) < n:
        r = rng.random()
        s: Sample | None
        if r < 0.80:
            s = _build_regular(rng)
        elif r < 0.90:
            s = _seven_pairs(rng)
        elif r < 0.93:
            s = _thirteen_orphans(rng)
        elif r < 0.96:
            s = _honors_knitted(rng)
        else:
            s = _knitted_straight(rng)
        if s is not None:
            out.append(s)
    return out
