"""Property tests: every two-suit basic hand is a win, scored within the cap, and its tile is among the waits."""

from __future__ import annotations

from collections import Counter

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from controller.sichuan.fans import WinSituation, base_points, score_win, winning_tiles
from mjtable.tiles import Hand, Tile

GROUP = st.tuples(st.booleans(), st.integers(0, 8), st.integers(0, 1))  # (pung?, rank, which of two suits)


@st.composite
def winning_hands(draw: st.DrawFn) -> tuple[list[Tile], Tile]:
    suits = draw(st.sampled_from([(0, 1), (0, 2), (1, 2)]))
    groups = draw(st.lists(GROUP, min_size=4, max_size=4))
    pair_rank, pair_suit = draw(st.integers(0, 8)), draw(st.integers(0, 1))
    kinds: list[int] = []
    for pung, rank, which in groups:
        base = suits[which] * 9
        kinds.extend([base + rank] * 3 if pung else [base + min(rank, 6) + i for i in range(3)])
    kinds.extend([suits[pair_suit] * 9 + pair_rank] * 2)
    assume(max(Counter(kinds).values()) <= 4)
    tiles = [Tile(k) for k in kinds]
    win = tiles[draw(st.integers(0, 13))]
    rest = list(tiles)
    rest.remove(win)
    return rest, win


@settings(max_examples=150, deadline=None)
@given(winning_hands(), st.integers(1, 5))
def test_basic_hands_score_within_the_cap(hw: tuple[list[Tile], Tile], cap: int) -> None:
    from controller.sichuan.fans import SichuanOptions

    rest, win = hw
    hand = Hand(tuple(sorted(rest)))
    s = score_win(hand, win, WinSituation(self_drawn=False), options=SichuanOptions(cap_fan=cap))
    assert s.capped_fan == min(s.fan, cap)
    assert s.base == base_points(s.fan, cap) == 2 ** s.capped_fan
    assert s.fan == sum(h.total for h in s.fans)
    assert win.kind in {t.kind for t in winning_tiles(hand)}
