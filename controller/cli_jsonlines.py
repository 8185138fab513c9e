"""The JSON-lines contract of ``mjtable score`` / ``mjtable waits`` for the MCR profiles, and the one place that maps a
``--rules`` name to its line handler (MCR here, Sichuan and riichi in ``controller.sichuan`` / ``controller.riichi``).

In (score): ``{"hand": "[123m]{5555p}1122s", "win": "3s", "self_drawn": false, "seat_wind": "E",
"round_wind": "S", "flowers": 1, "last_of_kind": false, "kong": false, "last_tile": false}``; waits takes the
same object without ``win``.  Out: ``{"ok": true, "fans": [...], "total": 21, "meets_minimum": true}`` /
``{"ok": true, "waits": [{"tile": "3s", "total": 12, "meets_minimum": true}, ...]}`` or
``{"ok": false, "error": "..."}``.  An ``id`` in the input is echoed.  Handlers never raise on bad input.
Called from the CLI's main thread.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable
from typing import Any, TextIO, cast

from controller.mcr.api import score_hand, waits_detail
from controller.mcr.model import RULE_PROFILES, NotWinningHand, ScoreResult, WinContext
from controller.mcr.profiles import RuleProfile, profile_with_options
from mjtable.tiles import WIND_CODES, NotationError, Tile, parse_hand, tile

LineHandler = Callable[[dict[str, Any]], dict[str, Any]]

#: Other rule families: module providing ``score_line(obj) -> dict`` and ``waits_line(obj) -> dict``.
OTHER_RULES = {
    "sichuan-sbr-2025": "controller.sichuan.cli_support",
    "riichi-hkma-2025": "controller.riichi.cli_support",
}
ALL_RULES = (*RULE_PROFILES, *OTHER_RULES)

_BOOL_KEYS = ("self_drawn", "last_of_kind", "kong", "last_tile", "heavenly", "earthly", "concealed_ready")
_KNOWN = {"id", "hand", "win", "seat_wind", "round_wind", "flowers", *_BOOL_KEYS}


class InputError(ValueError):
    """A field of the input object is missing or has the wrong type."""


def handler_for(rules: str, command: str, *, explain: bool = False,
                options: dict[str, str] | None = None) -> LineHandler:
    """The line handler for ``rules`` and ``command`` (``score`` or ``waits``).

    MCR profiles are handled here, with ``options`` (interpretation switches, see
    :data:`controller.mcr.profiles.OPTIONS`; ValueError for a bad one, raised now rather than per line);
    other families are imported lazily from :data:`OTHER_RULES`.  If that module is missing, every line gets
    ``{"ok": false, "error": ...}``.
    """
    base, sep, _ = rules.partition(":")
    if sep and base in OTHER_RULES:  # a profile with options, as the config accepts: riichi-hkma-2025:division=B
        return _with_profile_defaults(rules, base, handler_for(base, command, explain=explain, options=options))
    if rules in RULE_PROFILES:
        prof: str | RuleProfile = profile_with_options(rules, options) if options else rules
        if command == "score":
            return lambda obj: score_line(obj, rules=prof, explain=explain)
        return lambda obj: waits_line(obj, rules=prof)
    if options:
        raise ValueError(f"--option applies to the MCR rules only, not {rules}")
    module_name = OTHER_RULES.get(rules)
    if module_name is None:
        msg = f"unknown rules {rules!r}: expected one of {', '.join(ALL_RULES)}"
        return lambda obj: {"ok": False, "error": msg}
    try:
        module = importlib.import_module(module_name)
        fn: LineHandler = getattr(module, f"{command}_line")
    except (ImportError, AttributeError) as exc:
        msg = f"rules {rules!r} are not available in this build ({module_name}.{command}_line: {exc})"
        return lambda obj: {"ok": False, "error": msg}
    return fn


def _with_profile_defaults(rules: str, base: str, inner: LineHandler) -> LineHandler:
    """Accept the profile options the table config accepts (checked now: ValueError for a bad one); those that
    are also per-line fields (riichi ``kiriage_mangan``/``composite_yakuman``, Sichuan ``cap_fan``) become the
    lines' defaults, the others (session settings such as ``division``) do not change how one hand scores."""
    from controller.engine.profile_options import split_profile
    from controller.engine.registry import ruleset_for

    ruleset_for(rules)  # unknown profile, option or value: ValueError
    defaults: dict[str, Any] = {}
    for key, raw in split_profile(rules, base).items():
        if key in ("kiriage_mangan", "composite_yakuman"):
            defaults[key] = raw.strip().lower() in ("1", "true", "yes", "on")
        elif key == "cap_fan":
            defaults[key] = int(raw)
    return lambda obj: inner({**defaults, **obj})


def parse_options(items: Iterable[str] | None) -> dict[str, str]:
    """``["name=value", ...]`` from ``--option`` into a dict; ValueError for an item without ``=``."""
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--option wants name=value, got {item!r}")
        out[name.strip()] = value.strip()
    return out


