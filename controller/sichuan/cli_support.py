"""JSON-lines contract of ``mjtable score|waits --rules sichuan-sbr-2025``.

``score_line`` input: ``{"hand": "[555p]1122334m66p", "win": "4m", "self_drawn": false, "void_suit": "s",
"kong_replacement": false, "after_kong": false, "robbing_kong": false, "last_tile": false, "cap_fan": 3}``
(``hand`` EXCLUDES the winning tile; ``void_suit`` is ``m``/``p``/``s`` or absent).  Output:
``{"ok": true, "rules": ..., "fans": [{"name", "zh", "key", "fan", "count", "cite"}], "fan": raw total,
"capped_fan": n, "points": base, "payments": {"discarder": base} | {"each": base + 1}}`` or
``{"ok": false, "error": "..."}``.  ``waits_line`` input ``{"hand": 13 tiles, "void_suit": ...}``; output
``{"ok": true, "tenpai": bool, "waits": [{"tile", "fan", "points"}], "max_fan": n|null}``.
Called from the CLI's main thread; pure.
"""

from __future__ import annotations

from typing import Any

from mjtable.tiles import SICHUAN_TILESET, NotationError, check_hand, parse_hand, tile

from .fans import RULES_NAME, NotWinningHand, SichuanOptions, WinSituation, score_win, winning_tiles

_SCORE_KEYS = {"hand", "win", "self_drawn", "void_suit", "kong_replacement", "after_kong", "robbing_kong",
               "last_tile", "cap_fan", "rules", "id"}
_WAITS_KEYS = {"hand", "void_suit", "cap_fan", "rules", "id"}


class InputError(ValueError):
    """A JSON line with a missing, unknown or ill-typed field."""


def _flag(obj: dict[str, Any], key: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise InputError(f"{key!r} must be true or false, got {v!r}")
    return v


def _void(obj: dict[str, Any]) -> str | None:
    v = obj.get("void_suit")
    if v is None:
        return None
    if v not in ("m", "p", "s"):
        raise InputError(f"'void_suit' must be 'm', 'p' or 's' (定缺, L342), got {v!r}")
    return str(v)


def _options(obj: dict[str, Any]) -> SichuanOptions:
    cap = obj.get("cap_fan", 3)
    if not isinstance(cap, int) or isinstance(cap, bool) or not 0 <= cap <= 20:
        raise InputError(f"'cap_fan' must be an integer 0..20 (L516 default 3), got {cap!r}")
    return SichuanOptions(cap_fan=cap)


def _check_keys(obj: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise InputError(f"unknown field(s) {unknown} for {RULES_NAME}")


def _echo(obj: dict[str, Any]) -> dict[str, Any]:
    return {"id": obj["id"]} if "id" in obj else {}


def score_line(obj: dict[str, Any]) -> dict[str, Any]:
    """Score one Sichuan win described by ``obj``; never raises on bad input (returns ``ok: false``)."""
    try:
        _check_keys(obj, _SCORE_KEYS)
        if not isinstance(obj.get("hand"), str) or not isinstance(obj.get("win"), str):
            raise InputError("'hand' and 'win' are required strings, e.g. {\"hand\": \"1112345678999m\", "
                             "\"win\": \"5m\"}")
        hand = parse_hand(obj["hand"], expect_size=13)
        win = tile(obj["win"])
        check_hand(hand, SICHUAN_TILESET, extra=[win])
        sit = WinSituation(
            self_drawn=_flag(obj, "self_drawn") or _flag(obj, "kong_replacement"),
            kong_replacement=_flag(obj, "kong_replacement"),
            after_kong=_flag(obj, "after_kong"),
            robbing_kong=_flag(obj, "robbing_kong"),
            last_tile=_flag(obj, "last_tile"),
        )
        if sit.self_drawn and (sit.after_kong or sit.robbing_kong):
            raise InputError("after_kong / robbing_kong are wins on another player's tile, not self-draws")
        options = _options(obj)
        result = score_win(hand, win, sit, void_suit=_void(obj), options=options)
    except (InputError, NotationError, NotWinningHand, ValueError) as exc:
        return {**_echo(obj), "ok": False, "rules": RULES_NAME, "error": str(exc)}
    payments = {"each": result.base + 1} if sit.self_drawn else {"discarder": result.base}
    return {**_echo(obj), "ok": True, "rules": RULES_NAME, "hand": hand.code, "win": win.code,
            **result.to_json(), "payments": payments}


def waits_line(obj: dict[str, Any]) -> dict[str, Any]:
    """List the tiles that complete a 13-tile Sichuan hand, with fan and capped points on a discard win."""
    try:
        _check_keys(obj, _WAITS_KEYS)
        if not isinstance(obj.get("hand"), str):
            raise InputError("'hand' is a required string of 13 tiles (kongs count 3)")
        hand = parse_hand(obj["hand"], expect_size=13)
        check_hand(hand, SICHUAN_TILESET)
        void = _void(obj)
        options = _options(obj)
        waits: list[dict[str, Any]] = []
        for t in winning_tiles(hand, void):
            s = score_win(hand, t, WinSituation(self_drawn=False), void_suit=void, options=options)
            waits.append({"tile": t.code, "fan": s.fan, "points": s.base})
    except (InputError, NotationError, NotWinningHand, ValueError) as exc:
        return {**_echo(obj), "ok": False, "rules": RULES_NAME, "error": str(exc)}
    return {**_echo(obj), "ok": True, "rules": RULES_NAME, "hand": hand.code, "tenpai": bool(waits),
            "waits": waits, "max_fan": max((int(w["fan"]) for w in waits), default=None)}
