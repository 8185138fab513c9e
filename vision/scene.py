"""What is on the table, as data: the description the simulated camera renders and the tests compare with.

A :class:`TableScene` is the ground truth of one instant: per seat the discard pond (in discard order, six
per row), the exposed melds (in the order they were exposed, first meld at the owner's right-hand end of
the meld row), the standing hand (only its size shows from above), an optional hand laid face up after a
win, hands (arms) passing over the table, and (riichi) the dead wall with its turned-up dora indicators
(:class:`DeadWall`; the rest of the wall is not drawn).

Seats follow the engine: seat 0 sits at the bottom of the top-down view, numbering runs counter-clockwise
(seat 1 is seat 0's right-hand neighbour, the next player in MCR order 东→南→西→北).  A tile taken from
another player lies sideways in the meld, at the end that points at the giver: the left tile for the left
player (上家), the middle tile for the opposite player, the right tile for the right player (下家).  For a
melded kong from the opposite player the second tile lies sideways.

Everything here is pure data, thread-safe, and serialises to/from JSON (``to_json`` / ``from_json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from mjtable.tiles import NotationError, tile

MeldType = Literal["chow", "pung", "kong", "concealed_kong"]
MELD_TYPES: tuple[str, ...] = ("chow", "pung", "kong", "concealed_kong")
#: The classifier's code for a face-down tile.
BACK = "back"
NUM_SEATS = 4


def check_code(code: str) -> str:
    """Return ``code`` if it is a tile code of the shared notation or ``back``; raise NotationError otherwise."""
    if code != BACK:
        tile(code)
    return code


def left_of(seat: int) -> int:
    """The seat on ``seat``'s left (上家: the player who discards just before ``seat``)."""
    return (seat + 3) % NUM_SEATS


def right_of(seat: int) -> int:
    """The seat on ``seat``'s right (下家: the player who discards just after ``seat``)."""
    return (seat + 1) % NUM_SEATS


def opposite_of(seat: int) -> int:
    """The seat facing ``seat``."""
    return (seat + 2) % NUM_SEATS


def sideways_index(owner: int, claimed_from: int, n_tiles: int) -> int:
    """Index (0 = owner's left end) of the sideways tile in a meld of ``n_tiles`` claimed from ``claimed_from``.

    Raises:
        ValueError: if ``claimed_from`` is the owner or not a seat, or ``n_tiles`` is not 3 or 4.
    """
    if n_tiles not in (3, 4):
        raise ValueError(f"a claimed meld has 3 or 4 tiles, not {n_tiles}")
    if claimed_from == left_of(owner):
        return 0
    if claimed_from == opposite_of(owner):
        return 1
    if claimed_from == right_of(owner):
        return n_tiles - 1
    raise ValueError(f"seat {owner} cannot claim from seat {claimed_from}")


def claimed_from_index(owner: int, index: int, n_tiles: int) -> int:
    """Inverse of :func:`sideways_index`: the giver's seat from the sideways tile's index in the meld."""
    if n_tiles not in (3, 4) or not 0 <= index < n_tiles:
        raise ValueError(f"sideways index {index} impossible in a meld of {n_tiles} tiles")
    if index == 0:
        return left_of(owner)
    if index == n_tiles - 1:
        return right_of(owner)
    return opposite_of(owner)


@dataclass(frozen=True, slots=True)
class SceneMeld:
    """One exposed meld as it lies on the table.

    Attributes:
        type: chow, pung, kong (melded or promoted) or concealed_kong.
        tiles: the faces in display order, the owner's left to right (for a concealed kong the real faces;
            how many lie face down is the renderer's ``concealed_kong_style``).
        claimed_from: absolute seat that gave the claimed tile; None for a concealed kong.
        promoted: a kong made by adding the fourth tile to a pung: the added tile lies sideways on top of
            (further from the owner than) the sideways tile, and ``tiles`` has four faces of which the
            first three are the pung.
    """

    type: MeldType
    tiles: tuple[str, ...]
    claimed_from: int | None = None
    promoted: bool = False

    def __post_init__(self) -> None:
        if self.type not in MELD_TYPES:
            raise ValueError(f"unknown meld type {self.type!r}")
        for code in self.tiles:
            check_code(code)
        want = 3 if self.type in ("chow", "pung") else 4
        if len(self.tiles) != want:
            raise ValueError(f"a {self.type} has {want} tiles, got {len(self.tiles)}")
        if self.type == "concealed_kong":
            if self.claimed_from is not None:
                raise ValueError("a concealed kong is not claimed from anyone")
        elif self.claimed_from is None:
            raise ValueError(f"a {self.type} needs claimed_from")
        if self.promoted and self.type != "kong":
            raise ValueError("only a kong can be promoted")


