"""Sichuan SBR 2025 as a :class:`controller.engine.ruleset.Ruleset` (plus Sichuan-only hooks).

Seed ``001_2f25afa9281b00ab.txt``; digest ``../shared/rules/sichuan-rules.md``.  The object is immutable and
every hook is pure; the engine calls them synchronously from whatever loop runs ``step``.

Hooks beyond the protocol (the engine calls them when present, see docs/sichuan.md):
``choose_void``, ``discard_violation``, ``claim_allowed``, ``kong_payment``, ``draw_settlement``,
``next_dealer_after``, ``wall_stacks``, ``break_point``, ``draw_within_s``.  The Sichuan fields of
:class:`~controller.engine.ruleset.WinSituation` (``void_suit``, ``after_kong_discard``, ``active``) are used.
"""

from __future__ import annotations

from collections import Counter
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
from mjtable.tiles import SICHUAN_TILESET, Hand, Tile, TileSet

from .fans import RULES_NAME, NotWinningHand, SichuanOptions, base_points, score_win, winning_tiles
from .fans import WinSituation as SichuanWin
from .settlement import DrawSeat, KongMoney, KongType, kong_money, session_points, settle_draw, win_payment

SUITS = ("m", "p", "s")


@dataclass(frozen=True)
class SichuanRuleset:
    """Sichuan bloody battle.  ``options`` carries the fan cap; ``hands`` the session length in hands
    (the event sets hands or a 35-80 min time limit, L157/L290; ``session_s`` sets the time)."""

    options: SichuanOptions = field(default_factory=SichuanOptions)
    hands: int = 8
    session_s: float | None = None
    claim_s: float = 3.0

    def __post_init__(self) -> None:
        if self.session_s is not None and not 35 * 60 <= self.session_s <= 80 * 60:
            raise ValueError("a Sichuan session lasts 35-80 minutes (L290)")

    @property
    def name(self) -> str:
        return RULES_NAME

    @property
    def tileset(self) -> TileSet:
        return SICHUAN_TILESET  # 108 tiles, no honours, flowers or red fives (L64)

    @property
    def wall(self) -> WallLayout:
        # E/W build 14 stacks, S/N 13 (L310): see wall_stacks(); no dead wall, kong replacements are the
        # next tile in normal draw order (L403).
        return WallLayout(stacks_per_side=14, dead_wall=0, replacements_from_back=False)

    def wall_stacks(self) -> tuple[int, int, int, int]:
        """Stacks per physical seat E, S, W, N (L310): 14/13/14/13 = 108 tiles."""
        return (14, 13, 14, 13)

    @property
    def timers(self) -> TimerProfile:
        # 3 s for every call on a discard (L428); draw within 3 s (L430) is advisory (no penalty stated),
        # so it is not a turn timer; no per-turn thinking limit exists.
        return TimerProfile(claim_s=self.claim_s, session_s=self.session_s, session_warning_s=15 * 60.0)

    @property
    def hands_per_session(self) -> int:
        return self.hands

    def claim_kinds(self) -> frozenset[ClaimKind]:
        return frozenset({ClaimKind.PUNG, ClaimKind.KONG, ClaimKind.WIN})  # no chow (L426)

    def claim_priority(self, kind: ClaimKind) -> int:
        return {ClaimKind.WIN: 2, ClaimKind.PUNG: 1, ClaimKind.KONG: 1, ClaimKind.CHOW: 0}[kind]  # L434, L476

    def multiple_winners(self) -> bool:
        return True  # 一炮多响 (L470)

    def pung_on_last_discard(self) -> bool:
        """海底牌（牌墙摸完后打出的牌）允许碰 (L383): a pung (not a kong: no replacement is left) on the last
        discard."""
        return True

    def may_change_call(self, prior: ClaimKind, new: ClaimKind, others: frozenset[ClaimKind]) -> bool:
        """改报 (L432-L438): once another player has called, a caller may change to a higher call (pong = kong <
        win); a win is never withdrawn."""
        return bool(others) and self.claim_priority(new) > self.claim_priority(prior)

    def deal_counts(self, dealer: int) -> tuple[int, int, int, int]:
        c = [13, 13, 13, 13]
        c[dealer] = 14  # L332
        return (c[0], c[1], c[2], c[3])

    def dice_to_seat(self, dealer: int, total: int) -> int:
        # 5/9 dealer, 2/6/10 下家, 3/7/11 对家, 4/8/12 上家 (L322-L328)
        return (dealer + (total - 1)) % 4

    def _situation(self, s: WinSituation) -> SichuanWin:
        after_kong_discard = s.after_kong_discard
        return SichuanWin(
            self_drawn=s.self_drawn,
            kong_replacement=s.self_drawn and s.after_kong,
            after_kong=(not s.self_drawn) and (s.after_kong or after_kong_discard),
            robbing_kong=s.robbing_kong,
            last_tile=s.last_tile,
        )

    def check_win(self, hand: Hand, situation: WinSituation) -> WinCheck:
        void = situation.void_suit
        try:
            score = score_win(hand, situation.win_tile, self._situation(situation), void_suit=void,
                              options=self.options)
        except (NotWinningHand, ValueError) as exc:
            return WinCheck(ok=False, false_win=self._grade(hand, void), reason=str(exc))
        fans = tuple((h.fan.en, h.fan.value, h.count) for h in score.fans)
        return WinCheck(ok=True, total=score.fan, fans=fans)

    def _grade(self, hand: Hand, void: str | None) -> FalseWinKind:
        try:
            ready = bool(winning_tiles(hand, void))
        except ValueError:
            ready = False
        return FalseWinKind.WRONG_TILE if ready else FalseWinKind.ONE_SHORT

    def waits(self, hand: Hand, *, seat_wind: Tile, round_wind: Tile, flowers: int) -> list[tuple[Tile, int]]:
        return self.waits_with_void(hand, None)

    def waits_with_void(self, hand: Hand, void_suit: str | None) -> list[tuple[Tile, int]]:
        """Waits with their raw fan on a discard win, honouring the player's 定缺."""
        out: list[tuple[Tile, int]] = []
        try:
            tiles = winning_tiles(hand, void_suit)
        except ValueError:
            return out
        for t in tiles:
            s = score_win(hand, t, SichuanWin(self_drawn=False), void_suit=void_suit, options=self.options)
            out.append((t, s.fan))
        return out

    def payments(self, check: WinCheck, situation: WinSituation) -> tuple[int, int, int, int]:
        """Ron: base from the discarder (L518); self-draw: base + 1 from each player still in (L520).

        The players still in are ``situation.active`` (bloody battle).
        """
        active = situation.active
        return win_payment(situation.winner, base_points(check.total, self.options.cap_fan),
                           self_drawn=situation.self_drawn, discarder=situation.discarder, active=active)

    def false_win_payments(self, kind: FalseWinKind, offender: int) -> tuple[int, int, int, int]:
        # 诈和 is a category-2 deduction of 24 副分 (L780, L630), not a payment to the others; see
        # false_win_deduction().  All the offender's kong money is refunded (L784): kong_refund().
        return (0, 0, 0, 0)

    def false_win_deduction(self) -> int:
        """副分 deducted for 诈和 / 顺和 / 主动花猪 (category 2, L610/L630)."""
        return 24

    def disqualifies(self, kind: FalseWinKind) -> bool:
        return False

    def penalty_ladder(self) -> tuple[int, ...]:
        # category 4 warning first, then category 3 "rising and cumulative" 1-8 副分 (L612, L632) [DESIGN steps]
        return (0, 2, 4, 8)

    def hand_continues_after_win(self, winners_so_far: int) -> bool:
        return winners_so_far < 3  # 血战到底 (L466, L145)

    def next_dealer(self, dealer: int, winners: Sequence[int], exhaustive: bool) -> tuple[int, bool]:
        """First winner deals next; nobody won -> same dealer (L478-L482).  For several first winners on one
        discard use :meth:`next_dealer_after` (the discarder deals)."""
        if not winners:
            return dealer, False
        return winners[0], False

    def next_dealer_after(self, dealer: int, first_winners: Sequence[int], discarder: int | None) -> int:
        """L480-L482: the first winner; several simultaneous first winners -> the discarder; none -> dealer."""
        if not first_winners:
            return dealer
        if len(first_winners) > 1 and discarder is not None:
            return discarder
        return first_winners[0]

    def seat_arrangement(self, round_no: int) -> tuple[int, int, int, int]:
        return (0, 1, 2, 3)  # no rounds and no seat changes within a 盘 (L153)

    def ranking_points(self, session_scores: Sequence[int]) -> tuple[float, float, float, float]:
        p = session_points(session_scores)  # 盘分 4/3/2/1, ties split (L161)
        return (p[0], p[1], p[2], p[3])

    # --- Sichuan-only hooks ------------------------------------------------------------------------------

    @property
    def draw_within_s(self) -> float:
        """A player who cannot call draws within 3 s and thinks afterwards (L430); advisory, no penalty."""
        return 3.0

    def break_point(self, dealer: int, dice: tuple[int, int]) -> tuple[int, int]:
        """One throw of two dice by the dealer (L318): the sum picks whose wall (L322-L328), the smaller die
        the stack, counted from that wall's right end (L332).  Returns (wall owner seat, stack number)."""
        d1, d2 = dice
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise ValueError(f"dice are 1-6, got {dice}")
        return self.dice_to_seat(dealer, d1 + d2), min(d1, d2)


    def choose_void(self, hand: Hand) -> str:
        """A legal 定缺 choice for a bot (or the referee's default): the suit with the fewest tiles (L342)."""
        counts = Counter(t.suit for t in hand.all_tiles)
        return min(SUITS, key=lambda s: (counts.get(s, 0), SUITS.index(s)))

    def discard_violation(self, hand_before: Hand, discard: Tile, void_suit: str) -> str | None:
        """主动花猪 check for one discard: a non-void tile while the hand still holds a void tile (L350-L352)."""
        if discard.suit != void_suit and any(t.suit == void_suit for t in hand_before.all_tiles):
            return f"discarded {discard.code} while holding the missing suit {void_suit} (主动花猪, L352)"
        return None

    def claim_allowed(self, kind: ClaimKind, tile: Tile, void_suit: str | None) -> bool:
        """No pong, kong or win on a tile of one's missing suit (L342, L736); no chow at all (L426)."""
        if kind is ClaimKind.CHOW:
            return False
        return void_suit is None or tile.suit != void_suit

    def kong_payment(self, seat: int, kong_type: str, discarder: int | None,
                     active: Sequence[int]) -> KongMoney:
        """Kong money paid at once (L490-L502); ``kong_type`` is a :class:`KongType` value."""
        return kong_money(seat, KongType(kong_type), active, discarder)

    def draw_settlement(self, seats: Sequence[DrawSeat], kongs: Sequence[KongMoney]) -> tuple[int, int, int, int]:
        """查花猪 + 查大叫 + not-tenpai kong refunds at the exhaustive draw (L549-L596)."""
        return settle_draw(seats, kongs, self.options).deltas


def make_ruleset(name: str) -> SichuanRuleset:
    """Registry entry point (``controller.engine.registry``): ``sichuan-sbr-2025`` with optional settings, e.g.
    ``sichuan-sbr-2025:cap_fan=4,hands=16`` or ``sichuan-sbr-2025:session_s=2700`` (35-80 min, L290)."""
    from controller.engine.profile_options import profile_options

    opts, table = profile_options(name, RULES_NAME, SichuanOptions, SichuanRuleset)
    if not opts and not table:
        return SichuanRuleset()
    return SichuanRuleset(options=SichuanOptions(**opts), **table)


RULESET = SichuanRuleset()
