"""HKMA 2025 riichi as a :class:`controller.engine.ruleset.Ruleset` (plus riichi-only hooks).

Seed ``002_40e04c10307d973b.txt``; digest ``../shared/rules/riichi-hk-rules.md``.  Immutable; every hook is
pure and called synchronously from the loop that runs ``step``.

The riichi fields of :class:`~controller.engine.ruleset.WinSituation` (``riichi``, ``double_riichi``,
``ippatsu``, ``tenhou``, ``chiihou``, ``furiten``, ``dora_indicators``, ``ura_indicators``, ``honba``,
``riichi_sticks``, ``pao``) feed the scorer and the payment split.  Riichi-only hooks: ``can_riichi``,
``noten_payments``, ``next_hand``, ``final_scores``, ``furiten``, ``start_points``, ``after_false_win``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.engine.ruleset import (
    ClaimKind,
    FalseWinKind,
    TimerProfile,
    WallLayout,
    WinCheck,
    WinSituation,
)
from mjtable.tiles import RIICHI_TILESET, Hand, Tile, TileSet

from .scoring import (
    RULES_NAME,
    Liability,
    NotWinningHand,
    RiichiOptions,
    RiichiScore,
    RiichiSituation,
    payment_split,
    score_hand,
)
from .settlement import DIVISIONS, FinalScores, NextHand, after_false_win, final_scores, next_hand, noten_payments
from .tenpai import completing_tiles, discard_furiten

DEAD_WALL = 14  # L23
PAO_NAMES = frozenset({"Daisangen", "Dai Suushii", "Suu Kantsu"})  # yakuman with liability (L730-L738)


@dataclass(frozen=True)
class RiichiRuleset:
    """Hong Kong riichi league.  ``options`` holds the Appendix B choices, division and claim window."""

    options: RiichiOptions = field(default_factory=RiichiOptions)

    @property
    def name(self) -> str:
        return RULES_NAME

    @property
    def tileset(self) -> TileSet:
        return RIICHI_TILESET  # 136 tiles with one red five per suit (L106-L110, L15)

    @property
    def wall(self) -> WallLayout:
        # 17 stacks a side (136/8; the seed does not state it, digest §1); the last 14 are the dead wall and
        # kan replacements come from its tail (L23, L348).
        return WallLayout(stacks_per_side=17, dead_wall=DEAD_WALL, replacements_from_back=True)

    @property
    def timers(self) -> TimerProfile:
        # no numeric limit in the seed (L33, L204): claim window default 3 s, configurable; nothing else timed
        return TimerProfile(claim_s=self.options.claim_window_s)

    @property
    def hands_per_session(self) -> int:
        # East 1 - South 4 is 8 hands without renchan (L13, L446); renchan adds hands.  In the live engine the
        # half-game ends by next_hand (controller/engine/ext_riichi.py); this is only a safety cap.
        return 64

    def claim_kinds(self) -> frozenset[ClaimKind]:
        return frozenset(ClaimKind)  # chi only from the left player (L309): the engine's chow rule

    def claim_priority(self, kind: ClaimKind) -> int:
        return {ClaimKind.WIN: 3, ClaimKind.PUNG: 2, ClaimKind.KONG: 2, ClaimKind.CHOW: 1}[kind]  # L414

    def multiple_winners(self) -> bool:
        return False  # head bump: nearest to the discarder in turn order (L58, L415)

    def may_change_call(self, prior: ClaimKind, new: ClaimKind, others: frozenset[ClaimKind]) -> bool:
        """如果選手叫吃後, 另有對手採用「鳴牌優先規條」叫碰或槓, 選手有權改叫和了 (L421): after a chi, a competing
        pon or kan lets the chi caller change to ron."""
        return prior is ClaimKind.CHOW and new is ClaimKind.WIN and bool(others & {ClaimKind.PUNG, ClaimKind.KONG})

    def deal_counts(self, dealer: int) -> tuple[int, int, int, int]:
        c = [13, 13, 13, 13]
        c[dealer] = 14  # L244
        return (c[0], c[1], c[2], c[3])

    def dice_to_seat(self, dealer: int, total: int) -> int:
        return (dealer + (total - 1)) % 4  # L210-L216

    def situation(self, s: WinSituation) -> RiichiSituation:
        """The scorer's situation from the engine's (extra riichi fields read when present)."""
        last = s.last_tile
        return RiichiSituation(
            self_drawn=s.self_drawn, seat_wind=s.seat_wind, round_wind=s.round_wind,
            riichi=s.riichi, double_riichi=s.double_riichi,
            ippatsu=s.ippatsu,
            rinshan=s.self_drawn and s.after_kong, chankan=s.robbing_kong,
            haitei=last and s.self_drawn, houtei=last and not s.self_drawn,
            tenhou=s.tenhou, chiihou=s.chiihou,
            dora_indicators=s.dora_indicators,
            ura_indicators=s.ura_indicators,
        )

    def check_win(self, hand: Hand, situation: WinSituation) -> WinCheck:
        if situation.furiten and not situation.self_drawn:
            return WinCheck(ok=False, false_win=FalseWinKind.DEAD_HAND,
                            reason="furiten: a furiten player may not ron (L391); treated as a false win")
        try:
            score = score_hand(hand, situation.win_tile, self.situation(situation), self.options)
        except (NotWinningHand, ValueError) as exc:
            ready = bool(completing_tiles(hand)) if hand.size == 13 else False
            kind = FalseWinKind.UNDER_MINIMUM if ready and _completes(hand, situation.win_tile) else (
                FalseWinKind.WRONG_TILE if ready else FalseWinKind.ONE_SHORT)
            return WinCheck(ok=False, false_win=kind, reason=str(exc))
        fans = tuple((name, han, 1) for name, han in score.yaku)
        return WinCheck(ok=True, total=score.value, fans=fans)

    def waits(self, hand: Hand, *, seat_wind: Tile, round_wind: Tile, flowers: int) -> list[tuple[Tile, int]]:
        out: list[tuple[Tile, int]] = []
        sit = RiichiSituation(self_drawn=False, seat_wind=seat_wind, round_wind=round_wind)
        for t in completing_tiles(hand):
            try:
                out.append((t, score_hand(hand, t, sit, self.options).value))
            except NotWinningHand:
                out.append((t, 0))
        return out

    def payments(self, check: WinCheck, situation: WinSituation) -> tuple[int, int, int, int]:
        """The hand value split (L727-L728), honba (L442) and deposits (L47) when supplied, pao (L735-L737)."""
        sit = self.situation(situation)
        main, additional = _split_value(check.total, sit.dealer, situation.self_drawn)
        # pao only when the liable yakuman is part of the win (L735-L737)
        pao_seat = situation.pao if any(name in PAO_NAMES for name, _, _ in check.fans) else None
        score = RiichiScore(han=0, fu=0, yaku=(), limit="", value=check.total, main=main, additional=additional)
        return payment_split(score, winner=situation.winner, dealer=situation.dealer,
                             self_drawn=situation.self_drawn, discarder=situation.discarder,
                             honba=situation.honba,
                             riichi_sticks=situation.riichi_sticks,
                             pao=Liability(pao_seat) if isinstance(pao_seat, int) else None)

    def false_win_payments(self, kind: FalseWinKind, offender: int) -> tuple[int, int, int, int]:
        # 錯和 is a level-5 penalty on league points (-25 and a win ban, L651-L659), not a table payment.
        return (0, 0, 0, 0)

    def disqualifies(self, kind: FalseWinKind) -> bool:
        return False

    def penalty_ladder(self) -> tuple[int, ...]:
        # league points per level 1, 2, 4, 5 (L509-L516): warning, 2, 8-12 (8 used), 25
        return (0, 2, 8, 25)

    def hand_continues_after_win(self, winners_so_far: int) -> bool:
        return False

    def next_dealer(self, dealer: int, winners: Sequence[int], exhaustive: bool) -> tuple[int, bool]:
        """Renchan on a dealer win (L26); a non-dealer win passes the deal.  At an exhaustive draw the
        protocol does not say whether the dealer was tenpai: use :meth:`next_hand` (this assumes noten)."""
        if dealer in winners:
            return dealer, False
        return (dealer + 1) % 4, dealer == 3

    def seat_arrangement(self, round_no: int) -> tuple[int, int, int, int]:
        return (0, 1, 2, 3)

    def ranking_points(self, session_scores: Sequence[int]) -> tuple[float, float, float, float]:
        """Final scores in thousands from zero-based session scores (start points added; L19 uma by default)."""
        start, _ = DIVISIONS[self.options.division]
        f = final_scores([start + s for s in session_scores], 0, self.options)
        return f.final

    # --- riichi-only hooks -------------------------------------------------------------------------------

    def start_points(self) -> int:
        """Starting points of the division (L16-L18)."""
        return DIVISIONS[self.options.division][0]

    def can_riichi(self, hand14: Hand, discard: Tile, *, live_tiles_left: int) -> bool:
        """Riichi with ``discard``: closed hand, tenpai after the discard, at least one live tile left (L363)."""
        if any(not m.is_concealed for m in hand14.melds) or live_tiles_left < 1:
            return False
        rest = list(hand14.concealed)
        for i, t in enumerate(rest):
            if t == discard:
                del rest[i]
                break
        else:
            return False
        return bool(completing_tiles(Hand(tuple(rest), hand14.melds)))

    def noten_payments(self, tenpai: Sequence[bool]) -> tuple[int, int, int, int]:
        return noten_payments(tenpai)

    def next_hand(self, **kwargs: int | bool) -> NextHand:
        """See :func:`controller.riichi.settlement.next_hand`."""
        return next_hand(**kwargs)  # type: ignore[arg-type]

    def final_scores(self, points: Sequence[int], leftover_sticks: int, first_dealer: int = 0) -> FinalScores:
        return final_scores(points, leftover_sticks, self.options, first_dealer)

    def after_false_win(self, kind: str, live_tiles_left: int) -> str:
        """``"redeal"`` or ``"play_on"`` after an empty (空和) or false (錯和) win (Appendix B 4)."""
        return after_false_win(kind, live_tiles_left, self.options)

    def furiten(self, hand: Hand, own_discards: Sequence[Tile]) -> bool:
        """Discard furiten (L392) for a 13-tile hand."""
        return discard_furiten(completing_tiles(hand), own_discards)


def _completes(hand: Hand, t: Tile) -> bool:
    return any(w.kind == t.kind for w in completing_tiles(hand))


def _split_value(value: int, dealer: bool, self_drawn: bool) -> tuple[int, int]:
    """(main, additional) back from a hand value made by :func:`score_hand` (L226, L728).

    Dealer tsumo: value = 3 x each.  Non-dealer tsumo: value = A + 2B with B = ceil100(b), A = ceil100(2b),
    so A is 2B or 2B - 100 and the split is exact.
    """
    if not self_drawn:
        return value, 0
    if dealer:
        return value // 3, value // 3
    if value % 400 == 0:
        b = value // 400 * 100
        return 2 * b, b
    b = (value + 100) // 400 * 100
    return 2 * b - 100, b


def make_ruleset(name: str) -> RiichiRuleset:
    """Registry entry point (``controller.engine.registry``): ``riichi-hkma-2025`` with optional
    :class:`RiichiOptions`, e.g. ``riichi-hkma-2025:division=B,uma_mode=l453,claim_window_s=5``."""
    from controller.engine.profile_options import profile_options

    (opts,) = profile_options(name, RULES_NAME, RiichiOptions)
    return RiichiRuleset(RiichiOptions(**opts)) if opts else RiichiRuleset()


RULESET = RiichiRuleset()
