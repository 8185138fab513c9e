"""HKMA 2025 riichi procedure steps in the live engine (``controller/engine/ext_riichi.py``), one test per rule with its
seed line (``Lnnn`` of ``002_40e04c10307d973b.txt``, digest ``../shared/rules/riichi-hk-rules.md``)."""

from __future__ import annotations

from controller.engine.ext_riichi import riichi_of, session_of
from controller.engine.state import Phase
from controller.views import public_view, referee_view
from tests.engine_sichuan.table_helpers import Table, stacked_wall

R = "riichi-hkma-2025"
# dealer (seat 0) is tenpai on 2p/5p after discarding 1z; the dead wall's indicator (dead[4]) is 8p, the first
# ura indicator (dead[9]) 3z
DEAD = "1s2s3s4s8p2z2z2z2z3z3z3z3z8s"
DEALER = "123456789m2345p1z"


def _table(hands: dict[int, str], draws: str) -> Table:
    t = Table(R)
    t.build(stacked_wall(R, hands, draws=draws, dead=DEAD))
    assert t.state.phase is Phase.TURN
    return t


def _discard_and_pass(t: Table, seat: int, tile: str, **extra: object) -> None:
    t.ok({"type": "discard", "seat": seat, "tile": tile, **extra})
    if t.state.phase is Phase.CLAIMS:
        t.pass_all()


def _sum_with_deposits(t: Table) -> int:
    return sum(t.state.session.scores) + 1000 * session_of(t.state.session).sticks


def test_riichi_needs_tenpai_after_the_declaration_tile() -> None:
    """Riichi: closed hand, tenpai after the discard, a live tile left (L363)."""
    t = _table({0: DEALER}, draws="")
    rej = t.rejected({"type": "discard", "seat": 0, "tile": "1m", "riichi": True})
    assert rej.reason == "bad_event" and "riichi" in rej.message


def test_riichi_stick_ippatsu_tsumo_ura_dora() -> None:
    """The stick goes down once the declaration tile passes (L366); after riichi the drawn tile is discarded
    and no chi/pon is allowed (L367); riichi on one's first uninterrupted discard is double riichi (L364); a
    win within one go-around is ippatsu (L769) and collects the deposits (L47); dora is shown at once (L37),
    ura-dora only for a riichi winner (L38)."""
    t = _table({0: DEALER}, draws="9s9s4m5p")
    assert public_view(t.state)["riichi"]["dora_indicators"] == ["8p"]
    t.ok({"type": "discard", "seat": 0, "tile": "1z", "riichi": True})
    assert t.state.session.scores == (0, 0, 0, 0)  # the declaration tile is still open to a ron
    t.pass_all()
    assert t.state.session.scores == (-1000, 0, 0, 0) and session_of(t.state.session).sticks == 1
    assert public_view(t.state)["riichi"]["riichi"] == [True, False, False, False]
    assert public_view(t.state)["riichi"]["double_riichi"] == [True, False, False, False]
    _discard_and_pass(t, 1, "9s")
    _discard_and_pass(t, 2, "9s")
    t.ok({"type": "discard", "seat": 3, "tile": "4m"})
    rej = t.rejected({"type": "claim", "seat": 0, "kind": "chow", "tiles": ["2m", "3m"]})
    assert rej.reason == "illegal_claim" and "riichi" in rej.message
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 0 and hand.drawn is not None and hand.drawn.code == "5p"
    assert t.rejected({"type": "discard", "seat": 0, "tile": "1m"}).reason == "bad_event"
    assert public_view(t.state)["riichi"]["ura_indicators"] == []  # hidden until a riichi win
    t.ok({"type": "declare_win", "seat": 0})
    hand = t.state.hand
    assert hand is not None and hand.result is not None and hand.result.winners == (0,)
    names = {n for n, _, _ in hand.result.fans}
    assert {"Double Riichi", "Ippatsu", "Menzen Tsumo"} <= names  # riichi on the first discard (L364)
    assert sum(hand.result.payments) == 1000  # the deposit on the table goes to the winner
    assert session_of(t.state.session).sticks == 0 and _sum_with_deposits(t) == 0
    view = public_view(t.state)["riichi"]
    assert view["ura_indicators"] == ["3z"] and view["dora_indicators"] == ["8p"]


def test_discard_furiten_forbids_ron() -> None:
    """A player whose wait is among his own discards may not ron (L391-L392): a ron call is a false win (錯和,
    App. B 9): level 5, 25 (L651-L655), and with 20+ live tiles the hand is redealt, same dealer (L657)."""
    t = _table({0: DEALER, 1: "234567p234s55s67s"}, draws="5s8s")
    _discard_and_pass(t, 0, "1z")
    _discard_and_pass(t, 1, "5s")  # keeps 55s67s: waits 5s/8s, and 5s is in the pond
    assert referee_view(t.state, with_waits=False)["riichi"]["furiten"][1] is True
    t.ok({"type": "discard", "seat": 2, "tile": "8s"})
    t.ok({"type": "claim", "seat": 1, "kind": "win"})
    t.pass_all()  # the window closes when the others have passed: then the call is judged
    assert [(i.kind, i.seat, i.points) for i in t.state.infractions] == [("false_win_dead_hand", 1, 0),
                                                                           ("false_win_lv5", 1, 25)]
    hand = t.state.hand
    assert hand is not None and hand.result is not None and hand.result.kind == "draw"
    assert hand.result.payments == (0, 0, 0, 0)  # no noten payments for a redeal
    assert t.state.phase is Phase.HAND_OVER and t.state.session.dealer == 0


