"""Issue 16, Sichuan SBR 2025 and HKMA 2025 points 3, 4, 7, 10 on the live engine (each failed before its fix)."""

from __future__ import annotations

from dataclasses import replace

from controller.engine.effects import InfractionEffect
from controller.engine.ruleset import ClaimKind
from controller.engine.state import Phase
from tests.engine_sichuan.table_helpers import Table, stacked_wall

S = "sichuan-sbr-2025"
SICHUAN = {0: "123456789m12345p", 2: "555p12345678s11s", 3: "1123456778m555s"}
R = "riichi-hkma-2025"


def _sichuan() -> Table:
    t = Table(S)
    t.build(stacked_wall(S, SICHUAN, draws="9m"))
    for seat, suit in ((0, "s"), (1, "s"), (2, "m"), (3, "p")):
        t.ok({"type": "void", "seat": seat, "suit": suit})
    assert t.phase() is Phase.TURN
    return t


def _empty_wall(t: Table) -> None:
    """The live wall runs out before the dealer's discard (stands for a whole hand of draws)."""
    hand = t.state.hand
    assert hand is not None
    t.state = replace(t.state, hand=replace(hand, front=hand.wall_size - hand.back, live=()))
    assert t.state.hand is not None and t.state.hand.wall_remaining == 0


def _kinds(fx: tuple[object, ...]) -> list[str]:
    return [e.infraction["kind"] for e in fx if isinstance(e, InfractionEffect)]


# --- point 3: Sichuan pung on the last discard ---------------------------------------------------------------


def test_sichuan_pung_on_the_last_discard_is_allowed() -> None:
    """海底牌（牌墙摸完后打出的牌）允许碰 (001 L383); a kong is not (no replacement left)."""
    t = _sichuan()
    _empty_wall(t)
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    assert t.rejected({"type": "claim", "seat": 2, "kind": "kong"}).reason == "illegal_claim"
    t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and t.phase() is Phase.TURN
    assert hand.seats[2].melds[-1].kind == "pung"
    t.ok({"type": "discard", "seat": 2, "tile": "1s"})
    if t.phase() is Phase.CLAIMS:
        t.pass_all()
    assert t.phase() is not Phase.TURN  # nothing left to draw: the hand is over


def test_mcr_last_discard_still_allows_only_a_win() -> None:
    from tests.engine.engine_helpers import PRIORITY_HANDS
    from tests.engine.engine_helpers import Table as McrTable

    t = McrTable()
    t.deal(PRIORITY_HANDS)
    hand = t.state.hand
    assert hand is not None
    t.state = replace(t.state, hand=replace(hand, front=hand.wall_size - hand.back, live=()))
    t.ok("discard", seat=0, tile="5p")
    assert t.rejected("claim", seat=2, kind="pung").reason == "illegal_claim"


# --- point 4: changing a call to a higher one -------------------------------------------------------------


def test_sichuan_pung_caller_changes_to_a_win_when_another_calls() -> None:
    """改报 (001 L434): "如 A 喊碰, B 喊和, A 可以改口喊和"; without another call nothing changed."""
    t = _sichuan()
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    assert t.rejected({"type": "claim", "seat": 2, "kind": "win"}).reason == "already_acted"
    t.ok({"type": "claim", "seat": 1, "kind": "win"})
    t.ok({"type": "claim", "seat": 2, "kind": "win"})
    hand = t.state.hand
    assert hand is not None and hand.claim is not None
    assert {(c.seat, c.kind) for c in hand.claim.calls} == {(1, ClaimKind.WIN), (2, ClaimKind.WIN)}
    # a win is never withdrawn (the same line): no change back to a pung
    assert t.rejected({"type": "claim", "seat": 2, "kind": "pung"}).reason == "already_acted"


def _riichi(hands: dict[int, str], draws: str = "") -> Table:
    t = Table(R)
    t.build(stacked_wall(R, hands, draws=draws))
    assert t.phase() is Phase.TURN
    return t


HKMA = {0: "123456789m2345p1z", 1: "34p111s999s1z5z6z7z9p", 2: "55p222s888s1z5z6z7z9p"}


