"""Frozen game state of one table: session, hand, seats, timers, infractions and alerts.

Everything here is an immutable value; :func:`controller.engine.step.step` builds new states with
``dataclasses.replace``.  Times are unix seconds (``*_s``) taken from event timestamps, never from a clock.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from controller.engine.ruleset import ClaimKind, InformationMode
from mjtable.tiles import MeldKind, Tile

WIND_LETTERS = ("E", "S", "W", "N")


class Phase(enum.StrEnum):
    """Where the table is in the procedure (MCR digest §2.12)."""

    BUILDING = "building"  # waiting for the table MCU to report a built wall
    DICE = "dice"  # waiting for the dealer's and the second thrower's dice
    FLOWERS = "flowers"  # initial flower replacement, seat by seat
    TURN = "turn"  # ``turn`` seat holds 14 (kongs count 3) and must discard, kong or win
    CLAIMS = "claims"  # claim window on the last discard
    ROB_KONG = "rob_kong"  # claim window (win only) on the tile added to a promoted kong
    VOID = "void"  # Sichuan 定缺, every seat chooses its missing suit before play (ext_sichuan)
    HAND_OVER = "hand_over"  # win or exhaustive draw settled; waiting for the next build
    SESSION_OVER = "session_over"


class PenaltyMode(enum.StrEnum):
    """Whether automatic infractions are deducted at once or proposed to the referee."""

    APPLY = "apply"
    PROPOSE = "propose"


@dataclass(frozen=True, kw_only=True, slots=True)
class EngineConfig:
    """Per-table options, fixed by the ``session_start`` event.

    Attributes:
        table_id: the table's id in topics and records.
        rules: ruleset profile name (``mcr-1998``, ``mcr-2006``, ``mcr-2017``...).
        mode: full or partial information (see docs/engine.md).
        seat_rotation: MCR per-round seat change, ``A`` (column = seat), ``B`` (column = player) or ``none``.
        penalty_mode: apply automatic infractions at once or propose them to the referee.
        camera_min_confidence: camera observations below this (0..1) become referee alerts.
        timer_overrides: ``(name, seconds)`` pairs replacing the ruleset's TimerProfile fields.
        hands_total: session length in hands (default: the ruleset's).
        flower_rounds: initial flowers in rounds (MCR 2017) instead of each player continuously (2006).
        fast_claims: close a claim window as soon as nobody can claim (simulation only: on a real table that
            would leak hidden information, so the window waits for every pass or its limit).
    """

    table_id: str = "t1"
    rules: str = "mcr-2006"
    mode: InformationMode = InformationMode.FULL
    seat_rotation: str = "A"
    penalty_mode: PenaltyMode = PenaltyMode.APPLY
    camera_min_confidence: float = 0.8
    timer_overrides: tuple[tuple[str, float | None], ...] = ()
    hands_total: int = 16
    flower_rounds: bool = False
    fast_claims: bool = False  # simulations: close a claim window at once when nobody can claim
    engine_rev: int = 0  # the revision the session started under (controller.engine.events.ENGINE_REV)


@dataclass(frozen=True, slots=True)
class MeldRec:
    """A declared set on the table.  ``tiles`` is empty for a face-down concealed kong whose face is unknown.

    ``claimed_from`` is the seat the claimed tile came from (None for a concealed kong); ``claimed_tile`` the
    tile taken from the discard (or the tile added to a promoted kong).
    """

    kind: MeldKind
    tiles: tuple[Tile, ...]
    claimed_from: int | None = None
    claimed_tile: Tile | None = None


@dataclass(frozen=True, slots=True)
class PondTile:
    """One discard in a pond; ``called`` when another player claimed it."""

    tile: Tile
    called: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class SeatState:
    """One seat's tiles in the current hand.

    ``known`` are the concealed tiles the engine knows (sorted); ``unknown`` how many more concealed tiles the
    seat holds that nobody has seen (partial information).  ``dead`` is the reason the seat lost the right to
    win this hand (相公 / 停和陪打), or None: the engine's own words, which a false-win message may quote in public;
    ``dead_note`` is the referee's free text for a ``dead_hand`` command (referee-only: views show it in the
    referee's ``dead_reason``, never in public).
    """

    known: tuple[Tile, ...] = ()
    unknown: int = 0
    melds: tuple[MeldRec, ...] = ()
    flowers: tuple[Tile, ...] = ()
    pond: tuple[PondTile, ...] = ()
    dead: str | None = None
    dead_note: str | None = None
    out: bool = False  # won and left play (Sichuan bloody battle: the hand goes on without him)
    ladder: int = 0  # laddered infractions this hand
    timer_ladder: int = 0  # turn-timer overruns this hand
    penalty_tiles: tuple[Tile, ...] = ()  # 罚张: exposed by a wrong call, discarded one per turn [000:L808; 004:L462]

    @property
    def hand_size(self) -> int:
        """Concealed tiles plus 3 per meld (kongs count 3): 13, or 14 while it is this seat's turn."""
        return len(self.known) + self.unknown + 3 * len(self.melds)

    @property
    def fully_known(self) -> bool:
        return self.unknown == 0


@dataclass(frozen=True, slots=True)
class Call:
    """A claim made in a window: ``tiles`` are the two (chow) or more tiles from the caller's hand."""

    seat: int
    kind: ClaimKind
    tiles: tuple[Tile, ...] = ()
    at_s: float = 0.0


@dataclass(frozen=True, kw_only=True, slots=True)
class ClaimWindow:
    """An open claim window on ``tile`` discarded (or added to a kong) by ``discard_seat``.

    ``eligible`` seats may still call; ``passed`` have passed; ``calls`` are the calls made so far;
    ``pending`` seats pressed *call* and still owe the claim's details (camera or referee).
    """

    discard_seat: int
    tile: Tile
    opened_s: float
    deadline_s: float
    eligible: frozenset[int]
    passed: frozenset[int] = frozenset()
    calls: tuple[Call, ...] = ()
    pending: frozenset[int] = frozenset()
    robbing: bool = False
    excluded_winners: frozenset[int] = frozenset()
    slow: bool = False  # the 3 s for pung/kong are over; chow (and MCR 1998/2006 win) stay open (claim_timing.py)


@dataclass(frozen=True, kw_only=True, slots=True)
class Timer:
    """A running timer; the shell arms a real timer for ``deadline_s`` (unix seconds)."""

    name: str
    seat: int | None
    deadline_s: float
    limit_s: float
    expired: bool = False  # ran out and was punished; kept so displays show the countdown at zero


@dataclass(frozen=True, kw_only=True, slots=True)
class Infraction:
    """A recorded rule violation.  ``points`` deducted (0 = warning); ``status`` applied/proposed/waived.

    ``message`` is the engine's wording, shown in public (after the MQTT guard's redaction of tile words);
    ``note`` is a referee's free text (an ``apply_penalty`` reason, or why a referee declared the seat dead): it is
    the referee's alone -- :meth:`to_json` (the referee's events and view) carries it as ``referee_note``,
    :meth:`public_json` never does.
    """

    id: str
    hand_no: int
    seat: int
    player: str
    player_index: int
    kind: str
    points: int
    status: str
    message: str
    at_s: float
    note: str | None = None

    def public_json(self) -> dict[str, object]:
        """What anyone may read: no referee note."""
        return {"id": self.id, "hand_no": self.hand_no, "seat": self.seat, "player": self.player,
                "player_index": self.player_index, "kind": self.kind, "points": self.points, "status": self.status,
                "message": self.message,
                "at_s": self.at_s}

    def to_json(self) -> dict[str, object]:
        """The referee's form: :meth:`public_json` plus ``referee_note`` when the referee gave words."""
        doc = self.public_json()
        if self.note is not None:
            doc["referee_note"] = self.note
        return doc


@dataclass(frozen=True, kw_only=True, slots=True)
class AlertRec:
    """Something the referee should look at (camera mismatch, uncertain read, MCU fault, link lost...).

    ``data`` is JSON-ready; ``open`` until confirmed, rejected or superseded.
    """

    id: str
    kind: str
    message: str
    data: tuple[tuple[str, object], ...] = ()
    open: bool = True
    at_s: float = 0.0
    hand_no: int | None = None  # the hand on the table when it was raised (``HandState.hand_no``, 0-based)

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "kind": self.kind, "message": self.message, "data": dict(self.data),
                "open": self.open, "at_s": self.at_s}


