"""The tile model shared by every part of mjtable.

Notation (see README "Shared conventions"):

* ``1m``-``9m`` characters, ``1p``-``9p`` dots, ``1s``-``9s`` bamboo;
* ``1z``-``7z`` East, South, West, North, White, Green, Red;
* ``0m`` ``0p`` ``0s`` red fives (a red five *is* a five for every rule; only riichi pays dora for it);
* ``1f``-``8f`` spring, summer, autumn, winter, plum, orchid, chrysanthemum, bamboo.

Compact hands group by suit (``123m456p11z``); melds stand in brackets: ``[123m]`` chow, ``[555p]`` pung,
``[5555p]`` melded kong, ``{5555p}`` concealed kong.  A melded set may name the seat it was claimed from
with a trailing ``<`` (left/upper player), ``^`` (opposite) or ``>`` (right/lower player), e.g. ``[555p^]``.

Everything here is pure and thread-safe.  Errors are :class:`NotationError` with the character position
(0-based) and a reason a referee can read.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

SUITS = "mpszf"
SUIT_NAMES = {"m": "characters", "p": "dots", "s": "bamboo", "z": "honors", "f": "flowers"}
HONOR_NAMES = ("East", "South", "West", "North", "White", "Green", "Red")
FLOWER_NAMES = ("Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Chrysanthemum", "Bamboo")

#: Number of distinct non-flower faces; kinds 0..33 are the 34 faces, 34..41 the eight flowers.
NUM_FACES = 34
NUM_KINDS = 42


class NotationError(ValueError):
    """Bad tile notation or an impossible tile multiset.

    Attributes:
        position: 0-based character offset in the text where the problem starts (-1 if not positional).
        reason: what is wrong, in words.
        text: the text that was parsed.
    """

    def __init__(self, reason: str, position: int = -1, text: str = "") -> None:
        self.reason = reason
        self.position = position
        self.text = text
        where = f" at position {position}" if position >= 0 else ""
        shown = f" in {text!r}" if text else ""
        super().__init__(f"{reason}{where}{shown}")


@dataclass(frozen=True, slots=True, order=True)
class Tile:
    """One tile face.

    ``kind`` is 0-8 for 1m-9m, 9-17 for 1p-9p, 18-26 for 1s-9s, 27-33 for 1z-7z and 34-41 for 1f-8f.
    ``red`` marks a red five (``0m``/``0p``/``0s``); it has the same ``kind`` as the plain five.
    """

    kind: int
    red: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.kind < NUM_KINDS:
            raise NotationError(f"tile kind {self.kind} out of range 0..{NUM_KINDS - 1}")
        if self.red and self.kind not in (4, 13, 22):
            raise NotationError(f"only fives can be red, not kind {self.kind}")

    @property
    def suit(self) -> str:
        """One of ``m p s z f``."""
        if self.kind >= 34:
            return "f"
        return SUITS[self.kind // 9] if self.kind < 27 else "z"

    @property
    def rank(self) -> int:
        """1-9 for suited tiles, 1-7 for honors, 1-8 for flowers (a red five has rank 5)."""
        if self.kind >= 34:
            return self.kind - 33
        if self.kind >= 27:
            return self.kind - 26
        return self.kind % 9 + 1

    @property
    def code(self) -> str:
        """The shared notation, e.g. ``5p``, ``0s`` (red five), ``7z``, ``3f``."""
        return f"{0 if self.red else self.rank}{self.suit}"

    @property
    def is_suited(self) -> bool:
        return self.kind < 27

    @property
    def is_honor(self) -> bool:
        return 27 <= self.kind < 34

    @property
    def is_wind(self) -> bool:
        return 27 <= self.kind < 31

    @property
    def is_dragon(self) -> bool:
        return 31 <= self.kind < 34

    @property
    def is_flower(self) -> bool:
        return self.kind >= 34

    @property
    def is_terminal(self) -> bool:
        return self.kind < 27 and self.kind % 9 in (0, 8)

    @property
    def is_terminal_or_honor(self) -> bool:
        return self.is_terminal or self.is_honor

    @property
    def plain(self) -> Tile:
        """The same face without the red marker."""
        return Tile(self.kind) if self.red else self

    @property
    def name(self) -> str:
        """English name, e.g. ``5 Dots``, ``Red 5 Bamboo``, ``Green Dragon``, ``East Wind``, ``Plum``."""
        if self.is_flower:
            return FLOWER_NAMES[self.rank - 1]
        if self.is_honor:
            word = HONOR_NAMES[self.rank - 1]
            return f"{word} Dragon" if self.is_dragon else f"{word} Wind"
        prefix = "Red " if self.red else ""
        return f"{prefix}{self.rank} {SUIT_NAMES[self.suit].capitalize()}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Tile({self.code!r})"


_TilePos = tuple[Tile, int]


@cache
def tile(code: str) -> Tile:
    """Parse one tile code such as ``5p`` or ``0m``; raises :class:`NotationError`."""
    if len(code) != 2:
        raise NotationError("a tile code is a digit and a suit letter", 0, code)
    return _make_tile(code[0], code[1], 0, code)


def _make_tile(digit: str, suit: str, position: int, text: str) -> Tile:
    if suit not in SUITS:
        raise NotationError(f"unknown suit {suit!r} (expected one of m p s z f)", position, text)
    if not digit.isdigit():
        raise NotationError(f"expected a digit, got {digit!r}", position, text)
    rank = int(digit)
    if suit in "mps":
        base = SUITS.index(suit) * 9
        if rank == 0:
            return Tile(base + 4, red=True)
        return Tile(base + rank - 1)
    if suit == "z":
        if not 1 <= rank <= 7:
            raise NotationError(f"unknown tile {digit}{suit}: honors are 1z-7z", position, text)
        return Tile(27 + rank - 1)
    if not 1 <= rank <= 8:
        raise NotationError(f"unknown tile {digit}{suit}: flowers are 1f-8f", position, text)
    return Tile(34 + rank - 1)


def _parse_run(text: str, start: int, end: int, full: str) -> list[_TilePos]:
    """Parse compact notation ``text[start:end]`` into (tile, position) pairs."""
    out: list[_TilePos] = []
    digits: list[int] = []
    for i in range(start, end):
        ch = full[i]
        if ch.isdigit():
            digits.append(i)
        elif ch in SUITS:
            if not digits:
                raise NotationError(f"suit letter {ch!r} with no digits before it", i, full)
            out.extend((_make_tile(full[d], ch, d, full), d) for d in digits)
            digits = []
        elif ch.isspace():
            continue
        elif ch.isalpha():
            raise NotationError(f"unknown suit {ch!r} (expected one of m p s z f)", i, full)
        else:
            raise NotationError(f"unexpected character {ch!r}", i, full)
    if digits:
        raise NotationError("digits with no suit letter after them", digits[0], full)
    return out



def parse_tiles(text: str) -> list[Tile]:
    """Parse compact notation with no melds, e.g. ``123m456p11z`` -> 7 tiles in order."""
    if any(c in "[]{}" for c in text):
        pos = min(text.index(c) for c in "[]{}" if c in text)
        raise NotationError("melds are not allowed here", pos, text)
    return [t for t, _ in _parse_run(text, 0, len(text), text)]


def format_tiles(tiles: Iterable[Tile], *, sort: bool = True) -> str:
    """Compact notation grouped by suit (``123m456p11z``); ``sort=False`` keeps runs in the given order."""
    seq = sorted(tiles, key=lambda t: (t.kind, not t.red)) if sort else list(tiles)
    out: list[str] = []
    run: list[str] = []
    suit = ""
    for t in seq:
        if t.suit != suit and run:
            out.append("".join(run) + suit)
            run = []
        suit = t.suit
        run.append("0" if t.red else str(t.rank))
    if run:
        out.append("".join(run) + suit)
    return "".join(out)


class MeldKind(enum.StrEnum):
    """What a declared set is."""

    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"  # melded (exposed) kong: claimed or promoted
    CONCEALED_KONG = "concealed_kong"


class Relative(enum.StrEnum):
    """Whom a melded set was claimed from, relative to its owner."""

    LEFT = "<"  # upper player (上家), the only one a chow may come from
    OPPOSITE = "^"
    RIGHT = ">"  # lower player (下家)


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set; ``tiles`` are sorted. ``claimed_from`` is None when unknown or concealed."""

    kind: MeldKind
    tiles: tuple[Tile, ...]
    claimed_from: Relative | None = None
    claimed_tile: Tile | None = None

    @property
    def is_concealed(self) -> bool:
        return self.kind is MeldKind.CONCEALED_KONG

    @property
    def is_kong(self) -> bool:
        return self.kind in (MeldKind.KONG, MeldKind.CONCEALED_KONG)

    @property
    def first(self) -> Tile:
        return self.tiles[0]

    @property
    def code(self) -> str:
        body = format_tiles(self.tiles)
        mark = self.claimed_from.value if self.claimed_from else ""
        return f"{{{body}}}" if self.is_concealed else f"[{body}{mark}]"

    def __str__(self) -> str:
        return self.code


