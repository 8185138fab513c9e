"""HKMA 2025: declaring tenpai at an exhaustive draw is optional (issue 16 point 5).

"流局時, 只有達成聽牌形…的參賽者可以宣告「聽牌」(非必須…)…否則參賽者只能宣告「不聽」, 並須蓋上手牌" (002 L427).
The engine settles the draw at once with a default (profile option ``tenpai_default``: ``declare``, every tenpai
hand declares - the usual choice, and what a silent table gets - or ``noten``, only riichi hands declare) and then,
until the next wall is built, takes each seat's declaration from its panel: *call* = 「聽牌」 (the hand is shown;
refused for a hand that is not tenpai), *pass* = 「不聽」 (the hand stays face down).  A riichi hand must declare
(its riichi is checked at the draw, B-I L635-L637).  Each change re-settles the noten payments (L429-L433) and the
dealer's continuation (renchan on dealer tenpai, L435) from the values kept at the draw.

Pure, the engine's thread.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from controller.engine.errors import Reject
from controller.engine.ext_riichi_state import riichi_of, session_of, set_at, tenpai_waits
from controller.engine.state import GameState, Phase

if TYPE_CHECKING:
    from controller.engine.effects import Effect
    from controller.riichi.ruleset import RiichiRuleset


def default_declarations(rules: RiichiRuleset, shape: tuple[bool, ...], riichi: tuple[bool, ...]) -> tuple[bool, ...]:
    """Who declares tenpai when nobody presses anything: ``shape`` = tenpai hands, ``riichi`` = riichi hands."""
    if rules.options.tenpai_default == "noten":
        return tuple(t and r for t, r in zip(shape, riichi, strict=True))
    return shape


def declare(rules: RiichiRuleset, state: GameState, seat: int, tenpai: bool, fx: list[Effect]) -> GameState:
    """``seat`` declares 「聽牌」 (``tenpai``) or 「不聽」 after the exhaustive draw; re-settle if it changes."""
    from controller.engine.session import add_scores, end_session

    hand = state.hand
    ext = riichi_of(hand)
    if hand is None or ext is None or ext.tenpai is None or ext.draw_pre is None or state.phase is not Phase.HAND_OVER:
        raise Reject("wrong_phase", "tenpai is declared after an exhaustive draw, before the next wall (L427)")
    s = hand.seats[seat]
    if not s.fully_known and tenpai:
        pass  # partial information: the referee sees the shown hand; the declaration is taken as made
    elif tenpai and not tenpai_waits(hand, seat):
        raise Reject("bad_hand", f"seat {seat} is not tenpai: it can only declare noten (L427)")
    if not tenpai and ext.riichi[seat]:
        raise Reject("bad_event", "a riichi hand shows its tenpai at the draw (L635-L637)")
    if ext.tenpai[seat] == tenpai:
        return state
    new = set_at(ext.tenpai, seat, tenpai)
    old_pay = rules.noten_payments(ext.tenpai)
    new_pay = rules.noten_payments(new)
    delta = tuple(n - o for n, o in zip(new_pay, old_pay, strict=True))
    state = add_scores(state, (delta[0], delta[1], delta[2], delta[3]))
    result = hand.result
    if result is not None:
        pay = tuple(p + d for p, d in zip(result.payments, delta, strict=True))
        result = replace(result, payments=(pay[0], pay[1], pay[2], pay[3]))
        history = (*state.history[:-1], result) if state.history else state.history
        state = replace(state, history=history)
    dealer, round_no, kyoku, honba = ext.draw_pre
    nh = rules.next_hand(dealer=dealer, round_no=round_no, hand_in_round=kyoku, honba=honba, dealer_won=False,
                         non_dealer_won=False, dealer_tenpai=bool(new[dealer]))
    sx = session_of(state.session)
    sess = replace(state.session, dealer=nh.dealer, round_no=nh.round_no, hand_in_round=nh.hand_in_round,
                   ended=nh.finished, extra=replace(sx, honba=nh.honba, kyoku=nh.hand_in_round))
    state = replace(state, session=sess, hand=replace(hand, result=result, extra=replace(ext, tenpai=new)))
    if nh.finished:
        return end_session(state, fx)
    return state


__all__ = ["declare", "default_declarations"]
