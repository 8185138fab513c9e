"""Chinese Official (MCR) fan calculator: 1998, 2006 (default) and 2017 rulebooks.

Public API (the contract other packages code against)::

    from controller.mcr import WinContext, Fan, ScoreResult, NotWinningHand, score_hand, is_complete, find_waits

``score_hand(hand, ctx, rules="mcr-2006")`` scores a win (``hand`` excludes the winning tile);
``is_complete(hand, win_tile)`` checks the shape only; ``find_waits(hand, seat_wind=..., round_wind=...)``
lists the tiles that complete a 13-tile hand with their fan totals.  Pure and thread-safe.
"""

from controller.mcr.api import InvalidHand, all_readings, find_waits, is_complete, score_hand, waits_detail
from controller.mcr.fans import FAN_BY_ID, FAN_BY_NAME, FAN_DEFS, FanDef, FanId
from controller.mcr.model import MINIMUM_POINTS, RULE_PROFILES, Fan, NotWinningHand, ScoreResult, WinContext

__all__ = [
    "FAN_BY_ID",
    "FAN_BY_NAME",
    "FAN_DEFS",
    "MINIMUM_POINTS",
    "RULE_PROFILES",
    "Fan",
    "FanDef",
    "FanId",
    "InvalidHand",
    "NotWinningHand",
    "ScoreResult",
    "WinContext",
    "all_readings",
    "find_waits",
    "is_complete",
    "score_hand",
    "waits_detail",
]
