"""2017's first-turn fans in live play: 天和 Heavenly Hand (the dealer out on his 14th tile, before any discard)
and 地和 Earthly Hand (out on the dealer's first discard) [003:L45@2958, @3130; digest §6.4]."""

from __future__ import annotations

import pytest

from controller.engine.state import Phase
from tests.engine.engine_helpers import TWO_WINNERS_HANDS, Table, discard_the_draws, pass_all

HEAVENLY_DEALER = {0: "123m456m789m234p5s5s"}  # the dealer's 14 tiles are already a complete hand


def _fans(t: Table) -> dict[str, int]:
    r = t.state.history[-1]
    return {name: pts for name, pts, _count in r.fans}


@pytest.mark.parametrize("rules", ["mcr-2017", "mcr-2006"])
def test_dealer_out_on_the_deal_is_heavenly_hand_in_2017_only(rules: str) -> None:
    t = Table(rules=rules)
    t.deal(HEAVENLY_DEALER)
    t.ok("declare_win", seat=0)
    assert t.state.phase is Phase.HAND_OVER
    r = t.state.history[-1]
    assert r.winners == (0,) and r.self_drawn
    fans = _fans(t)
    if rules == "mcr-2017":
        assert fans["Heavenly Hand"] == 88
        assert "Self-Drawn" not in fans  # 不计自摸 [003:L45@2958]
        assert r.total >= 88
    else:
        assert "Heavenly Hand" not in fans  # not a 2006 fan: the flag never reaches the older profiles
    assert sum(r.payments) == 0 and r.payments[0] == 3 * (8 + r.total)


def test_win_on_the_dealers_first_discard_is_earthly_hand() -> None:
    t = Table(rules="mcr-2017")
    t.deal(TWO_WINNERS_HANDS)
    t.ok("discard", seat=0, tile="5p")  # seat 1 (and seat 3) wait on 5p
    t.ok("claim", seat=1, kind="win")
    pass_all(t)
    r = t.state.history[-1]
    assert r.winners == (1,) and r.discarder == 0
    fans = _fans(t)
    assert fans["Earthly Hand"] == 64
    assert "Concealed Hand" not in fans  # 不计门前清 [003:L45@3130]
    assert "Heavenly Hand" not in fans


def test_a_later_discard_is_not_earthly_hand() -> None:
    # the dealer's first discard is 2m; everyone discards the tile just drawn; the dealer's 5p comes a go later
    t = Table(rules="mcr-2017")
    hands = {**TWO_WINNERS_HANDS, 0: "2m5p1s1s2s2s7s7s9s3z3z4z6z7z"}
    t.deal(hands, draws="8m1m1m")
    t.ok("discard", seat=0, tile="2m")
    pass_all(t)
    discard_the_draws(t, (1, 2, 3))
    t.ok("discard", seat=0, tile="5p")
    t.ok("claim", seat=3, kind="win")
    pass_all(t)
    r = t.state.history[-1]
    assert r.winners == (3,) and r.discarder == 0
    fans = _fans(t)
    assert "Earthly Hand" not in fans and "Heavenly Hand" not in fans
    assert "Concealed Hand" in fans  # the ordinary 2017 门前清 on a discard [003:L45@2130]


def test_heavenly_hand_after_another_seats_flower_replacement() -> None:
    # regression: the last initial-flower replacement (seat 1's tile) was left as the dealer's "drawn" tile,
    # so the dealer's declaration named a tile he does not hold
    t = Table(rules="mcr-2017")
    t.deal({**HEAVENLY_DEALER, 1: "1f34p345m8m1s1s2z2z6z7z"})
    assert t.state.phase is Phase.FLOWERS
    t.ok("flower", seat=1, tile="1f")  # seat 1 is fully known: its turn ends by itself
    hand = t.state.hand
    assert hand is not None and hand.turn == 0 and hand.drawn is None
    t.ok("declare_win", seat=0)
    r = t.state.history[-1]
    assert r.winners == (0,) and _fans(t)["Heavenly Hand"] == 88
