"""Issue 16 points 7, 8, 10 under Sichuan SBR 2025 (seed 001) and HKMA 2025 (seed 002): wrong and empty calls are
recorded as the seeds say, a 喰替 that stands is level 3, turn overruns follow the seeds (each failed before)."""

from __future__ import annotations

from dataclasses import replace

from controller.engine.effects import Alert, InfractionEffect
from controller.engine.events import SessionStart
from controller.engine.ext_riichi_state import riichi_of
from controller.engine.state import Phase
from controller.engine.step import start_session
from tests.engine_sichuan.table_helpers import T0, Table, stacked_wall

S = "sichuan-sbr-2025"
R = "riichi-hkma-2025"
SICHUAN = {0: "123456789m12345p", 2: "555p12345678s11s", 3: "1123456778m555s"}
HKMA = {0: "123456789m2345p1z", 1: "34p111s999s1z5z6z7z9p", 2: "55p222s888s1z5z6z7z9p"}


def _kinds(fx: tuple[object, ...]) -> list[str]:
    return [e.infraction["kind"] for e in fx if isinstance(e, InfractionEffect)]


def _alerts(fx: tuple[object, ...]) -> list[Alert]:
    return [e for e in fx if isinstance(e, Alert)]


def _sichuan(voids: tuple[str, str, str, str] = ("s", "s", "m", "m"), **timers: float) -> Table:
    t = Table(S)
    if timers:
        t.state, t.fx = start_session(SessionStart(id="e1", at_s=T0, rules=S, timer_overrides=tuple(timers.items())))
    t.build(stacked_wall(S, SICHUAN, draws="9m"))
    for seat, suit in enumerate(voids):
        t.ok({"type": "void", "seat": seat, "suit": suit})
    assert t.phase() is Phase.TURN
    return t


def _riichi(hands: dict[int, str], **timers: float) -> Table:
    t = Table(R)
    if timers:
        t.state, t.fx = start_session(SessionStart(id="e1", at_s=T0, rules=R, timer_overrides=tuple(timers.items())))
    t.build(stacked_wall(R, hands))
    assert t.phase() is Phase.TURN
    return t


# --- point 8, Sichuan: 错碰/错杠 and 空碰/空杠 are category 4 (warning, serious warning, then category 3) ------


def test_sichuan_pung_on_the_missing_suit_is_a_wrong_pung_category_4() -> None:
    """错碰 (2) "不符合定缺规则" stopped before one's own discard: restored, category 4 (001 L736, L740); the
    call is void (the seat has acted on the discard)."""
    t = _sichuan()
    t.ok({"type": "discard", "seat": 0, "tile": "1m"})
    fx = t.ok({"type": "claim", "seat": 3, "kind": "pung"})  # seat 3 holds 11m but its missing suit is m
    assert _kinds(fx) == ["wrong_call"]
    inf = t.state.infractions[-1]
    assert inf.points == 0 and "category 4" in inf.message and "warning" in inf.message and "L740" in inf.message
    hand = t.state.hand
    assert hand is not None and not hand.seats[3].melds and hand.seats[3].dead is None
    assert hand.claim is None or 3 in hand.claim.passed


def test_sichuan_empty_pung_then_serious_warning_then_category_3_alert() -> None:
    """空碰 "报出碰/杠后未进行所报行为" is category 4 (001 L762); a second warning is a serious warning (L646), a
    third 应被警告 act after it is category 3, 1-8 副分 at the referee's measure (L640): raised with evidence."""
    t = _sichuan()
    t.ok({"type": "discard", "seat": 0, "tile": "1m"})
    fx = t.ok({"type": "claim", "seat": 3, "kind": "pung"})  # wrong (void): warning
    t.pass_all()
    assert t.state.hand is not None and t.state.hand.turn == 1
    t.ok({"type": "discard", "seat": 1, "tile": t.state.hand.drawn.code if t.state.hand.drawn else "9m"})
    fx = t.ok({"type": "claim", "seat": 3, "kind": "kong"})  # holds no three of it: empty kong
    assert _kinds(fx) == ["empty_call"]
    assert "serious warning" in t.state.infractions[-1].message and "L762" in t.state.infractions[-1].message
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 2
    t.ok({"type": "discard", "seat": 2, "tile": "1s"})
    fx = t.ok({"type": "claim", "seat": 3, "kind": "kong"})
    assert _kinds(fx) == ["empty_call"]
    inf = t.state.infractions[-1]
    assert inf.points == 0 and inf.status == "proposed" and "category 3" in inf.message
    (alert,) = _alerts(fx)
    assert alert.kind == "penalty_measure" and alert.data["infraction_id"] == inf.id
    assert alert.data["journal_seq"] == t.state.seq and alert.data["player"] == "P4"


