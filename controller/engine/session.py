"""The session (局): hand settlement, dealer rotation, rounds and seat changes, the session clock, standings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from controller.engine.effects import Alert, Effect, HandEnded, McuCommand, SessionEnded, SetLed
from controller.engine.ext import ext_of  # rules extension hooks (Sichuan, riichi)
from controller.engine.query import player_index, ruleset_of
from controller.engine.state import AlertRec, GameState, HandResult, Phase
from controller.engine.timers import cancel_hand_timers, start
from mjtable.tiles import format_tiles


def add_scores(state: GameState, per_seat: Sequence[int]) -> GameState:
    """Add a per-seat score change (sums to zero) to the players sitting there now."""
    scores = list(state.session.scores)
    for seat in range(4):
        scores[player_index(state, seat)] += per_seat[seat]
    return replace(state, session=replace(state.session, scores=(scores[0], scores[1], scores[2], scores[3])))


def win_json(r: HandResult) -> dict[str, object]:
    """One winner's part of a result: his hand, fans, total and the payments of this win alone (per seat)."""
    return {"winner": r.winners[0], "discarder": r.discarder, "win_tile": r.win_tile.code if r.win_tile else None,
            "self_drawn": r.self_drawn, "fans": [{"name": n, "points": p, "count": c} for n, p, c in r.fans],
            "total": r.total, "payments": list(r.payments), "hand": dict(r.hands).get(r.winners[0], "")}


def result_json(r: HandResult) -> dict[str, object]:
    """A hand result as JSON; ``wins`` lists each winner's own part (one entry for a single winner)."""
    parts = r.wins or ((r,) if r.kind == "win" and r.winners else ())
    return {"kind": r.kind, "winners": list(r.winners), "discarder": r.discarder,
            "win_tile": r.win_tile.code if r.win_tile else None, "self_drawn": r.self_drawn,
            "fans": [{"name": n, "points": p, "count": c} for n, p, c in r.fans], "total": r.total,
            "payments": list(r.payments), "hands": {str(s): h for s, h in r.hands},
            "wins": [win_json(w) for w in parts]}


def end_hand(state: GameState, result: HandResult, fx: list[Effect]) -> GameState:
    """Settle the hand, reveal concealed kongs, rotate the dealer (no repeat) and set up the next hand."""
    hand = state.hand
    assert hand is not None
    state = cancel_hand_timers(state, fx)
    if result.kind == "draw":
        # concealed kongs (only they) are revealed for checking at an exhaustive draw [000:L511; 004:L250]
        shown = tuple((s, "".join(f"{{{format_tiles(m.tiles)}}}" for m in hand.seats[s].melds
                                  if m.kind == "concealed_kong" and m.tiles))
                      for s in range(4) if any(m.kind == "concealed_kong" and m.tiles for m in hand.seats[s].melds))
        result = replace(result, hands=shown)
    state, result = ext_of(state).settle_hand(state, result, fx)  # rules extension: 查大叫, noten payments, sticks
    hand = state.hand or hand
    state = add_scores(state, result.payments)
    hand = replace(hand, result=result, turn=None, claim=None)
    sess = state.session
    rules = ruleset_of(state)
    dealer, round_done = rules.next_dealer(hand.dealer, result.winners, result.kind == "draw")
    hand_in_round = 0 if round_done else sess.hand_in_round + 1
    round_no = sess.round_no + 1 if round_done else sess.round_no
    sess = replace(sess, hand_no=sess.hand_no + 1, hand_in_round=hand_in_round, round_no=round_no, dealer=dealer,
                   wins=sess.wins + (1 if result.kind == "win" else 0),
                   draws=sess.draws + (1 if result.kind == "draw" else 0))
    sess = ext_of(state).next_session(state, hand, result, sess)  # extension: Sichuan dealer, riichi renchan/honba
    state = replace(state, hand=hand, session=sess, phase=Phase.HAND_OVER, history=(*state.history, result))
    for seat in range(4):
        fx.append(SetLed(seat=seat, on=False))
    fx.append(HandEnded(result=result_json(result)))
    if sess.hand_no >= state.config.hands_total or sess.ended:
        return end_session(state, fx)
    fx.append(McuCommand(name="shuffle_and_build", args={"tile_set": rules.tileset.total}))
    return state


def end_session(state: GameState, fx: list[Effect]) -> GameState:
    """The session is over: standings 4/2/1/0 by session score net of penalties."""
    state = cancel_hand_timers(state, fx)
    for name in ("session", "session_warning"):
        from controller.engine.timers import cancel

        state = cancel(state, name, fx)
    sess = replace(state.session, ended=True)
    state = replace(state, session=sess, phase=Phase.SESSION_OVER)
    net = [sess.scores[p] - sess.penalties[p] for p in range(4)]
    fx.append(SessionEnded(scores=net, ranking_points=ext_of(state).ranking_points(state, net)))
    return state


def start_session_clock(state: GameState, session_s: float | None, warning_s: float, fx: list[Effect]) -> GameState:
    if session_s is None:
        return state
    state = start(state, "session", None, session_s, fx)
    if session_s > warning_s:
        state = start(state, "session_warning", None, session_s - warning_s, fx)
    return state


def session_warning(state: GameState, fx: list[Effect]) -> GameState:
    """15 minutes before the end the chief referee announces it [000:L438-440; 004:L217]."""
    a = AlertRec(id=f"alert-{len(state.alerts) + 1}", kind="session_warning",
                 message="the session time limit is near: this is the warning before the end", at_s=state.now_s)
    fx.append(Alert(id=a.id, kind=a.kind, message=a.message))
    return replace(state, alerts=(*state.alerts, a), session=replace(state.session, warned=True))


def session_time_up(state: GameState, fx: list[Effect]) -> GameState:
    """Time is up: the hand in progress stops and scores stand as already earned [000:L438-440]."""
    if state.phase in (Phase.HAND_OVER, Phase.BUILDING, Phase.SESSION_OVER) or state.hand is None:
        return end_session(state, fx)
    state = replace(state, session=replace(state.session, ended=True))
    if ext_of(state).finish_hand_at_time_up():  # rules extension: Sichuan finishes the running hand first (L290)
        return state
    return end_hand(state, HandResult(kind="stopped"), fx)


def final_standings(rules: str, results: Sequence[Sequence[tuple[float, int]]]) -> list[int]:
    """Order of players over several sessions (best first) with the version's tie-breaks.

    ``results[p]`` lists player ``p``'s ``(ranking_points, session_score)`` per session.  All versions sort by
    total ranking points; ties: V2006 higher total score [004:L435]; V1998 and V2017 higher total score, then
    higher single-session ranking points, then more high single-session ranking points [000:L731-737;
    003:L45@5359]; still tied: shared place (equal keys keep player order).
    """

    def key(p: int) -> tuple[float, ...]:
        rp = [r for r, _ in results[p]]
        total_score = sum(s for _, s in results[p])
        base: tuple[float, ...] = (-sum(rp), -total_score)
        if rules == "mcr-2006":
            return base
        best = sorted(rp, reverse=True)
        return (*base, -(best[0] if best else 0.0), *(-x for x in best))

    return sorted(range(len(results)), key=key)
