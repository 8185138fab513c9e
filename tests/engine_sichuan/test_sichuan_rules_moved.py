"""Sichuan SBR 2025 rules that only the retired standalone Sichuan procedure (deleted in issue 18) tested, now
checked on the live engine.  Seed lines ``Lnnn`` of ``../shared/seeds/001_2f25afa9281b00ab.txt``
(digest ``../shared/rules/sichuan-rules.md``)."""

from __future__ import annotations

from controller.engine.state import Phase
from tests.engine_sichuan.table_helpers import Table, stacked_wall

R = "sichuan-sbr-2025"
# the procedure tests' scenario: the dealer throws 5p, seat 1 kongs it (点杠), draws 9p and throws 3m, on which
# seats 2 and 3 both win (杠上炮); then the dealer self-draws 5m.  Everybody voids bamboo (天缺, L348).
HANDS = {0: "2345678m111999p5p", 1: "1234m6789m555p22p", 2: "12456789m33p234p", 3: "45m678m777p666p88p"}


def _table(hands: dict[int, str], draws: str = "") -> Table:
    t = Table(R)
    t.build(stacked_wall(R, hands, draws=draws))
    return t


def _voids(t: Table, *suits: str) -> None:
    for seat, suit in enumerate(suits):
        t.ok({"type": "void", "seat": seat, "suit": suit})


def _pass(t: Table, *seats: int) -> None:
    for s in seats:
        t.ok({"type": "button", "seat": s, "button": "pass"})


def test_three_winners_end_the_hand_and_self_draw_is_paid_by_those_still_in_L466_L474_L520() -> None:
    """Play goes on after each win until three players have won (血战到底, L466); after several winners on one
    discard the turn passes counter-clockwise from the last of them (L474); a self-drawn win is paid base + 1
    by every player still in (L520); 杠上炮 refunds the kong money (L506)."""
    t = _table(HANDS, draws="9p5m")
    _voids(t, "s", "s", "s", "s")
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    _pass(t, 2, 3)
    t.ok({"type": "claim", "seat": 1, "kind": "kong"})
    assert t.state.session.scores == (-2, 2, 0, 0)  # 点杠: the discarder pays 2 (L490)
    hand = t.state.hand
    assert hand is not None and hand.drawn is not None and hand.drawn.code == "9p"  # next wall tile (L403)
    t.ok({"type": "discard", "seat": 1, "tile": "3m"})
    t.ok({"type": "claim", "seat": 3, "kind": "win"})
    t.ok({"type": "claim", "seat": 2, "kind": "win"})
    _pass(t, 0)
    hand = t.state.hand
    assert hand is not None and hand.result is None  # two out, the hand goes on (L466)
    assert sorted(w for r in hand.wins for w in r.winners) == [2, 3]
    # 杠上炮: 1 fan each -> base 2 from the discarder; the kong money goes back (L506, L518, L545)
    assert t.state.session.scores == (0, -4, 2, 2)
    assert hand.turn == 0 and hand.drawn is not None and hand.drawn.code == "5m"  # after seat 3: seat 0 (L474)
    t.ok({"type": "declare_win", "seat": 0})
    # self-draw: base 1 + 1 from each player still in, and only seat 1 is (L520)
    assert t.state.session.scores == (2, -6, 2, 2) and sum(t.state.session.scores) == 0
    assert t.phase() is Phase.HAND_OVER  # three winners end the hand (L466)
    assert t.state.session.dealer == 1  # two first winners on one discard: the discarder deals (L481)


def test_no_chow_and_no_pong_on_the_missing_suit_L342_L426() -> None:
    """No chow at all (L426); no pong or kong of one's missing suit (L342)."""
    t = _table(HANDS)
    _voids(t, "s", "p", "s", "s")
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    assert t.rejected({"type": "claim", "seat": 1, "kind": "chow", "tiles": ["4p", "6p"]}).reason == "illegal_claim"
    t.ok({"type": "claim", "seat": 1, "kind": "kong"})  # holds 555p, missing suit p: 错杠, recorded (L736, L740)
    hand = t.state.hand
    assert hand is not None and not hand.seats[1].melds
    assert [i.kind for i in t.state.infractions] == ["wrong_call"]


def test_no_promoted_kong_right_after_a_pong_L404() -> None:
    """A player who has just ponged may not add the fourth tile before his next draw (L404)."""
    hands = {0: "2345678m111999p5p", 1: "1234m6789m555p22p", 2: "12456789m33p234p", 3: "45m678m777p666p88p"}
    t = _table(hands)
    _voids(t, "s", "s", "s", "s")
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "claim", "seat": 1, "kind": "pung"})
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 1 and hand.drawn is None
    rej = t.rejected({"type": "promoted_kong", "seat": 1, "tile": "5p"})  # holds the fourth 5p
    assert rej.reason == "wrong_phase"


