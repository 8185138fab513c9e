"""Sichuan SBR 2025 procedure steps in the live engine (``controller/engine/ext_sichuan.py``), one test per rule with
its seed line (``Lnnn`` of ``001_2f25afa9281b00ab.txt``, digest ``../shared/rules/sichuan-rules.md``)."""

from __future__ import annotations

from controller.engine.effects import InfractionEffect, McuCommand, Rejected
from controller.engine.ext_sichuan import sichuan_of
from controller.engine.registry import ruleset_for
from controller.engine.simulate import SimRun
from controller.engine.state import Phase
from controller.engine.step import step
from controller.views import public_view, referee_view
from tests.engine_sichuan.table_helpers import Table, stacked_wall

R = "sichuan-sbr-2025"
# seat 0 (dealer, 14): no bamboo; seat 2: a pung of 5p, void m; seat 3: waits on 6m/9m, void p
HANDS = {0: "123456789m12345p", 2: "555p12345678s11s", 3: "1123456778m555s"}


def _table(draws: str = "9m", hands: dict[int, str] | None = None) -> Table:
    t = Table(R)
    t.build(stacked_wall(R, HANDS if hands is None else hands, draws=draws))
    return t


def _voids(t: Table, voids: dict[int, str], tiles: dict[int, str] | None = None) -> None:
    for seat in range(4):
        ev = {"type": "void", "seat": seat, "suit": voids[seat]}
        if tiles and seat in tiles:
            ev["tile"] = tiles[seat]
        t.ok(ev)


def test_void_choice_is_simultaneous_and_hidden_until_all_four_chose() -> None:
    """定缺 right after the deal, all four at once, face down, turned up together (L346-L348)."""
    t = _table()
    assert t.state.phase is Phase.VOID
    assert t.rejected({"type": "discard", "seat": 0, "tile": "1m"}).reason == "wrong_phase"
    t.ok({"type": "void", "seat": 2, "suit": "m"})
    pub = public_view(t.state)["sichuan"]
    assert pub["voids"] == [None, None, None, None]  # nobody sees a choice before the reveal
    assert pub["void_chosen"] == [False, False, True, False]
    assert referee_view(t.state, with_waits=False)["sichuan"]["voids"][2] == "m"
    assert t.rejected({"type": "void", "seat": 2, "suit": "p"}).reason == "already_acted"
    assert t.rejected({"type": "void", "seat": 1, "suit": "z"}).reason == "bad_event"
    for seat, suit in ((0, "s"), (1, "p"), (3, "p")):
        t.ok({"type": "void", "seat": seat, "suit": suit})
    assert t.phase() is Phase.TURN and t.state.hand is not None and t.state.hand.turn == 0  # dealer starts
    assert public_view(t.state)["sichuan"]["voids"] == ["s", "p", "m", "p"]
    assert t.rejected({"type": "void", "seat": 0, "suit": "m"}).reason == "wrong_phase"


def test_void_tile_face_down_must_be_the_first_discard() -> None:
    """Without cards: one tile of the suit face down in front of the hand, which must be the first discard
    (L348).  The face-down tile is referee-only information."""
    t = _table()
    assert t.rejected({"type": "void", "seat": 0, "suit": "p", "tile": "1m"}).reason == "bad_event"
    _voids(t, {0: "p", 1: "s", 2: "m", 3: "p"}, tiles={0: "3p"})
    assert public_view(t.state)["sichuan"].get("void_tiles") is None
    assert referee_view(t.state, with_waits=False)["sichuan"]["void_tiles"][0] == "3p"
    assert t.rejected({"type": "discard", "seat": 0, "tile": "1p"}).reason == "bad_event"
    t.ok({"type": "discard", "seat": 0, "tile": "3p"})


