"""Rules extensions: the hooks through which Sichuan and riichi rules run inside the generic engine core.

The MCR rulebooks need nothing beyond the :class:`~controller.engine.ruleset.Ruleset` protocol.  Sichuan
(定缺, kong money, 查花猪/查大叫, next dealer) and riichi (riichi sticks, ippatsu, dora, furiten, honba, noten
payments, pao, final scores) need state and steps the protocol cannot express; their extension is named in
:data:`EXTENSIONS` (the rulebook does not import it back) and the core calls the hooks below at fixed points.  Their
state lives in ``HandState.extra`` / ``SessionState.extra`` (frozen values owned by the extension).

Every hook is pure (no I/O, no clock), called synchronously from whatever thread/loop runs
:func:`controller.engine.step.step`; the base class does nothing, so the MCR path is unchanged.

Call points (each a small commented hook in the engine core's modules, ``controller.views`` and
``controller.bots``):

* ``procedure.on_dice`` / ``procedure.deal`` -> :meth:`EngineExtension.dice_throws`,
  :meth:`EngineExtension.live_wall` (Sichuan: one throw, 14/13-stack walls) and
  :meth:`EngineExtension.after_deal` (Sichuan enters the 定缺 phase)
* ``procedure.take`` -> :meth:`EngineExtension.dead_wall_replacement` (riichi: kan replacements)
* ``step._player`` -> :meth:`EngineExtension.before_player` (extension events, extra legality checks)
* ``step.step`` -> :meth:`EngineExtension.after_step` (kong money, riichi sticks, furiten... by diffing states)
* ``wins.situation`` -> :meth:`EngineExtension.win_situation` (void suit, riichi, dora, furiten, honba...)
* ``session.end_hand`` -> :meth:`EngineExtension.settle_hand` and :meth:`EngineExtension.next_session`
* ``session.end_session`` -> :meth:`EngineExtension.ranking_points`
* ``session.session_time_up`` -> :meth:`EngineExtension.finish_hand_at_time_up`
* ``controller.views`` -> :meth:`EngineExtension.view_extra`
* ``controller.bots.Bot.decide`` -> :meth:`EngineExtension.bot_action`
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.query import ruleset_of

if TYPE_CHECKING:
    import random

    from controller.engine.effects import Effect
    from controller.engine.events import Event
    from controller.engine.ruleset import ClaimKind, WinSituation
    from controller.engine.state import GameState, HandResult, HandState, SeatState, SessionState
    from mjtable.tiles import Tile


@dataclass(frozen=True, slots=True)
class Action:
    """What a bot wants to do, in event terms: ``kind`` is an event type, ``fields`` its payload.

    Defined here, with the hook that adjusts it (:meth:`EngineExtension.bot_action`), so that the extensions
    need not import the bots (``controller.bots`` re-exports it)."""

    kind: str
    fields: tuple[tuple[str, object], ...]


class Bot(Protocol):
    """What the bot hook sees of a bot (:class:`controller.bots.Bot`): its seat, its seeded random source and
    its generic discard choice."""

    seat: int
    rng: random.Random

    def best_discard(self, s: SeatState) -> Tile:
        """The generic bot's discard from ``s``'s concealed tiles."""
        ...


#: The engine extension of each rulebook family, by the rules-name prefix: ``(module, class)``, imported on
#: first use and built with the ruleset (``cls(ruleset)``).  The rulebooks do not know their extensions (the
#: dependencies run one way: rulebook -> core -> extensions); MCR needs none.
EXTENSIONS: dict[str, tuple[str, str]] = {
    "sichuan": ("controller.engine.ext_sichuan", "SichuanExtension"),
    "riichi": ("controller.engine.ext_riichi", "RiichiExtension"),
}


class EngineExtension:
    """Hooks with no effect (MCR).  Subclasses override what their rules need."""

    def after_deal(self, state: GameState, fx: list[Effect]) -> GameState:
        """Right after the deal, before the initial flowers.  Return a state in another phase than
        ``flowers`` to take over (the core then returns it as is)."""
        return state

    def dice_throws(self) -> int:
        """Throws of two dice before the deal (MCR, riichi: the dealer's and the second thrower's)."""
        return 2

    def live_wall(self, state: GameState, hand: HandState) -> tuple[Tile, ...] | None:
        """The wall in draw order after the break, or None for the core's layout (equal sides, two throws)."""
        return None

    def dead_wall_replacement(self, hand: HandState) -> int | None:
        """Linear wall index of a kong replacement taken from a dead wall, or None (the live wall's end)."""
        return None

    def before_player(self, state: GameState, ev: Event, fx: list[Effect]) -> GameState | None:
        """Before the core handles a player event (also camera-translated ones).  Return a new state to
        handle it entirely, None to let the core handle it; raise ``Reject`` to refuse it."""
        return None

    def camera_observation(self, state: GameState, obs: dict[str, Any], fx: list[Effect]) -> GameState | None:
        """A camera reading of a type the core does not know (riichi: ``dora_indicator``); None: not handled.
        Raise ``Reject`` for a reading that does not fit (the core turns it into a ``camera_mismatch`` alert)."""
        return None

    def after_step(self, old: GameState, new: GameState, ev: Event, fx: list[Effect]) -> GameState:
        """After every accepted event (``old`` -> ``new``), before ``seq`` is counted."""
        return new

    def win_situation(self, state: GameState, sit: WinSituation) -> WinSituation:
        """Fill the rules' extra :class:`WinSituation` fields for a win (or a possible win) of ``sit.winner``."""
        return sit

    def settle_hand(self, state: GameState, result: HandResult, fx: list[Effect]) -> tuple[GameState, HandResult]:
        """At the end of a hand, before ``result.payments`` are added to the scores."""
        return state, result

    def next_session(self, state: GameState, hand: HandState, result: HandResult,
                     sess: SessionState) -> SessionState:
        """The session after the hand (dealer, round, honba...); ``sess`` is the core's proposal."""
        return sess

    def ranking_points(self, state: GameState, net: Sequence[int]) -> list[float]:
        """The session's final ranking figures from the net scores per player."""
        return list(ruleset_of(state).ranking_points(net))

    def view_extra(self, state: GameState, *, referee: bool) -> dict[str, Any]:
        """Extra top-level keys of the public (``referee`` False: no hidden information!) or referee view."""
        return {}

    def late_call(self, state: GameState, seat: int, kind: ClaimKind, fx: list[Effect]) -> GameState | None:
        """A ``kind`` call by ``seat`` after its window closed: the rulebook's own treatment (a new state, or raise
        ``Reject``); None: the core's (MCR: void, laddered where the seed says so)."""
        return None

    def bad_call(self, state: GameState, seat: int, kind: ClaimKind, shown: tuple[Tile, ...] | None, *,
                 why: str, fx: list[Effect]) -> tuple[GameState, bool] | None:
        """A chow/pung/kong claim by ``seat`` that cannot be made (``why``): ``shown`` are the tiles it lays out from
        its hand when it holds them (a wrong call), None when it does not (an empty call).  Returns the state with
        the rulebook's record and whether the call is void (the seat has acted on the discard), or None: refused
        (the core's treatment; MCR's is in ``infractions``)."""
        return None

    def false_win_voids_later_calls(self) -> bool:
        """True when a false win on a discard voids the later win calls on it (MCR 2017 is handled by name)."""
        return False

    def finish_hand_at_time_up(self) -> bool:
        """True when the hand running at the session time limit is played to its end (MCR: it stops)."""
        return False

    def bot_action(self, bot: Bot, state: GameState, default: Action | None) -> Action | None:
        """The bot's action under these rules; ``default`` is what the generic bot would do."""
        return default


NO_EXTENSION = EngineExtension()
_CACHE: dict[str, EngineExtension] = {}


def ext_of(state: GameState) -> EngineExtension:
    """The extension of the state's ruleset (cached per rules name, :data:`EXTENSIONS`); the no-op one for MCR."""
    name = state.config.rules
    found = _CACHE.get(name)
    if found is None:
        found = NO_EXTENSION
        for family, (module, cls) in EXTENSIONS.items():
            if name.startswith(family):
                made = getattr(importlib.import_module(module), cls)(ruleset_of(state))
                if isinstance(made, EngineExtension):
                    found = made
                break
        _CACHE[name] = found
    return found


__all__ = ["EXTENSIONS", "NO_EXTENSION", "Action", "Bot", "EngineExtension", "ext_of"]