# --- point 8, HKMA: 取消鳴牌 level 2 (escalating), 搭子誤鳴 raised -------------------------------------------------


def test_hkma_empty_pon_is_a_cancelled_call_level_2_then_4() -> None:
    """A pon the seat cannot make is a call given up: 「如果選手在叫鳴後放棄鳴牌會被判處二級處分」 (002 L570); a
    repeat in the half-game is level 4: 8 points and no win (L512-L514)."""
    t = _riichi(HKMA)
    t.ok({"type": "discard", "seat": 0, "tile": "1m"})
    fx = t.ok({"type": "claim", "seat": 2, "kind": "pung"})  # seat 2 holds no 1m
    assert _kinds(fx) == ["cancelled_call"] and t.state.infractions[-1].points == 2
    assert "L570" in t.state.infractions[-1].message
    hand = t.state.hand
    assert hand is not None and hand.claim is not None and 2 in hand.claim.passed and hand.seats[2].dead is None
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 1
    t.ok({"type": "discard", "seat": 1, "tile": "9p"})
    fx = t.ok({"type": "claim", "seat": 2, "kind": "pung"})  # one 9p only
    assert _kinds(fx) == ["cancelled_call"] and t.state.infractions[-1].points == 8
    hand = t.state.hand
    assert hand is not None and hand.seats[2].dead is not None
    assert t.state.session.penalties == (0, 0, 10, 0)


def test_hkma_wrong_chi_tiles_are_raised_and_can_be_corrected_at_once() -> None:
    """搭子誤鳴 (002 L558-L562): the shown set may be corrected at once, the penalty is by the tiles exposed (A-II
    L538-L546), which only the referee sees after the correction: an alert with the evidence, nothing applied;
    the corrected chi is taken."""
    t = _riichi(HKMA)
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    fx = t.ok({"type": "claim", "seat": 1, "kind": "chow", "tiles": ["1s", "1s"]})
    assert _kinds(fx) == []
    (alert,) = _alerts(fx)
    assert alert.kind == "wrong_call" and alert.data["tiles"] == ["1s", "1s"] and alert.data["player"] == "P2"
    assert "L558" in alert.message and alert.data["journal_seq"] == t.state.seq
    t.ok({"type": "claim", "seat": 1, "kind": "chow", "tiles": ["3p", "4p"]})
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 1 and hand.seats[1].melds[-1].kind == "chow"


# --- point 10: a 喰替 that stands is level 3 ------------------------------------------------------------------


KUIKAE = {0: "123456789m2345p1z", 1: "345p11s999s1z5z6z7z9p", 2: "50p222s888s1z5z6z9p"}


def _kuikae_refused() -> Table:
    """Seat 1 chis 2p with 3p4p and discards 5p, the other end of the run: refused, level 2 (002 L566)."""
    t = _riichi(KUIKAE)
    t.ok({"type": "discard", "seat": 0, "tile": "2p"})
    t.ok({"type": "claim", "seat": 1, "kind": "chow", "tiles": ["3p", "4p"]})
    t.pass_all()
    fx = t.ok({"type": "discard", "seat": 1, "tile": "5p"})
    assert _kinds(fx) == ["kuikae"] and t.state.infractions[-1].points == 2
    assert t.state.session.penalties == (0, 2, 0, 0)
    return t


def test_hkma_kuikae_stands_when_the_next_player_draws() -> None:
    """「若發現選手錯誤時下家已摸牌並混入手牌…則捨牌成立,該局處以三級處分」 (002 L566): the 5p was not taken back
    and the next player drew (his *pass*: the draw signal): the discard stands, level 3 (no win this hand)
    replaces the level 2."""
    t = _kuikae_refused()
    fx = t.ok({"type": "button", "seat": 2, "button": "pass"})
    assert _kinds(fx) == ["kuikae"]
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and t.phase() is Phase.TURN
    assert hand.seats[1].pond[-1].tile.code == "5p" and hand.seats[1].dead is not None
    first, last = t.state.infractions
    assert first.status == "waived" and last.points == 0 and "level 3" in last.message and "L566" in last.message
    assert t.state.session.penalties == (0, 0, 0, 0)


