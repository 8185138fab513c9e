"""winning_tiles (shape candidates first, cached) gives exactly the tiles the full scorer accepts (L444-L448, L560)."""

from __future__ import annotations

import random

from controller.sichuan.fans import NotWinningHand, WinSituation, score_win, winning_tiles
from controller.sichuan.shape import NUM_SUITED, counts27
from mjtable.tiles import Hand, Tile, make_meld, parse_tiles


def _by_the_scorer(hand: Hand, void: str | None) -> list[Tile]:
    """The definition: every suited tile the scorer accepts, not one held four times (L560)."""
    held = counts27(hand.all_tiles)
    out = []
    for k in range(NUM_SUITED):
        if held[k] >= 4:
            continue
        try:
            score_win(hand, Tile(k), WinSituation(self_drawn=False), void_suit=void)
        except NotWinningHand:
            continue
        out.append(Tile(k))
    return out


def test_known_waits() -> None:
    nine_gates = Hand(tuple(parse_tiles("1112345678999m")), ())  # waits on every man tile
    assert [t.code for t in winning_tiles(nine_gates)] == [f"{r}m" for r in range(1, 10)]
    assert winning_tiles(nine_gates) == _by_the_scorer(nine_gates, None)
    seven = Hand(tuple(parse_tiles("1133557799m224p")), ())  # seven pairs waiting on 4p; a four counts as two pairs
    assert [t.code for t in winning_tiles(seven)] == ["4p"]
    assert winning_tiles(seven, "p") == []  # holding the void suit is no win (L342)


def test_same_tiles_as_the_scorer_on_random_hands() -> None:
    rng = random.Random(18)
    tenpai = 0
    for _ in range(2000):
        suits = rng.sample([0, 1, 2], rng.choice([1, 2, 2, 3]))
        pool = [Tile(s * 9 + r) for s in suits for r in range(9) for _ in range(4)]
        rng.shuffle(pool)
        melds = []
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            t = pool.pop()
            same = [x for x in pool if x.kind == t.kind][:2]
            if len(same) == 2:
                for x in same:
                    pool.remove(x)
                melds.append(make_meld((t, *same)))
        hand = Hand(tuple(sorted(pool[:13 - 3 * len(melds)], key=lambda t: t.kind)), tuple(melds))
        void = rng.choice([None, "m", "p", "s"])
        expected = _by_the_scorer(hand, void)
        assert winning_tiles(hand, void) == expected, (hand, void)
        tenpai += bool(expected)
    assert tenpai > 50  # the sample reaches tenpai hands, not only hopeless ones
