"""Wins (on a discard, self-drawn, robbing a kong), false wins, exhaustive draws (MCR digest §2.10, §2.11, §5)."""

from __future__ import annotations

from dataclasses import replace

from controller.engine import penalties
from controller.engine.effects import Effect, SetLed, WinSettled
from controller.engine.errors import Reject
from controller.engine.ext import ext_of
from controller.engine.holding import check_can_hold
from controller.engine.procedure import remove_tiles, sorted_tiles, take, with_seat
from controller.engine.query import (
    compact_hand,
    next_active,
    player_name,
    ruleset_of,
    scoring_hand,
    seat_wind_tile,
    visible_copies,
)
from controller.engine.ruleset import FalseWinKind, WinCheck, WinSituation
from controller.engine.shanten import completing_kinds, is_complete, maybe_knitted
from controller.engine.state import Call, GameState, HandResult, Phase
from controller.engine.turn_clock import start_turn
from mjtable.tiles import Hand, MeldKind, NotationError, Tile, tile_counts


def situation(state: GameState, seat: int, t: Tile, *, self_drawn: bool, discarder: int | None,
              robbing: bool = False) -> WinSituation:
    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    sit = WinSituation(
        winner=seat, win_tile=t, self_drawn=self_drawn, discarder=discarder,
        seat_wind=seat_wind_tile(hand.dealer, seat), round_wind=hand.round_wind, flowers=len(s.flowers),
        after_kong=self_drawn and hand.after_kong, robbing_kong=robbing, last_tile=hand.wall_remaining <= 0,
        visible_copies=visible_copies(hand, t) - (0 if self_drawn else 1), dealer=hand.dealer,
        heavenly=self_drawn and seat == hand.dealer and _untouched(state, discards=0),
        earthly=(not self_drawn and not robbing and discarder == hand.dealer and seat != hand.dealer
                 and len(hand.seats[hand.dealer].pond) == 1 and _untouched(state, discards=1)),
        active=tuple(s for s in range(4) if not hand.seats[s].out))
    return ext_of(state).win_situation(state, sit)  # rules extension: void suit, riichi, dora, furiten, honba...


def _untouched(state: GameState, *, discards: int) -> bool:
    """The hand is still in its first go-round: ``discards`` tiles discarded in all, no set declared by
    anyone (a claim or a kong ends 天和 / 地和), no kong replacement drawn."""
    hand = state.hand
    assert hand is not None
    return (sum(len(x.pond) for x in hand.seats) == discards and not any(x.melds for x in hand.seats)
            and not hand.after_kong and not hand.wins)


def can_win_on(state: GameState, seat: int, t: Tile, discarder: int, *, robbing: bool) -> bool:
    """Full information: does ``t`` complete ``seat``'s hand with enough points?  Partial: unknown, so yes."""
    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    if not s.fully_known:
        return True
    if any(not m.tiles for m in s.melds):
        return True
    counts = tile_counts(s.known)
    if t.kind < 34:
        # the shape's waits are cached per concealed count vector (shanten.completing_kinds): one search
        # per hand state, then every discard is a set lookup
        complete = t.kind in completing_kinds(tuple(counts), len(s.melds))
        counts[t.kind] += 1
    else:
        complete = is_complete(counts, len(s.melds))
    if not complete and (len(s.melds) > 1 or not maybe_knitted(counts)):
        return False  # fast path: no standard/seven-pairs/orphans shape and no knitted one possible
    h = scoring_hand(hand, seat, s.known)
    check = ruleset_of(state).check_win(h, situation(state, seat, t, self_drawn=False, discarder=discarder,
                                                     robbing=robbing))
    return check.ok


def _revealed(state: GameState, seat: int, codes: tuple[str, ...], expect: int) -> tuple[Tile, ...]:
    """Concealed tiles a partial-information seat reveals at a win: checked against count and copies."""
    from controller.engine.procedure import parse_tile

    hand = state.hand
    assert hand is not None
    tiles = [parse_tile(c) for c in codes]
    if len(tiles) != expect:
        raise Reject("bad_hand", f"seat {seat} holds {expect} concealed tiles, {len(tiles)} were shown")
    s = hand.seats[seat]
    check_can_hold(hand, s, seat, tiles)  # raises on a fifth copy or a contradiction with known tiles
    return sorted_tiles(tiles)


