"""HKMA 2025 riichi inside the live engine: riichi and its sticks, ippatsu, double riichi, dora / kan-dora /
ura-dora, the three furiten kinds, tenhou/chiihou, pao, honba and renchan, noten payments, final scores.

Seed ``002_40e04c10307d973b.txt`` (``Lnnn``), digest ``../shared/rules/riichi-hk-rules.md``.  The rules are
``controller.riichi``'s (scorer, ``can_riichi``, ``noten_payments``, ``next_hand``, ``final_scores``);
this module calls them at the engine's hook points (:mod:`controller.engine.ext`).  Pure; called from
whatever thread/loop runs ``step``.

State: :class:`RiichiHand` in ``HandState.extra``, :class:`RiichiSession` (honba, deposits) in
``SessionState.extra``.  Scores are kept relative to the division's start points (so the engine's sums stay
zero-based): **sum(scores) + 1000 x deposits == 0** at every step.

Dead wall (14 tiles, L23): the last 14 tiles of the wall in draw order, ``dead[0..3]`` replacement slots, ``dead[4]``
the dora indicator, ``dead[5..8]`` kan-dora, ``dead[9..13]`` ura-dora (the [DESIGN] mapping, ``docs/riichi.md``).
The k-th kan's replacement is ``dead[k-1]`` and the live wall's last tile joins the dead
wall, so it keeps 14 tiles (L23, L348-L349).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from controller.engine import camera, claims, penalties
from controller.engine.errors import Reject
from controller.engine.events import ButtonPressed, Claim, ConcealedKong, Discard, Event, PromotedKong
from controller.engine.ext import EngineExtension
from controller.engine.ext_riichi_penalties import kuikae_faces, record_level
from controller.engine.ext_riichi_state import (
    FALSE_WIN_POINTS,
    FOUR_FALSE,
    MAX_KANS,
    STICK,
    RiichiHand,
    RiichiSession,
    closed_hand,
    dead_wall,
    dora_indicators,
    hand_of,
    kans,
    riichi_of,
    session_of,
    set_at,
    shape_waits,
    tenpai_waits,
    ura_indicators,
)
from controller.engine.procedure import finish_flowers, parse_tile
from controller.engine.query import next_active, player_index
from controller.engine.ruleset import ClaimKind, WinSituation
from controller.engine.session import add_scores, end_hand
from controller.engine.state import Call, GameState, HandResult, HandState, Phase, SeatState, SessionState
from controller.riichi.settlement import PAO_YAKU, FinalScores
from controller.riichi.tenpai import completing_tiles
from mjtable.tiles import Hand, MeldKind, Tile, is_chow

if TYPE_CHECKING:
    from controller.engine.effects import Effect
    from controller.engine.ext import Action, Bot
    from controller.riichi.ruleset import RiichiRuleset


class RiichiExtension(EngineExtension):
    """The engine hooks of HKMA 2025 riichi (see module doc)."""

    def late_call(self, state: GameState, seat: int, kind: ClaimKind, fx: list[Effect]) -> GameState | None:
        """HKMA: a call after the reaction time "會被視為鳴牌取消或空和" [002:L422]: a chi/pon/kan is a call given up,
        level 2, a repeat in the half-game level 4, then 5 [002:L512-L514, L570]; a ron is an empty win (空和)
        refused before the hand is shown, "在公開手牌前…和了取消的同時,選手會被判四級處分" [002:L649]: level 4."""
        if kind is ClaimKind.WIN:
            return record_level(state, seat, "empty_win", 4, "ron called after the reaction time: 空和, withdrawn "
                                "before the hand is shown (L422, L645-L649)", fx)
        return record_level(state, seat, "late_call", 2, f"{kind} called after the claim window: void (L422)", fx)

    def __init__(self, rules: RiichiRuleset) -> None:
        self.rules = rules

    def after_deal(self, state: GameState, fx: list[Effect]) -> GameState:
        """No flowers in the riichi set: the dealer plays at once (also with face-down hands, partial info)."""
        assert state.hand is not None
        state = replace(state, hand=replace(state.hand, extra=RiichiHand()))
        return finish_flowers(state, fx)

    def dead_wall_replacement(self, hand: HandState) -> int | None:
        """The k-th kan's replacement is ``dead[k-1]`` (L348-L349); the kan's meld is already on the table."""
        k = kans(hand)
        if not 1 <= k <= MAX_KANS:
            return None
        return hand.wall_size + k - 1

    def false_win_voids_later_calls(self) -> bool:
        """A false win declaration moves the game to settlement and voids later declarations (L194)."""
        return True

    # --- legality ---------------------------------------------------------------------------------------

    def before_player(self, state: GameState, ev: Event, fx: list[Effect]) -> GameState | None:
        hand = state.hand
        ext = riichi_of(hand)
        if ext is None or hand is None:
            return None
        seat = getattr(ev, "seat", 0)
        s = hand.seats[seat]
        back = ext.kuikae_back
        if back is not None and state.phase is Phase.TURN and hand.turn == back[0] and seat != back[0]:
            stood = self._kuikae_stands(state, back, ev, fx)
            if stood is not None:
                return stood
        if isinstance(ev, ButtonPressed) and state.phase is Phase.HAND_OVER and ev.button in ("call", "pass"):
            from controller.engine.ext_riichi_tenpai import declare  # 「聽牌」 / 「不聽」 at a draw (L427)

            return declare(self.rules, state, seat, ev.button == "call", fx)
        # riichi from the seat's panel: its *call* button in its own turn (no claim is open then; the panel has
        # only call and pass, hw/panel.py), or a "riichi" button; then the discard (issue 16 point 14)
        panel_riichi = ev.button == "call" and state.phase is Phase.TURN and hand.turn == seat \
            if isinstance(ev, ButtonPressed) else False
        if isinstance(ev, ButtonPressed) and (ev.button == "riichi" or panel_riichi):
            if state.phase is not Phase.TURN or hand.turn != seat:
                raise Reject("out_of_turn", "riichi is declared in one's own turn, with the discard (L363)")
            if ext.riichi[seat] or not closed_hand(s):
                raise Reject("bad_event", "riichi needs a closed hand, once (L363)")
            return replace(state, hand=replace(hand, extra=replace(ext, intent=seat)))
        if isinstance(ev, Discard) and state.phase is Phase.TURN and hand.turn == seat:
            t = parse_tile(ev.tile)
            if ext.riichi[seat] and hand.drawn is not None and t != hand.drawn:
                raise Reject("bad_event", f"after riichi the drawn tile {hand.drawn.code} must be discarded (L367)")
            if ev.riichi or ext.intent == seat:
                self._check_riichi(hand, ext, seat, t)
            if not hand.drew and s.melds and self._kuikae(s, t):  # 喰替 caught at once: back, level 2 (L566)
                state = record_level(state, seat, "kuikae", 2, f"喰替: {t.code} right after the call is taken back "
                                     "(L564-L566)", fx)
                assert state.hand is not None
                back = (seat, t, state.infractions[-1].id)
                return replace(state, hand=replace(state.hand, extra=replace(ext, kuikae_back=back)))
        elif isinstance(ev, Claim) and state.phase in (Phase.CLAIMS, Phase.ROB_KONG):
            if ext.riichi[seat] and ev.kind != ClaimKind.WIN:
                raise Reject("illegal_claim", "no chi, pon or kan on a discard after riichi (L367)")
            if ev.kind == ClaimKind.KONG and kans(hand) >= MAX_KANS:
                raise Reject("illegal_claim", "no fifth kan (L319)")
        elif isinstance(ev, ConcealedKong | PromotedKong) and state.phase is Phase.TURN and hand.turn == seat:
            if kans(hand) >= MAX_KANS:
                raise Reject("illegal_claim", "no fifth kan (L319)")
            if isinstance(ev, ConcealedKong) and ext.riichi[seat] and ev.tile and s.fully_known:
                self._check_riichi_kan(hand, seat, parse_tile(ev.tile))
        return None

    def camera_observation(self, state: GameState, obs: dict[str, Any], fx: list[Effect]) -> GameState | None:
        """``win_shown`` after an exhaustive draw: the seat's 「聽牌」 (:meth:`_hand_opened`).
        ``dora_indicator`` (issue 16 point 15): the camera reads a dead-wall indicator turned up, ``position`` 0
        the dora indicator, k the k-th kan-dora indicator (L37), ``ura`` true for an ura indicator (L38).  With the
        wall unknown (partial information) it is recorded in order and used for the dora; with the wall known it
        must agree with it.  A reading that does not fit raises (the core raises ``camera_mismatch``)."""
        drawn = riichi_of(state.hand)
        if obs.get("type") == "win_shown" and state.phase is Phase.HAND_OVER and drawn is not None \
                and drawn.tenpai is not None and drawn.draw_pre is not None:  # after an exhaustive draw
            return self._hand_opened(state, obs, fx)
        if obs.get("type") != "dora_indicator":
            return None
        hand = state.hand
        ext = riichi_of(hand)
        if hand is None or ext is None:
            raise Reject("wrong_phase", "no riichi hand in progress")
        codes = obs.get("tiles")
        if not isinstance(codes, list) or len(codes) != 1 or not isinstance(codes[0], str):
            raise Reject("bad_event", "a dora indicator reading shows one tile")
        t = parse_tile(codes[0])
        pos = obs.get("position", 0)
        ura = obs.get("ura", False) is True
        if not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos <= kans(hand):
            raise Reject("bad_event", f"indicator {pos!r} is not turned up ({kans(hand)} kan(s) declared)")
        dead = dead_wall(hand)
        if dead:
            want = dead[(9 if ura else 4) + pos]
            if want.kind != t.kind:
                raise Reject("not_held", f"the camera reads {t.code} as indicator {pos}, the wall has {want.code}")
            return state
        seen = list(ext.seen_ura if ura else ext.seen_indicators)
        if pos < len(seen):
            if seen[pos].kind == t.kind:
                return state
            raise Reject("bad_event", f"indicator {pos} was read as {seen[pos].code} before, now {t.code}")
        if pos > len(seen):
            raise Reject("bad_event", f"indicator {pos} read before indicator {len(seen)}")
        from controller.engine.query import known_count

        shown = sum(1 for x in (*ext.seen_indicators, *ext.seen_ura) if x.kind == t.kind)
        if known_count(hand, t.kind) + shown >= 4:
            raise Reject("impossible_tile", f"{t.code} as an indicator would be a fifth copy")
        seen.append(t)
        ext = replace(ext, seen_ura=tuple(seen)) if ura else replace(ext, seen_indicators=tuple(seen))
        return replace(state, hand=replace(hand, extra=ext))

    def _hand_opened(self, state: GameState, obs: dict[str, Any], fx: list[Effect]) -> GameState:
        """After an exhaustive draw the camera sees a seat's hand laid open: its 「聽牌」 (the hand is shown; 「不聽」
        keeps it covered, L427; issue 16 point 5).  The reading must be the seat's concealed hand (``hand_seen``'s
        check; the reading itself is not kept).  Raises ``Reject`` otherwise (the core raises ``camera_mismatch``)."""
        from controller.engine.ext_riichi_tenpai import declare

        camera.hand_seen(state, obs)  # raises when the tiles are not the seat's
        seat = obs.get("seat")
        assert isinstance(seat, int)  # checked by hand_seen
        return declare(self.rules, state, seat, True, fx)

    def _kuikae_stands(self, state: GameState, back: tuple[int, Tile, str], ev: Event,
                       fx: list[Effect]) -> GameState | None:
        """The refused 喰替 tile was left on the table and the next player drew (his *pass*) or another player
        called it: the discard stands, level 3 instead of 2 [002:L566].  None: ``ev`` shows neither."""
        hand = state.hand
        assert hand is not None
        k, t, inf_id = back
        draws = isinstance(ev, ButtonPressed) and ev.button == "pass" and ev.seat == next_active(hand, k)
        if not (draws or isinstance(ev, Claim)):
            return None
        ext = riichi_of(hand)
        assert ext is not None
        state = replace(state, hand=replace(hand, extra=replace(ext, kuikae_back=None)))
        state = claims.discard(state, k, t, fx)
        state = penalties.set_status(state, inf_id, "waived")
        state = record_level(state, k, "kuikae", 3, f"喰替: {t.code} was not taken back and stood (the next player "
                             "drew or it was called): 和了禁止 (L566)", fx)
        hand = state.hand
        assert hand is not None
        if hand.claim is None:
            return state  # nobody could claim it (simulated fast windows): the next player's turn has begun
        if draws:  # the next player drew: the window on the tile is over for everyone
            state = replace(state, hand=replace(hand, claim=replace(hand.claim, passed=hand.claim.passed
                                                                    | hand.claim.eligible)))
            return claims.close_window(state, fx)
        assert isinstance(ev, Claim)
        handled = self.before_player(state, ev, fx)  # the claim's own riichi checks
        if handled is not None:
            return handled
        try:
            kind = ClaimKind(ev.kind)
        except ValueError as exc:
            raise Reject("bad_event", f"unknown claim {ev.kind!r}") from exc
        return claims.add_call(state, Call(ev.seat, kind, tuple(parse_tile(c) for c in ev.tiles), ev.at_s), fx)

    def bad_call(self, state: GameState, seat: int, kind: ClaimKind, shown: tuple[Tile, ...] | None, *,
                 why: str, fx: list[Effect]) -> tuple[GameState, bool] | None:
        """A call that cannot be made.  Without the tiles the call is given up: 「如果選手在叫鳴後放棄鳴牌會被判處
        二級處分」 [002:L570], level 2 escalating over the half-game.  A chi shown with the wrong tiles is 搭子誤鳴: it
        may be corrected at once and is punished as 違規曝露 by the tiles left exposed [002:L560, L538-L546], which
        the table cannot count (the correction decides it): raised to the referee with the evidence; the seat may
        still make the corrected call.  Other refusals (after riichi, not from the left, a fifth kan) stay plain
        refusals."""
        hand = state.hand
        if hand is None or hand.claim is None:
            return None
        t = hand.claim.tile
        if shown is None:
            return record_level(state, seat, "cancelled_call", 2, f"{kind} on {t.code} called without the tiles "
                                f"({why}): the call is given up (取消鳴牌, L568-L570)", fx), True
        if kind is not ClaimKind.CHOW or is_chow((t, *shown)):
            return None  # the set is right; the call is refused for another reason (riichi, seat, fifth kan)
        p = player_index(state, seat)
        codes = [x.code for x in shown]
        data = {"journal_seq": state.seq + 1, "at_s": state.now_s, "seat": seat, "player": state.session.players[p],
                "kind": str(kind), "tiles": codes, "discard": t.code}
        return camera.raise_alert(state, "wrong_call", f"{state.session.players[p]} showed {' '.join(codes)} to chi "
                                  f"{t.code} ({why}): 搭子誤鳴, level by the tiles left exposed after the correction "
                                  "(1: level 2, 2: level 4, more: 4+, half the hand: 5) [002:L558-L562, L538-L546]",
                                  data, fx), False

    def _kuikae(self, s: SeatState, t: Tile) -> bool:
        """``t`` is a 喰替 discard after the call just made, and the seat has another tile it could discard."""
        m = s.melds[-1]
        banned = kuikae_faces(m, self.rules.options.kuikae) if m.claimed_from is not None else frozenset()
        return t.kind in banned and (s.unknown > 0 or any(x.kind not in banned for x in s.known))

    def _check_riichi(self, hand: HandState, ext: RiichiHand, seat: int, t: Tile) -> None:
        """Riichi: not yet declared, closed hand, tenpai after the discard, a live tile left (L363)."""
        s = hand.seats[seat]
        if ext.riichi[seat]:
            raise Reject("bad_event", f"seat {seat} has already declared riichi")
        if not closed_hand(s):
            raise Reject("bad_event", "riichi needs a closed hand (L363)")
        h = hand_of(hand, seat)
        if h is None:
            return  # partial information: the referee checks the declaration
        if not self.rules.can_riichi(h, t, live_tiles_left=hand.wall_remaining):
            raise Reject("bad_event", f"no riichi discarding {t.code}: the hand must be tenpai after it and a live "
                         "tile must be left (L363)")

    def _check_riichi_kan(self, hand: HandState, seat: int, t: Tile) -> None:
        """After riichi a concealed kan must use the drawn tile and keep the waits (L368)."""
        s = hand.seats[seat]
        if hand.drawn is None or hand.drawn.kind != t.kind:
            raise Reject("illegal_claim", "after riichi only a kan of the drawn tile is allowed (L368)")
        rest = list(s.known)
        rest.remove(hand.drawn)
        before = hand_of(hand, seat, tuple(rest))
        four = [x for x in s.known if x.kind == t.kind]
        left = list(s.known)
        for x in four:
            left.remove(x)
        if before is None or len(four) < 4:
            return
        after = Hand(tuple(left), (*before.melds, _concealed_kong(four)))
        if {w.kind for w in completing_tiles(before)} != {w.kind for w in completing_tiles(after)}:
            raise Reject("illegal_claim", "after riichi a concealed kan may not change the waits (L368)")

    # --- sticks, ippatsu, furiten, pao: by comparing the states before and after each event -------------

    def after_step(self, old: GameState, new: GameState, ev: Event, fx: list[Effect]) -> GameState:
        hand, before = new.hand, old.hand
        ext = riichi_of(hand)
        if ext is None or hand is None or before is None or riichi_of(before) is None \
                or before.hand_no != hand.hand_no:
            return new
        state = new
        if ext.kuikae_back is not None and (new.phase is not Phase.TURN or hand.turn != ext.kuikae_back[0]):
            ext = replace(ext, kuikae_back=None)  # the 喰替 seat made a legal discard (or the hand moved on)
        shown: tuple[int, Tile] | None = None  # a discard made in this step
        for seat in range(4):
            if len(hand.seats[seat].pond) > len(before.seats[seat].pond):
                ext = self._discarded(ext, seat, ev)
                shown = (seat, hand.seats[seat].pond[-1].tile)
        if any(len(hand.seats[s].melds) != len(before.seats[s].melds)
               or hand.seats[s].melds != before.seats[s].melds for s in range(4)):
            ext = self._called(hand, before, ext)
        w = before.claim
        closed: tuple[int, Tile] | None = None  # the claim window that closed in this step
        if new.phase not in (Phase.CLAIMS, Phase.ROB_KONG):
            if w is not None and old.phase in (Phase.CLAIMS, Phase.ROB_KONG):
                closed = (w.discard_seat, w.tile)
            elif shown is not None:  # opened and closed at once (nobody could claim)
                closed = shown
        if closed is not None:
            won = hand.result is not None and hand.result.kind == "win"
            ext = self._missed(before, ext, closed[0], closed[1], hand.result.winners if won and hand.result
                               else ())
            if ext.pending is not None and not won:
                # the declaration tile passed (or was called): the stick goes down (L366, L370)
                seat = ext.pending
                d = [0, 0, 0, 0]
                d[seat] = -STICK
                state = add_scores(state, d)
                sx = session_of(state.session)
                state = replace(state, session=replace(state.session, extra=replace(sx, sticks=sx.sticks + 1)))
            ext = replace(ext, pending=None)
        h = state.hand
        assert h is not None
        state = replace(state, hand=replace(h, extra=ext))
        return self._false_wins(old, state, fx)

    def _false_wins(self, old: GameState, state: GameState, fx: list[Effect]) -> GameState:
        """錯和: level 5, 25 league points and no win this hand (L651-L655); with 20 or more live tiles left
        the hand is reshuffled and redealt with the same dealer, else it is played out (L657-L659, App. B 4)."""
        for inf in state.infractions[len(old.infractions):]:
            if not inf.kind.startswith("false_win_"):
                continue
            state = penalties.record(state, inf.seat, "false_win_lv5", "錯和: level 5 (L651-L655)", fx,
                                     points=FALSE_WIN_POINTS)
            hand = state.hand
            ext = riichi_of(hand)
            if hand is None or ext is None or hand.result is not None:
                continue
            if self.rules.after_false_win("false", hand.wall_remaining) == "redeal":
                state = replace(state, hand=replace(hand, extra=replace(ext, redeal=True)))
                state = end_hand(state, HandResult(kind="draw"), fx)
        return state

    @staticmethod
    def _discarded(ext: RiichiHand, seat: int, ev: Event) -> RiichiHand:
        if ext.intent == seat or (isinstance(ev, Discard) and ev.riichi and ev.seat == seat):
            double = ext.first_round[seat] and not ext.calls_made  # double riichi (L364)
            ext = replace(ext, riichi=set_at(ext.riichi, seat, True), double=set_at(ext.double, seat, double),
                          ippatsu=set_at(ext.ippatsu, seat, True), pending=seat)
        else:
            ext = replace(ext, ippatsu=set_at(ext.ippatsu, seat, False))  # one go-around has passed (L769)
        return replace(ext, first_round=set_at(ext.first_round, seat, False),
                       temp_furiten=set_at(ext.temp_furiten, seat, False), intent=None)

    @staticmethod
    def _called(hand: HandState, before: HandState, ext: RiichiHand) -> RiichiHand:
        """Any call or kan ends every ippatsu and the first go-around (L769); pao on the call completing the
        third dragon set, the fourth wind set or the fourth kan (L730-L738)."""
        ext = replace(ext, ippatsu=FOUR_FALSE, calls_made=True)
        for seat in range(4):
            melds = hand.seats[seat].melds
            if len(melds) <= len(before.seats[seat].melds) or ext.pao[seat] is not None:
                continue
            last = melds[-1]
            if last.claimed_from is None or not last.tiles:
                continue
            sets = [m.tiles[0].kind for m in melds if m.kind is not MeldKind.CHOW and m.tiles]
            name = None
            if last.tiles[0].kind >= 31 and sum(1 for k in sets if k >= 31) == 3:
                name = PAO_YAKU["dragons"]
            elif 27 <= last.tiles[0].kind <= 30 and sum(1 for k in sets if 27 <= k <= 30) == 4:
                name = PAO_YAKU["winds"]
            elif last.kind is MeldKind.KONG and sum(1 for m in melds if m.kind in (MeldKind.KONG,
                                                                              MeldKind.CONCEALED_KONG)) == 4:
                name = PAO_YAKU["kans"]
            if name is not None:  # 包牌: only the first liable player counts (L730-L738)
                ext = replace(ext, pao=set_at(ext.pao, seat, (last.claimed_from, name)))
        return ext

    @staticmethod
    def _missed(before: HandState, ext: RiichiHand, discarder: int, t: Tile, winners: tuple[int, ...]) -> RiichiHand:
        """Players waiting on ``t`` who did not ron it: temporary furiten; after riichi for the hand (L393)."""
        for seat in range(4):
            if seat == discarder or seat in winners or before.seats[seat].out:
                continue
            if t.kind in shape_waits(before, seat):
                ext = replace(ext, temp_furiten=set_at(ext.temp_furiten, seat, True),
                              riichi_furiten=set_at(ext.riichi_furiten, seat, ext.riichi_furiten[seat]
                                                  or ext.riichi[seat]))
        return ext

    # --- scoring context ----------------------------------------------------------------------------------

    def furiten(self, state: GameState, seat: int) -> bool:
        """Any of the three kinds: discard (a wait among one's own discards, L392), temporary, riichi."""
        hand = state.hand
        ext = riichi_of(hand)
        if ext is None or hand is None:
            return False
        if ext.temp_furiten[seat] or ext.riichi_furiten[seat]:
            return True
        waits = shape_waits(hand, seat)
        return any(p.tile.kind in waits for p in hand.seats[seat].pond)

    def win_situation(self, state: GameState, sit: WinSituation) -> WinSituation:
        hand = state.hand
        ext = riichi_of(hand)
        if ext is None or hand is None:
            return sit
        w = sit.winner
        sx = session_of(state.session)
        first = ext.first_round[w] and not ext.calls_made and sit.self_drawn
        pao = ext.pao[w]
        return replace(
            sit, riichi=ext.riichi[w], double_riichi=ext.double[w], ippatsu=ext.ippatsu[w] and ext.riichi[w],
            tenhou=first and w == hand.dealer, chiihou=first and w != hand.dealer,
            furiten=not sit.self_drawn and self.furiten(state, w),
            dora_indicators=dora_indicators(hand), ura_indicators=ura_indicators(hand) if ext.riichi[w] else (),
            honba=sx.honba, riichi_sticks=sx.sticks, pao=pao[0] if pao is not None else None)

    # --- hand end, next hand, final scores ----------------------------------------------------------------

    def settle_hand(self, state: GameState, result: HandResult, fx: list[Effect]) -> tuple[GameState, HandResult]:
        """A win collects the deposits (already in its payments, L47); an exhaustive draw pays 3000 noten
        (L429-L433) and the deposits stay on the table (L434)."""
        hand = state.hand
        ext = riichi_of(hand)
        if ext is None or hand is None:
            return state, result
        sx = session_of(state.session)
        if result.kind == "win":
            state = replace(state, session=replace(state.session, extra=replace(sx, sticks=0)))
            return state, result
        if result.kind != "draw" or ext.redeal:
            return state, result
        if not all(s.fully_known for s in hand.seats):  # partial information: the referee settles
            state = camera.raise_alert(state, "settlement_needed", "exhaustive draw: settle the noten payments "
                                       "by the declarations (L427-L433)", {}, fx)
            return state, result
        shape = tuple(bool(tenpai_waits(hand, s)) for s in range(4))
        # declaring is optional (L427): the default until the seats' panels say otherwise (ext_riichi_tenpai.py)
        from controller.engine.ext_riichi_tenpai import default_declarations

        tenpai = default_declarations(self.rules, shape, ext.riichi)
        pay = self.rules.noten_payments(tenpai)
        pre = (hand.dealer, state.session.round_no, sx.kyoku, sx.honba)
        state = replace(state, hand=replace(hand, extra=replace(ext, tenpai=tenpai, draw_pre=pre)))
        total = [a + b for a, b in zip(result.payments, pay, strict=True)]
        return state, replace(result, payments=(total[0], total[1], total[2], total[3]))

    def next_session(self, state: GameState, hand: HandState, result: HandResult,
                     sess: SessionState) -> SessionState:
        """Renchan and honba (L26, L435-L450): East 1 to South 4."""
        ext = riichi_of(hand)
        if ext is None or result.kind == "stopped":
            return sess
        sx = session_of(sess)
        if ext.redeal:  # same dealer, same round and honba [DESIGN: the seed only says "same dealer", L657]
            return replace(sess, dealer=hand.dealer, round_no=state.session.round_no,
                           hand_in_round=state.session.hand_in_round)
        won = result.kind == "win"
        dealer_won = won and hand.dealer in result.winners
        nh = self.rules.next_hand(dealer=hand.dealer, round_no=state.session.round_no, hand_in_round=sx.kyoku,
                                  honba=sx.honba, dealer_won=dealer_won, non_dealer_won=won and not dealer_won,
                                  dealer_tenpai=bool(ext.tenpai and ext.tenpai[hand.dealer]))
        return replace(sess, dealer=nh.dealer, round_no=nh.round_no, hand_in_round=nh.hand_in_round,
                       ended=sess.ended or nh.finished, extra=replace(sx, honba=nh.honba, kyoku=nh.hand_in_round))

    def final(self, state: GameState) -> FinalScores:
        """Raw points with the leftover deposits to first place, ranks and final scores with uma (L19, L47)."""
        sx = session_of(state.session)
        start = self.rules.start_points()
        points = [start + state.session.scores[p] for p in range(4)]
        return self.rules.final_scores(points, sx.sticks)

    def ranking_points(self, state: GameState, net: Sequence[int]) -> list[float]:
        """Final scores in thousands (uma included) instead of ranking points (L19)."""
        return list(self.final(state).final)

    # --- views and bots -----------------------------------------------------------------------------------

    def view_extra(self, state: GameState, *, referee: bool) -> dict[str, Any]:
        """``riichi``: dora indicators shown, ura only after a riichi win, honba, deposits, riichi seats and
        points.  Nothing else of the dead wall, ever, in the public view."""
        hand = state.hand
        ext = riichi_of(hand)
        sx = session_of(state.session)
        start = self.rules.start_points()
        out: dict[str, Any] = {
            "honba": sx.honba, "deposits": sx.sticks,
            "points": [start + state.session.scores[player_index(state, s)] for s in range(4)],
            "dora_indicators": [], "ura_indicators": [], "riichi": [False] * 4, "double_riichi": [False] * 4,
        }
        if ext is not None and hand is not None:
            out["dora_indicators"] = [t.code for t in dora_indicators(hand)]
            r = hand.result
            if r is not None and r.kind == "win" and any(ext.riichi[w] for w in r.winners):
                out["ura_indicators"] = [t.code for t in ura_indicators(hand)]
            out["riichi"] = list(ext.riichi)
            out["double_riichi"] = list(ext.double)
            if referee:
                out["furiten"] = [self.furiten(state, s) for s in range(4)]
                out["pao"] = [p[0] if p is not None else None for p in ext.pao]
                out["tenpai"] = list(ext.tenpai) if ext.tenpai is not None else None
        if state.phase is Phase.SESSION_OVER:
            out["final"] = self.final(state).to_json()
        return {"riichi": out}

    def bot_action(self, bot: Bot, state: GameState, default: Action | None) -> Action | None:
        """Riichi whenever possible with a closed tenpai hand; after riichi discard the drawn tile; never a fifth
        kan (a kong claim then passes)."""
        from controller.engine.ext import Action

        hand = state.hand
        ext = riichi_of(hand)
        if ext is None or hand is None or default is None:
            return default
        seat = bot.seat
        s = hand.seats[seat]
        if state.phase is Phase.TURN and hand.turn == seat:
            if default.kind in ("concealed_kong", "promoted_kong") and (ext.riichi[seat]
                                                                       or kans(hand) >= MAX_KANS):
                default = Action("discard", (("tile", bot.best_discard(s).code),))
            if ext.riichi[seat]:
                if default.kind == "declare_win" or hand.drawn is None:
                    return default
                return Action("discard", (("tile", hand.drawn.code),))
            if default.kind == "discard" and not hand.drew and s.melds \
                    and self._kuikae(s, parse_tile(dict(default.fields)["tile"])):  # no 喰替 (L564)
                banned = kuikae_faces(s.melds[-1], self.rules.options.kuikae)
                rest = replace(s, known=tuple(x for x in s.known if x.kind not in banned))
                default = Action("discard", (("tile", bot.best_discard(rest).code),))
            if default.kind == "discard" and closed_hand(s) and hand.wall_remaining >= 4:
                t = parse_tile(dict(default.fields)["tile"])
                h = hand_of(hand, seat)
                if h is not None and self.rules.can_riichi(h, t, live_tiles_left=hand.wall_remaining):
                    return Action("discard", (*default.fields, ("riichi", True)))
            return default
        if state.phase in (Phase.CLAIMS, Phase.ROB_KONG) and default.kind == "claim":
            kind = dict(default.fields).get("kind")
            if (ext.riichi[seat] and kind != "win") or (kind == "kong" and kans(hand) >= MAX_KANS):
                return Action("button", (("button", "pass"),))  # L367; no fifth kan (L319)
        return default


def _concealed_kong(four: list[Tile]) -> Any:
    from mjtable.tiles import make_meld

    return make_meld(tuple(four), concealed=True)


__all__ = ["RiichiExtension", "RiichiHand", "RiichiSession", "dead_wall", "dora_indicators", "kans", "riichi_of",
           "session_of", "ura_indicators"]