def test_chi_only_from_the_left() -> None:
    """Chi only from the player on the left (上家, L309)."""
    t = _table({0: DEALER, 2: "23m"}, draws="")
    t.ok({"type": "discard", "seat": 0, "tile": "1m"})
    assert t.rejected({"type": "claim", "seat": 2, "kind": "chow", "tiles": ["2m", "3m"]}).reason == "illegal_claim"


def test_pao_on_the_third_dragon_pon() -> None:
    """Responsibility (包牌): the discarder of the tile completing the third dragon set is liable
    (L730-L738)."""
    t = _table({0: "5z" + "123456789m2345p", 1: "55z66z77z", 2: "6z", 3: "7z"}, draws="9s9s1p9s")

    def pon_and_discard(discarder: int, tile: str) -> None:
        t.ok({"type": "discard", "seat": discarder, "tile": tile})
        t.ok({"type": "claim", "seat": 1, "kind": "pung"})
        if t.state.phase is Phase.CLAIMS:
            t.pass_all()
        hand = t.state.hand
        assert hand is not None and hand.turn == 1
        own = next(x for x in hand.seats[1].known if x.kind < 27)
        _discard_and_pass(t, 1, own.code)

    pon_and_discard(0, "5z")
    pon_and_discard(2, "6z")
    _discard_and_pass(t, 2, "9s")  # seat 2 again (after seat 1): its draw
    pon_and_discard(3, "7z")
    ext = riichi_of(t.state.hand)
    assert ext is not None and ext.pao[1] is not None and ext.pao[1][0] == 3
    assert referee_view(t.state, with_waits=False)["riichi"]["pao"] == [None, 3, None, None]
    assert "pao" not in public_view(t.state)["riichi"]


def test_kan_replacement_from_the_dead_wall_and_kan_dora_at_once() -> None:
    """A kan's replacement comes from the dead wall, which stays at 14 tiles (L23, L348-L349); its kan-dora
    indicator is revealed at once (L37)."""
    t = _table({0: "1111m56789m2345p1z"}, draws="")
    hand = t.state.hand
    assert hand is not None
    left = hand.wall_remaining
    t.ok({"type": "concealed_kong", "seat": 0, "tile": "1m"})
    hand = t.state.hand
    assert hand is not None and hand.drawn is not None and hand.drawn.code == "1s"  # dead[0]
    assert hand.wall_remaining == left - 1  # the last live tile joined the dead wall
    assert public_view(t.state)["riichi"]["dora_indicators"] == ["8p", "2z"]  # dead[4], dead[5]


def test_a_false_first_ron_voids_the_later_ron() -> None:
    """Head bump (L415): the nearest caller is judged first; a false win voids later declarations (L194)."""
    # seat 1 is furiten on 8s (discarded 5s, waits 5s/8s); seat 3 waits on 8s with a round-wind pung
    t = _table({0: DEALER, 1: "234567p234s55s67s", 3: "123456789m111z8s"}, draws="5s9s9s8s")
    _discard_and_pass(t, 0, "1z")
    _discard_and_pass(t, 1, "5s")
    _discard_and_pass(t, 2, "9s")
    _discard_and_pass(t, 3, "9s")
    t.ok({"type": "discard", "seat": 0, "tile": "8s"})
    t.ok({"type": "claim", "seat": 3, "kind": "win"})
    t.ok({"type": "claim", "seat": 1, "kind": "win"})
    if t.state.phase is Phase.CLAIMS:
        t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.result is not None
    assert hand.result.winners == ()  # seat 1 (nearest) was false: seat 3's ron is void, the hand is redealt
    assert [i.kind for i in t.state.infractions] == ["false_win_dead_hand", "false_win_lv5"]


def test_partial_information_riichi_and_deposit() -> None:
    """Face-down hands: play starts at once (no flowers in the set); a riichi declaration is accepted for the
    referee to check and its stick goes to the table (L366)."""
    t = Table(R, mode="partial")
    t.ok({"type": "table_built", "tiles": None, "dice": [[1, 2], [3, 4]]})
    assert t.phase() is Phase.TURN
    t.ok({"type": "discard", "seat": 0, "tile": "1z", "riichi": True})
    t.pass_all()
    assert t.state.session.scores == (-1000, 0, 0, 0) and session_of(t.state.session).sticks == 1
    assert public_view(t.state)["riichi"]["dora_indicators"] == []  # the dead wall is face down


def test_riichi_button_then_a_camera_discard_declares_riichi() -> None:
    """On the physical table riichi is the seat's button and then the discard the camera sees (L363, L366)."""
    t = _table({0: DEALER}, draws="")
    assert t.rejected({"type": "button", "seat": 1, "button": "riichi"}).reason == "out_of_turn"
    t.ok({"type": "button", "seat": 0, "button": "riichi"})
    assert t.rejected({"type": "discard", "seat": 0, "tile": "1m"}).reason == "bad_event"  # not tenpai after it
    t.ok({"type": "camera", "observation": {"type": "discard", "seat": 0, "tiles": ["1z"], "claimed_from": None,
                                            "position": 0, "confidence": 0.99, "frame_id": 1}})
    t.pass_all()
    assert public_view(t.state)["riichi"]["riichi"] == [True, False, False, False]
    assert t.state.session.scores == (-1000, 0, 0, 0)