def test_hkma_kuikae_stands_when_another_player_calls_it() -> None:
    """「或他家已宣告鳴取該捨牌」 (002 L566): a call on the tile makes it stand, level 3, and the call is taken."""
    t = _kuikae_refused()
    fx = t.ok({"type": "claim", "seat": 2, "kind": "pung"})
    assert _kinds(fx) == ["kuikae"] and "level 3" in t.state.infractions[-1].message
    hand = t.state.hand
    assert hand is not None and hand.seats[1].pond[-1].tile.code == "5p" and hand.seats[1].dead is not None
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and hand.seats[2].melds[-1].kind == "pung"


def test_hkma_kuikae_taken_back_stays_level_2() -> None:
    t = _kuikae_refused()
    t.ok({"type": "discard", "seat": 1, "tile": "9p"})
    t.pass_all()
    hand = t.state.hand
    assert hand is not None and hand.turn == 2 and hand.seats[1].dead is None
    assert [(i.kind, i.points, i.status) for i in t.state.infractions] == [("kuikae", 2, "applied")]
    ext = riichi_of(hand)
    assert ext is not None and ext.kuikae_back is None  # seat 1's later turns are not haunted by it


# --- point 7: turn overruns - the seeds set no penalty: an alert with the evidence ------------------------------


def test_sichuan_turn_overrun_is_an_alert_and_no_penalty() -> None:
    """Sichuan times only the calls (3 s, 001 L428) and the draw "应在 3 秒内摸牌" (L430) with no penalty; a venue's
    discard limit (timer override) raises ``timer_zero`` with the evidence and records nothing."""
    t = _sichuan(turn_s=10.0)
    t.ok({"type": "discard", "seat": 0, "tile": "1m"})
    t.pass_all()
    fx = t.ok({"type": "tick", "at_s": t.state.now_s + 11.0})
    (alert,) = _alerts(fx)
    assert alert.kind == "timer_zero" and alert.data["player"] == "P2" and alert.data["journal_seq"] == t.state.seq
    assert not t.state.infractions


def test_hkma_turn_overrun_is_an_alert_and_no_penalty() -> None:
    """HKMA sets no thinking time and no penalty for slow play (002 L202-L206 define only the reaction time)."""
    t = _riichi(HKMA, turn_s=10.0)
    fx = t.ok({"type": "tick", "at_s": t.state.now_s + 11.0})
    (alert,) = _alerts(fx)
    assert alert.kind == "timer_zero" and alert.data["player"] == "P1"
    assert not t.state.infractions


def test_hkma_late_ron_is_an_empty_win_withdrawn_level_4() -> None:
    """「如果選手在合理反應時間後,才採用「鳴牌優先規條」宣言鳴牌,會被視為鳴牌取消或空和」 (002 L422): a late pon is a
    call given up (level 2), a late ron an empty win (空和); the table refuses it before the hand is shown, which
    is 「在公開手牌前…和了取消…四級處分」 (L649): level 4, 8 points and no win this hand."""
    t = _riichi(HKMA)
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    t.pass_all()
    fx = t.send({"type": "claim", "seat": 3, "kind": "win"})
    assert _kinds(fx) == ["empty_win"]
    inf = t.state.infractions[-1]
    assert inf.points == 8 and "L649" in inf.message
    hand = t.state.hand
    assert hand is not None and hand.seats[3].dead is not None


def test_sichuan_empty_pung_on_the_last_discard_is_recorded_too() -> None:
    """A pung on the last discard is a right in Sichuan (001 L383), so an empty one there is 空碰 like any other
    (L762); a kong there stays a plain refusal (no replacement tile: no such right)."""
    t = _sichuan()
    hand = t.state.hand
    assert hand is not None
    t.state = replace(t.state, hand=replace(hand, front=hand.wall_size - hand.back, live=()))
    t.ok({"type": "discard", "seat": 0, "tile": "5p"})
    assert t.rejected({"type": "claim", "seat": 3, "kind": "kong"}).reason == "illegal_claim"
    fx = t.ok({"type": "claim", "seat": 3, "kind": "pung"})  # seat 3 holds no 5p
    assert _kinds(fx) == ["empty_call"]
