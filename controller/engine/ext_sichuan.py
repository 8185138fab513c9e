"""Sichuan SBR 2025 inside the live engine: 定缺, kong money and refunds, 主动花猪, 查花猪/查大叫, next dealer.

Seed ``001_2f25afa9281b00ab.txt`` (``Lnnn``), digest ``../shared/rules/sichuan-rules.md``.  The rules
themselves are ``controller.sichuan``'s: this module only calls them at the engine's hook points
(see :mod:`controller.engine.ext`).  Pure; called from whatever thread/loop runs ``step``.

State: :class:`SichuanHand` in ``HandState.extra``.  Money: kong money is paid at once (``add_scores``) and
kept for refunds; the hand-end settlement (停和陪打 refunds, 查花猪/查大叫, not-tenpai refunds) is added to the
hand result's payments.  Every ledger line sums to zero, so the session stays zero-sum.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from controller.engine import camera, claims, penalties, procedure, wins
from controller.engine.effects import SetLed
from controller.engine.errors import Reject
from controller.engine.events import ButtonPressed, ChooseVoid, Claim, ConcealedKong, Discard, Event, PromotedKong
from controller.engine.ext import EngineExtension
from controller.engine.ext_sichuan_state import (
    PIG_POINTS,
    SUITS,
    SichuanHand,
    Vec,
    pay_line,
    seat_hand,
    set_at,
    sichuan_live_wall,
    sichuan_of,
    vec4,
    with_extra,
)
from controller.engine.query import scoring_hand
from controller.engine.ruleset import ClaimKind, WinSituation
from controller.engine.shanten import is_complete
from controller.engine.state import GameState, HandResult, HandState, Phase, SessionState
from controller.sichuan.fans import winning_tiles
from controller.sichuan.settlement import DrawSeat, KongType, refund_all, settle_draw
from mjtable.tiles import Hand, MeldKind, Tile, make_meld, tile_counts

if TYPE_CHECKING:
    from controller.engine.effects import Effect
    from controller.engine.ext import Action, Bot
    from controller.sichuan.ruleset import SichuanRuleset


class SichuanExtension(EngineExtension):
    """The engine hooks of Sichuan SBR 2025 (see module doc)."""

    def __init__(self, rules: SichuanRuleset) -> None:
        self.rules = rules

    # --- wall, break, 定缺 -------------------------------------------------------------------------------

    def late_call(self, state: GameState, seat: int, kind: ClaimKind, fx: list[Effect]) -> GameState | None:
        """Sichuan: a late call is simply void, no penalty."""
        raise Reject("no_window", f"a {kind} called after the window closed is void [001:L428]")

    def bad_call(self, state: GameState, seat: int, kind: ClaimKind, shown: tuple[Tile, ...] | None, *,
                 why: str, fx: list[Effect]) -> tuple[GameState, bool] | None:
        """错碰/错杠 of the missing suit (L736 (2), stopped before one's own discard: L740 (1)) and 空碰/空杠 (L762):
        void, category 4 (:mod:`ext_sichuan_penalties`); any other refusal (no chow in Sichuan, a 停和陪打 seat's
        meld that does not reach tenpai) stays a plain refusal."""
        from controller.engine.ext_sichuan_penalties import category_4

        hand = state.hand
        ext = sichuan_of(hand)
        if kind not in (ClaimKind.PUNG, ClaimKind.KONG) or hand is None or hand.claim is None or ext is None:
            return None
        cn = "碰" if kind is ClaimKind.PUNG else "杠"
        if shown is None:
            return category_4(state, seat, "empty_call", f"empty {kind} (空{cn}) on {hand.claim.tile.code}: {why}; "
                              "void [001:L762]", fx), True
        if self.rules.claim_allowed(kind, hand.claim.tile, ext.voids[seat]):
            return None
        return category_4(state, seat, "wrong_call", f"wrong {kind} (错{cn}) of the missing suit "
                          f"{ext.voids[seat]} on {hand.claim.tile.code}, restored [001:L736, L740]", fx), True

    def dice_throws(self) -> int:
        """One throw of two dice by the dealer (L318)."""
        return 1

    def live_wall(self, state: GameState, hand: HandState) -> tuple[Tile, ...] | None:
        if not hand.wall_physical:
            return ()
        return sichuan_live_wall(self.rules, hand.wall_physical, hand.dealer, hand.dice[0])

    def after_deal(self, state: GameState, fx: list[Effect]) -> GameState:
        """After the deal every seat chooses its missing suit at the same time (L346): every seat's LED is on
        until it has chosen."""
        assert state.hand is not None
        fx.extend(SetLed(seat=s, on=True) for s in range(4) if s != state.hand.dealer)
        return replace(state, phase=Phase.VOID, hand=replace(state.hand, extra=SichuanHand()))

    def _choose_void(self, state: GameState, ev: ChooseVoid, fx: list[Effect]) -> GameState:
        hand = state.hand
        assert hand is not None
        ext = sichuan_of(hand)
        if state.phase is not Phase.VOID or ext is None:
            raise Reject("wrong_phase", "定缺 is chosen once, right after the deal (L346)")
        seat = ev.seat
        if ev.suit not in SUITS:
            raise Reject("bad_event", f"the missing suit is m, p or s, got {ev.suit!r}")
        if ext.voids[seat] is not None:
            raise Reject("already_acted", f"seat {seat} has already chosen its missing suit")
        s = hand.seats[seat]
        face: Tile | None = None
        if ev.tile:  # no cards: one tile of the suit face down, which must be the first discard (L348)
            face = procedure.parse_tile(ev.tile)
            if face.suit != ev.suit:
                raise Reject("bad_event", f"the face-down tile {face.code} is not of the missing suit {ev.suit}")
            if s.fully_known and face not in s.known:
                raise Reject("not_held", f"seat {seat} does not hold {face.code}")
        ext = replace(ext, voids=set_at(ext.voids, seat, ev.suit), void_tiles=set_at(ext.void_tiles, seat, face))
        fx.append(SetLed(seat=seat, on=False))
        if any(v is None for v in ext.voids):
            return with_extra(state, ext)
        # all four are down: turned up at the same time, the dealer begins play (L348)
        state = with_extra(state, replace(ext, revealed=True))
        fx.append(SetLed(seat=hand.dealer, on=True))
        return procedure.finish_flowers(replace(state, phase=Phase.FLOWERS), fx)

    def _void_button(self, state: GameState, ev: ButtonPressed, fx: list[Effect]) -> GameState:
        """定缺 from the seat panel (issue 16 point 14; L346-L348): *call* steps the seat's hidden choice m -> p -> s
        -> m (the seat's own display shows it), *pass* puts it down face down like a card."""
        hand = state.hand
        ext = sichuan_of(hand)
        assert hand is not None and ext is not None
        seat = ev.seat
        if ext.voids[seat] is not None:
            raise Reject("already_acted", f"seat {seat} has already chosen its missing suit")
        current = ext.pending_void[seat]
        if ev.button == "call":
            nxt = SUITS[(SUITS.index(current) + 1) % len(SUITS)] if current in SUITS else SUITS[0]
            return with_extra(state, replace(ext, pending_void=set_at(ext.pending_void, seat, nxt)))
        if ev.button in ("pass", "ready"):
            if current is None:
                raise Reject("bad_event", "press call to pick the missing suit (m, p, s) before confirming")
            return self._choose_void(state, ChooseVoid(id=ev.id, at_s=ev.at_s, seat=seat, suit=current), fx)
        raise Reject("bad_event", f"unknown button {ev.button!r}")

    # --- legality -----------------------------------------------------------------------------------------

    def before_player(self, state: GameState, ev: Event, fx: list[Effect]) -> GameState | None:
        if isinstance(ev, ChooseVoid):
            return self._choose_void(state, ev, fx)
        if isinstance(ev, ButtonPressed) and state.phase is Phase.VOID:
            return self._void_button(state, ev, fx)
        hand = state.hand
        ext = sichuan_of(hand)
        if ext is None or hand is None or state.phase is Phase.VOID:
            return None
        seat = getattr(ev, "seat", 0)
        void = ext.voids[seat]
        if isinstance(ev, Discard) and state.phase is Phase.TURN and hand.turn == seat:
            first = ext.void_tiles[seat]
            if first is not None and ev.tile != first.code:
                raise Reject("bad_event", f"the face-down 定缺 tile {first.code} must be the first discard (L348)")
        elif isinstance(ev, Claim) and hand.claim is not None and state.phase in (Phase.CLAIMS, Phase.ROB_KONG):
            try:
                kind = ClaimKind(ev.kind)
            except ValueError:
                return None
            w = hand.claim
            if not self.rules.claim_allowed(kind, w.tile, void):
                raise Reject("illegal_claim", f"no {kind} on {w.tile.code}: the missing suit is {void} "
                             "(L342, L736)")
            if kind in (ClaimKind.PUNG, ClaimKind.KONG) and not self.dead_meld_ok(hand, seat, kind, w.tile):
                raise Reject("illegal_claim", "under 停和陪打 a pong or kong only to reach tenpai (L654)")
            passed = ext.passed_fan[seat]
            if kind is ClaimKind.WIN and passed is not None:
                fan = self.win_fan(state, seat, w.tile, w.discard_seat, robbing=w.robbing)
                if fan is not None and fan <= passed:
                    return self._passed_win(state, ext, seat, fan=fan, passed=passed, fx=fx)
        elif isinstance(ev, ConcealedKong | PromotedKong) and ev.tile:
            t = procedure.parse_tile(ev.tile)
            if not self.rules.claim_allowed(ClaimKind.KONG, t, void):
                raise Reject("illegal_claim", f"no kong of the missing suit {void} (L342)")
            if not self.dead_meld_ok(hand, seat, ClaimKind.KONG, t, own=True):
                raise Reject("illegal_claim", "under 停和陪打 a kong only to reach tenpai (L654)")
        return None

    def dead_meld_ok(self, hand: HandState, seat: int, kind: ClaimKind, t: Tile, *, own: bool = False) -> bool:
        """A 停和陪打 seat may pong or kong only to reach tenpai (L654); True for any other seat."""
        s = hand.seats[seat]
        ext = sichuan_of(hand)
        if s.dead is None or not s.fully_known or ext is None:
            return True
        void = ext.voids[seat]
        base = seat_hand(hand, seat)
        same = [x for x in base.concealed if x.kind == t.kind]
        if kind is ClaimKind.PUNG:
            if len(same) < 2:
                return True  # the core refuses it anyway
            rest = list(base.concealed)
            for x in same[:2]:
                rest.remove(x)
            melds = (*base.melds, make_meld((*same[:2], t)))
            return any(winning_tiles(Hand(tuple(r for j, r in enumerate(rest) if j != i), melds), void)
                       for i in range(len(rest)))
        rest = [x for x in base.concealed if x.kind != t.kind]
        if not own:  # called kong: three from the hand and the discard
            if len(same) < 3:
                return True
            melds = (*base.melds, make_meld((*same[:3], t)))
        elif len(same) >= 4:  # concealed kong
            melds = (*base.melds, make_meld(tuple(same[:4]), concealed=True))
        elif same:  # promoted kong: the fourth tile joins the exposed pong
            rest = list(base.concealed)
            rest.remove(same[0])
            melds = tuple(make_meld((*m.tiles, same[0])) if m.kind is MeldKind.PUNG and m.tiles[0].kind == t.kind
                          else m for m in base.melds)
        else:
            return True
        return bool(winning_tiles(Hand(tuple(rest), melds), void))

    def win_fan(self, state: GameState, seat: int, t: Tile, discarder: int, *, robbing: bool) -> int | None:
        """The fan ``seat`` would score winning on ``t`` from ``discarder`` now, or None (full information)."""
        hand = state.hand
        assert hand is not None
        s = hand.seats[seat]
        if not s.fully_known or s.dead is not None or s.out:
            return None
        counts = tile_counts(s.known)
        counts[t.kind] += 1
        if not is_complete(counts, len(s.melds)):
            return None
        sit = wins.situation(state, seat, t, self_drawn=False, discarder=discarder, robbing=robbing)
        try:
            check = self.rules.check_win(scoring_hand(hand, seat, s.known), sit)
        except ValueError:
            return None
        return check.total if check.ok else None

    def _passed_win(self, state: GameState, ext: SichuanHand, seat: int, *, fan: int, passed: int,
                    fx: list[Effect]) -> GameState:
        """顺和: a win on a tile worth no more than one let pass since the seat's turn: category 2, all its
        kong money refunded, no win this hand [DESIGN, docs/sichuan.md] (L248, L782-L784); the
        call counts as a pass."""
        deltas, kongs = refund_all(seat, list(ext.kongs))
        ext = replace(ext, kongs=tuple(kongs), passed_fan=set_at(ext.passed_fan, seat, None))
        state, ext = pay_line(state, ext, "kong_refund", deltas, f"顺和 seat {seat} (L784)")
        state = with_extra(state, ext)
        state = penalties.record(state, seat, "passed_win", f"顺和: {fan} fan after letting {passed} fan pass "
                                 "(L248)", fx, points=PIG_POINTS)
        h = state.hand
        assert h is not None
        s = h.seats[seat]
        state = replace(state, hand=procedure.with_seat(h, seat, replace(s, dead=s.dead or "顺和 (L248)")))
        return claims.add_pass(state, seat, fx)

    # --- money and fouls, by comparing the states before and after each event ---------------------------

    def after_step(self, old: GameState, new: GameState, ev: Event, fx: list[Effect]) -> GameState:
        hand, before = new.hand, old.hand
        ext = sichuan_of(hand)
        if ext is None or hand is None or before is None or sichuan_of(before) is None \
                or before.hand_no != hand.hand_no:
            return new
        state = new
        if hand.promoted is not None and before.promoted is None:  # 及时雨: the drawn tile is added (L494)
            timely = before.drawn is not None and before.drawn.kind == hand.promoted[1].kind
            ext = replace(ext, promoted_timely=timely)
        state, ext = self._kongs(state, before, ext)
        state, ext = self._discards(state, before, ext, fx)
        state, ext = self._wins(state, before, ext)
        state, ext = self._false_wins(old, state, ext, fx)
        ext = self._passed(old, state, ext)
        return with_extra(state, ext)

    def _false_wins(self, old: GameState, state: GameState, ext: SichuanHand,
                    fx: list[Effect]) -> tuple[GameState, SichuanHand]:
        """诈和: category 2 (24) and all the offender's kong money refunded (L780-L786)."""
        for inf in state.infractions[len(old.infractions):]:
            if not inf.kind.startswith("false_win_"):
                continue
            deltas, kongs = refund_all(inf.seat, list(ext.kongs))
            ext = replace(ext, kongs=tuple(kongs))
            state, ext = pay_line(state, ext, "kong_refund", deltas, f"诈和 seat {inf.seat} (L784)")
            state = with_extra(state, ext)
            state = penalties.record(state, inf.seat, "false_win_penalty", "诈和: category 2 (L780)", fx,
                                     points=PIG_POINTS)
        return state, ext

    def _passed(self, old: GameState, new: GameState, ext: SichuanHand) -> SichuanHand:
        """Record the fan of every win let pass when a claim window closes; a seat's own turn clears it (L248)."""
        hand, before = new.hand, old.hand
        assert hand is not None and before is not None
        if hand.turn is not None and hand.turn != before.turn and ext.passed_fan[hand.turn] is not None:
            ext = replace(ext, passed_fan=set_at(ext.passed_fan, hand.turn, None))
        w = before.claim
        if w is None or old.phase not in (Phase.CLAIMS, Phase.ROB_KONG) \
                or new.phase in (Phase.CLAIMS, Phase.ROB_KONG):
            return ext
        winners = set(hand.result.winners) if hand.result is not None else set()
        winners |= {x for r in hand.wins for x in r.winners}
        for seat in range(4):
            if seat == w.discard_seat or seat in winners or seat == hand.turn:
                continue
            fan = self.win_fan(old, seat, w.tile, w.discard_seat, robbing=w.robbing)
            if fan is not None:
                best = max(fan, ext.passed_fan[seat] or 0)
                ext = replace(ext, passed_fan=set_at(ext.passed_fan, seat, best))
        return ext

    def _kongs(self, state: GameState, before: HandState, ext: SichuanHand) -> tuple[GameState, SichuanHand]:
        hand = state.hand
        assert hand is not None
        active = tuple(s for s in range(4) if not hand.seats[s].out)
        for seat in range(4):
            old_melds, new_melds = before.seats[seat].melds, hand.seats[seat].melds
            for i, m in enumerate(new_melds):
                kong_type: KongType | None = None
                discarder: int | None = None
                if i >= len(old_melds):
                    if m.kind is MeldKind.CONCEALED_KONG:
                        kong_type = KongType.CONCEALED  # 暗杠: 2 from each player still in (L502)
                    elif m.kind is MeldKind.KONG:
                        kong_type, discarder = KongType.CALLED, m.claimed_from  # 点杠: the discarder pays 2 (L490)
                elif old_melds[i].kind is MeldKind.PUNG and m.kind is MeldKind.KONG:
                    kong_type = KongType.PROMOTED_TIMELY if ext.promoted_timely else KongType.PROMOTED_LATE
                if kong_type is None:
                    continue
                money = self.rules.kong_payment(seat, kong_type.value, discarder, active)
                ext = replace(ext, kongs=(*ext.kongs, money), last_kong=len(ext.kongs), promoted_timely=False)
                note = f"{kong_type.value} kong by seat {seat} (L490-L502)"
                state, ext = pay_line(state, ext, "kong", money.deltas, note)
        return state, ext

    def _discards(self, state: GameState, before: HandState, ext: SichuanHand,
                  fx: list[Effect]) -> tuple[GameState, SichuanHand]:
        hand = state.hand
        assert hand is not None
        for seat in range(4):
            pond_before, pond = before.seats[seat].pond, hand.seats[seat].pond
            if len(pond) <= len(pond_before):
                continue
            t = pond[-1].tile
            ext = replace(ext, kong_discard=seat if before.after_kong else None,
                          void_tiles=set_at(ext.void_tiles, seat, None))
            void = ext.voids[seat]
            if void is None:
                continue
            if t.suit != void:
                ext = replace(ext, discarded_other=set_at(ext.discarded_other, seat, True))
            why = self.rules.discard_violation(seat_hand(before, seat), t, void)
            if why is not None and not ext.pigs[seat]:
                # 主动花猪: the discard stands once in the pool (L776); category 2 and 停和陪打 (L352)
                ext = replace(ext, pigs=set_at(ext.pigs, seat, True))
                state = with_extra(state, ext)
                state = penalties.record(state, seat, "active_pig", why, fx, points=PIG_POINTS)
                h = state.hand
                assert h is not None
                s = h.seats[seat]
                state = replace(state, hand=procedure.with_seat(h, seat, replace(s, dead=s.dead or "主动花猪 (L352)")))
        return state, ext

    def _wins(self, state: GameState, before: HandState, ext: SichuanHand) -> tuple[GameState, SichuanHand]:
        hand = state.hand
        assert hand is not None
        had = [w for r in before.wins for w in r.winners]
        if hand.result is None:
            now = [w for r in hand.wins for w in r.winners]
        elif hand.result.kind == "win":
            now = list(hand.result.winners)
        else:
            return state, ext
        new = now[len(had):]
        if not new:
            return state, ext
        w = before.claim
        discarder = w.discard_seat if w is not None else None
        if not had and not ext.first_winners:
            ext = replace(ext, first_winners=tuple(new), first_discarder=discarder)
        k = ext.last_kong
        if discarder is not None and ext.kong_discard == discarder and k is not None and w is not None \
                and not w.robbing and ext.kongs[k].seat == discarder and not ext.kongs[k].refunded:
            # 杠上炮: that kong's money goes back to its payers (退税, L506)
            money = ext.kongs[k]
            ext = replace(ext, kongs=set_at(ext.kongs, k, money.refund()))
            state, ext = pay_line(state, ext, "kong_refund", money.refund_deltas(), "杠上炮 退税 (L506)")
        return state, ext

    # --- scoring context, hand end, next dealer ---------------------------------------------------------

    def win_situation(self, state: GameState, sit: WinSituation) -> WinSituation:
        ext = sichuan_of(state.hand)
        if ext is None:
            return sit
        after = (not sit.self_drawn and not sit.robbing_kong and sit.discarder is not None
                 and ext.kong_discard == sit.discarder)
        return replace(sit, void_suit=ext.voids[sit.winner], after_kong_discard=after)

    def settle_hand(self, state: GameState, result: HandResult, fx: list[Effect]) -> tuple[GameState, HandResult]:
        """停和陪打 refunds (L654); at the wall's end 查花猪 + 查大叫 + not-tenpai kong refunds (L549-L596)."""
        hand = state.hand
        ext = sichuan_of(hand)
        if ext is None or hand is None or result.kind == "stopped":
            return state, result
        winners = set(result.winners)
        total = [0, 0, 0, 0]
        kongs = list(ext.kongs)
        lines: list[tuple[str, Vec, str]] = []
        for seat in range(4):
            if seat not in winners and hand.seats[seat].dead is not None:
                deltas, kongs = refund_all(seat, kongs)
                if any(deltas):
                    lines.append(("kong_refund", deltas, f"停和陪打 seat {seat} (L654)"))
        if hand.wall_remaining <= 0 and len(winners) < 3 and ext.revealed:
            left = [s for s in range(4) if s not in winners]
            if not all(hand.seats[s].fully_known for s in left):  # partial information: the referee settles
                state = camera.raise_alert(state, "settlement_needed", "exhaustive draw: settle 查花猪/查大叫 by "
                                           "the revealed hands (L549-L596)", {"seats": left}, fx)
            else:
                seats = [DrawSeat(seat=s, hand=seat_hand(hand, s), void_suit=ext.voids[s] or "m",
                                  discarded_other_suit=ext.discarded_other[s], active_pig_declared=ext.pigs[s],
                                  no_win=hand.seats[s].dead is not None) for s in left]
                res = settle_draw(seats, kongs, self.rules.options)
                lines.append(("chajiao", res.chajiao, "查花猪/查大叫 (L549-L596)"))
                lines.append(("kong_refund", res.kong_refund, "没叫 退杠 (L504)"))
                for s in res.active_pigs:
                    if not ext.pigs[s]:
                        ext = replace(ext, pigs=set_at(ext.pigs, s, True))
                        state = penalties.record(state, s, "active_pig_at_draw",
                                                 "holds the missing suit after discarding another suit (L574)",
                                                 fx, points=PIG_POINTS)
        for _, deltas, _ in lines:
            total = [a + b for a, b in zip(total, deltas, strict=True)]
        ext = replace(ext, kongs=tuple(kongs), ledger=(*ext.ledger, *lines))
        state = with_extra(state, ext)
        pay = [a + b for a, b in zip(result.payments, total, strict=True)]
        return state, replace(result, payments=vec4(pay))

    def next_session(self, state: GameState, hand: HandState, result: HandResult,
                     sess: SessionState) -> SessionState:
        """The first winner deals next; several first winners on one discard: the discarder; none: the same
        dealer (L478-L482)."""
        ext = sichuan_of(hand)
        if ext is None or result.kind == "stopped":
            return sess
        first = ext.first_winners or tuple(result.winners)
        discarder = ext.first_discarder if ext.first_winners else result.discarder
        return replace(sess, dealer=self.rules.next_dealer_after(hand.dealer, first, discarder), round_no=0)

    def finish_hand_at_time_up(self) -> bool:
        """When time expires during a hand, that hand is finished, then the session ends (L290)."""
        return True

    # --- views and bots -----------------------------------------------------------------------------------

    def view_extra(self, state: GameState, *, referee: bool) -> dict[str, Any]:
        """``sichuan``: voids (public only after the simultaneous reveal), who has chosen, pigs, money lines.
        The face-down 定缺 tile is referee-only."""
        ext = sichuan_of(state.hand)
        if ext is None:
            return {"sichuan": None}
        show = referee or ext.revealed
        out: dict[str, Any] = {
            "voids": list(ext.voids) if show else [None] * 4,
            "void_chosen": [v is not None for v in ext.voids],
            "revealed": ext.revealed,
            "pigs": list(ext.pigs),
            "ledger": [{"kind": k, "deltas": list(d), "note": n} for k, d, n in ext.ledger],
        }
        if referee:
            out["void_tiles"] = [t.code if t is not None else None for t in ext.void_tiles]
            out["waits"] = [self._waits(state, s) for s in range(4)]
        return {"sichuan": out}

    def _waits(self, state: GameState, seat: int) -> list[dict[str, Any]]:
        """Referee-only: the seat's waits with their fan, honouring its 定缺 (``waits_with_void``)."""
        hand = state.hand
        ext = sichuan_of(hand)
        if hand is None or ext is None or hand.result is not None:
            return []
        s = hand.seats[seat]
        if not s.fully_known or len(s.known) + 3 * len(s.melds) != 13 or s.out:
            return []
        found = self.rules.waits_with_void(seat_hand(hand, seat), ext.voids[seat])
        return [{"tile": t.code, "fan": fan} for t, fan in found]

    def bot_action(self, bot: Bot, state: GameState, default: Action | None) -> Action | None:
        """定缺 = the suit with the fewest tiles; discard the missing suit first; never call on it."""
        from controller.engine.ext import Action

        hand = state.hand
        ext = sichuan_of(hand)
        if ext is None or hand is None:
            return default
        seat = bot.seat
        s = hand.seats[seat]
        void = ext.voids[seat]
        if state.phase is Phase.VOID:
            if void is not None:
                return None
            return Action("void", (("suit", self.rules.choose_void(Hand(s.known))),))
        if state.phase is Phase.TURN and hand.turn == seat and void is not None:
            first = ext.void_tiles[seat]
            if first is not None:
                return Action("discard", (("tile", first.code),))
            held = [t for t in s.known if t.suit == void]
            if held:
                kinds = [t.kind for t in s.known]
                pick = min(held, key=lambda t: (kinds.count(t.kind), t.kind))
                return Action("discard", (("tile", pick.code),))
            return default
        if state.phase in (Phase.CLAIMS, Phase.ROB_KONG) and hand.claim is not None and default is not None \
                and default.kind == "claim":
            kind = ClaimKind(str(dict(default.fields).get("kind")))
            if hand.claim.tile.suit == void or (kind is not ClaimKind.WIN
                                                 and not self.dead_meld_ok(hand, seat, kind, hand.claim.tile)):
                return Action("button", (("button", "pass"),))
        if state.phase is Phase.TURN and hand.turn == seat and default is not None \
                and default.kind in ("concealed_kong", "promoted_kong"):
            t = procedure.parse_tile(dict(default.fields)["tile"])
            if not self.dead_meld_ok(hand, seat, ClaimKind.KONG, t, own=True):
                return Action("discard", (("tile", bot.best_discard(s).code),))
        return default


__all__ = ["SichuanExtension", "SichuanHand", "sichuan_live_wall", "sichuan_of"]
