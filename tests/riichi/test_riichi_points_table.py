"""The seed's points table (點數速查表, L919-L945) against the wrapped package's arithmetic under HKMA config."""

from __future__ import annotations

import pytest
from mahjong.hand_calculating.scores import ScoresCalculator

from controller.riichi.scoring import DEFAULT_OPTIONS, RiichiOptions, RiichiSituation, package_config
from mjtable.tiles import tile

E, S = tile("1z"), tile("2z")

# non-dealer (L921-L932): (han, fu) -> (ron, (tsumo each non-dealer, dealer))
NON_DEALER = {
    (1, 30): (1000, (300, 500)), (1, 40): (1300, (400, 700)), (1, 50): (1600, (400, 800)),
    (1, 60): (2000, (500, 1000)), (1, 70): (2300, (600, 1200)), (1, 80): (2600, (700, 1300)),
    (1, 90): (2900, (800, 1500)), (1, 100): (3200, (800, 1600)), (1, 110): (3600, None),
    (2, 20): (None, (400, 700)), (2, 25): (1600, None), (2, 30): (2000, (500, 1000)), (2, 40): (2600, (700, 1300)),
    (2, 50): (3200, (800, 1600)), (2, 60): (3900, (1000, 2000)), (2, 70): (4500, (1200, 2300)),
    (2, 80): (5200, (1300, 2600)), (2, 90): (5800, (1500, 2900)), (2, 100): (6400, (1600, 3200)),
    (2, 110): (7100, (1800, 3600)),
    (3, 20): (None, (700, 1300)), (3, 25): (3200, (800, 1600)), (3, 30): (3900, (1000, 2000)),
    (3, 40): (5200, (1300, 2600)), (3, 50): (6400, (1600, 3200)),
    (4, 20): (None, (1300, 2600)), (4, 25): (6400, (1600, 3200)),
    (6, 30): (12000, (3000, 6000)), (8, 30): (16000, (4000, 8000)), (11, 30): (24000, (6000, 12000)),
}
# dealer (L934-L945): (han, fu) -> (ron, tsumo from each)
DEALER = {
    (1, 30): (1500, 500), (1, 40): (2000, 700), (1, 50): (2400, 800), (1, 60): (2900, 1000), (1, 70): (3400, 1200),
    (1, 80): (3900, 1300), (1, 90): (4400, 1500), (1, 100): (4800, 1600), (1, 110): (5300, None),
    (2, 20): (None, 700), (2, 25): (2400, None), (2, 30): (2900, 1000), (2, 40): (3900, 1300), (2, 50): (4800, 1600),
    (2, 60): (5800, 2000), (2, 70): (6800, 2300), (2, 80): (7700, 2600), (2, 90): (8700, 2900),
    (2, 100): (9600, 3200), (2, 110): (10600, 3600),
    (3, 20): (None, 1300), (3, 25): (4800, 1600), (3, 30): (5800, 2000), (3, 40): (7700, 2600), (3, 50): (9600, 3200),
    (4, 20): (None, 2600), (4, 25): (9600, 3200), (4, 30): (12000, 4000),
    (6, 30): (18000, 6000), (8, 30): (24000, 8000), (11, 30): (36000, 12000),
}


def _cost(han: int, fu: int, *, dealer: bool, tsumo: bool, options: RiichiOptions = DEFAULT_OPTIONS) -> tuple[int, int]:
    cfg = package_config(RiichiSituation(self_drawn=tsumo, seat_wind=E if dealer else S, round_wind=E), options)
    c = ScoresCalculator.calculate_scores(han, fu, cfg)
    return c["main"], c["additional"]


@pytest.mark.parametrize(("key", "cells"), sorted(NON_DEALER.items()))
def test_non_dealer_cells_L921_L932(key: tuple[int, int], cells: tuple[int | None, tuple[int, int] | None]) -> None:
    han, fu = key
    ron, tsumo = cells
    if ron is not None:
        assert _cost(han, fu, dealer=False, tsumo=False)[0] == ron
    if tsumo is not None:
        main, additional = _cost(han, fu, dealer=False, tsumo=True)
        assert (additional, main) == tsumo


@pytest.mark.parametrize(("key", "cells"), sorted(DEALER.items()))
def test_dealer_cells_L934_L945(key: tuple[int, int], cells: tuple[int | None, int | None]) -> None:
    han, fu = key
    ron, each = cells
    if ron is not None:
        assert _cost(han, fu, dealer=True, tsumo=False)[0] == ron
    if each is not None:
        assert _cost(han, fu, dealer=True, tsumo=True)[0] == each


def test_kiriage_cells_and_the_L740_reading() -> None:
    assert _cost(4, 30, dealer=False, tsumo=False)[0] == 8000  # L927 "8000"
    assert _cost(3, 60, dealer=True, tsumo=False)[0] == 12000
    off = RiichiOptions(kiriage_mangan=False)
    assert _cost(4, 30, dealer=False, tsumo=False, options=off)[0] == 7700  # L740 "by the formula"
    assert _cost(3, 60, dealer=False, tsumo=False, options=off)[0] == 7700