def reveal_kongs(state: GameState, seat: int, codes: tuple[str, ...]) -> tuple[GameState, tuple[str, ...]]:
    """A partial-information seat turns up its face-down concealed kongs at a win (核实暗杠 [003:L45@2683]).

    Convention of the win's ``tiles``: the faces of the seat's face-down kongs come first, four by four, in
    the order the kongs were declared; the concealed tiles follow.  Returns the state with those kongs' faces
    filled in and the remaining codes.  Raises ``bad_hand`` / ``impossible_tile``."""
    from controller.engine.procedure import parse_tile
    from controller.engine.query import known_count

    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    faceless = [i for i, m in enumerate(s.melds) if m.kind is MeldKind.CONCEALED_KONG and not m.tiles]
    if not faceless:
        return state, codes
    if len(codes) < 4 * len(faceless):
        raise Reject("bad_hand", f"seat {seat} must turn up its {len(faceless)} face-down kong(s): four tiles each, "
                                 "first in the shown tiles")
    melds = list(s.melds)
    faces: set[int] = set()
    for n, i in enumerate(faceless):
        four = [parse_tile(c) for c in codes[4 * n: 4 * n + 4]]
        if len({t.kind for t in four}) != 1 or four[0].is_flower:
            raise Reject("bad_hand", f"face-down kong {n + 1} of seat {seat} must show four of one tile, got "
                                     f"{' '.join(t.code for t in four)}")
        if known_count(hand, four[0].kind) > 0 or four[0].kind in faces:
            raise Reject("impossible_tile", f"{four[0].code}: a copy is already face up, so it cannot be a "
                                            "face-down kong")
        faces.add(four[0].kind)
        melds[i] = replace(melds[i], tiles=sorted_tiles(four))
    hand = with_seat(hand, seat, replace(s, melds=tuple(melds)))
    return replace(state, hand=hand), codes[4 * len(faceless):]


