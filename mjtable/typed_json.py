"""One ``to_json`` for the project's typed records: the engine's input events (``controller.engine.events``), its
effects (``controller.engine.effects``) and the MCU bridge's events (``firmware_bridge.events``).

Each is a frozen dataclass whose JSON form is ``{"type": <tag>, <field>: <value>, ...}`` in field order.  Values
become plain JSON: tuples and lists -> lists, dict keys -> strings (recursively), enums -> their value when it is a
string (``StrEnum``, as ``json.dumps`` writes it) else their lower-case name (the bridge's ``IntEnum`` codes:
``FaultCode.JAM`` -> ``"jam"``).  Pure; thread-safe.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any


def json_value(value: Any) -> Any:
    """``value`` as plain JSON data (see the module docstring)."""
    if isinstance(value, enum.Enum):
        return value.value if isinstance(value, str) else value.name.lower()
    if isinstance(value, (tuple, list)):
        return [json_value(x) for x in value]
    if isinstance(value, dict):
        return {str(k): json_value(x) for k, x in value.items()}
    return value


def typed_json(record: Any, tag: str) -> dict[str, Any]:
    """``{"type": tag, **fields}`` of a dataclass instance, every value through :func:`json_value`."""
    out: dict[str, Any] = {"type": tag}
    for f in dataclasses.fields(record):
        out[f.name] = json_value(getattr(record, f.name))
    return out


__all__ = ["json_value", "typed_json"]
