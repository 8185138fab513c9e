"""Rules profile names with options: ``<profile>[:key=value,key=value...]``.

E.g. ``riichi-hkma-2025:division=B,uma_mode=l453`` or ``sichuan-sbr-2025:cap_fan=4,hands=16``.  The rulesets'
``make_ruleset(name)`` use :func:`profile_options` to read them; each value is converted to the type of the
option's default (bool: ``true``/``false``).  Pure; any thread.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def split_profile(name: str, base: str) -> dict[str, str]:
    """The ``key=value`` options after ``base:``; raises ValueError for another profile or a bad option list."""
    head, _, tail = name.partition(":")
    if head != base:
        raise ValueError(f"unknown profile {head!r}; expected {base}")
    out: dict[str, str] = {}
    for part in filter(None, tail.split(",")):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"profile option {part!r} is not key=value")
        out[key.strip()] = value.strip()
    return out


def _convert(key: str, raw: str, default: Any) -> Any:
    if isinstance(default, bool):
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"{key} must be true or false, got {raw!r}")
        return raw.lower() == "true"
    try:
        if default is None:  # optional numbers (e.g. a session time limit in seconds)
            return float(raw)
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError as exc:
        raise ValueError(f"{key} must be a number, got {raw!r}") from exc
    return raw


def profile_options(name: str, base: str, *targets: type[Any]) -> list[dict[str, Any]]:
    """Split ``name``'s options over the dataclasses ``targets`` (by field name, typed by the defaults).

    Returns one keyword dict per target; raises ValueError for an unknown option or a bad value."""
    raw = split_profile(name, base)
    out: list[dict[str, Any]] = []
    for cls in targets:
        fields = {f.name: f for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key in list(raw):
            f = fields.get(key)
            if f is None or not f.init:
                continue
            default = f.default if f.default is not dataclasses.MISSING else None
            kwargs[key] = _convert(key, raw.pop(key), default)
        out.append(kwargs)
    if raw:
        raise ValueError(f"unknown option(s) for {base}: {', '.join(sorted(raw))}")
    return out


__all__ = ["profile_options", "split_profile"]
