"""HKMA 2025 riichi rules that only the retired standalone riichi procedure (deleted in issue 18) tested, now
checked on the live engine.  Seed lines ``Lnnn`` of ``../shared/seeds/002_40e04c10307d973b.txt``
(digest ``../shared/rules/riichi-hk-rules.md``)."""

from __future__ import annotations

from controller.engine.ext_riichi import riichi_of, session_of
from controller.engine.state import Phase
from tests.engine_sichuan.table_helpers import Table, stacked_wall

R = "riichi-hkma-2025"
# the procedure tests' scenario: the dealer throws 1p (with or without riichi); seats 2 and 3 both wait on 1p;
# seat 1 holds four 7z
HANDS = {0: "123456789m122p33z", 1: "7777z1357m2468p1s", 2: "23p555z456s789s11s", 3: "666z123s456s789s1p"}


def _table(hands: dict[int, str], draws: str = "9m", dead: str = "") -> Table:
    t = Table(R)
    t.build(stacked_wall(R, hands, draws=draws, dead=dead))
    return t


def test_head_bump_and_a_ronned_riichi_tile_pays_no_deposit_L371_L415() -> None:
    """Two players ron the same tile: only the nearest in turn order wins (頭跳, L415); a riichi declaration tile
    that is ronned puts no stick down (L371)."""
    t = _table(HANDS)
    t.ok({"type": "discard", "seat": 0, "tile": "1p", "riichi": True})
    t.ok({"type": "claim", "seat": 3, "kind": "win"})
    t.ok({"type": "claim", "seat": 2, "kind": "win"})
    t.pass_all()
    assert t.phase() is Phase.HAND_OVER
    result = t.state.history[-1]
    assert result.kind == "win" and result.winners == (2,)
    assert session_of(t.state.session).sticks == 0
    assert t.state.session.scores == (-1300, 0, 1300, 0)  # haku 1 han 40 fu (L226)


def test_passing_a_winning_tile_is_temporary_furiten_until_the_own_draw_L393() -> None:
    """Who lets a winning tile pass may not ron until his own next draw (temporary furiten, L393)."""
    t = _table(HANDS)
    t.ok({"type": "discard", "seat": 0, "tile": "1p", "riichi": True})
    t.pass_all()
    assert session_of(t.state.session).sticks == 1 and t.state.session.scores == (-1000, 0, 0, 0)  # L366
    ext = riichi_of(t.state.hand)
    assert ext is not None and ext.temp_furiten[2] and ext.temp_furiten[3] and not ext.temp_furiten[1]
    t.ok({"type": "discard", "seat": 1, "tile": "9m"})  # seat 1 drew 9m
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and hand.drawn is not None
    t.ok({"type": "discard", "seat": 2, "tile": hand.drawn.code})  # seat 2's own turn has come: cleared
    ext = riichi_of(t.state.hand)
    assert ext is not None and not ext.temp_furiten[2]
    assert ext.temp_furiten[3]  # seat 3 has not had its turn yet


def test_pao_ron_is_paid_half_by_the_liable_player_and_half_by_the_discarder_L730_L736() -> None:
    """包牌 for big three dragons: on a ron by someone else, the liable player and the discarder pay half each
    (L736)."""
    hands = {0: "5z13579m13579p246s", 1: "55z66z77z123m4m19p9s", 2: "67z2468m1357p259s", 3: "4m369m2468p13578s"}
    t = _table(hands, draws="1z2z3z4z")
    t.ok({"type": "discard", "seat": 0, "tile": "5z"})
    t.ok({"type": "claim", "seat": 1, "kind": "pung"})
    t.pass_all()
    for seat, tile, pon in ((1, "1p", False), (2, "6z", True), (1, "9p", False), (2, "7z", True),
                            (1, "9s", False), (2, "2s", False), (3, "4m", False)):
        t.ok({"type": "discard", "seat": seat, "tile": tile})
        if pon:
            t.ok({"type": "claim", "seat": 1, "kind": "pung"})
        if t.phase() is Phase.CLAIMS:
            if seat == 3:
                t.ok({"type": "claim", "seat": 1, "kind": "win"})
            t.pass_all()
    result = t.state.history[-1]
    assert result.kind == "win" and result.winners == (1,)
    assert t.state.session.scores == (0, 32000, -16000, -16000)  # liable seat 2, discarder seat 3


def test_tenhou_on_the_dealt_hand_L916() -> None:
    """天和: the dealer's dealt 14 tiles complete: yakuman, 1.5 x 32000 for the dealer (L226, L916)."""
    t = _table({**HANDS, 0: "123456789m11199p"})
    t.ok({"type": "declare_win", "seat": 0})
    assert t.state.session.scores == (48000, -16000, -16000, -16000)