def test_no_pong_or_win_on_the_missing_suit() -> None:
    """No pong, kong or win on a tile of one's missing suit (L342, L736): the pong is not made; since issue 16 it
    is recorded as 错碰, category 4 (L740), and the call is void (the seat has acted)."""
    t = _table()
    _voids(t, {0: "s", 1: "p", 2: "p", 3: "p"})  # seat 2 chose p although it holds 555p
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    fx = t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    inf = [f.infraction for f in fx if isinstance(f, InfractionEffect)]
    assert [(i["kind"], i["points"]) for i in inf] == [("wrong_call", 0)] and "missing suit" in inf[0]["message"]
    hand = t.state.hand
    assert hand is not None and not hand.seats[2].melds
    assert t.rejected({"type": "claim", "seat": 2, "kind": "kong"}).reason == "illegal_claim"  # acted: not again
    assert len(t.state.infractions) == 1


def test_active_pig_discarding_another_suit_while_holding_the_void() -> None:
    """主动花猪: a non-void discard while the hand holds the missing suit: category 2 (24) and 停和陪打
    (L350-L352, L630, L776)."""
    t = _table()
    _voids(t, {0: "p", 1: "s", 2: "m", 3: "p"})  # seat 0 still holds 12345p
    fx = t.ok({"type": "discard", "seat": 0, "tile": "9m"})
    inf = [f.infraction for f in fx if isinstance(f, InfractionEffect)]
    assert [(i["kind"], i["points"], i["seat"]) for i in inf] == [("active_pig", 24, 0)]
    assert t.state.session.penalties[0] == 24
    hand = t.state.hand
    assert hand is not None and hand.seats[0].dead is not None
    ext = sichuan_of(hand)
    assert ext is not None and ext.pigs[0] and ext.discarded_other[0]


def test_concealed_kong_money_and_replacement_from_the_front() -> None:
    """暗杠: 2 from each player still in, paid at once (L502); the replacement is the next wall tile in
    normal order (L403)."""
    t = _table(draws="9m", hands={0: "1111m23456789m1p", 2: "555p12345678s11s"})
    _voids(t, {0: "s", 1: "p", 2: "m", 3: "p"})
    t.ok({"type": "concealed_kong", "seat": 0, "tile": "1m"})
    assert t.state.session.scores == (6, -2, -2, -2)
    hand = t.state.hand
    assert hand is not None and hand.drawn is not None and hand.drawn.code == "9m"  # the front draw
    ledger = public_view(t.state)["sichuan"]["ledger"]
    assert ledger[-1]["kind"] == "kong" and ledger[-1]["deltas"] == [6, -2, -2, -2]


def test_called_kong_then_win_on_its_discard_refunds_the_kong_money() -> None:
    """点杠: the discarder pays 2 (L490); 杠上炮: a win on the discard right after one's kong scores 1 fan
    (L545) and the kong money goes back (退税, L506); the winner leaves, the hand goes on (血战到底, L466)."""
    t = _table()
    _voids(t, {0: "s", 1: "s", 2: "m", 3: "p"})
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "button", "seat": 1, "button": "pass"})
    t.ok({"type": "button", "seat": 3, "button": "pass"})
    t.ok({"type": "claim", "seat": 2, "kind": "kong"})
    assert t.state.session.scores == (-2, 0, 2, 0)
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and hand.drawn is not None and hand.drawn.code == "9m"
    t.ok({"type": "discard", "seat": 2, "tile": "9m"})
    t.ok({"type": "button", "seat": 0, "button": "pass"})
    t.ok({"type": "button", "seat": 1, "button": "pass"})
    t.ok({"type": "claim", "seat": 3, "kind": "win"})
    hand = t.state.hand
    assert hand is not None and hand.result is None and hand.seats[3].out  # bloody battle goes on
    win = hand.wins[0]
    assert ("Win on Discard after Kong", 1, 1) in win.fans
    base = 1 << min(win.total, 3)
    assert t.state.session.scores == (0, 0, -base, base)  # kong money refunded, the win paid by seat 2
    kinds = [line["kind"] for line in public_view(t.state)["sichuan"]["ledger"]]
    assert kinds == ["kong", "kong_refund"]
    assert sum(t.state.session.scores) == 0