def is_chow(tiles: Sequence[Tile]) -> bool:
    """The tiles, in any order, are a run: three suited tiles of one suit with consecutive ranks."""
    if len(tiles) != 3 or not all(t.is_suited and t.suit == tiles[0].suit for t in tiles):
        return False
    a, b, c = sorted(t.kind for t in tiles)
    return b == a + 1 and c == b + 1


def make_meld(
    tiles: Sequence[Tile],
    *,
    concealed: bool = False,
    claimed_from: Relative | None = None,
    position: int = -1,
    text: str = "",
) -> Meld:
    """Build a meld and check that it is a real set (chow, pung or kong)."""
    ts = tuple(sorted(tiles, key=lambda t: (t.kind, not t.red)))
    kinds = [t.kind for t in ts]
    if any(t.is_flower for t in ts):
        raise NotationError("a flower cannot be part of a meld", position, text)
    if len(ts) == 4 and len(set(kinds)) == 1:
        kind = MeldKind.CONCEALED_KONG if concealed else MeldKind.KONG
    elif concealed:
        raise NotationError("only a kong can be written concealed {....}", position, text)
    elif len(ts) == 3 and len(set(kinds)) == 1:
        kind = MeldKind.PUNG
    elif is_chow(ts):
        kind = MeldKind.CHOW
    else:
        raise NotationError(f"{format_tiles(ts)} is not a set (chow, pung or kong)", position, text)
    if concealed and claimed_from is not None:
        raise NotationError("a concealed kong is not claimed from anyone", position, text)
    return Meld(kind, ts, claimed_from)


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's tiles as written: declared melds plus concealed (standing) tiles, flowers apart."""

    concealed: tuple[Tile, ...] = ()
    melds: tuple[Meld, ...] = ()
    flowers: tuple[Tile, ...] = field(default=())

    @property
    def all_tiles(self) -> list[Tile]:
        """Every non-flower tile, melds included (kongs count 4)."""
        out = list(self.concealed)
        for m in self.melds:
            out.extend(m.tiles)
        return out

    @property
    def size(self) -> int:
        """Tile count with each kong counted as 3: 13 before drawing, 14 with a winning tile."""
        return len(self.concealed) + 3 * len(self.melds)

    @property
    def code(self) -> str:
        return "".join(m.code for m in self.melds) + format_tiles(self.concealed) + format_tiles(self.flowers)

    def __str__(self) -> str:
        return self.code


