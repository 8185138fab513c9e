"""The ``Ruleset`` protocol: everything the live engine asks a rulebook.

The engine core (:mod:`controller.engine.step`) is generic over this protocol; the MCR rulesets live in
:mod:`controller.engine.mcr_ruleset`, Sichuan and riichi in ``controller.sichuan`` / ``controller.riichi``.
A ruleset is an immutable object: every hook is a pure function of its arguments (no I/O, no clock, no
randomness), called synchronously from whatever thread or event loop runs :func:`step`.

Seats are ``0..3`` in counter-clockwise playing order (seat ``s + 1`` mod 4 is the 下家 / next player of
``s``).  Tiles are :class:`mjtable.tiles.Tile`; hands are :class:`mjtable.tiles.Hand`.

Stability: this module is a contract with the Sichuan and riichi rulesets (``controller.sichuan``,
``controller.riichi``).  New hooks are only ever added with a default in :class:`RulesetDefaults`; existing signatures
do not change.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from mjtable.tiles import Hand, Tile, TileSet

__all__ = [
    "ClaimKind",
    "FalseWinKind",
    "InformationMode",
    "Ruleset",
    "RulesetDefaults",
    "TimerProfile",
    "WallLayout",
    "WinCheck",
    "WinSituation",
]


class ClaimKind(enum.StrEnum):
    """What a player can call on another player's discard (or on a promoted kong's added tile)."""

    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"
    WIN = "win"


class InformationMode(enum.StrEnum):
    """How much the engine knows: every tile (simulation, hand cameras) or only what is face up."""

    FULL = "full"
    PARTIAL = "partial"


class FalseWinKind(enum.StrEnum):
    """Why a declared win failed, graded the way the rulebooks grade penalties (MCR digest §8)."""

    UNDER_MINIMUM = "under_minimum"  # complete shape but fewer points than the minimum (错和 / 强和)
    WRONG_TILE = "wrong_tile"  # ready, but the tile does not complete the hand (和错牌)
    ONE_SHORT = "one_short"  # one tile short of ready (诈和)
    FAR_SHORT = "far_short"  # two or more tiles short (有意诈和)
    DEAD_HAND = "dead_hand"  # the player had lost the right to win (相公 / 停和)


@dataclass(frozen=True, kw_only=True, slots=True)
class TimerProfile:
    """Time limits in seconds; ``None`` means "not timed".  Every value can be overridden per event.

    Attributes:
        opening_s: limit for the whole opening (sorting, initial flowers, dealer's first discard) when the
            rulebook times it as one block (MCR 2006: 20 s), else None.
        flowers_s: limit for the initial flower replacement of all four players (MCR 1998: 30 s).
        first_discard_s: dealer's first discard, counted from the end of the initial flowers.
        turn_s: each later turn, from getting the turn (draw or claim) to discarding.
        claim_s: the claim window after a discard is shown.
        session_s: the session (局) time limit; None for no limit.
        session_warning_s: how long before the session limit the warning is given.
    """

    opening_s: float | None = None
    flowers_s: float | None = None
    first_discard_s: float | None = None
    turn_s: float | None = None
    claim_s: float = 3.0
    session_s: float | None = None
    session_warning_s: float = 15 * 60.0
    turn_from_discard: bool = False  # MCR 1998: a turn's limit counts from the upper player's discard [000:L496]


@dataclass(frozen=True, kw_only=True, slots=True)
class WallLayout:
    """The physical wall: ``stacks_per_side`` stacks of 2 in front of each of 4 players.

    Attributes:
        stacks_per_side: 18 for MCR (144 tiles), 17 for riichi (136), 13 or 14 for Sichuan (108).
        dead_wall: tiles at the back that are never drawn (riichi: 14); 0 for MCR (every tile is drawn).
        replacements_from_back: flower/kong replacements are taken from the back of the wall (MCR, riichi).
    """

    stacks_per_side: int
    dead_wall: int = 0
    replacements_from_back: bool = True


@dataclass(frozen=True, kw_only=True, slots=True)
class WinSituation:
    """How a win happened, in engine terms; the ruleset turns it into its scorer's context.

    Attributes:
        winner: seat declaring the win.
        win_tile: the tile that completes the hand (NOT included in ``hand``).
        self_drawn: True for a self-drawn win (including after a kong or flower replacement).
        discarder: seat that discarded (or promoted the robbed kong); None when self-drawn.
        seat_wind / round_wind: ``1z``..``4z`` tiles.
        flowers: flowers the winner has declared.
        after_kong: the win tile was a kong replacement (杠上开花).
        robbing_kong: the win tile is the tile added to a promoted kong (抢杠和).
        last_tile: the win tile is the last tile of the wall (drawn, or the discard after it).
        visible_copies: copies of the win tile's face already face up elsewhere on the table (for 和绝张),
            not counting the win tile itself.
        dealer: the dealer's seat.
        heavenly: the dealer wins on his first turn, before any discard or claim, nothing declared (天和).
        earthly: the win is on the dealer's first discard, before any other discard or claim, the winner
            having declared nothing (地和, "和庄家打出的第一张牌" [003:L45@3130]).
        concealed_ready: the winner declared ready face down right after the deal and changed no tile since
            (人和 [003:L45@3245]); the MCR engine has no such declaration, so it stays False there.
    """

    winner: int
    win_tile: Tile
    self_drawn: bool
    discarder: int | None
    seat_wind: Tile
    round_wind: Tile
    flowers: int = 0
    after_kong: bool = False
    robbing_kong: bool = False
    last_tile: bool = False
    visible_copies: int = 0
    dealer: int = 0
    heavenly: bool = False
    earthly: bool = False
    concealed_ready: bool = False
    # Sichuan (controller.sichuan): void suit 定缺, win on the discard right after one's kong (杠上炮),
    # seats still playing
    void_suit: str | None = None
    after_kong_discard: bool = False
    active: tuple[int, ...] = (0, 1, 2, 3)
    # riichi (controller.riichi)
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    tenhou: bool = False
    chiihou: bool = False
    furiten: bool = False
    dora_indicators: tuple[Tile, ...] = ()
    ura_indicators: tuple[Tile, ...] = ()
    honba: int = 0
    riichi_sticks: int = 0
    pao: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class WinCheck:
    """The ruleset's verdict on a declared win.

    ``ok`` True: ``fans`` are ``(name, points, count)`` triples with the rulebook's standard English names and
    ``total`` the hand's value used by :meth:`Ruleset.payments`.  ``ok`` False: ``false_win`` grades the failure
    and ``reason`` explains it in words.
    """

    ok: bool
    total: int = 0
    fans: tuple[tuple[str, int, int], ...] = ()
    false_win: FalseWinKind | None = None
    reason: str = ""


@runtime_checkable
class Ruleset(Protocol):
    """A rulebook as the engine sees it.  See ``docs/engine.md`` for how each hook is used."""

    @property
    def name(self) -> str:
        """Profile name as written on the command line, e.g. ``mcr-2006``, ``sichuan-sbr-2025``."""
        ...

    @property
    def tileset(self) -> TileSet:
        """The physical tiles (MCR 144 with flowers, riichi 136 with red fives, Sichuan 108)."""
        ...

    @property
    def wall(self) -> WallLayout:
        """Wall geometry: stacks per side, dead wall, where replacements come from."""
        ...

    @property
    def timers(self) -> TimerProfile:
        """Default time limits (seconds) of this rulebook."""
        ...

    @property
    def hands_per_session(self) -> int:
        """Maximum number of hands in a session (MCR: 16 = 4 rounds of 4); the time limit may end it sooner."""
        ...

    def claim_kinds(self) -> frozenset[ClaimKind]:
        """The claims that exist (Sichuan: no chow)."""
        ...

    def claim_priority(self, kind: ClaimKind) -> int:
        """Higher wins arbitration (MCR 2006: win 3 > pung = kong 2 > chow 1)."""
        ...

    def multiple_winners(self) -> bool:
        """True when several players may win on one discard (Sichuan); False picks the nearest
        counter-clockwise from the discarder (MCR)."""
        ...

    def deal_counts(self, dealer: int) -> tuple[int, int, int, int]:
        """Tiles each seat holds after the deal (MCR: dealer 14, others 13)."""
        ...

    def dice_to_seat(self, dealer: int, total: int) -> int:
        """Which seat a dice total points to, counting the dealer as 1 counter-clockwise (MCR §2.5)."""
        ...

    def check_win(self, hand: Hand, situation: WinSituation) -> WinCheck:
        """Validate and score a declared win.  ``hand`` excludes the win tile; melds carry ``claimed_from``.
        Never raises for a bad hand: returns ``WinCheck(ok=False, false_win=..., reason=...)``."""
        ...

    def waits(self, hand: Hand, *, seat_wind: Tile, round_wind: Tile, flowers: int) -> list[tuple[Tile, int]]:
        """Tiles that complete a 13-tile ``hand``, each with its total on a discard win (0 if it scores under
        the minimum).  Used by the referee view; may be slow-ish (called once per state publish)."""
        ...

    def payments(self, check: WinCheck, situation: WinSituation) -> tuple[int, int, int, int]:
        """Score change per seat for one accepted win (sums to zero)."""
        ...

    def false_win_payments(self, kind: FalseWinKind, offender: int) -> tuple[int, int, int, int]:
        """Score change per seat when ``offender`` declares a false win of grade ``kind`` (sums to zero)."""
        ...

    def disqualifies(self, kind: FalseWinKind) -> bool:
        """True when this false-win grade disqualifies the player (MCR 1998: intentional false win)."""
        ...

    def penalty_ladder(self) -> tuple[int, ...]:
        """Points deducted for the 1st, 2nd, ... repeat of a laddered infraction in one hand (0 = warning);
        the last value repeats.  MCR: (0, 5, 10, 20, 30, 40, 50, 60)."""
        ...

    def hand_continues_after_win(self, winners_so_far: int) -> bool:
        """True when play goes on after a win (Sichuan bloody battle until 3 have won); False for MCR/riichi."""
        ...

    def next_dealer(self, dealer: int, winners: Sequence[int], exhaustive: bool) -> tuple[int, bool]:
        """The next hand's dealer and whether the round counter advances; MCR: ``((dealer + 1) % 4, ...)``
        with no repeat dealer."""
        ...

    def seat_arrangement(self, round_no: int) -> tuple[int, int, int, int]:
        """Player index (0..3, the round-1 seat) sitting at each physical seat in round ``round_no`` (0-based)."""
        ...

    def ranking_points(self, session_scores: Sequence[int]) -> tuple[float, float, float, float]:
        """Table ranking points from the four session scores (MCR 4/2/1/0; ties share the places' points)."""
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class RulesetDefaults:
    """Convenient defaults a ruleset can copy; the engine never relies on them being used."""

    ladder: tuple[int, ...] = (0, 5, 10, 20, 30, 40, 50, 60)
    ranking: tuple[float, ...] = field(default=(4.0, 2.0, 1.0, 0.0))