def test_one_throw_breaks_the_14_13_stack_wall() -> None:
    """One throw of two dice by the dealer (L318): the sum names the wall (3 -> 对家, L322-L328), the smaller die
    the stacks counted from its right end (L332); E/W build 14 stacks and S/N 13 (L310)."""
    t = Table(R)
    physical = [x.code for x in ruleset_for(R).tileset.all_tiles()]
    fx = t.ok({"type": "table_built", "tiles": physical})
    assert [(f.name, f.args) for f in fx if isinstance(f, McuCommand)] == [("roll_dice", {"throw": 1})]
    fx = t.ok({"type": "dice_rolled", "dice": [1, 2]})
    assert t.state.phase is Phase.VOID and not any(isinstance(f, McuCommand) for f in fx)
    assert t.rejected({"type": "dice_rolled", "dice": [3, 4]}).reason == "wrong_phase"
    # seat 2's wall is ring 2 (seats 0, 3, 2, 1 clockwise) and starts after 14 + 13 stacks; skip 1 stack
    first = (14 + 13 + 1) * 2
    hand = t.state.hand
    assert hand is not None
    assert [x.code for x in hand.wall[:4]] == physical[first:first + 4]
    dealer_first_four = sorted(physical[first:first + 4])
    assert all(code in [x.code for x in hand.seats[0].known] for code in dealer_first_four)


def test_passed_win_then_win_on_no_more_fan_is_shunhe() -> None:
    """顺和: a player who let a win pass may not win on a tile worth no more fan before his next draw
    (L248); treated like 诈和: category 2 (24) and his kong money refunded (L782-L784); the call is void."""
    t = _table(draws="9m")
    _voids(t, {0: "s", 1: "s", 2: "m", 3: "p"})
    t.ok({"type": "discard", "seat": 0, "tile": "9m"})  # seat 3 could win on it (11 234 567 789m 555s)
    t.pass_all()
    ext = sichuan_of(t.state.hand)
    assert ext is not None and ext.passed_fan[3] == 0
    t.ok({"type": "discard", "seat": 1, "tile": "6m"})
    t.ok({"type": "claim", "seat": 3, "kind": "win"})
    assert [(i.kind, i.seat, i.points) for i in t.state.infractions] == [("passed_win", 3, 24)]
    hand = t.state.hand
    assert hand is not None and not hand.wins and hand.seats[3].dead is not None


def test_false_win_is_category_two() -> None:
    """诈和: a declared win that is not one: category 2, 24 (L780-L786); the seat plays on without winning."""
    t = _table()
    _voids(t, {0: "s", 1: "s", 2: "m", 3: "p"})
    t.ok({"type": "discard", "seat": 0, "tile": "9m"})
    t.ok({"type": "claim", "seat": 1, "kind": "win"})
    t.pass_all()
    kinds = [(i.kind, i.seat, i.points) for i in t.state.infractions]
    assert ("false_win_penalty", 1, 24) in kinds and t.state.session.penalties[1] == 24
    hand = t.state.hand
    assert hand is not None and hand.seats[1].dead is not None and not hand.wins


def test_partial_information_void_and_kong_money() -> None:
    """One overhead camera (face-down hands): 定缺 and kong money work without knowing the concealed tiles."""
    t = Table(R, mode="partial")
    t.ok({"type": "table_built", "tiles": None, "dice": [[1, 2]]})
    _voids(t, {0: "m", 1: "p", 2: "s", 3: "m"})
    assert t.phase() is Phase.TURN
    t.ok({"type": "concealed_kong", "seat": 0, "tile": ""})  # face down, face unknown
    assert t.state.session.scores == (6, -2, -2, -2)  # 暗杠 money (L502)