def parse_hand(
    text: str, *, expect_size: int | Iterable[int] | None = None, tileset: TileSet | None = None
) -> Hand:
    """Parse ``[123m]{5555p}1122s`` style text into a :class:`Hand`.

    Flowers written among the concealed tiles go to ``Hand.flowers``. ``expect_size`` checks the count
    (kongs count as 3), e.g. ``13`` before a win tile or ``(13, 14)``.  Copies are always checked against
    what any set can hold (4 of a face, 1 of a flower); with ``tileset`` against that set exactly.  A copy
    too many is reported at its own position.
    """
    concealed: list[Tile] = []
    melds: list[Meld] = []
    flowers: list[Tile] = []
    placed: list[_TilePos] = []
    i = 0
    n = len(text)
    run_start = 0

    def flush(end: int) -> None:
        for t, pos in _parse_run(text, run_start, end, text):
            (flowers if t.is_flower else concealed).append(t)
            placed.append((t, pos))

    while i < n:
        ch = text[i]
        if ch in "[{":
            flush(i)
            close = "]" if ch == "[" else "}"
            j = text.find(close, i + 1)
            other = text.find("{" if ch == "[" else "[", i + 1)
            if j < 0 or (0 <= other < j):
                raise NotationError(f"meld opened with {ch!r} is not closed with {close!r}", i, text)
            inner_end = j
            rel: Relative | None = None
            if j > i + 1 and text[j - 1] in "<^>":
                rel = Relative(text[j - 1])
                inner_end = j - 1
            inner_placed = _parse_run(text, i + 1, inner_end, text)
            placed.extend(inner_placed)
            inner = [t for t, _ in inner_placed]
            melds.append(make_meld(inner, concealed=ch == "{", claimed_from=rel, position=i, text=text))
            i = j + 1
            run_start = i
            continue
        if ch in "]}":
            raise NotationError(f"{ch!r} without a matching opening bracket", i, text)
        i += 1
    flush(n)
    _check_copies(placed, tileset, text)
    hand = Hand(tuple(concealed), tuple(melds), tuple(flowers))
    if expect_size is not None:
        sizes = {expect_size} if isinstance(expect_size, int) else set(expect_size)
        if hand.size not in sizes:
            want = " or ".join(str(s) for s in sorted(sizes))
            raise NotationError(f"wrong tile count: {hand.size} tiles (kongs count 3), expected {want}", -1, text)
    return hand


