"""Riichi hand scoring for the HKMA 2025 league: a thin wrapper over the ``mahjong`` package (2.1.0).

Seed ``002_40e04c10307d973b.txt`` (digest ``riichi-hk-rules.md``).  The package does the yaku, fu and
limit arithmetic; this module only configures it to HKMA rules and fixes the points where HKMA differs:

* open tanyao (喰斷) and three red fives as dora (L15, L110, L162): ``has_open_tanyao``, ``has_aka_dora``;
* no double yakuman (L59, L729): ``has_double_yakuman=False``;
* no counted yakuman, the top is sanbaiman (L60): ``KAZOE_SANBAIMAN``;
* a double-wind pair is 2 fu, not 4 (L758-L762 pair table): the package's 4 fu is reduced by 2 and the
  fu re-rounded;
* Appendix B 1 kiriage mangan and 2 composite yakuman are :class:`RiichiOptions` flags.

Honba, deposits, pao and the payment split are computed here from the package's base payments, because the
HKMA split (pao halves, head bump) is not in the package.  Pure; callable from any thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mahjong.hand_calculating.fu import FuCalculator
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.hand_calculating.scores import ScoresCalculator
from mahjong.meld import Meld as PkgMeld

from mjtable.tiles import Hand, MeldKind, Tile

RULES_NAME = "riichi-hkma-2025"
HONBA_RON = 300  # L28, L442
HONBA_TSUMO_EACH = 100  # L442
STICK = 1000  # L366


@dataclass(frozen=True, slots=True)
class RiichiOptions:
    """HKMA settings whose seed text conflicts (digest Appendix B), with documented defaults.

    ``kiriage_mangan``: 4 han 30 fu and 3 han 60 fu pay mangan.  Default True (L56, L752, L927, L940 vs L740).
    ``composite_yakuman``: several yakuman patterns score several yakuman.  Default False (L729 and the
    points table L932 vs L61).
    ``uma_mode``: "l19" (+50/+10/-10/-30 on (points - return)/1000, L19) or "l453" (rank points added before
    subtracting the start, L451-L456).  Default "l19".
    ``redeal_on_empty_win``: "always" (L647) or "threshold" (redeal only with >= 20 live tiles, L657).
    Default "threshold".
    ``division``: "A" (30000/35000) or "B" (25000/30000), L16-L18.
    ``claim_window_s``: the seed sets no seconds (L33); default 3.0.
    ``kuikae``: which discards right after a chi/pon are 喰替 (L564-L566 punish it without defining it, digest
    §4.6 [UNCLEAR]): "genbutsu_suji" (the called face, and for a chi the other end of the run; the usual
    reading, default), "genbutsu" (the called face only) or "off" (controller/engine/ext_riichi_penalties.py).
    ``tenpai_default``: who declares tenpai at an exhaustive draw when nobody presses (declaring is optional,
    L427): "declare" (every tenpai hand, default) or "noten" (only riichi hands); the seats' panels change it
    until the next wall (controller/engine/ext_riichi_tenpai.py).
    """

    kiriage_mangan: bool = True
    composite_yakuman: bool = False
    uma_mode: str = "l19"
    redeal_on_empty_win: str = "threshold"
    division: str = "A"
    claim_window_s: float = 3.0
    kuikae: str = "genbutsu_suji"
    tenpai_default: str = "declare"

    def __post_init__(self) -> None:
        if self.uma_mode not in ("l19", "l453"):
            raise ValueError(f"uma_mode must be 'l19' or 'l453', got {self.uma_mode!r}")
        if self.redeal_on_empty_win not in ("always", "threshold"):
            raise ValueError("redeal_on_empty_win must be 'always' or 'threshold'")
        if self.division not in ("A", "B"):
            raise ValueError(f"division must be 'A' or 'B', got {self.division!r}")
        if self.tenpai_default not in ("declare", "noten"):
            raise ValueError(f"tenpai_default must be 'declare' or 'noten', got {self.tenpai_default!r}")
        if self.kuikae not in ("genbutsu_suji", "genbutsu", "off"):
            raise ValueError(f"kuikae must be 'genbutsu_suji', 'genbutsu' or 'off', got {self.kuikae!r}")


DEFAULT_OPTIONS = RiichiOptions()


@dataclass(frozen=True, slots=True)
class RiichiSituation:
    """The win's circumstances (flags a referee or the engine knows)."""

    self_drawn: bool
    seat_wind: Tile
    round_wind: Tile
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    rinshan: bool = False  # tsumo on a kan replacement (L794)
    chankan: bool = False  # ron on an added kan tile (L795)
    haitei: bool = False  # tsumo on the last live tile (L796)
    houtei: bool = False  # ron on the discard after the last live tile (L797)
    tenhou: bool = False
    chiihou: bool = False
    dora_indicators: tuple[Tile, ...] = ()
    ura_indicators: tuple[Tile, ...] = ()

    @property
    def dealer(self) -> bool:
        return self.seat_wind.kind == 27