def handle_text_line(line: str, handler: LineHandler) -> dict[str, Any]:
    """Parse one text line as a JSON object and run ``handler`` on it; never raises."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"ok": False, "error": f"bad JSON at column {exc.colno}: {exc.msg}"}
    if not isinstance(obj, dict):
        return {"ok": False, "error": "each line must be a JSON object"}
    try:
        out = handler(obj)
    except Exception as exc:
        out = {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
    if "id" in obj and "id" not in out:
        out = {"id": obj["id"], **out}
    return out


def _bool(obj: dict[str, Any], key: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise InputError(f"{key!r} must be true or false, got {v!r}")
    return v


def _wind(obj: dict[str, Any], key: str) -> Tile:
    v = obj.get(key, "E")
    if isinstance(v, str) and v.upper() in WIND_CODES:
        return WIND_CODES[v.upper()]
    if isinstance(v, str) and v in ("1z", "2z", "3z", "4z"):
        return tile(v)
    raise InputError(f"{key!r} must be one of E S W N, got {v!r}")


def _common(obj: dict[str, Any]) -> tuple[Any, Tile, Tile, int]:
    unknown = sorted(set(obj) - _KNOWN)
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(unknown)}")
    text = obj.get("hand")
    if text is None:
        raise InputError("'hand' is required: a string such as \"[123m]{5555p}1122s\"")
    if not isinstance(text, str):
        raise InputError(f"'hand' must be a string such as \"[123m]{{5555p}}1122s\", "
                         f"not {type(text).__name__} {text!r}")
    try:
        hand = parse_hand(text)
    except NotationError as exc:
        raise InputError(f"hand: {exc}") from None
    flowers = obj.get("flowers", 0)
    if not isinstance(flowers, int) or isinstance(flowers, bool) or not 0 <= flowers <= 8:
        raise InputError(f"'flowers' must be an integer 0..8, got {flowers!r}")
    return hand, _wind(obj, "seat_wind"), _wind(obj, "round_wind"), flowers


def result_json(res: ScoreResult, *, explain: bool) -> dict[str, Any]:
    """The ``ok`` output object for a scored hand."""
    fans = []
    for f in res.fans:
        d: dict[str, Any] = {"name": f.name, "points": f.points, "count": f.count}
        if explain:
            d["explain"] = f.explain
        fans.append(d)
    return {"ok": True, "fans": fans, "total": res.total, "meets_minimum": res.meets_minimum}


def score_line(obj: dict[str, Any], *, rules: str | RuleProfile = "mcr-2006", explain: bool = False) -> dict[str, Any]:
    """Score one MCR win described by ``obj`` (see module doc)."""
    try:
        hand, seat, rnd, flowers = _common(obj)
        win_text = obj.get("win")
        if not isinstance(win_text, str):
            raise InputError("'win' is required: the winning tile, e.g. \"3s\"")
        try:
            win = tile(win_text)
        except NotationError as exc:
            raise InputError(f"win: {exc}") from None
        ctx = WinContext(win, _bool(obj, "self_drawn"), seat, rnd, flowers, last_of_kind=_bool(obj, "last_of_kind"),
                         kong=_bool(obj, "kong"), last_tile=_bool(obj, "last_tile"), heavenly=_bool(obj, "heavenly"),
                         earthly=_bool(obj, "earthly"), concealed_ready=_bool(obj, "concealed_ready"))
        return result_json(score_hand(hand, ctx, rules, explain=explain), explain=explain)
    except (InputError, NotWinningHand, ValueError) as exc:
        return {"ok": False, "error": str(exc)}


def waits_line(obj: dict[str, Any], *, rules: str | RuleProfile = "mcr-2006") -> dict[str, Any]:
    """Every tile completing the 13-tile MCR hand in ``obj``, with its total on a discard win."""
    try:
        if "win" in obj:
            raise InputError("'win' is not used by waits: give the 13-tile hand only")
        hand, seat, rnd, flowers = _common(obj)
        waits = [{"tile": t.code, "total": r.total, "meets_minimum": r.meets_minimum}
                 for t, r in waits_detail(hand, seat_wind=seat, round_wind=rnd, flowers=flowers, rules=rules)]
        return {"ok": True, "waits": waits}
    except (InputError, NotWinningHand, ValueError) as exc:
        return {"ok": False, "error": str(exc)}


def run_lines(lines: Iterable[str] | TextIO, out: TextIO, handler: LineHandler) -> int:
    """Answer every non-blank line of ``lines`` with one JSON line on ``out`` (flushed); returns the number of
    lines that failed (``ok: false``).  A stream is read with the length cap of :mod:`controller.lines_io`
    (a line over it gets ``{"ok": false, "error": "line too long ..."}`` and is not echoed)."""
    from controller.lines_io import MAX_LINE_CHARS, bounded_lines

    failed = 0
    streamed = hasattr(lines, "readline")
    source: Iterable[tuple[str | None, int]] = (
        bounded_lines(cast(TextIO, lines)) if streamed else ((x, len(x)) for x in lines))
    for line, length in source:
        if line is None or length > MAX_LINE_CHARS:
            failed += 1
            err = {"ok": False, "error": f"line too long: {length} characters, at most {MAX_LINE_CHARS}"}
            out.write(json.dumps(err) + "\n")
            out.flush()
            continue
        if not line.strip():
            continue
        res = handle_text_line(line.rstrip("\r\n"), handler)
        if not res.get("ok"):
            failed += 1
        out.write(json.dumps(res, ensure_ascii=False, separators=(",", ":")) + "\n")
        out.flush()
    return failed
