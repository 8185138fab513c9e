"""The ten fans of Sichuan SBR 2025 and the capped base points (seed ``001_2f25afa9281b00ab.txt``).

Fan list L522-L547; base = 2**fan, a hand with no fan scores 1 (L512-L514); the cap is 3 fan = 8
(三番封顶, L516) and is an option here.  Ron: the discarder pays the base (L518); self-draw: every
player still in pays base + 1 (L520).  Pure and thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from mjtable.tiles import Hand, MeldKind, Tile

from .shape import (
    NUM_SUITED,
    counts27,
    hand_counts,
    is_all_triplets,
    is_basic_complete,
    is_seven_pairs,
    suits_of,
)

RULES_NAME = "sichuan-sbr-2025"


@dataclass(frozen=True, slots=True)
class FanType:
    """One of the ten fans: key, Chinese name, English name, value per count, seed line."""

    key: str
    zh: str
    en: str
    value: int
    cite: str


KONG = FanType("kong", "杠", "Kong", 1, "L526")
ROOT = FanType("root", "根", "Root (four alike, not declared)", 1, "L528")
ALL_TRIPLETS = FanType("all_triplets", "大对子", "All Triplets", 1, "L531")
GOLDEN_HOOK = FanType("golden_hook", "金钩钩", "Golden Hook", 1, "L536")
ONE_SUIT = FanType("one_suit", "清一色", "Pure One Suit", 2, "L538")
SEVEN_PAIRS = FanType("seven_pairs", "七对", "Seven Pairs", 2, "L542")
KONG_BLOOM = FanType("kong_bloom", "杠上花", "Win on Kong Replacement", 1, "L544")
KONG_DISCARD = FanType("kong_discard", "杠上炮", "Win on Discard after Kong", 1, "L545")
ROB_KONG = FanType("rob_kong", "抢杠", "Robbing the Kong", 1, "L546")
LAST_TILE = FanType("last_tile", "海底", "Last Tile", 1, "L547")

FAN_TYPES: tuple[FanType, ...] = (
    KONG, ROOT, ALL_TRIPLETS, GOLDEN_HOOK, ONE_SUIT, SEVEN_PAIRS, KONG_BLOOM, KONG_DISCARD, ROB_KONG, LAST_TILE,
)
#: Situational fans left out of 查大叫 (L578).
SITUATIONAL = frozenset({KONG_BLOOM.key, KONG_DISCARD.key, ROB_KONG.key, LAST_TILE.key})


@dataclass(frozen=True, slots=True)
class SichuanOptions:
    """Organiser-settable options; defaults follow the seed.

    ``cap_fan``: fan above this count as this (L516, default 3 = base 8).
    ``rob_on_kong_discard_scores_both``: when a 杠上炮 is won on a re-promoted kong's tile, also score
    抢杠 (L545, [UNCLEAR]; default False = 杠上炮 only).
    """

    cap_fan: int = 3
    rob_on_kong_discard_scores_both: bool = False


DEFAULT_OPTIONS = SichuanOptions()


@dataclass(frozen=True, slots=True)
class WinSituation:
    """How the tile was won. All flags are facts the engine (or the CLI input) supplies."""

    self_drawn: bool
    kong_replacement: bool = False  # 杠上花: won on the replacement after one's own kong (counts as self-draw)
    after_kong: bool = False  # 杠上炮: won on the discard (or re-promoted kong tile) after another's kong
    robbing_kong: bool = False  # 抢杠
    last_tile: bool = False  # 海底: self-draw on the last wall tile, or win on a discard after the wall ran out


@dataclass(frozen=True, slots=True)
class FanHit:
    """A fan that applies, ``count`` times."""

    fan: FanType
    count: int

    @property
    def total(self) -> int:
        return self.fan.value * self.count

    def to_json(self) -> dict[str, object]:
        return {"name": self.fan.en, "zh": self.fan.zh, "key": self.fan.key, "fan": self.total,
                "count": self.count, "cite": self.fan.cite}


@dataclass(frozen=True, slots=True)
class SichuanScore:
    """A scored win: fan breakdown, raw total, capped fan and base points (2**capped, 1 with no fan)."""

    fans: tuple[FanHit, ...]
    fan: int
    capped_fan: int
    base: int
    seven_pairs: bool = field(default=False)

    def to_json(self) -> dict[str, object]:
        return {"fans": [f.to_json() for f in self.fans], "fan": self.fan, "capped_fan": self.capped_fan,
                "points": self.base}


class NotWinningHand(ValueError):  # noqa: N818 - same name as the MCR scorer's contract
    """The tiles do not make a legal Sichuan win (shape, three suits, or the void suit)."""


def base_points(fan: int, cap_fan: int = 3) -> int:
    """Base points for ``fan`` with the cap: 2**min(fan, cap) (no fan = 1, L512-L516)."""
    if fan < 0 or cap_fan < 0:
        raise ValueError("fan and cap must be non-negative")
    return 1 << min(fan, cap_fan)


def check_void_and_suits(hand: Hand, win_tile: Tile, void_suit: str | None) -> None:
    """Raise NotWinningHand when the hand holds three suits (L450) or a void-suit tile (L342)."""
    tiles = [*hand.all_tiles, win_tile]
    counts27(tiles)  # honours/flowers -> ValueError
    suits = suits_of(tiles)
    if len(suits) == 3:
        raise NotWinningHand("a Sichuan win may hold at most two suits (缺一门, L450)")
    if void_suit is not None and void_suit in suits:
        raise NotWinningHand(f"the hand holds the declared missing suit {void_suit!r} (花猪, L342/L553)")


def _roots_and_kongs(hand: Hand, win_tile: Tile) -> tuple[int, int]:
    kongs = sum(1 for m in hand.melds if m.is_kong)
    all_counts = counts27([*hand.all_tiles, win_tile])
    kong_kinds = {m.first.kind for m in hand.melds if m.is_kong}
    roots = sum(1 for k in range(NUM_SUITED) if all_counts[k] == 4 and k not in kong_kinds)
    return roots, kongs


def score_win(
    hand: Hand,
    win_tile: Tile,
    situation: WinSituation,
    *,
    void_suit: str | None = None,
    options: SichuanOptions = DEFAULT_OPTIONS,
    situational: bool = True,
) -> SichuanScore:
    """Score a Sichuan win (``hand`` EXCLUDES ``win_tile``); raises NotWinningHand.

    ``situational=False`` leaves out 杠上花/杠上炮/抢杠/海底, as 查大叫 does (L578).  The best reading
    (seven pairs vs basic) is chosen.
    """
    if any(m.kind is MeldKind.CHOW for m in hand.melds):
        raise NotWinningHand("Sichuan has no chow (L426)")
    if hand.size != 13:
        raise NotWinningHand(f"the hand must have 13 tiles before the winning tile (kongs count 3), got {hand.size}")
    c = hand_counts(hand, [win_tile])
    if not is_basic_complete(c) and (hand.melds or not is_seven_pairs(c)):  # cheap shape test first
        raise NotWinningHand("not a winning shape: one pair + four sets, or seven pairs (L444-L448)")
    check_void_and_suits(hand, win_tile, void_suit)
    readings: list[list[FanHit]] = []
    roots, kongs = _roots_and_kongs(hand, win_tile)
    one_suit = len(suits_of([*hand.all_tiles, win_tile])) == 1
    common: list[FanHit] = []
    if kongs:
        common.append(FanHit(KONG, kongs))
    if roots:
        common.append(FanHit(ROOT, roots))
    if one_suit:
        common.append(FanHit(ONE_SUIT, 1))
    if is_basic_complete(c):
        hits = list(common)
        if is_all_triplets(c):
            hits.append(FanHit(ALL_TRIPLETS, 1))
            if len(hand.melds) == 4:
                hits.append(FanHit(GOLDEN_HOOK, 1))
        readings.append(hits)
    if not hand.melds and is_seven_pairs(c):
        readings.append([*common, FanHit(SEVEN_PAIRS, 1)])
    if not readings:
        raise NotWinningHand("not a winning shape: one pair + four sets, or seven pairs (L444-L448)")
    situ: list[FanHit] = []
    if situational:
        if situation.kong_replacement:
            situ.append(FanHit(KONG_BLOOM, 1))
        if situation.after_kong:
            situ.append(FanHit(KONG_DISCARD, 1))
        if situation.robbing_kong and (not situation.after_kong or options.rob_on_kong_discard_scores_both):
            situ.append(FanHit(ROB_KONG, 1))
        if situation.last_tile:
            situ.append(FanHit(LAST_TILE, 1))
    order = {f.key: i for i, f in enumerate(FAN_TYPES)}
    best = max(readings, key=lambda hs: sum(h.total for h in hs))
    hits = sorted([*best, *situ], key=lambda h: order[h.fan.key])
    total = sum(h.total for h in hits)
    capped = min(total, options.cap_fan)
    return SichuanScore(tuple(hits), total, capped, base_points(total, options.cap_fan),
                        seven_pairs=any(h.fan is SEVEN_PAIRS for h in best))


def winning_tiles(hand: Hand, void_suit: str | None = None) -> list[Tile]:
    """Tiles that complete ``hand`` (13 tiles) into a legal win.

    A tile of which the player already holds all four copies is left out: it does not count for tenpai
    (L560).
    """
    held = counts27(hand.all_tiles)
    out: list[Tile] = []
    for k in _shape_waits(tuple(counts27(hand.concealed)), not hand.melds):  # only these can pass score_win
        t = Tile(k)
        if held[k] >= 4:
            continue
        try:
            score_win(hand, t, WinSituation(self_drawn=False), void_suit=void_suit)
        except NotWinningHand:
            continue
        out.append(t)
    return out


@lru_cache(maxsize=8192)
def _shape_waits(concealed: tuple[int, ...], seven_pairs_ok: bool) -> tuple[int, ...]:
    """Suited kinds that give the concealed counts score_win's shape (one pair + sets, L444; seven pairs without
    melds, L448): the candidates :func:`winning_tiles` scores.  Cached per count vector (查大叫 asks it for every
    seat at every drawn hand's end)."""
    c = list(concealed)
    out = []
    for k in range(NUM_SUITED):
        c[k] += 1
        if is_basic_complete(c) or (seven_pairs_ok and is_seven_pairs(c)):
            out.append(k)
        c[k] -= 1
    return tuple(out)


def max_tenpai_fan(hand: Hand, void_suit: str | None, options: SichuanOptions = DEFAULT_OPTIONS) -> int | None:
    """The 查大叫 fan of a 有叫 hand: its best wait without situational fans (L578); None if not tenpai."""
    best: int | None = None
    for t in winning_tiles(hand, void_suit):
        s = score_win(hand, t, WinSituation(self_drawn=False), void_suit=void_suit, options=options,
                      situational=False)
        best = s.fan if best is None else max(best, s.fan)
    return best