@dataclass(frozen=True, kw_only=True, slots=True)
class HandResult:
    """How a hand ended.  ``payments`` per seat (sum zero); ``hands`` compact hand codes shown at the win."""

    kind: str  # "win" | "draw" | "stopped"
    winners: tuple[int, ...] = ()
    discarder: int | None = None
    win_tile: Tile | None = None
    self_drawn: bool = False
    fans: tuple[tuple[str, int, int], ...] = ()
    total: int = 0
    payments: tuple[int, int, int, int] = (0, 0, 0, 0)
    hands: tuple[tuple[int, str], ...] = ()
    wins: tuple[HandResult, ...] = ()  # several winners (Sichuan): each win on its own; () for one winner


@dataclass(frozen=True, kw_only=True, slots=True)
class HandState:
    """The hand in progress.

    ``wall`` is the live wall in draw order from the break (empty when its faces are unknown: partial
    information); ``front`` tiles have been taken from the front, ``back`` from the back.
    """

    hand_no: int
    dealer: int
    round_wind: Tile
    seats: tuple[SeatState, SeatState, SeatState, SeatState]
    wall_size: int
    wall: tuple[Tile, ...] = ()
    wall_physical: tuple[Tile, ...] = ()
    front: int = 0
    back: int = 0
    live: tuple[int, ...] = ()  # linear indices still in the wall, in draw order
    red_fives: tuple[int, int, int] = (0, 0, 0)  # red 5m/5p/5s in the tile set (riichi 1 each, MCR none)
    dice: tuple[tuple[int, int], ...] = ()
    turn: int | None = None
    drawn: Tile | None = None  # the tile the turn seat just drew (None if unknown or after a claim)
    drew: bool = False  # the turn seat drew (rather than claimed) this turn
    after_kong: bool = False  # the turn seat's last draw was a kong replacement
    first_turn: bool = True  # dealer's first discard not yet made
    claim: ClaimWindow | None = None
    flower_seat: int | None = None
    flower_done: frozenset[int] = frozenset()
    flower_budget: int | None = None  # V2017 rounds: replacements left for the seat in this round
    flowers_this_round: int = 0  # flowers replaced in the current initial round (V2017: another round follows)
    last_discard: tuple[int, Tile] | None = None
    discard_s: float | None = None  # when the last discard was shown (MCR 1998 turn clock [000:L496])
    promoted: tuple[int, Tile] | None = None  # seat and tile of a promoted kong open to robbing
    wins: tuple[HandResult, ...] = ()  # wins already settled in a hand that goes on (bloody battle)
    ids: frozenset[str] = frozenset()
    result: HandResult | None = None
    extra: object = None  # ruleset-owned hand state (controller/engine/ext_*.py), None for MCR

    @property
    def wall_remaining(self) -> int:
        """Tiles still in the wall (front and back)."""
        return self.wall_size - self.front - self.back


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionState:
    """The session (局): players, scores, where we are in the 4 rounds, the session clock."""

    players: tuple[str, str, str, str]
    round_no: int = 0  # 0..3 = East, South, West, North round
    hand_in_round: int = 0  # hands played in this round so far
    dealer: int = 0  # physical seat of the next (or current) hand's dealer
    hand_no: int = 0  # 0-based hands played so far
    scores: tuple[int, int, int, int] = (0, 0, 0, 0)  # per player (round-1 seat order), zero-sum
    penalties: tuple[int, int, int, int] = (0, 0, 0, 0)  # deducted points per player
    start_s: float = 0.0
    deadline_s: float | None = None
    warned: bool = False
    ended: bool = False
    wins: int = 0
    draws: int = 0
    extra: object = None  # ruleset-owned session state (ext_*.py: riichi honba/deposit, ...), None for MCR


@dataclass(frozen=True, kw_only=True, slots=True)
class GameState:
    """Everything :func:`step` needs; ``seq`` counts accepted events."""

    config: EngineConfig
    session: SessionState
    phase: Phase = Phase.BUILDING
    hand: HandState | None = None
    seq: int = 0
    now_s: float = 0.0
    paused: bool = False
    paused_at_s: float = 0.0
    recent_ids: tuple[str, ...] = ()
    timers: tuple[Timer, ...] = ()
    infractions: tuple[Infraction, ...] = ()
    alerts: tuple[AlertRec, ...] = ()
    link_up: bool = True
    history: tuple[HandResult, ...] = field(default=())