@dataclass(frozen=True, slots=True)
class RiichiScore:
    """A scored riichi win before honba and deposits.

    ``main``/``additional`` are the package's base payments: ron = ``main`` from the discarder; non-dealer
    tsumo = ``main`` from the dealer and ``additional`` from each non-dealer; dealer tsumo = ``main`` from each.
    """

    han: int
    fu: int
    yaku: tuple[tuple[str, int], ...]
    limit: str
    value: int
    main: int
    additional: int
    yakuman: int = 0
    fu_details: tuple[tuple[str, int], ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        return {"han": self.han, "fu": self.fu, "yaku": [{"name": n, "han": h} for n, h in self.yaku],
                "limit": self.limit or None, "points": self.value, "yakuman": self.yakuman}


class NotWinningHand(ValueError):  # noqa: N818 - same name as the MCR scorer's contract
    """No winning shape, no yaku (一飜縛, L391/L149), or an impossible situation."""


def _to_136(tiles: Sequence[Tile], used: dict[int, int]) -> list[int]:
    """Give each tile a distinct 136-format id; a red five is copy 0 of its kind (the package's aka id)."""
    out: list[int] = []
    for t in tiles:
        k = t.kind
        if t.red:
            if used.get(-k - 1):
                raise NotWinningHand(f"more than one red five {t.code}")
            used[-k - 1] = 1
            out.append(4 * k)
            continue
        start = 1 if k in (4, 13, 22) else 0
        n = used.get(k, 0)
        if start + n > 3:
            raise NotWinningHand(f"too many copies of {t.plain.code}")
        used[k] = n + 1
        out.append(4 * k + start + n)
    return out


#: HKMA has no double-yakuman forms (L59, L908): the package's double names are reported as the single yakuman.
SINGLE_NAMES = {"Kokushi Musou Juusanmen Matchi": "Kokushi Musou", "Suu Ankou Tanki": "Suu Ankou",
                "Daburu Chuuren Poutou": "Chuuren Poutou"}

_PKG_KIND = {MeldKind.CHOW: PkgMeld.CHI, MeldKind.PUNG: PkgMeld.PON, MeldKind.KONG: PkgMeld.KAN,
             MeldKind.CONCEALED_KONG: PkgMeld.KAN}


def package_config(sit: RiichiSituation, options: RiichiOptions) -> HandConfig:
    """The package's HandConfig for HKMA (honba and deposits are left at 0: added by :func:`payment_split`)."""
    rules = OptionalRules(
        has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=False,
        kazoe_limit=HandConstants.KAZOE_SANBAIMAN, kiriage=options.kiriage_mangan,
        fu_for_open_pinfu=True, fu_for_pinfu_tsumo=False, renhou_as_yakuman=False,
    )
    return HandConfig(
        is_tsumo=sit.self_drawn, is_riichi=sit.riichi and not sit.double_riichi, is_ippatsu=sit.ippatsu,
        is_rinshan=sit.rinshan, is_chankan=sit.chankan, is_haitei=sit.haitei, is_houtei=sit.houtei,
        is_daburu_riichi=sit.double_riichi, is_tenhou=sit.tenhou, is_chiihou=sit.chiihou,
        player_wind=sit.seat_wind.kind, round_wind=sit.round_wind.kind, options=rules,
    )


def score_hand(hand: Hand, win_tile: Tile, sit: RiichiSituation,
               options: RiichiOptions = DEFAULT_OPTIONS) -> RiichiScore:
    """Score a win (``hand`` EXCLUDES ``win_tile``); raises NotWinningHand (no shape, no yaku, bad flags)."""
    if (sit.riichi or sit.double_riichi or sit.ippatsu) and any(not m.is_concealed for m in hand.melds):
        raise NotWinningHand("riichi needs a closed hand (門清, L363)")
    if sit.ippatsu and not (sit.riichi or sit.double_riichi):
        raise NotWinningHand("ippatsu needs riichi (L769)")
    if sit.ura_indicators and not (sit.riichi or sit.double_riichi):
        raise NotWinningHand("ura-dora count only for a riichi win (L164, L382)")
    if any(t.is_flower for t in hand.all_tiles) or win_tile.is_flower or hand.flowers:
        raise NotWinningHand("riichi has no flowers (L106)")
    used: dict[int, int] = {}
    melds: list[PkgMeld] = []
    all136: list[int] = []
    for m in hand.melds:
        ids = _to_136(m.tiles, used)
        all136.extend(ids)
        melds.append(PkgMeld(meld_type=_PKG_KIND[m.kind], tiles=ids, opened=not m.is_concealed))
    concealed = _to_136(hand.concealed, used)
    win_id = _to_136([win_tile], used)[0]
    all136.extend(concealed)
    all136.append(win_id)
    dora = _to_136(sit.dora_indicators, {})
    ura = _to_136(sit.ura_indicators, {})
    config = package_config(sit, options)
    res = HandCalculator.estimate_hand_value(all136, win_id, melds=melds, dora_indicators=dora, config=config,
                                             ura_dora_indicators=ura or None)
    if res.error is not None or res.han is None or res.fu is None or res.yaku is None:
        raise NotWinningHand(f"not a winning hand under HKMA rules: {res.error}")
    is_open = res.is_open_hand
    yaku = tuple((SINGLE_NAMES.get(y.name, y.name), (y.han_open if is_open else y.han_closed) or 0) for y in res.yaku)
    yakuman_count = sum(1 for y in res.yaku if y.is_yakuman)
    han, fu = res.han, res.fu
    details = tuple((d["reason"] or "", d["fu"]) for d in (res.fu_details or []))
    if any(reason == FuCalculator.DOUBLE_VALUED_PAIR for reason, _ in details):
        raw = sum(f for _, f in details) - 2
        fu = max(30 if is_open else 20, (raw + 9) // 10 * 10)
        details = tuple((r, 2 if r == FuCalculator.DOUBLE_VALUED_PAIR else f) for r, f in details)
    if yakuman_count:
        multiple = yakuman_count if options.composite_yakuman else 1
        han = 13 * multiple
    cost = ScoresCalculator.calculate_scores(han, fu, config, is_yakuman=bool(yakuman_count))
    main, additional = cost["main"], cost["additional"]
    value = (main * 3 if sit.dealer else main + 2 * additional) if sit.self_drawn else main
    return RiichiScore(han, fu, yaku, cost["yaku_level"], value, main,
                       additional, yakuman=yakuman_count if options.composite_yakuman else min(yakuman_count, 1),
                       fu_details=details)


@dataclass(frozen=True, slots=True)
class Liability:
    """Pao (包牌, L730-L738): ``seat`` is liable for the yakuman (first liable only, 包先不包後)."""

    seat: int


def payment_split(score: RiichiScore, *, winner: int, dealer: int, self_drawn: bool, discarder: int | None,
                  honba: int = 0, riichi_sticks: int = 0,
                  pao: Liability | None = None) -> tuple[int, int, int, int]:
    """Point change per seat for one win, honba (L442) and deposits (L47) included.  Sums to zero when the
    deposits (``riichi_sticks`` x 1000, already taken off the table) are counted as paid in.

    Pao: tsumo -> the liable player pays everything; ron -> liable and discarder pay half each (L735-L737).
    [DESIGN] honba follow the main payer (tsumo: the liable player; ron: the discarder).
    """
    d = [0, 0, 0, 0]
    if self_drawn:
        payers = [s for s in range(4) if s != winner]
        if pao is not None and pao.seat != winner:
            total = score.value + HONBA_TSUMO_EACH * honba * 3
            d[pao.seat] -= total
            d[winner] += total
        else:
            for p in payers:
                amount = score.main if (dealer in (winner, p)) else score.additional
                amount += HONBA_TSUMO_EACH * honba
                d[p] -= amount
                d[winner] += amount
    else:
        if discarder is None or discarder == winner:
            raise ValueError("a ron needs a discarder other than the winner")
        bonus = HONBA_RON * honba
        if pao is not None and pao.seat not in (winner, discarder):
            half = score.value // 2
            d[pao.seat] -= half
            d[discarder] -= score.value - half + bonus
        else:
            d[discarder] -= score.value + bonus
        d[winner] += score.value + bonus
    d[winner] += STICK * riichi_sticks
    return (d[0], d[1], d[2], d[3])
