"""Vision events: the dicts the pipeline hands to the engine (``CameraObserved``) and the referee.

Shape (the contract between the table pipeline and the engine)::

    {"type": "discard"|"meld"|"concealed_kong"|"win_shown"|"uncertain"|"hand_seen"|"dora_indicator",
     "seat": int, "tiles": [codes], "claimed_from": int|None, "position": int,
     "confidence": float, "frame_id": int}

``position``: pond slot (row-major, six per row, first row nearest the centre) for a discard; meld index
counted from the owner's right-hand end (0 = first meld exposed) for meld / concealed_kong; 0 for
win_shown and hand_seen; for dora_indicator (riichi, the dead wall's turned-up tops) 0 = the dora indicator,
k = the k-th kan-dora indicator, and ``seat`` the seat whose wall row holds the dead wall.  An ``uncertain``
event carries one more key, ``"about"``: the type it would have had, so the referee knows what to confirm.
Concealed-kong tiles are ``back`` when all four lie face down.
The camera never changes game state: the engine checks every event against what is legal.
"""

from __future__ import annotations

from typing import Any, Literal

EventType = Literal["discard", "meld", "concealed_kong", "win_shown", "uncertain", "hand_seen", "dora_indicator"]
EVENT_TYPES: tuple[str, ...] = ("discard", "meld", "concealed_kong", "win_shown", "uncertain", "hand_seen",
                                "dora_indicator")

VisionEvent = dict[str, Any]


def make_event(
    type_: str,
    *,
    seat: int,
    tiles: list[str],
    claimed_from: int | None,
    position: int,
    confidence: float,
    frame_id: int,
    threshold: float = 0.0,
) -> VisionEvent:
    """Build an event; below ``threshold`` confidence it becomes ``uncertain`` with ``about`` = ``type_``."""
    if type_ not in EVENT_TYPES:
        raise ValueError(f"unknown vision event type {type_!r}")
    event: VisionEvent = {
        "type": type_,
        "seat": seat,
        "tiles": list(tiles),
        "claimed_from": claimed_from,
        "position": position,
        "confidence": round(float(confidence), 4),
        "frame_id": frame_id,
    }
    if type_ != "uncertain" and confidence < threshold:
        event["type"] = "uncertain"
        event["about"] = type_
    return event
