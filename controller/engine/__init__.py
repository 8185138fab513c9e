"""The live game engine: a pure ``step(state, event) -> (state, effects)`` core generic over a ``Ruleset``.

Public API::

    from controller.engine import start_session, step, event_from_json, GameState, Ruleset
    from controller.views import public_view, referee_view
"""

from controller.engine.effects import Effect, Rejected
from controller.engine.events import Event, EventFormatError, SessionStart, event_from_json
from controller.engine.registry import UnknownRules, ruleset_for
from controller.engine.ruleset import ClaimKind, FalseWinKind, InformationMode, Ruleset, WinCheck, WinSituation
from controller.engine.state import GameState, Phase
from controller.engine.step import start_session, step

__all__ = [
    "ClaimKind",
    "Effect",
    "Event",
    "EventFormatError",
    "FalseWinKind",
    "GameState",
    "InformationMode",
    "Phase",
    "Rejected",
    "Ruleset",
    "SessionStart",
    "UnknownRules",
    "WinCheck",
    "WinSituation",
    "event_from_json",
    "ruleset_for",
    "start_session",
    "step",
]