def test_hkma_chi_caller_changes_to_ron_after_a_competing_pon() -> None:
    """如果選手叫吃後, 另有對手採用「鳴牌優先規條」叫碰或槓, 選手有權改叫和了 (002 L421)."""
    t = _riichi(HKMA)
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "claim", "seat": 1, "kind": "chow", "tiles": ["3p", "4p"]})
    assert t.rejected({"type": "claim", "seat": 1, "kind": "win"}).reason == "already_acted"
    t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    t.ok({"type": "claim", "seat": 1, "kind": "win"})
    hand = t.state.hand
    assert hand is not None and hand.claim is not None
    assert {(c.seat, c.kind) for c in hand.claim.calls} == {(1, ClaimKind.WIN), (2, ClaimKind.PUNG)}


# --- point 7: late calls -----------------------------------------------------------------------------------


def test_sichuan_late_call_is_simply_void() -> None:
    """"若超出该时长则所有的报牌无效" (001 L428): void, no infraction."""
    t = _sichuan()
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.pass_all()
    rej = t.rejected({"type": "claim", "seat": 2, "kind": "pung"})
    assert rej.reason == "no_window" and "L428" in rej.message
    assert not t.state.infractions


def test_hkma_late_calls_escalate_over_the_half_game() -> None:
    """Level 2 (2 points), a repeat in the half-game level 4 (8 points, no win), then level 5 (25) [002 L512-L515]:
    the count runs over the session, not per hand."""
    t = _riichi(HKMA)
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.pass_all()
    fx = t.send({"type": "claim", "seat": 2, "kind": "pung"})
    assert _kinds(fx) == ["late_call"] and t.state.infractions[-1].points == 2
    assert t.state.hand is not None and t.state.hand.seats[2].dead is None
    fx = t.send({"type": "claim", "seat": 2, "kind": "pung"})
    assert _kinds(fx) == ["late_call"] and t.state.infractions[-1].points == 8
    assert t.state.hand is not None and t.state.hand.seats[2].dead is not None
    fx = t.send({"type": "claim", "seat": 2, "kind": "pung"})
    assert t.state.infractions[-1].points == 25


# --- point 10: kuikae ------------------------------------------------------------------------------------


def test_hkma_kuikae_same_face_after_a_pon_is_taken_back() -> None:
    """喰替 caught at once (002 L566): the tile goes back, level 2; the seat then discards a legal tile."""
    hands = {0: "123456789m2345p1z", 1: "345p11s999s1z5z6z7z9p", 2: "222p888s1z5z6z7z4m4m9p"}
    t = _riichi(hands)
    t.ok({"type": "discard", "seat": 0, "tile": "2p"})
    t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    t.pass_all()
    fx = t.ok({"type": "discard", "seat": 2, "tile": "2p"})
    assert _kinds(fx) == ["kuikae"] and t.state.infractions[-1].points == 2
    assert t.phase() is Phase.TURN
    t.ok({"type": "discard", "seat": 2, "tile": "9p"})
    assert t.phase() is Phase.CLAIMS


def test_hkma_kuikae_other_end_of_a_chi_refused_with_level_2() -> None:
    hands = {0: "123456789m2345p1z", 1: "345p11s999s1z5z6z7z9p", 2: "222s888s1z5z6z7z4m4m9p"}
    t = _riichi(hands)
    t.ok({"type": "discard", "seat": 0, "tile": "2p"})
    t.ok({"type": "claim", "seat": 1, "kind": "chow", "tiles": ["3p", "4p"]})  # 2-3-4p with the 2p
    t.pass_all()
    fx = t.ok({"type": "discard", "seat": 1, "tile": "5p"})  # the other end: suji kuikae
    assert _kinds(fx) == ["kuikae"] and t.state.infractions[-1].points == 2
    hand = t.state.hand
    assert hand is not None and hand.turn == 1 and t.phase() is Phase.TURN
    assert any(x.code == "5p" for x in hand.seats[1].known)  # taken back
    t.ok({"type": "discard", "seat": 1, "tile": "1z"})
    assert t.phase() is Phase.CLAIMS


