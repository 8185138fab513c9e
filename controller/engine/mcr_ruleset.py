"""The three MCR rulebooks (1998, 2006, 2017) as :class:`controller.engine.ruleset.Ruleset` objects.

Scoring goes through an :class:`McrScorer` port: the real one is the MCR scorer ``controller.mcr`` (imported lazily,
no fallback: a broken scorer fails loudly); tests may pass any other implementation explicitly.
Rule citations are to ``../shared/rules/mcr-rules.md`` and the seeds (``[000:L496]`` = V1998 line 496).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.engine.ruleset import (
    ClaimKind,
    FalseWinKind,
    TimerProfile,
    WallLayout,
    WinCheck,
    WinSituation,
)
from controller.engine.shanten import is_complete, maybe_knitted, shanten
from mjtable.tiles import MCR_TILESET, Hand, Tile, TileSet, tile_counts

MCR_PROFILES = ("mcr-1998", "mcr-2006", "mcr-2017")
MINIMUM_POINTS = 8  # 起和分 [000:L411; 004:L397; 003:L45@3418]
BASE_POINTS = 8  # 底分 [000:L688; 004:L412]

#: Timer profiles, MCR digest §3.  1998: flowers 30 s then dealer 30 s, 15 s turns [000:L472, L496];
#: 2006: 20 s opening block, 10 s discards [004:L237, L244]; 2017: 30 s first, 15 s turns [003:L45@1117].
TIMER_PROFILES: dict[str, TimerProfile] = {
    "mcr-1998": TimerProfile(flowers_s=30.0, first_discard_s=30.0, turn_s=15.0, claim_s=3.0,
                             session_s=3 * 3600.0, turn_from_discard=True),
    "mcr-2006": TimerProfile(opening_s=20.0, turn_s=10.0, claim_s=3.0, session_s=150 * 60.0),
    "mcr-2017": TimerProfile(first_discard_s=30.0, turn_s=15.0, claim_s=3.0, session_s=3 * 3600.0),
}

#: V2006 附件4 seat-rotation table, two readings (digest §2.3): player index at physical seat E, S, W, N.
SEAT_ROTATIONS: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    "A": ((0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 1, 0), (3, 2, 0, 1)),
    "B": ((0, 1, 2, 3), (1, 0, 3, 2), (3, 2, 0, 1), (2, 3, 1, 0)),
    "none": ((0, 1, 2, 3),) * 4,
}


class NotWinning(ValueError):  # noqa: N818 - reads as the scorer's verdict
    """The hand is not a complete shape with the win tile."""


@dataclass(frozen=True, slots=True)
class ScoredFans:
    """A scorer's answer: ``fans`` as (name, points, count), ``total`` with flowers, ``base`` without."""

    fans: tuple[tuple[str, int, int], ...]
    total: int
    base: int


class McrScorer(Protocol):
    """Port to an MCR fan calculator.  Pure; called from the engine's thread."""

    def score(self, hand: Hand, situation: WinSituation, rules: str) -> ScoredFans:
        """Score ``hand`` (win tile excluded) or raise :class:`NotWinning`."""
        ...

    def is_complete(self, hand: Hand, win_tile: Tile) -> bool:
        """Shape check only (all MCR shapes, knitted ones included)."""
        ...


class AreaOneScorer:
    """Adapter to ``controller.mcr`` (the MCR scorer package, the project's reference)."""

    def __init__(self) -> None:
        import importlib

        self._mcr: Any = importlib.import_module("controller.mcr")  # raises when the package is broken

    def score(self, hand: Hand, situation: WinSituation, rules: str) -> ScoredFans:
        ctx = self._mcr.WinContext(
            win_tile=situation.win_tile, self_drawn=situation.self_drawn, seat_wind=situation.seat_wind,
            round_wind=situation.round_wind, flowers=situation.flowers,
            last_of_kind=situation.visible_copies >= 3, kong=situation.after_kong or situation.robbing_kong,
            last_tile=situation.last_tile,
            # 天和 / 地和 / 人和 exist only in 2017 [003:L45@2954]; older profiles never see the flags
            heavenly=situation.heavenly and rules == "mcr-2017", earthly=situation.earthly and rules == "mcr-2017",
            concealed_ready=situation.concealed_ready and rules == "mcr-2017")
        try:
            res = self._mcr.score_hand(hand, ctx, rules)
        except self._mcr.NotWinningHand as exc:
            raise NotWinning(str(exc)) from exc
        fans = tuple((str(f.name), int(f.points), int(f.count)) for f in res.fans)
        flower_pts = sum(p * c for n, p, c in fans if "flower" in n.lower())
        return ScoredFans(fans, int(res.total), int(res.total) - flower_pts)

    def is_complete(self, hand: Hand, win_tile: Tile) -> bool:
        return bool(self._mcr.is_complete(hand, win_tile))