@dataclass(frozen=True, slots=True)
class Knock:
    """A pond tile knocked out of line: offset in mm (x to the owner's right, y toward the owner) and turn."""

    dx_mm: float = 0.0
    dy_mm: float = 0.0
    angle_deg: float = 0.0


@dataclass(frozen=True, slots=True)
class SeatScene:
    """Everything in front of one seat.

    Attributes:
        pond: discards in order (six per row, first row nearest the table centre).
        melds: exposed melds in exposure order.
        hand_size: standing (concealed) tiles; only their top edges show from above.
        shown_hand: tiles laid face up after a win, owner's left to right (None while standing).
        knocked: pond index -> displacement, for tiles knocked out of line.
    """

    pond: tuple[str, ...] = ()
    melds: tuple[SceneMeld, ...] = ()
    hand_size: int = 13
    shown_hand: tuple[str, ...] | None = None
    knocked: tuple[tuple[int, Knock], ...] = ()

    def __post_init__(self) -> None:
        for code in self.pond:
            check_code(code)
        for code in self.shown_hand or ():
            check_code(code)
        if not 0 <= self.hand_size <= 18:
            raise ValueError(f"hand_size {self.hand_size} out of range 0..18")
        for index, _ in self.knocked:
            if not 0 <= index < len(self.pond):
                raise ValueError(f"knocked tile index {index} is not in the pond")


@dataclass(frozen=True, slots=True)
class PassingHand:
    """An arm reaching over the table from one seat's edge.

    Attributes:
        seat: whose edge the arm comes from.
        x_mm: where along that edge, in the seat's frame (mm to the owner's right of the table centre).
        reach_mm: how far the fingertips are from the table centre, in mm toward the seat (small = deep).
        width_mm: hand width in mm.
    """

    seat: int
    x_mm: float = 0.0
    reach_mm: float = 120.0
    width_mm: float = 95.0


@dataclass(frozen=True, slots=True)
class DeadWall:
    """The riichi dead wall (王牌, 14 tiles = 7 stacks of two, seed 002 L23) lying in the wall row in front of
    ``seat`` (see ``TableGeometry.dead_wall_stack_centre``): stack 0 is its right-hand end as that seat sees it
    (the replacement tiles, stacks 0-1); ``indicators`` are the tops turned face up, the dora indicator on stack
    2 and each kan-dora indicator on the next stack to the left (L37); the other tops show their backs.

    Attributes:
        seat: whose wall row holds the dead wall.
        x_mm: seat-frame x of the centre of the seven stacks (mm to the owner's right of the table centre).
        indicators: the dora indicator then the kan-dora indicators, face up (at most five).
    """

    seat: int
    x_mm: float = 0.0
    indicators: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.seat < NUM_SEATS:
            raise ValueError(f"no seat {self.seat}")
        if len(self.indicators) > 5:
            raise ValueError(f"at most 5 indicators (the dora and four kan-dora), got {len(self.indicators)}")
        for code in self.indicators:
            if code == BACK:
                raise ValueError("an indicator lies face up")
            check_code(code)


