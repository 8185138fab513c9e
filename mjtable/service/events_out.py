"""Which engine events and effects go on the public MQTT event stream, and in what shape.

Only what every player at the table can see: discards, claims, flowers, kongs (a concealed kong without its face),
buttons, dice, faults and referee actions.  Camera observations (``hand_seen`` is referee-only), the wall's faces
(``table_built``) and referee-only alert data never appear; the MQTT guard (``mjtable.mqtt.guard``) checks every payload
again before it is published.  Hand results and the game end are derived by ``TableChannel`` from the views.  Pure.
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
from controller.engine.state import GameState


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


def _camera_action(ev: CameraObserved, before: GameState | None) -> Event | None:
    obs = ev.observation
    if before is None or obs.get("type") not in ("discard", "meld", "concealed_kong", "win_shown"):
        return None
    try:
        return camera.translate(before, obs, ev)
    except (Reject, ValueError, KeyError, TypeError):
        return None