def default_scorer() -> McrScorer:
    """The project's scorer, ``controller.mcr``.  There is deliberately no fallback: PyMahjongGB is a
    test-only dependency with different readings (docs/mcr-interpretations.md), so a broken or missing
    ``controller.mcr`` raises :class:`ImportError` here instead of silently changing how hands score."""
    return AreaOneScorer()


@dataclass(frozen=True, slots=True)
class McrVenue:
    """Venue options of an MCR profile (``mcr-2006:overrun_penalty=true``).

    Attributes:
        overrun_penalty: put turn-limit overruns on the per-hand ladder (warning, 5, 10, 20...).  The seeds set
            none for a slow discard (15 s [000:L496], 10 s [004:L244], 15 s [003:L45@1117] are limits without a
            penalty; only a pung after 3 s is punished [000:L797]): default False = a referee alert only.
    """

    overrun_penalty: bool = False


@dataclass(frozen=True)
class McrRuleset:
    """One MCR rulebook.  ``profile`` is ``mcr-1998``, ``mcr-2006`` or ``mcr-2017``."""

    profile: str = "mcr-2006"
    seat_rotation: str = "A"
    venue: McrVenue = field(default_factory=McrVenue)  # venue options (issue 16 point 7)
    scorer: McrScorer = field(default_factory=default_scorer, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.profile not in MCR_PROFILES:
            raise ValueError(f"unknown MCR profile {self.profile!r}; expected one of {', '.join(MCR_PROFILES)}")
        if self.seat_rotation not in SEAT_ROTATIONS:
            raise ValueError(f"seat_rotation must be one of {', '.join(SEAT_ROTATIONS)}")

    @property
    def name(self) -> str:
        return self.profile

    @property
    def tileset(self) -> TileSet:
        return MCR_TILESET

    @property
    def wall(self) -> WallLayout:
        return WallLayout(stacks_per_side=18, dead_wall=0)  # no dead wall: every tile is drawn [000:L390]

    @property
    def timers(self) -> TimerProfile:
        return TIMER_PROFILES[self.profile]

    @property
    def hands_per_session(self) -> int:
        return 16  # 4 rounds of 4 hands, no dealer repeat [000:L280; 004:L149]

    def claim_kinds(self) -> frozenset[ClaimKind]:
        return frozenset(ClaimKind)

    def claim_priority(self, kind: ClaimKind) -> int:
        # 和 > 碰/杠 > 吃 [004:L259, L247; 003:L45@1935]; V1998 states 碰 > 吃, 杠 > 吃 [000:L504, L508].
        return {ClaimKind.WIN: 3, ClaimKind.PUNG: 2, ClaimKind.KONG: 2, ClaimKind.CHOW: 1}[kind]

    def multiple_winners(self) -> bool:
        return False  # one winner, nearest counter-clockwise [000:L548; 004:L275]

    def deal_counts(self, dealer: int) -> tuple[int, int, int, int]:
        return tuple(14 if s == dealer else 13 for s in range(4))  # type: ignore[return-value]

    def dice_to_seat(self, dealer: int, total: int) -> int:
        # 5, 9 -> dealer; 2, 6, 10 -> 下家; 3, 7, 11 -> 对家; 4, 8, 12 -> 上家 [000:L466; 004:L230]
        return (dealer + (total - 1)) % 4

    def check_win(self, hand: Hand, situation: WinSituation) -> WinCheck:
        try:
            scored = self.scorer.score(hand, situation, self.profile)
        except NotWinning as exc:
            return WinCheck(ok=False, false_win=self._grade(hand, situation.win_tile), reason=str(exc))
        if scored.base < MINIMUM_POINTS:
            return WinCheck(ok=False, total=scored.total, fans=scored.fans, false_win=FalseWinKind.UNDER_MINIMUM,
                            reason=f"{scored.base} points without flowers, below the {MINIMUM_POINTS}-point minimum")
        return WinCheck(ok=True, total=scored.total, fans=scored.fans)

    def _grade(self, hand: Hand, win_tile: Tile) -> FalseWinKind:
        counts = tile_counts(hand.concealed)
        sh = shanten(counts, len(hand.melds))
        if sh <= 0:
            return FalseWinKind.WRONG_TILE
        return FalseWinKind.ONE_SHORT if sh == 1 else FalseWinKind.FAR_SHORT

    def waits(self, hand: Hand, *, seat_wind: Tile, round_wind: Tile, flowers: int) -> list[tuple[Tile, int]]:
        out: list[tuple[Tile, int]] = []
        counts = tile_counts(hand.concealed)
        for kind in range(34):
            t = Tile(kind)
            counts[kind] += 1
            maybe = is_complete(counts, len(hand.melds)) or (len(hand.melds) <= 1 and maybe_knitted(counts))
            counts[kind] -= 1
            if not maybe or not self.scorer.is_complete(hand, t):  # fast filter, then the real shape check
                continue
            sit = WinSituation(winner=0, win_tile=t, self_drawn=False, discarder=1, seat_wind=seat_wind,
                               round_wind=round_wind, flowers=flowers)
            try:
                out.append((t, self.scorer.score(hand, sit, self.profile).total))
            except NotWinning:
                continue
        return out

    def payments(self, check: WinCheck, situation: WinSituation) -> tuple[int, int, int, int]:
        # self-draw: (8 + fan) x 3; discard: 8 x 3 + fan from the discarder [000:L686-689; 004:L410-413]
        pay = [0, 0, 0, 0]
        w = situation.winner
        for s in range(4):
            if s == w:
                continue
            amount = BASE_POINTS + check.total if situation.self_drawn or s == situation.discarder else BASE_POINTS
            pay[s] -= amount
            pay[w] += amount
        return (pay[0], pay[1], pay[2], pay[3])

    def false_win_payments(self, kind: FalseWinKind, offender: int) -> tuple[int, int, int, int]:
        # 错和 / 和错牌: 10 to each; 诈和: 20 to each [000:L801-803; 004:L459-460; 003:L45@3689-3819]
        each = 10 if kind in (FalseWinKind.UNDER_MINIMUM, FalseWinKind.WRONG_TILE) else 20
        pay = [each] * 4
        pay[offender] = -3 * each
        return (pay[0], pay[1], pay[2], pay[3])

    def disqualifies(self, kind: FalseWinKind) -> bool:
        return self.profile == "mcr-1998" and kind is FalseWinKind.FAR_SHORT  # 有意诈和 [000:L804]

    def penalty_ladder(self) -> tuple[int, ...]:
        # warning, 5, 10, 20, "以此类推" read as continuing the general scale [000:L797, L765; 003:L45@2811]
        return (0, 5, 10, 20, 30, 40, 50, 60)

    def hand_continues_after_win(self, winners_so_far: int) -> bool:
        return False

    def next_dealer(self, dealer: int, winners: Sequence[int], exhaustive: bool) -> tuple[int, bool]:
        # no 连庄: the dealer passes to 下家 whether he wins or not [000:L300; 004:L154; 003:L45@2497]
        return (dealer + 1) % 4, dealer == 3

    def seat_arrangement(self, round_no: int) -> tuple[int, int, int, int]:
        return SEAT_ROTATIONS[self.seat_rotation][round_no % 4]

    def ranking_points(self, session_scores: Sequence[int]) -> tuple[float, float, float, float]:
        return share_ranking_points(session_scores, (4.0, 2.0, 1.0, 0.0))


def share_ranking_points(scores: Sequence[int], table: Sequence[float]) -> tuple[float, float, float, float]:
    """4/2/1/0 by score [004:L430]; players tied share the points of the places they occupy (the rulebooks
    do not say, digest §12.11: this is our interpretation)."""
    order = sorted(range(4), key=lambda s: -scores[s])
    out = [0.0] * 4
    i = 0
    while i < 4:
        j = i
        while j + 1 < 4 and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        share = sum(table[i:j + 1]) / (j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = share
        i = j + 1
    return (out[0], out[1], out[2], out[3])
