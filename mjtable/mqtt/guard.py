"""The hidden-information guard: a public payload never carries a concealed tile.

:func:`check_public` walks a JSON document about to go to a public topic (public state, timers, status,
events, the spectator mirror) and raises :class:`HiddenInformationError` if it finds

* a key that only referee documents have (``concealed``, ``waits``, ``wall``, ``dead_wall``, ``drawn``),
* a ``referee_state`` schema tag,
* a concealed kong whose ``tiles`` are not ``null`` (it lies face down) while the hand is running -- once a
  state document shows the hand's ``result``, the hands are shown and so are the kongs --, or
* an event whose data names the tile a player drew (``type`` ``draw`` with a non-flower ``tile``);
* rules extras that are referee-only: Sichuan ``void_tiles`` (the face-down 定缺 tile) or ``voids`` before
  ``revealed``; riichi ``furiten``/``tenpai`` (they reveal hands) or ``ura_indicators`` before the result.

The publisher calls it on every public message; it is pure and thread-safe.
"""

from __future__ import annotations

from typing import Any

FORBIDDEN_KEYS = frozenset({"concealed", "waits", "wall", "dead_wall", "drawn", "hand_tiles", "void_tiles", "furiten",
                            "tenpai"})


class HiddenInformationError(ValueError):
    """A public payload would reveal hidden information; it was not published."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"refusing public payload: {reason} at {path}")


def check_public(doc: Any, path: str = "$", *, hand_over: bool | None = None) -> None:
    """Raise :class:`HiddenInformationError` if ``doc`` (parsed JSON) holds hidden information."""
    if hand_over is None:
        hand_over = isinstance(doc, dict) and "seats" in doc and doc.get("result") is not None
    if isinstance(doc, dict):
        schema = doc.get("schema")
        if isinstance(schema, str) and schema.startswith("mjtable.referee_state"):
            raise HiddenInformationError(path, "a referee state document")
        if doc.get("type") == "concealed_kong" and doc.get("tiles") is not None and not hand_over:
            raise HiddenInformationError(path, "the tiles of a face-down concealed kong")
        sichuan = doc.get("sichuan")
        if isinstance(sichuan, dict) and not sichuan.get("revealed") and any(
                v is not None for v in sichuan.get("voids") or []):
            raise HiddenInformationError(f"{path}.sichuan.voids", "定缺 voids before the reveal")
        riichi = doc.get("riichi")
        if isinstance(riichi, dict) and riichi.get("ura_indicators") and not hand_over:
            raise HiddenInformationError(f"{path}.riichi.ura_indicators", "ura dora before the hand is over")
        if doc.get("type") == "draw" and isinstance(doc.get("data"), dict):
            drawn = doc["data"].get("tile")
            if isinstance(drawn, str) and not drawn.endswith("f"):
                raise HiddenInformationError(f"{path}.data.tile", "the tile a player drew")
        for key, value in doc.items():
            if key in FORBIDDEN_KEYS:
                raise HiddenInformationError(f"{path}.{key}", f"referee-only key {key!r}")
            check_public(value, f"{path}.{key}", hand_over=hand_over)
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            check_public(value, f"{path}[{i}]", hand_over=hand_over)


def concealed_tiles_of(referee_state: dict[str, Any]) -> list[list[str]]:
    """Per seat, the concealed tiles a referee state knows (empty list when unknown)."""
    out: list[list[str]] = []
    for seat in referee_state.get("seats", []):
        tiles = seat.get("concealed")
        out.append(list(tiles) if isinstance(tiles, list) else [])
    return out
