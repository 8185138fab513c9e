"""Sichuan SBR 2025 penalties the engine can detect (digest §6, seed ``001_2f25afa9281b00ab.txt``).

Categories (L606-L616): 1 = lose the session; 2 = -24 副分 (or -2 盘分); 3 = -1..8 副分 rising within the
session (L612, L632); 4 = warning; plus the special 停和陪打 (no-win / play-on, L616, L654).
Pure data and helpers; thread-safe.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Category(enum.IntEnum):
    """Penalty category (判罚尺度, L606-L616)."""

    LOSE_SESSION = 1
    MAJOR = 2
    MINOR = 3
    WARNING = 4


@dataclass(frozen=True, slots=True)
class PenaltyRule:
    """One row of the penalty table: category, whether 停和陪打 follows, and the kong-money effect."""

    code: str
    zh: str
    category: Category | None
    no_win: bool
    refund_kongs: bool
    cite: str


RULES: dict[str, PenaltyRule] = {r.code: r for r in (
    PenaltyRule("active_pig", "主动花猪", Category.MAJOR, True, True, "L350-L352, L774-L778"),
    PenaltyRule("false_win", "诈和", Category.MAJOR, False, True, "L780-L786"),
    PenaltyRule("passed_win", "顺和", Category.MAJOR, False, True, "L248, L782-L784"),
    PenaltyRule("wrong_count", "相公", None, True, True, "L706"),
    PenaltyRule("early_act", "开牌阶段提前行牌", None, True, True, "L686"),
    PenaltyRule("wrong_meld_corrected", "错碰/错杠(已更正)", Category.WARNING, False, False, "L740"),
    PenaltyRule("wrong_meld_late", "错碰/错杠(未及时更正)", Category.WARNING, True, True, "L742"),
    PenaltyRule("wrong_meld_irreversible", "错杠影响他人", Category.MAJOR, False, False, "L746"),
    PenaltyRule("empty_call", "空碰/空杠", Category.WARNING, False, False, "L762"),
    PenaltyRule("empty_win", "空和", Category.MINOR, False, False, "L764"),
    PenaltyRule("early_draw", "提前摸牌", Category.WARNING, False, False, "L712-L714"),
    PenaltyRule("discard_before_draw", "先打后摸", Category.WARNING, False, False, "L716"),
    PenaltyRule("silent_call", "漏报", Category.WARNING, False, False, "L770"),
    PenaltyRule("wrong_card", "听牌卡/和牌卡/定缺卡使用错误", Category.WARNING, False, False, "L794"),
)}

MAJOR_POINTS = 24  # L610, L630
MINOR_POINTS_RANGE = (1, 8)  # L612


def deduction(rule: PenaltyRule, *, minor_points: int = 1) -> int:
    """副分 deducted for ``rule`` (0 for a warning or 停和陪打 alone); ``minor_points`` sets a category-3 amount."""
    if rule.category is Category.MAJOR:
        return MAJOR_POINTS
    if rule.category is Category.MINOR:
        lo, hi = MINOR_POINTS_RANGE
        if not lo <= minor_points <= hi:
            raise ValueError(f"category 3 deducts {lo}-{hi} 副分 (L612), not {minor_points}")
        return minor_points
    return 0