def test_hkma_kuikae_option_off() -> None:
    hands = {0: "123456789m2345p1z", 1: "345p11s999s1z5z6z7z9p", 2: "222s888s1z5z6z7z4m4m9p"}
    t = Table(R + ":kuikae=off")
    t.build(stacked_wall(R, hands))
    t.ok({"type": "discard", "seat": 0, "tile": "2p"})
    t.ok({"type": "claim", "seat": 1, "kind": "chow", "tiles": ["3p", "4p"]})
    t.pass_all()
    fx = t.ok({"type": "discard", "seat": 1, "tile": "5p"})
    assert _kinds(fx) == [] and t.phase() is Phase.CLAIMS


# --- point 14: physical inputs -------------------------------------------------------------------------------


def test_sichuan_void_from_the_seat_buttons() -> None:
    """定缺 from the two-button panel (hw/panel.py): *call* steps m -> p -> s, *pass* puts the choice down; the
    choice stays hidden until all four are down (001 L346-L348)."""
    from controller.views import public_view

    t = Table(S)
    t.build(stacked_wall(S, SICHUAN, draws="9m"))
    assert t.rejected({"type": "button", "seat": 2, "button": "pass"}).reason == "bad_event"  # nothing picked
    t.ok({"type": "button", "seat": 2, "button": "call"})  # m
    t.ok({"type": "button", "seat": 2, "button": "call"})  # p
    t.ok({"type": "button", "seat": 2, "button": "call"})  # s
    t.ok({"type": "button", "seat": 2, "button": "call"})  # m again
    assert public_view(t.state)["sichuan"]["void_chosen"] == [False, False, False, False]
    t.ok({"type": "button", "seat": 2, "button": "pass"})
    assert public_view(t.state)["sichuan"]["void_chosen"] == [False, False, True, False]
    assert t.rejected({"type": "button", "seat": 2, "button": "call"}).reason == "already_acted"
    for seat, presses in ((0, 3), (1, 3), (3, 2)):
        for _ in range(presses):
            t.ok({"type": "button", "seat": seat, "button": "call"})
        t.ok({"type": "button", "seat": seat, "button": "pass"})
    assert t.phase() is Phase.TURN
    assert public_view(t.state)["sichuan"]["voids"] == ["s", "s", "m", "p"]


def test_riichi_from_the_seat_call_button() -> None:
    """Riichi from the panel: the seat's *call* button in its own turn, then the discard (002 L363, L366)."""
    from controller.engine.ext_riichi import riichi_of

    t = _riichi({0: "123456789m2345p1z"})
    assert t.rejected({"type": "button", "seat": 1, "button": "call"}).reason == "wrong_phase"
    t.ok({"type": "button", "seat": 0, "button": "call"})
    ext = riichi_of(t.state.hand)
    assert ext is not None and ext.intent == 0
    t.ok({"type": "discard", "seat": 0, "tile": "1z"})
    t.pass_all()
    ext = riichi_of(t.state.hand)
    assert ext is not None and ext.riichi[0]


# --- point 15: the dora indicator read by the camera (partial information) ------------------------------------


def _dora(t: Table, tile: str, position: int = 0, **extra: object) -> tuple[object, ...]:
    return t.ok({"type": "camera", "observation": {"type": "dora_indicator", "seat": 0, "tiles": [tile],
                                                   "claimed_from": None, "position": position,
                                                   "confidence": 0.99, "frame_id": 7, **extra}})


def test_partial_information_dora_indicator_from_the_camera() -> None:
    """The dead wall is face down to the engine but its indicator is turned up on the table (002 L37): the
    camera's reading becomes the hand's dora indicator; a contradicting or out-of-order reading is an alert."""
    from controller.engine.effects import Alert
    from controller.views import public_view

    t = Table(R, mode="partial")
    t.ok({"type": "table_built", "tiles": None, "dice": [[1, 2], [3, 4]]})
    assert public_view(t.state)["riichi"]["dora_indicators"] == []
    fx = _dora(t, "8p")
    assert not any(isinstance(e, Alert) for e in fx)
    assert public_view(t.state)["riichi"]["dora_indicators"] == ["8p"]
    assert _dora(t, "8p") == ()  # the same reading again: acknowledged
    fx = _dora(t, "9p")
    assert any(isinstance(e, Alert) and e.kind == "camera_mismatch" for e in fx)
    fx = _dora(t, "3z", position=1)  # no kan yet: no kan-dora indicator is turned up
    assert any(isinstance(e, Alert) and e.kind == "camera_mismatch" for e in fx)
    assert public_view(t.state)["riichi"]["dora_indicators"] == ["8p"]


