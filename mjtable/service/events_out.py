"""Which engine events and effects go on the public MQTT event stream, and in what shape.

Only what every player at the table can see: discards, claims, flowers, kongs (a concealed kong without its face),
buttons, dice, faults and referee actions.  Camera observations (``hand_seen`` is referee-only), the wall's faces
(``table_built``) and referee-only alert data never appear; the MQTT guard (``mjtable.mqtt.guard``) checks every payload
again before it is published.  Hand results and the game end are derived by ``TableChannel`` from the views.

Sichuan 定缺 from the seat panels (``controller.engine.ext_sichuan``): a *call* press steps the seat's hidden choice
m -> p -> s, so how often a seat pressed it is its missing suit.  During the ``void`` phase a *call* press is no
public event, and a step that changed nothing else the public sees (:func:`hidden_step`) is not published at all:
:class:`PublicSeq` numbers the public state and the public event ids without those steps until the choices are
turned up together.  Putting the choice down (*pass*) stays public, as ``void_chosen`` in the view does.  Pure.
"""

from __future__ import annotations

from typing import Any

from controller.engine import camera
from controller.engine.effects import Alert, Effect, InfractionEffect
from controller.engine.errors import Reject
from controller.engine.events import (
    ButtonPressed,
    CameraObserved,
    Claim,
    ConcealedKong,
    DeclareWin,
    DiceRolled,
    Discard,
    Event,
    Flower,
    LinkChanged,
    McuFault,
    PromotedKong,
    RefereeCommand,
    TableBuilt,
)
from controller.engine.state import GameState, Phase

VOID = str(Phase.VOID)


def public_event(ev: Event, fx: tuple[Effect, ...], before: GameState | None = None
                 ) -> list[tuple[str, dict[str, Any]]]:
    """``(type, data)`` pairs to publish for one accepted event and its effects.

    A camera observation is published as the action it showed (the engine's own translation of it against
    ``before``, the state the engine stepped from); an acknowledgement of something already known, an
    uncertain read or a hand camera's ``hand_seen`` publishes nothing of its own.
    """
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(ev, CameraObserved):
        action = _camera_action(ev, before)
        if action is not None:
            out.extend(public_event(action, ()))
    elif isinstance(ev, Discard | Flower | PromotedKong):
        out.append((ev.type, {"seat": ev.seat, "tile": ev.tile}))
    elif isinstance(ev, Claim):
        data: dict[str, Any] = {"seat": ev.seat, "kind": ev.kind}
        if ev.kind == "chow":
            data["tiles"] = list(ev.tiles)
        out.append(("claim", data))
    elif isinstance(ev, ConcealedKong | DeclareWin):
        out.append((ev.type, {"seat": ev.seat}))
    elif isinstance(ev, ButtonPressed):
        if not (before is not None and void_call(ev, str(before.phase))):  # its count is the seat's hidden 定缺
            out.append(("button", {"seat": ev.seat, "button": ev.button}))
    elif isinstance(ev, DiceRolled):
        out.append(("dice_rolled", {"dice": list(ev.dice), "source": ev.source}))
    elif isinstance(ev, TableBuilt):
        out.append(("table_built", {}))
    elif isinstance(ev, McuFault):
        out.append(("mcu_fault", {"code": ev.code, "message": ev.message}))
    elif isinstance(ev, LinkChanged):
        out.append(("mcu_link", {"up": ev.up}))
    elif isinstance(ev, RefereeCommand):
        ref: dict[str, Any] = {"command": ev.command}  # the free-text reason stays referee-only (issue 19.9)
        if ev.seat is not None:
            ref["seat"] = ev.seat
        out.append(("referee", ref))
    for e in fx:  # redacted: messages may name a concealed tile; the referee view carries them in full
        if isinstance(e, Alert):
            alert: dict[str, Any] = {"id": e.id, "kind": e.kind}
            if isinstance(e.data.get("seat"), int):
                alert["seat"] = e.data["seat"]
            out.append(("alert", alert))
        elif isinstance(e, InfractionEffect):
            out.append(("infraction", {k: v for k, v in e.infraction.items() if k in
                                       ("id", "seat", "kind", "points", "status")}))
    return out


def void_call(ev: Event | None, phase: str) -> bool:
    """A *call* press in the 定缺 phase: it steps the seat's hidden choice (m -> p -> s -> m)."""
    return isinstance(ev, ButtonPressed) and ev.button == "call" and phase == VOID


def hidden_step(ev: Event | None, before: dict[str, Any] | None, after: dict[str, Any]) -> bool:
    """True for an accepted step the public must not notice at all: a 定缺 *call* press (:func:`void_call`) after
    which the public view (``controller.views.public_view``; ``before`` and ``after`` the step) is the same but for
    its ``seq``.  A press that also fired a due timer changed the view: that step is published (as a clock tick's
    would be), only not the press."""
    if before is None or not void_call(ev, str(before.get("phase"))):
        return False
    return _unnumbered(before) == _unnumbered(after)


class PublicSeq:
    """The public number of an engine step (the public state's ``seq``, the ``<game>:<seq>:<k>`` event ids): the
    engine's ``seq`` less the hidden steps (:func:`hidden_step`) of the 定缺 phase in progress, so counting steps
    tells nobody how often a seat pressed *call*.  Once the phase is over the choices are public and the numbers are
    the engine's again.  Deterministic: a resumed service replays its journal through :meth:`account`."""

    def __init__(self) -> None:
        self.hidden = 0

    def account(self, phase: str, hidden: bool) -> None:
        """One accepted step: the phase after it and whether it was a :func:`hidden_step`."""
        if phase != VOID:
            self.hidden = 0
        elif hidden:
            self.hidden += 1

    def __call__(self, seq: int) -> int:
        return seq - self.hidden


def _unnumbered(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "seq"}


def _camera_action(ev: CameraObserved, before: GameState | None) -> Event | None:
    obs = ev.observation
    if before is None or obs.get("type") not in ("discard", "meld", "concealed_kong", "win_shown"):
        return None
    try:
        return camera.translate(before, obs, ev)
    except (Reject, ValueError, KeyError, TypeError):
        return None
