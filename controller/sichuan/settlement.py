"""Money of a Sichuan SBR 2025 hand: kong money, win payments, refunds, 查花猪/查大叫, 盘分.

All amounts are 副分 (hand points, L147).  Payment vectors are ``[d0, d1, d2, d3]`` per seat and sum to
zero; penalty deductions (category 2/3) are not payments and are kept apart (L610-L612).  Seed lines
refer to ``001_2f25afa9281b00ab.txt``.  Pure and thread-safe.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from mjtable.tiles import Hand

from .fans import DEFAULT_OPTIONS, SichuanOptions, base_points, max_tenpai_fan

SEATS = 4


class KongType(enum.StrEnum):
    """Kong kinds for kong money (刮风下雨, L486-L502)."""

    CALLED = "called"  # 点杠 / 大明杠: the discarder pays 2 (L490)
    PROMOTED_TIMELY = "promoted_timely"  # 加杠 with the tile just drawn (及时雨): 1 from each player still in (L494)
    PROMOTED_LATE = "promoted_late"  # 加杠 with a tile already in hand: no money (L496-L500)
    CONCEALED = "concealed"  # 暗杠: 2 from each player still in (L502)


@dataclass(frozen=True, slots=True)
class KongMoney:
    """One kong's payment, kept so it can be refunded (L504, L506, L654, L784)."""

    seat: int
    kong_type: KongType
    deltas: tuple[int, int, int, int]
    refunded: bool = False

    @property
    def collected(self) -> int:
        return self.deltas[self.seat]

    def refund(self) -> KongMoney:
        return KongMoney(self.seat, self.kong_type, self.deltas, refunded=True)

    def refund_deltas(self) -> tuple[int, int, int, int]:
        d = tuple(-x for x in self.deltas)
        return (d[0], d[1], d[2], d[3])


def _vec() -> list[int]:
    return [0] * SEATS


def _tuple4(v: Sequence[int]) -> tuple[int, int, int, int]:
    return (v[0], v[1], v[2], v[3])


def kong_money(seat: int, kong_type: KongType, active: Iterable[int], discarder: int | None = None) -> KongMoney:
    """Kong money at the moment of the kong; ``active`` are the seats still in (not yet won), L490-L502."""
    d = _vec()
    payers = [s for s in active if s != seat]
    if kong_type is KongType.CALLED:
        if discarder is None or discarder == seat:
            raise ValueError("a called kong needs the discarder's seat")
        d[discarder] -= 2
        d[seat] += 2
    elif kong_type is KongType.PROMOTED_TIMELY:
        for p in payers:
            d[p] -= 1
            d[seat] += 1
    elif kong_type is KongType.CONCEALED:
        for p in payers:
            d[p] -= 2
            d[seat] += 2
    return KongMoney(seat, kong_type, _tuple4(d))


def win_payment(winner: int, base: int, *, self_drawn: bool, discarder: int | None,
                active: Iterable[int]) -> tuple[int, int, int, int]:
    """Win payment: ron = base from the discarder (L518); self-draw = base + 1 from each player still in (L520).

    A robbed kong pays as the discarder ([DESIGN], digest §4.3).
    """
    d = _vec()
    if self_drawn:
        for p in active:
            if p != winner:
                d[p] -= base + 1
                d[winner] += base + 1
    else:
        if discarder is None or discarder == winner:
            raise ValueError("a discard win needs a discarder other than the winner")
        d[discarder] -= base
        d[winner] += base
    return _tuple4(d)


class DrawStatus(enum.StrEnum):
    """A non-winner's state at the exhaustive draw (L553-L558, L570-L576)."""

    TENPAI = "tenpai"  # 有叫
    NOT_TENPAI = "not_tenpai"  # 没叫
    PASSIVE_PIG = "passive_pig"  # 被动花猪: only ever discarded the void suit; counts as 没叫 (L572)
    ACTIVE_PIG = "active_pig"  # 主动花猪: penalty + pays as 没叫 (L574-L576)


@dataclass(frozen=True, slots=True)
class DrawSeat:
    """What the draw settlement needs about one non-winner.

    ``discarded_other_suit``: the player has discarded a tile not of the void suit this hand.
    ``active_pig_declared``: already judged 主动花猪 earlier this hand (L574).
    ``no_win``: under 停和陪打 (L654).
    """

    seat: int
    hand: Hand
    void_suit: str
    discarded_other_suit: bool = False
    active_pig_declared: bool = False
    no_win: bool = False