def win_on_discard(state: GameState, c: Call, fx: list[Effect]) -> tuple[GameState, bool]:
    """Validate a win call in the window; a false win is penalised and the window goes on."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    seat = c.seat
    s = hand.seats[seat]
    if s.fully_known:
        concealed = s.known
    else:
        state, codes = reveal_kongs(state, seat, tuple(t.code for t in c.tiles))
        concealed = _revealed(state, seat, codes, s.unknown + len(s.known))
    sit = situation(state, seat, w.tile, self_drawn=False, discarder=w.discard_seat, robbing=w.robbing)
    check = _check(state, seat, concealed, sit)
    if check.ok:
        return settle_win(state, seat, concealed, sit, check, fx), True
    state = false_win(state, seat, check, fx)
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    calls = tuple(x for x in w.calls if x.seat != seat)
    excluded = w.excluded_winners | {seat}
    # later callers cannot win after a false first win [003:L45@3976]; riichi too, via ext_riichi (HKMA L194)
    if ruleset_of(state).name == "mcr-2017" or ext_of(state).false_win_voids_later_calls():
        excluded = excluded | {x.seat for x in calls}
    hand = replace(hand, claim=replace(w, calls=calls, excluded_winners=excluded))
    return replace(state, hand=hand), False


def _check(state: GameState, seat: int, concealed: tuple[Tile, ...], sit: WinSituation) -> WinCheck:
    hand = state.hand
    assert hand is not None
    if hand.seats[seat].dead is not None:
        return WinCheck(ok=False, false_win=FalseWinKind.DEAD_HAND,
                        reason=f"{player_name(state, seat)} has lost the right to win: {hand.seats[seat].dead}")
    try:
        h: Hand = scoring_hand(hand, seat, concealed)
    except (NotationError, ValueError) as exc:
        return WinCheck(ok=False, false_win=FalseWinKind.FAR_SHORT, reason=f"melds cannot be checked: {exc}")
    return ruleset_of(state).check_win(h, sit)


def self_draw_win(state: GameState, seat: int, codes: tuple[str, ...], win_code: str | None,
                  fx: list[Effect]) -> GameState:
    """``seat`` declares a win on its own draw (or 天和 for the dealer's first turn)."""
    from controller.engine.procedure import parse_tile

    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    if not s.fully_known:
        state, codes = reveal_kongs(state, seat, codes)
    full = s.known if s.fully_known else _revealed(state, seat, codes, len(s.known) + s.unknown)
    if win_code is not None:
        win = parse_tile(win_code)
    elif hand.drawn is not None:
        win = hand.drawn
    elif full:
        win = full[-1]
    else:
        raise Reject("bad_hand", "name the winning tile")
    try:
        concealed = remove_tiles(full, [win])
    except KeyError as exc:
        raise Reject("not_held", f"seat {seat} does not hold the winning tile {win.code}") from exc
    sit = situation(state, seat, win, self_drawn=True, discarder=None)
    check = _check(state, seat, concealed, sit)
    if check.ok:
        return settle_win(state, seat, concealed, sit, check, fx)
    return false_win(state, seat, check, fx)


def _dead_note(state: GameState, seat: int) -> str | None:
    """The referee's words on why ``seat`` is dead (``SeatState.dead_note``; referee-only), if any."""
    hand = state.hand
    return hand.seats[seat].dead_note if hand is not None else None


def false_win(state: GameState, seat: int, check: WinCheck, fx: list[Effect]) -> GameState:
    """错和 / 诈和: pay 10 or 20 to each, lose the right to win, keep playing [000:L801-804; 004:L459-460]."""
    rules = ruleset_of(state)
    kind = check.false_win or FalseWinKind.FAR_SHORT
    pay = rules.false_win_payments(kind, seat)
    from controller.engine.session import add_scores

    dead_note = _dead_note(state, seat) if kind == FalseWinKind.DEAD_HAND else None
    state = add_scores(state, pay)
    state = penalties.record(state, seat, f"false_win_{kind}", f"false win ({kind}): {check.reason}; "
                             f"pays {-pay[seat]}", fx, status="applied", note=dead_note)
    if rules.disqualifies(kind):
        state = penalties.record(state, seat, "disqualified", "intentional false win (有意诈和) [000:L804]", fx,
                                 status="proposed")
    state = penalties.after_false_win(state, seat, kind, fx)  # MCR 2017: warning, then disqualification [003:L45@3775]
    hand = state.hand
    assert hand is not None
    s = hand.seats[seat]
    return replace(state, hand=with_seat(hand, seat, replace(s, dead=f"false win ({kind})")))


def _record_win(state: GameState, seat: int, concealed: tuple[Tile, ...], sit: WinSituation,
                check: WinCheck) -> tuple[GameState, HandResult]:
    """Lay the winner's hand down and compute this win's result (payments not yet applied)."""
    hand = state.hand
    assert hand is not None
    kept = sorted_tiles([*concealed, sit.win_tile]) if sit.self_drawn else concealed  # the drawn tile stays his
    s = replace(hand.seats[seat], known=kept, unknown=0)
    hand = with_seat(hand, seat, s)
    if sit.discarder is not None and not sit.robbing_kong:
        d = hand.seats[sit.discarder]
        if d.pond and not d.pond[-1].called:
            hand = with_seat(hand, sit.discarder, replace(d, pond=(*d.pond[:-1], replace(d.pond[-1], called=True))))
    result = HandResult(kind="win", winners=(seat,), discarder=sit.discarder, win_tile=sit.win_tile,
                        self_drawn=sit.self_drawn, fans=check.fans, total=check.total,
                        payments=ruleset_of(state).payments(check, sit),
                        hands=((seat, compact_hand(replace(s, known=concealed), extra=sit.win_tile)),))
    return replace(state, hand=hand), result


def merge_results(results: tuple[HandResult, ...]) -> HandResult:
    """One hand result from several wins (bloody battle, or several winners on one discard): winners in
    order, payments summed; fans and total are the first win's; ``wins`` keeps each win with its own fans,
    total and payments (also in ``HandState.wins``) so the display and records show every winner's hand."""
    first = results[0]
    if len(results) == 1:
        return first
    pay = [sum(r.payments[s] for r in results) for s in range(4)]
    return replace(first, winners=tuple(w for r in results for w in r.winners),
                   payments=(pay[0], pay[1], pay[2], pay[3]), hands=tuple(h for r in results for h in r.hands),
                   wins=tuple(results))


def finish_wins(state: GameState, new: list[HandResult], after_seat: int, fx: list[Effect]) -> GameState:
    """End the hand with these wins, or (bloody battle) settle them now and play on without the winners."""
    from controller.engine.session import add_scores, end_hand, result_json

    hand = state.hand
    assert hand is not None
    rules = ruleset_of(state)
    total_wins = len(hand.wins) + len(new)
    seats = list(hand.seats)
    for r in new:
        for w in r.winners:
            seats[w] = replace(seats[w], out=True)
    still_in = sum(1 for x in seats if not x.out)
    if rules.hand_continues_after_win(total_wins) and still_in >= 2:
        for r in new:
            state = add_scores(state, r.payments)
            fx.append(WinSettled(result=result_json(r)))
        hand = replace(hand, seats=(seats[0], seats[1], seats[2], seats[3]), wins=(*hand.wins, *new), claim=None,
                       promoted=None)
        state = replace(state, hand=hand)
        return next_player_draws(state, after_seat, fx)
    earlier = hand.wins
    for r in earlier:  # already paid when they happened
        state = add_scores(state, tuple(-x for x in r.payments))
    return end_hand(replace(state, hand=replace(hand, claim=None)), merge_results((*earlier, *new)), fx)


def settle_win(state: GameState, seat: int, concealed: tuple[Tile, ...], sit: WinSituation, check: WinCheck,  # noqa: PLR0917
               fx: list[Effect]) -> GameState:
    state, result = _record_win(state, seat, concealed, sit, check)
    return finish_wins(state, [result], seat, fx)


def several_win_on_discard(state: GameState, calls: list[Call], fx: list[Effect]) -> tuple[GameState, bool]:
    """Several players win on one discard (Sichuan 一炮多响): each valid call wins, false ones are penalised."""
    hand = state.hand
    assert hand is not None and hand.claim is not None
    w = hand.claim
    results: list[HandResult] = []
    for c in calls:
        hand = state.hand
        assert hand is not None
        s = hand.seats[c.seat]
        if s.fully_known:
            concealed = s.known
        else:
            state, codes = reveal_kongs(state, c.seat, tuple(t.code for t in c.tiles))
            concealed = _revealed(state, c.seat, codes, s.unknown + len(s.known))
        sit = situation(state, c.seat, w.tile, self_drawn=False, discarder=w.discard_seat, robbing=w.robbing)
        check = _check(state, c.seat, concealed, sit)
        if check.ok:
            state, r = _record_win(state, c.seat, concealed, sit, check)
            results.append(r)
        else:
            state = false_win(state, c.seat, check, fx)
    if not results:
        return state, False
    return finish_wins(state, results, results[-1].winners[0], fx), True


def next_player_draws(state: GameState, discarder: int, fx: list[Effect]) -> GameState:
    """No claim: the next player draws, or the hand is an exhaustive draw after the last tile [000:L390]."""
    from controller.engine.session import end_hand

    hand = state.hand
    assert hand is not None
    if hand.wall_remaining <= 0:
        if hand.wins:  # a bloody-battle hand ends at the wall's end with its earlier wins
            return _end_after_wins(state, fx)
        return end_hand(state, HandResult(kind="draw"), fx)
    nxt = next_active(hand, discarder)
    state = replace(state, hand=replace(hand, turn=nxt, claim=None), phase=Phase.TURN)
    state = take(state, nxt, from_back=False)
    assert state.hand is not None
    state = replace(state, hand=replace(state.hand, after_kong=False))
    fx.append(SetLed(seat=nxt, on=True))
    return start_turn(state, nxt, fx)  # MCR 1998: from the upper player's discard [000:L496]


def _end_after_wins(state: GameState, fx: list[Effect]) -> GameState:
    from controller.engine.session import add_scores, end_hand

    hand = state.hand
    assert hand is not None
    for r in hand.wins:
        state = add_scores(state, tuple(-x for x in r.payments))
    return end_hand(state, merge_results(hand.wins), fx)