def test_promoted_kong_with_the_drawn_tile_pays_one_from_each() -> None:
    """加杠 with the tile just drawn (及时雨): 1 from each player still in, once nobody robs it (L494); the pong
    itself earns nothing."""
    hands = {0: "123456789m12345p", 1: "1122334455667m", 2: "55p123456789s11s", 3: "778899m6789p999p"}
    t = _table(draws="2s3s4s5p", hands=hands)
    _voids(t, {0: "s", 1: "s", 2: "m", 3: "s"})
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    t.pass_all()
    assert t.state.session.scores == (0, 0, 0, 0)
    for seat, tile in ((2, "1s"), (3, "2s"), (0, "3s"), (1, "4s")):
        t.ok({"type": "discard", "seat": seat, "tile": tile})
        if t.phase() is Phase.CLAIMS:
            t.pass_all()
    t.ok({"type": "promoted_kong", "seat": 2, "tile": "5p"})
    assert t.phase() is Phase.ROB_KONG  # others may rob it first (L546)
    t.pass_all()
    assert t.state.session.scores == (-1, -1, 3, -1)
    assert public_view(t.state)["sichuan"]["ledger"][-1]["note"].startswith("promoted_timely")


def test_two_winners_on_one_discard_then_the_discarder_deals() -> None:
    """一炮多响: every player who calls 和 on the discard wins, each paid by the discarder (L470, L518); the hand
    goes on without them (L466); several first winners at once: the discarder deals next (L482)."""
    hands = {0: "123456789m12345p", 1: "234456m78m999s22s", 3: "1123456778m555s"}
    t = _table(draws="", hands=hands)
    _voids(t, {0: "s", 1: "p", 2: "m", 3: "p"})
    t.ok({"type": "discard", "seat": 0, "tile": "9m"})
    t.ok({"type": "claim", "seat": 1, "kind": "win"})
    t.ok({"type": "claim", "seat": 3, "kind": "win"})
    t.ok({"type": "button", "seat": 2, "button": "pass"})
    hand = t.state.hand
    assert hand is not None and hand.result is None
    assert sorted(w for r in hand.wins for w in r.winners) == [1, 3]
    assert hand.seats[1].out and hand.seats[3].out
    scores = t.state.session.scores
    assert scores[0] < 0 and scores[2] == 0 and scores[0] == -(scores[1] + scores[3])
    ext = sichuan_of(hand)
    assert ext is not None and ext.first_winners == (1, 3) and ext.first_discarder == 0
    run = SimRun(rules=R, seed=0)  # the bots play the hand out (seats 0 and 2 are still in)
    state = t.state
    while state.phase is not Phase.HAND_OVER:
        ev = run.next_event(state)
        assert ev is not None
        state, fx = step(state, ev)
        assert not (fx and isinstance(fx[0], Rejected)), fx
    assert state.session.dealer == 0


def test_promoted_kong_with_a_tile_kept_earlier_earns_nothing() -> None:
    """加杠 with a tile already in the hand (not the one just drawn): no kong money (L496-L500)."""
    hands = {0: "123456789m12345p", 1: "1122334455667m", 2: "55p123456789s11s", 3: "778899m6789p999p"}
    t = _table(draws="2s3s4s5p6s7s8s9m1p", hands=hands)
    _voids(t, {0: "s", 1: "s", 2: "m", 3: "s"})
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    t.pass_all()
    for seat, tile in ((2, "1s"), (3, "2s"), (0, "3s"), (1, "4s"), (2, "2s"), (3, "6s"), (0, "7s"), (1, "8s")):
        t.ok({"type": "discard", "seat": seat, "tile": tile})  # seat 2 keeps the 5p it drew
        if t.phase() is Phase.CLAIMS:
            t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and hand.drawn is not None and hand.drawn.code == "9m"
    t.ok({"type": "promoted_kong", "seat": 2, "tile": "5p"})
    t.pass_all()
    assert t.state.session.scores == (0, 0, 0, 0)
    ledger = public_view(t.state)["sichuan"]["ledger"]
    assert ledger[-1]["note"].startswith("promoted_late") and ledger[-1]["deltas"] == [0, 0, 0, 0]
