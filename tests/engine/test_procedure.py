"""The MCR hand procedure step by step, each test citing the rulebook lines (digest ../shared/rules/mcr-rules.md)."""

from __future__ import annotations

import pytest

from controller.engine.effects import McuCommand, SetLed
from controller.engine.mcr_ruleset import McrRuleset
from controller.engine.procedure import linear_wall
from controller.engine.state import Phase
from mjtable.tiles import Tile, tile
from tests.engine.engine_helpers import Table, pass_all


@pytest.mark.parametrize(("total", "offset"), [(5, 0), (9, 0), (2, 1), (6, 1), (10, 1), (3, 2), (7, 2), (11, 2),
                                               (4, 3), (8, 3), (12, 3)])
def test_dice_total_names_second_thrower(total: int, offset: int) -> None:
    # 5,9 dealer; 2,6,10 下家; 3,7,11 对家; 4,8,12 上家 [000:L466; 004:L230]
    for dealer in range(4):
        assert McrRuleset("mcr-2006").dice_to_seat(dealer, total) == (dealer + offset) % 4


def test_break_counts_stacks_from_the_right_of_the_second_throwers_wall() -> None:
    # count from the right end of the second thrower's wall to the sum, dealer takes the next stacks,
    # going clockwise [000:L468; 004:L235; 003:L45@923]
    physical = tuple(Tile(i % 34) for i in range(144))
    wall = linear_wall(physical, second_seat=1, total=7)
    ring = (-1) % 4  # seat 1's wall is the 4th side clockwise from seat 0
    first_stack = ring * 18 + 7
    assert wall[0] == physical[2 * first_stack]  # top tile
    assert wall[1] == physical[2 * first_stack + 1]  # bottom tile
    # a total beyond one side continues clockwise onto the next wall (our reading of §2.5)
    wall2 = linear_wall(physical, second_seat=0, total=20)
    assert wall2[0] == physical[2 * 20]


def test_deal_gives_dealer_14_others_13_then_dealer_discards() -> None:
    # 3 x 4 tiles each, then the jump: dealer 14, others 13 [000:L468; 004:L235]
    t = Table()
    fx = t.ok("table_built", tiles=list(_plain_wall()), dice=[[1, 1], [1, 1]])
    sizes = [t.seat(s).hand_size for s in range(4)]
    assert sizes == [14, 13, 13, 13]
    assert t.state.phase is Phase.TURN and t.state.hand is not None and t.state.hand.turn == 0
    assert t.state.hand.wall_remaining == 144 - 53
    assert SetLed(seat=0, on=True) in fx


def _plain_wall() -> tuple[str, ...]:
    from tests.engine.engine_helpers import stacked_wall

    return stacked_wall({0: "123456789m12345p", 1: "1112345678999s", 2: "", 3: ""})


def test_session_start_asks_the_mcu_to_build_and_roll() -> None:
    t = Table()
    assert McuCommand(name="shuffle_and_build", args={"tile_set": 144}) in t.last_fx
    fx = t.ok("table_built", tiles=list(_plain_wall()))
    assert McuCommand(name="roll_dice", args={"throw": 1}) in fx
    assert t.state.phase is Phase.DICE
    fx = t.ok("dice_rolled", dice=[3, 4])
    assert McuCommand(name="roll_dice", args={"throw": 2}) in fx
    t.ok("dice_rolled", dice=[2, 2], source="referee")
    assert t.state.phase in (Phase.FLOWERS, Phase.TURN)