def test_the_dealer_may_self_draw_the_dealt_hand() -> None:
    """The dealer's 14 dealt tiles already complete: a self-drawn win, base 1 + 1 from each (L520)."""
    t = _table({**HANDS, 0: "123456789m11199p"})
    _voids(t, "s", "s", "s", "s")
    t.ok({"type": "declare_win", "seat": 0})
    hand = t.state.hand
    assert hand is not None and [w for r in hand.wins for w in r.winners] == [0]
    assert t.state.session.scores == (6, -2, -2, -2)


def test_concealed_kong_then_win_on_the_replacement_L502_L544() -> None:
    """暗杠: 2 from each (L502); 杠上花: the win on the kong's replacement adds 1 fan (L544):
    杠 1 + 杠上花 1 = 2 fan -> base 4, self-drawn: 4 + 1 from each (L520)."""
    hands = {0: "1111m234567m99p34p", 1: "2468m2468p2468s9s", 2: "3579m3579p3579s8s", 3: "2468m1357p1357s9m"}
    t = _table(hands, draws="5p")
    _voids(t, "s", "m", "p", "m")
    t.ok({"type": "concealed_kong", "seat": 0, "tile": "1m"})
    assert t.state.session.scores == (6, -2, -2, -2)
    t.ok({"type": "declare_win", "seat": 0})
    hand = t.state.hand
    assert hand is not None
    win = hand.wins[0]
    assert win.total == 2
    assert t.state.session.scores == (21, -7, -7, -7)


def test_robbing_a_timely_promoted_kong_L494_L546() -> None:
    """抢杠: a win on the tile added to a 加杠 scores 1 fan and is paid by the promoter as the discarder; the
    robbed kong earns no kong money and stays a pong (L494, L546)."""
    hands = {0: "2345678m111999p5p", 1: "1234m6789m55p22p7p", 2: "123m456m789m33p46p", 3: "45m678m777p888p99s"}
    t = _table(hands, draws="9s1s2s5p")
    _voids(t, "s", "s", "s", "s")
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "claim", "seat": 1, "kind": "pung"})
    t.pass_all()
    for seat, tile in ((1, "7p"), (2, "9s"), (3, "9s"), (0, "2s")):
        t.ok({"type": "discard", "seat": seat, "tile": tile})
        if t.phase() is Phase.CLAIMS:
            t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 1 and hand.drawn is not None and hand.drawn.code == "5p"
    t.ok({"type": "promoted_kong", "seat": 1, "tile": "5p"})
    assert t.phase() is Phase.ROB_KONG
    t.ok({"type": "claim", "seat": 2, "kind": "win"})
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and [w for r in hand.wins for w in r.winners] == [2]
    assert any(name == "Robbing the Kong" for name, _, _ in hand.wins[0].fans)
    assert t.state.session.scores == (0, -2, 2, 0)  # 1 fan -> base 2 from the promoter; no kong money
    assert [m.kind.value for m in hand.seats[1].melds] == ["pung"]  # the robbed kong is void (L546)


def test_a_seat_that_may_not_win_pongs_only_to_reach_tenpai_L654() -> None:
    """停和陪打 (here an active pig, L350-L352): the seat plays on but may pong or kong only when it leaves the hand
    tenpai (L654)."""
    hands = {0: "2345678m111999p5p", 1: "13579m157p22p33p9p", 2: "12456789m33p245p", 3: "45m678m777p666p88p"}
    t = _table(hands)
    _voids(t, "s", "m", "s", "s")
    t.ok({"type": "discard", "seat": 0, "tile": "9p"})
    t.pass_all()
    t.ok({"type": "discard", "seat": 1, "tile": "1p"})  # still holds 13579m of its void: 主动花猪, 停和陪打
    hand = t.state.hand
    assert hand is not None and hand.seats[1].dead is not None
    t.pass_all()
    t.ok({"type": "discard", "seat": 2, "tile": "3p"})
    rej = t.rejected({"type": "claim", "seat": 1, "kind": "pung"})
    assert rej.reason == "illegal_claim" and "L654" in rej.message  # 13579m 57p 22p after it: far from tenpai


def test_a_seat_that_may_not_win_may_pong_to_reach_tenpai_L654() -> None:
    """The other side of L654: the 停和陪打 seat's pong that leaves it tenpai (after throwing its last void tile)
    is accepted."""
    hands = {0: "2345678m111999p5p", 1: "1m22p345p678p99s55s", 2: "12456789m33p234p", 3: "45m678m777p666p88p"}
    t = _table(hands, draws="9s5s")
    _voids(t, "s", "m", "s", "s")
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.pass_all()
    t.ok({"type": "discard", "seat": 1, "tile": "9s"})  # still holds 1m of its void: 主动花猪, 停和陪打
    hand = t.state.hand
    assert hand is not None and hand.seats[1].dead is not None
    if t.phase() is Phase.CLAIMS:
        t.pass_all()
    t.ok({"type": "discard", "seat": 2, "tile": "5s"})
    t.ok({"type": "claim", "seat": 1, "kind": "pung"})  # then 1m goes: 22p 345p 678p 99s waits on 2p/9s
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 1 and [m.kind.value for m in hand.seats[1].melds] == ["pung"]
