"""Hong Kong Mahjong Association riichi league rules 2025 (seed ``002_40e04c10307d973b.txt``).

Scoring wraps the ``mahjong`` package: :mod:`controller.riichi.scoring`; settlement (noten, honba, uma):
:mod:`controller.riichi.settlement`; CLI contract: :mod:`controller.riichi.cli_support`; the engine's
ruleset: ``RULESET`` / :mod:`controller.riichi.ruleset` (imported lazily).
"""

from __future__ import annotations

from typing import Any

from .scoring import RULES_NAME, NotWinningHand, RiichiOptions, RiichiSituation, score_hand

__all__ = ["RULESET", "RULES_NAME", "NotWinningHand", "RiichiOptions", "RiichiSituation", "score_hand"]


def __getattr__(name: str) -> Any:
    if name == "RULESET":
        from .ruleset import RULESET

        return RULESET
    raise AttributeError(name)