def test_draws_from_front_replacements_from_back_top_first() -> None:
    # draws from the front; flower/kong replacements from the end, top tile first (先上后下 [004:L166])
    t = Table()
    t.deal({0: "1f123m456m789m1p2p5z", 1: "1112z345s678s999s"}, draws="9p", back="3p4p")
    # the dealer holds 1f: initial replacement takes the back's top tile (3p)
    assert t.state.phase is Phase.FLOWERS
    t.ok("flower", seat=0, tile="1f")
    assert "3p" in t.concealed(0) and [x.code for x in t.seat(0).flowers] == ["1f"]
    assert t.state.phase is not Phase.FLOWERS
    t.ok("discard", seat=0, tile="5z")
    pass_all(t)
    assert t.state.hand is not None and t.state.hand.turn == 1
    assert "9p" in t.concealed(1)  # the next front tile
    assert t.state.hand.back == 1 and t.state.hand.front == 54


def test_flowers_continuous_2006_vs_rounds_2017() -> None:
    # V2006: keep replacing if the replacement is a flower; V2017: wait for the next round [004:L237; 003:L45@1169]
    hands = {0: "1f123m456m789m1p2p", 1: "2f1112z345s678s99s"}
    for rules, expect_after_first in (("mcr-2006", 0), ("mcr-2017", 1)):
        t = Table(rules=rules)
        t.deal(hands, back="3f5p6p7p")
        t.ok("flower", seat=0, tile="1f")  # replacement is 3f
        hand = t.state.hand
        assert hand is not None
        assert hand.flower_seat == expect_after_first
        if rules == "mcr-2006":
            t.ok("flower", seat=0, tile="3f")
            t.ok("flower", seat=1, tile="2f")
        else:
            t.rejected("flower", seat=0, tile="3f")
            t.ok("flower", seat=1, tile="2f")
            assert t.state.hand is not None and t.state.hand.flower_seat == 0  # second round
            t.ok("flower", seat=0, tile="3f")
        assert t.state.phase is Phase.TURN
        assert sorted(f.code for f in t.seat(0).flowers) == ["1f", "3f"]


def test_seat_rotation_readings_swap_rounds_3_and_4() -> None:
    # V2006 附件4, readings A and B differ in rounds 3 and 4 only (digest §2.3)
    a = McrRuleset("mcr-2006", "A")
    b = McrRuleset("mcr-2006", "B")
    assert [a.seat_arrangement(r) for r in range(2)] == [b.seat_arrangement(r) for r in range(2)]
    assert a.seat_arrangement(2) == b.seat_arrangement(3)
    assert a.seat_arrangement(3) == b.seat_arrangement(2)
    for rules in (a, b):
        for p in range(4):  # every player sits once at each seat
            assert sorted(rules.seat_arrangement(r).index(p) for r in range(4)) == [0, 1, 2, 3]


def test_dealer_passes_on_win_or_draw_and_round_changes_after_four() -> None:
    # no 连庄 [000:L300; 004:L154; 003:L45@2497]
    r = McrRuleset("mcr-2006")
    assert r.next_dealer(0, [0], False) == (1, False)
    assert r.next_dealer(2, [], True) == (3, False)
    assert r.next_dealer(3, [3], False) == (0, True)


def test_seat_winds_follow_the_dealer() -> None:
    # dealer East, 下家 South, 对家 West, 上家 North [000:L292]
    from controller.engine.query import seat_wind_letter

    assert [seat_wind_letter(2, s) for s in range(4)] == ["W", "N", "E", "S"]
    assert tile("1z") == Tile(27)


def test_after_a_round_players_change_seats_and_the_wind_advances() -> None:
    # after every round seats change by the V2006 附件4 table; 圈风 East, South, ... [004:L1201; 000:L288]
    from controller.engine.simulate import SimRun
    from controller.views import public_view

    state = SimRun(seed=4, hands_total=5).play()
    assert state.session.round_no == 1 and state.session.hand_in_round == 1
    view = public_view(state)
    assert view["session"]["round_wind"] == "S"
    assert [s["player"] for s in view["seats"]] == ["P2", "P1", "P4", "P3"]
    # scores stay with the players, not the seats
    net = [state.session.scores[p] - state.session.penalties[p] for p in range(4)]
    assert [s["score"] for s in view["seats"]] == [net[1], net[0], net[3], net[2]]