@dataclass(frozen=True, slots=True)
class TileSet:
    """The physical tiles a ruleset plays with: how many copies of each face (and of red fives)."""

    name: str
    counts: tuple[int, ...]  # per kind, 42 entries; red fives are included in their five's count
    red_fives: tuple[int, int, int] = (0, 0, 0)  # red copies of 5m, 5p, 5s

    @property
    def total(self) -> int:
        return sum(self.counts)

    def has(self, t: Tile) -> bool:
        return self.counts[t.kind] > 0 and (not t.red or self.red_fives[t.kind // 9] > 0)

    def all_tiles(self) -> list[Tile]:
        """Every physical tile once (red fives replace plain fives), in kind order."""
        out: list[Tile] = []
        for kind, c in enumerate(self.counts):
            red = self.red_fives[kind // 9] if kind in (4, 13, 22) else 0
            if red:
                out.extend([Tile(kind, red=True)] * red)
            out.extend([Tile(kind)] * (c - red))
        return out

    def check(self, tiles: Iterable[Tile], *, text: str = "") -> None:
        """Raise :class:`NotationError` if the tiles cannot all come from one set (e.g. a fifth copy)."""
        kinds: Counter[int] = Counter()
        reds: Counter[int] = Counter()
        for t in tiles:
            if not self.has(t):
                raise NotationError(f"{t.code} is not in the {self.name} tile set", -1, text)
            kinds[t.kind] += 1
            if t.red:
                reds[t.kind] += 1
            if kinds[t.kind] > self.counts[t.kind]:
                what = "fifth copy" if self.counts[t.kind] == 4 else f"copy #{kinds[t.kind]}"
                raise NotationError(f"{what} of {t.plain.code}: the {self.name} set has "
                                    f"{self.counts[t.kind]}", -1, text)
            if t.red and reds[t.kind] > self.red_fives[t.kind // 9]:
                raise NotationError(f"too many red fives {t.code} for the {self.name} set", -1, text)


def _counts(suited: bool, honors: bool, flowers: bool) -> tuple[int, ...]:
    return tuple([4 if suited else 0] * 27 + [4 if honors else 0] * 7 + [1 if flowers else 0] * 8)


MCR_TILESET = TileSet("MCR", _counts(True, True, True))
RIICHI_TILESET = TileSet("riichi", _counts(True, True, False), red_fives=(1, 1, 1))
SICHUAN_TILESET = TileSet("Sichuan", _counts(True, False, False))

TILESETS: dict[str, TileSet] = {"mcr": MCR_TILESET, "riichi": RIICHI_TILESET, "sichuan": SICHUAN_TILESET}
#: Size per tile set, in tiles: MCR 144, riichi 136, Sichuan 108.
TILESET_SIZES = {name: ts.total for name, ts in TILESETS.items()}


def _check_copies(placed: Sequence[_TilePos], tileset: TileSet | None, text: str) -> None:
    """Raise at the position of the first tile that is one copy too many."""
    if tileset is not None:
        for end in range(len(placed)):
            try:
                tileset.check([t for t, _ in placed[: end + 1]])
            except NotationError as err:
                raise NotationError(err.reason, placed[end][1], text) from None
        return
    seen: Counter[int] = Counter()
    for t, pos in placed:
        seen[t.kind] += 1
        limit = 1 if t.is_flower else 4
        if seen[t.kind] > limit:
            what = "fifth copy" if limit == 4 else "second copy"
            raise NotationError(f"{what} of {t.plain.code}: no tile set has more than {limit}", pos, text)


def check_hand(hand: Hand, tileset: TileSet, *, extra: Iterable[Tile] = (), text: str = "") -> None:
    """Check a hand (plus ``extra`` tiles, e.g. the winning tile) against a tile set."""
    tiles = [*hand.all_tiles, *hand.flowers, *extra]
    tileset.check(tiles, text=text or hand.code)


def tile_counts(tiles: Iterable[Tile]) -> list[int]:
    """34-entry count vector of non-flower tiles (red fives count as fives)."""
    c = [0] * NUM_FACES
    for t in tiles:
        if t.kind < NUM_FACES:
            c[t.kind] += 1
    return c


ALL_FACES: tuple[Tile, ...] = tuple(Tile(k) for k in range(NUM_FACES))
ALL_FLOWERS: tuple[Tile, ...] = tuple(Tile(k) for k in range(34, 42))
RED_FIVES: tuple[Tile, ...] = (Tile(4, red=True), Tile(13, red=True), Tile(22, red=True))
#: Every code the vision classifier can output, besides ``back`` (a face-down tile).
ALL_CODES: tuple[str, ...] = tuple(t.code for t in (*ALL_FACES, *RED_FIVES, *ALL_FLOWERS))
WIND_CODES = {"E": tile("1z"), "S": tile("2z"), "W": tile("3z"), "N": tile("4z")}
