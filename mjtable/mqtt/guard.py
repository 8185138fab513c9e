"""The hidden-information guard: a public payload never carries a concealed tile.

:func:`check_public` walks a JSON document about to go to a public topic (public state, timers, status,
events, the spectator mirror) and raises :class:`HiddenInformationError` if it finds

* a key that only referee documents have (``concealed``, ``waits``, ``wall``, ``dead_wall``, ``drawn``, a
  referee's own words: an infraction's ``referee_note``, a seat's ``dead_reason``),
* a ``referee_state`` schema tag,
* a concealed kong whose ``tiles`` are not ``null`` (it lies face down) while the hand is running -- once a
  state document shows the hand's ``result``, the hands are shown and so are the kongs --, or
* an event whose data names the tile a player drew (``type`` ``draw`` with a non-flower ``tile``);
* rules extras that are referee-only: Sichuan ``void_tiles`` (the face-down 定缺 tile) or ``voids`` before
  ``revealed``; riichi ``furiten``/``tenpai`` (they reveal hands) or ``ura_indicators`` before the result;
* a camera ``observation``, a rejection's ``detail``, an ``alerts`` entry with ``data``, or a tile code (``5p``,
  ``123m``) in the words of an alert, infraction or rejection: the engine's rejection and camera-mismatch messages
  can name a concealed tile (docs/engine.md), so their public form is redacted first
  (:func:`redact_alert`, :func:`redact_infraction`, :func:`redact_public_state`).

The publisher calls it on every public message; it is pure and thread-safe.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

FORBIDDEN_KEYS = frozenset({"concealed", "waits", "wall", "dead_wall", "drawn", "hand_tiles", "void_tiles", "furiten",
                            "tenpai", "observation", "detail", "referee_note", "dead_reason"})
#: a tile or a run of tiles in words: ``5p``, ``0m``, ``123m``, ``7z``, ``[555p]``, and codes written together: a
#: compact hand ``123m456p789s1122z``, ``5p5p`` (also ``5s`` meant as seconds: conservative, such words are
#: redacted too); a code glued to a letter on either side is a word, not a tile (``5pm``, ``L45``)
TILE_WORD = re.compile(r"(?<![A-Za-z0-9])(?:[0-9]+[mpsz])+(?![A-Za-z0-9])")
#: event types whose data describe an alert, an infraction or a rejection (public form: kind and seat only)
REPORT_EVENTS = frozenset({"alert", "infraction", "rejected", "referee"})
ALERT_PUBLIC_KEYS = ("id", "kind", "seat", "open", "at_s")
INFRACTION_PUBLIC_KEYS = ("id", "hand_no", "seat", "player", "player_index", "kind", "points", "status", "at_s")


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
        if doc.get("type") in REPORT_EVENTS and isinstance(doc.get("data"), dict):
            _check_words(doc["data"], f"{path}.data")
        for listed in ("alerts", "infractions"):
            for i, entry in enumerate(doc.get(listed) or []):
                if isinstance(entry, dict):
                    if listed == "alerts" and "data" in entry:
                        raise HiddenInformationError(f"{path}.alerts[{i}].data", "an alert's referee-only data")
                    _check_words(entry, f"{path}.{listed}[{i}]")
        for key, value in doc.items():
            if key in FORBIDDEN_KEYS:
                raise HiddenInformationError(f"{path}.{key}", f"referee-only key {key!r}")
            check_public(value, f"{path}.{key}", hand_over=hand_over)
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            check_public(value, f"{path}[{i}]", hand_over=hand_over)


def _check_words(entry: dict[str, Any], path: str) -> None:
    for key in ("message", "reason"):
        text = entry.get(key)
        if isinstance(text, str) and TILE_WORD.search(text):
            raise HiddenInformationError(f"{path}.{key}", "a tile named in the words of a report")


def _seat_of(report: dict[str, Any]) -> int | None:
    seat = report.get("seat")
    if isinstance(seat, int):
        return seat
    data = report.get("data")
    if isinstance(data, dict):
        for source in (data, data.get("observation")):
            if isinstance(source, dict) and isinstance(source.get("seat"), int):
                return int(source["seat"])
    return None


def redact_alert(alert: dict[str, Any], seated: Sequence[str] | None = None) -> dict[str, Any]:
    """The public form of an engine alert (``AlertRec.to_json()`` or the ``alert`` effect): id, kind, seat (when
    the alert or its camera observation names one), open, at_s and a generic message naming the player at that
    seat (``seated``: the players per seat of the public state; else the seat) -- never its data or words."""
    out = {k: alert[k] for k in ALERT_PUBLIC_KEYS if k in alert}
    seat = _seat_of(alert)
    if seat is not None:
        out["seat"] = seat
    kind = str(alert.get("kind", "alert"))
    out["message"] = kind.replace("_", " ") + (f" ({_named(alert, seat, seated)})" if seat is not None else "")
    return out


def _named(alert: dict[str, Any], seat: int, seated: Sequence[str] | None) -> str:
    """Who a public alert is about: the player the engine named when it was raised (``data.player``; seats rotate,
    so the seating of a later state may put somebody else there), else the player at ``seat`` now, else the seat.
    A name that reads like a tile code is not used (the guard would refuse the whole state for it)."""
    data = alert.get("data")
    names = [data.get("player") if isinstance(data, dict) else None,
             seated[seat] if seated is not None and 0 <= seat < len(seated) else None]
    return next((n for n in names if isinstance(n, str) and n and not TILE_WORD.search(n)), f"seat {seat}")


def seated_players(public: dict[str, Any] | None) -> list[str] | None:
    """The players per seat of a public state (its ``seats[].player``), or None when it names none."""
    seats = (public or {}).get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, dict) and isinstance(s.get("player"), str) for s in seats):
        return None
    return [str(s["player"]) for s in seats]


def redact_infraction(inf: dict[str, Any]) -> dict[str, Any]:
    """The public form of an infraction: who, what kind, how many points, status; its words only if they name no
    tile (a false win's reason can quote the hand)."""
    out = {k: inf[k] for k in INFRACTION_PUBLIC_KEYS if k in inf}
    message = inf.get("message")
    if isinstance(message, str):
        out["message"] = message if not TILE_WORD.search(message) else str(inf.get("kind", "infraction")).replace(
            "_", " ")
    return out


def redact_rejection(rejected: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    """The public form of a ``rejected`` effect: the stable reason code (and seat), never the message."""
    out: dict[str, Any] = {"event_id": rejected.get("event_id"), "reason": str(rejected.get("reason", "rejected"))}
    if seat is not None:
        out["seat"] = seat
    return out


def redact_public_state(public: dict[str, Any], referee: dict[str, Any] | None = None) -> dict[str, Any]:
    """A copy of a public state whose ``alerts`` and ``infractions`` are in their public (redacted) form; the
    referee state of the same step, when given, supplies each alert's seat (from its referee-only data)."""
    out = copy.copy(public)
    full = {a.get("id"): a for a in (referee or {}).get("alerts", []) if isinstance(a, dict)}
    if isinstance(public.get("alerts"), list):
        seated = seated_players(public)
        out["alerts"] = [redact_alert({**full.get(a.get("id"), {}), **a}, seated) if isinstance(a, dict) else a
                         for a in public["alerts"]]
    if isinstance(public.get("infractions"), list):
        out["infractions"] = [redact_infraction(i) if isinstance(i, dict) else i for i in public["infractions"]]
    return out


def concealed_tiles_of(referee_state: dict[str, Any]) -> list[list[str]]:
    """Per seat, the concealed tiles a referee state knows (empty list when unknown)."""
    out: list[list[str]] = []
    for seat in referee_state.get("seats", []):
        tiles = seat.get("concealed")
        out.append(list(tiles) if isinstance(tiles, list) else [])
    return out