def test_full_information_dora_reading_must_match_the_wall() -> None:
    from controller.engine.effects import Alert

    dead = "1s2s3s4s8p2z2z2z2z3z3z3z3z8s"  # indicator dead[4] = 8p
    t = Table(R)
    t.build(stacked_wall(R, {0: "123456789m2345p1z"}, dead=dead))
    assert not any(isinstance(e, Alert) for e in _dora(t, "8p"))
    assert any(isinstance(e, Alert) and e.kind == "camera_mismatch" for e in _dora(t, "7p"))


# --- point 5: declaring tenpai at an exhaustive draw is optional ------------------------------------------


def _riichi_draw(rules: str) -> Table:
    """The dealer discards 1z, tenpai on 2p/5p, and the wall is empty: an exhaustive draw."""
    t = Table(rules)
    noten = {1: "159m159p159s1357z", 2: "268m268p268s2z4z6z1z", 3: "37m37p37s4m4p4s2z4z6z7z"}
    t.build(stacked_wall(R, {0: "123456789m2345p1z", **noten}))
    _empty_wall(t)
    t.ok({"type": "discard", "seat": 0, "tile": "1z"})
    t.pass_all()
    assert t.phase() is Phase.HAND_OVER and t.state.history[-1].kind == "draw"
    return t


def test_hkma_tenpai_declaration_is_optional() -> None:
    """「聽牌」 is optional (002 L427): by default the tenpai dealer declares (3000 noten payments, renchan); when he
    presses *pass* (「不聽」) the payments and the dealer's continuation follow (L429-L435)."""
    from controller.engine.ext_riichi import session_of

    t = _riichi_draw(R)
    assert t.state.session.scores == (3000, -1000, -1000, -1000) and t.state.session.dealer == 0
    assert t.rejected({"type": "button", "seat": 1, "button": "call"}).reason == "bad_hand"  # not tenpai
    t.ok({"type": "button", "seat": 0, "button": "pass"})
    assert t.state.session.scores == (0, 0, 0, 0)
    assert t.state.session.dealer == 1 and session_of(t.state.session).honba == 1
    assert t.state.history[-1].payments == (0, 0, 0, 0)
    t.ok({"type": "button", "seat": 0, "button": "call"})  # changes his mind before the next wall
    assert t.state.session.scores == (3000, -1000, -1000, -1000) and t.state.session.dealer == 0


def test_hkma_tenpai_default_noten_option() -> None:
    t = _riichi_draw(R + ":tenpai_default=noten")
    assert t.state.session.scores == (0, 0, 0, 0) and t.state.session.dealer == 1
    t.ok({"type": "button", "seat": 0, "button": "call"})
    assert t.state.session.scores == (3000, -1000, -1000, -1000) and t.state.session.dealer == 0


def test_hkma_tenpai_declared_by_the_camera_seeing_the_hand_opened() -> None:
    """Point 5's other input: after the draw the overhead camera sees the dealer's hand laid open (「聽牌」 shows the
    hand, 「不聽」 keeps it covered: 002 L427): that is his declaration; a reading that is not his hand is an
    alert and changes nothing."""
    from controller.engine.effects import Alert

    t = _riichi_draw(R + ":tenpai_default=noten")
    assert t.state.session.scores == (0, 0, 0, 0) and t.state.session.dealer == 1
    shown = {"type": "win_shown", "seat": 0, "claimed_from": None, "position": 0, "confidence": 0.99, "frame_id": 9}
    fx = t.ok({"type": "camera", "observation": {**shown, "tiles": ["1p", "1p", "1p", "2p", "3p", "4p", "5p", "6p",
                                                                   "7p", "8p", "9p", "1z", "1z"]}})
    assert any(isinstance(e, Alert) and e.kind == "camera_mismatch" for e in fx)
    assert t.state.session.scores == (0, 0, 0, 0)
    hand = t.state.hand
    assert hand is not None
    codes = [x.code for x in hand.seats[0].known]
    fx = t.ok({"type": "camera", "observation": {**shown, "tiles": codes}})
    assert not any(isinstance(e, Alert) for e in fx)
    assert t.state.session.scores == (3000, -1000, -1000, -1000) and t.state.session.dealer == 0