@dataclass(frozen=True, slots=True)
class DrawSettlement:
    """Result of 查花猪/查大叫 and the not-tenpai kong refunds at an exhaustive draw."""

    status: Mapping[int, DrawStatus]
    tenpai_fan: Mapping[int, int]
    chajiao: tuple[int, int, int, int]
    kong_refund: tuple[int, int, int, int]
    active_pigs: tuple[int, ...]

    @property
    def deltas(self) -> tuple[int, int, int, int]:
        return _tuple4([a + b for a, b in zip(self.chajiao, self.kong_refund, strict=True)])

    def to_json(self) -> dict[str, object]:
        return {"status": {str(k): v.value for k, v in sorted(self.status.items())},
                "tenpai_fan": {str(k): v for k, v in sorted(self.tenpai_fan.items())},
                "chajiao": list(self.chajiao), "kong_refund": list(self.kong_refund),
                "active_pigs": list(self.active_pigs), "deltas": list(self.deltas)}


def classify(seat: DrawSeat) -> DrawStatus:
    """有叫 / 没叫 / 花猪 of one non-winner (L553-L576)."""
    holds_void = any(t.suit == seat.void_suit for t in seat.hand.all_tiles)
    if seat.active_pig_declared or (holds_void and seat.discarded_other_suit):
        return DrawStatus.ACTIVE_PIG
    if holds_void:
        return DrawStatus.PASSIVE_PIG
    if max_tenpai_fan(seat.hand, seat.void_suit) is not None:
        return DrawStatus.TENPAI
    return DrawStatus.NOT_TENPAI


def settle_draw(seats: Sequence[DrawSeat], kongs: Sequence[KongMoney],
                options: SichuanOptions = DEFAULT_OPTIONS) -> DrawSettlement:
    """查花猪 + 查大叫 + kong refunds at an exhaustive draw (L549-L596, L504).

    Each 没叫 (pigs included) pays each 有叫 player the base of that player's best wait without
    situational fans, capped (L578; the cap is applied, digest App. B 8).  A 停和陪打 player neither
    charges nor, when tenpai, is charged (L654).  Not-tenpai kong players refund all kong money (L504).
    """
    status: dict[int, DrawStatus] = {}
    fan: dict[int, int] = {}
    for s in seats:
        status[s.seat] = classify(s)
        if status[s.seat] is DrawStatus.TENPAI:
            f = max_tenpai_fan(s.hand, s.void_suit, options)
            fan[s.seat] = 0 if f is None else f
    no_win = {s.seat for s in seats if s.no_win}
    chajiao = _vec()
    payees = [s for s, st in status.items() if st is DrawStatus.TENPAI and s not in no_win]
    payers = [s for s, st in status.items() if st is not DrawStatus.TENPAI]
    for payee in payees:
        base = base_points(fan[payee], options.cap_fan)
        for payer in payers:
            chajiao[payer] -= base
            chajiao[payee] += base
    refund = _vec()
    not_tenpai = {s for s, st in status.items() if st is not DrawStatus.TENPAI}
    for k in kongs:
        if not k.refunded and k.seat in not_tenpai:
            for i, x in enumerate(k.refund_deltas()):
                refund[i] += x
    pigs = tuple(sorted(s for s, st in status.items() if st is DrawStatus.ACTIVE_PIG))
    return DrawSettlement(status, fan, _tuple4(chajiao), _tuple4(refund), pigs)


def refund_all(seat: int, kongs: Sequence[KongMoney]) -> tuple[tuple[int, int, int, int], list[KongMoney]]:
    """Refund every unrefunded kong of ``seat`` (停和陪打 L654, 诈和/顺和 L784); returns deltas and new list."""
    d = _vec()
    out: list[KongMoney] = []
    for k in kongs:
        if k.seat == seat and not k.refunded:
            for i, x in enumerate(k.refund_deltas()):
                d[i] += x
            out.append(k.refund())
        else:
            out.append(k)
    return _tuple4(d), out


def session_points(scores: Sequence[float], table: Sequence[float] = (4, 3, 2, 1)) -> list[float]:
    """盘分 by 副分 rank, ties split evenly over the tied ranks' points (L159-L161)."""
    order = sorted(range(len(scores)), key=lambda s: -scores[s])
    out = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        share = sum(table[i:j + 1]) / (j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = share
        i = j + 1
    return out
