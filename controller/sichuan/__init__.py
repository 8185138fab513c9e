"""Sichuan bloody battle, SBR 2025 competition rules (seed ``001_2f25afa9281b00ab.txt``).

Scoring: :mod:`controller.sichuan.fans` (the ten fans, cap), :mod:`controller.sichuan.settlement`
(kong money, win payments, 查花猪/查大叫, 盘分), :mod:`controller.sichuan.penalties`;
CLI contract: :mod:`controller.sichuan.cli_support`; the engine's ruleset: ``RULESET`` /
:mod:`controller.sichuan.ruleset` (imported lazily).
"""

from __future__ import annotations

from typing import Any

from .fans import RULES_NAME, NotWinningHand, SichuanOptions, WinSituation, score_win, winning_tiles

__all__ = ["RULESET", "RULES_NAME", "NotWinningHand", "SichuanOptions", "WinSituation", "score_win",
           "winning_tiles"]


def __getattr__(name: str) -> Any:
    if name == "RULESET":
        from .ruleset import RULESET

        return RULESET
    raise AttributeError(name)