@dataclass(frozen=True, slots=True)
class TableScene:
    """The whole table at one instant (the simulated camera's input and the tests' ground truth)."""

    seats: tuple[SeatScene, SeatScene, SeatScene, SeatScene] = field(
        default_factory=lambda: (SeatScene(), SeatScene(), SeatScene(), SeatScene())
    )
    hands: tuple[PassingHand, ...] = ()
    dead_wall: DeadWall | None = None

    def with_seat(self, seat: int, scene: SeatScene) -> TableScene:
        """A copy with seat ``seat`` replaced."""
        seats = list(self.seats)
        seats[seat] = scene
        return TableScene(seats=(seats[0], seats[1], seats[2], seats[3]), hands=self.hands, dead_wall=self.dead_wall)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (see :meth:`from_json`)."""
        return {
            "seats": [
                {
                    "pond": list(s.pond),
                    "melds": [
                        {"type": m.type, "tiles": list(m.tiles), "claimed_from": m.claimed_from, "promoted": m.promoted}
                        for m in s.melds
                    ],
                    "hand_size": s.hand_size,
                    "shown_hand": None if s.shown_hand is None else list(s.shown_hand),
                    "knocked": [[i, k.dx_mm, k.dy_mm, k.angle_deg] for i, k in s.knocked],
                }
                for s in self.seats
            ],
            "hands": [[h.seat, h.x_mm, h.reach_mm, h.width_mm] for h in self.hands],
            "dead_wall": None if self.dead_wall is None else {
                "seat": self.dead_wall.seat, "x_mm": self.dead_wall.x_mm,
                "indicators": list(self.dead_wall.indicators)},
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> TableScene:
        """Parse :meth:`to_json` output; raises ValueError (or NotationError) naming what is wrong."""
        try:
            seats_raw = obj["seats"]
            if len(seats_raw) != NUM_SEATS:
                raise ValueError(f"a table has {NUM_SEATS} seats, got {len(seats_raw)}")
            seats = []
            for s in seats_raw:
                melds = tuple(
                    SceneMeld(m["type"], tuple(m["tiles"]), m.get("claimed_from"), bool(m.get("promoted", False)))
                    for m in s.get("melds", [])
                )
                shown = s.get("shown_hand")
                seats.append(
                    SeatScene(
                        pond=tuple(s.get("pond", [])),
                        melds=melds,
                        hand_size=int(s.get("hand_size", 13)),
                        shown_hand=None if shown is None else tuple(shown),
                        knocked=tuple((int(k[0]), Knock(*map(float, k[1:4]))) for k in s.get("knocked", [])),
                    )
                )
            hands = tuple(PassingHand(int(h[0]), *map(float, h[1:4])) for h in obj.get("hands", []))
            dw = obj.get("dead_wall")
            dead = None if dw is None else DeadWall(int(dw["seat"]), float(dw.get("x_mm", 0.0)),
                                                   tuple(str(c) for c in dw.get("indicators", [])))
        except NotationError:
            raise
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"bad table scene JSON: {exc!r}") from exc
        return TableScene(seats=(seats[0], seats[1], seats[2], seats[3]), hands=hands, dead_wall=dead)


def _shown_tiles(compact: str) -> tuple[str, ...]:
    """The concealed part of a compact hand (melds in brackets dropped), as codes."""
    import re

    from mjtable.tiles import parse_tiles

    return tuple(t.code for t in parse_tiles(re.sub(r"\[[^\]]*\]|\{[^}]*\}", "", compact)))


def scene_from_public_state(state: dict[str, Any]) -> TableScene:
    """What the camera should see for an engine public (or referee) view (``mjtable.public_state/1``).

    Called tiles are gone from the pond (they lie in the claimer's meld); a face-down concealed kong
    (``tiles`` null) shows four backs; a meld without ``claimed_from`` is drawn as claimed from the left;
    at a win the winners' hands (``result.hands``) lie face up.  Raises ValueError on a malformed view.
    """
    try:
        result = state.get("result") or {}
        shown: dict[int, tuple[str, ...]] = {}
        if result.get("kind") == "win":
            for seat_text, compact in (result.get("hands") or {}).items():
                shown[int(seat_text)] = _shown_tiles(str(compact))
        seats: list[SeatScene] = []
        for entry in state["seats"]:
            seat = int(entry["seat"])
            melds: list[SceneMeld] = []
            for meld in entry.get("melds", []):
                kind = str(meld["type"])
                tiles = tuple(meld["tiles"]) if meld.get("tiles") else (BACK,) * 4
                if kind == "concealed_kong":
                    melds.append(SceneMeld("concealed_kong", tiles))
                elif kind in ("chow", "pung", "kong"):
                    giver = meld.get("claimed_from")
                    giver = left_of(seat) if giver is None or int(giver) == seat else int(giver)
                    melds.append(SceneMeld(kind, tiles, giver))  # type: ignore[arg-type]
            pond = tuple(str(d["tile"]) for d in entry.get("pond", []) if not d.get("called"))
            seats.append(
                SeatScene(
                    pond=pond[:24],
                    melds=tuple(melds[:4]),
                    hand_size=min(18, int(entry.get("hand_size", 0))),
                    shown_hand=shown.get(seat),
                )
            )
        if len(seats) != NUM_SEATS:
            raise ValueError(f"a table has {NUM_SEATS} seats, got {len(seats)}")
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not an engine public view: {exc!r}") from exc
    return TableScene(seats=(seats[0], seats[1], seats[2], seats[3]))
