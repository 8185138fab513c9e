"""Versioned JSON Schemas (draft 2020-12) for every MQTT payload and the game record.

``load(name)`` returns the parsed schema of ``<name>.json``; ``validate(name, doc)`` raises
:class:`PayloadError` with a readable path and reason.  Validators are cached; thread-safe.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

#: schema file stem -> the ``schema`` value its documents carry
NAMES = {
    "public_state": "mjtable.public_state/1",
    "referee_state": "mjtable.referee_state/1",
    "event": "mjtable.event/1",
    "timers": "mjtable.timers/1",
    "status": "mjtable.status/1",
    "command": "mjtable.command/1",
    "command_result": "mjtable.command_result/1",
    "game_record": "mjtable.game_record/1",
    "engine_record": "mjtable.engine_record/1",
}


class PayloadError(ValueError):
    """A document that does not match its schema (or is not JSON at all)."""


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed schema ``mjtable/schemas/<name>.json``; raises KeyError for an unknown name."""
    if name not in NAMES:
        raise KeyError(f"unknown schema {name!r}; known: {sorted(NAMES)}")
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = load(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator: jsonschema.protocols.Validator = cls(schema)
    return validator


def _branches(name: str) -> dict[str, jsonschema.protocols.Validator]:
    """For a root ``oneOf`` keyed by a ``command`` constant: command -> validator of that branch."""
    schema = load(name)
    cls = jsonschema.validators.validator_for(schema)
    out: dict[str, jsonschema.protocols.Validator] = {}
    for branch in schema.get("oneOf", []):
        const = branch.get("properties", {}).get("command", {}).get("const")
        if isinstance(const, str):
            out[const] = cls(branch)
    return out


_BRANCHES: dict[str, dict[str, jsonschema.protocols.Validator]] = {}


def validate(name: str, doc: Any) -> None:
    """Raise :class:`PayloadError` unless ``doc`` matches schema ``name`` (the most relevant error is named)."""
    validator = _validator(name)
    if "oneOf" in load(name) and isinstance(doc, dict) and "command" in doc:
        branches = _BRANCHES.setdefault(name, _branches(name))
        if doc["command"] not in branches:
            raise PayloadError(f"{NAMES[name]}: unknown command {doc['command']!r}; known: {sorted(branches)}")
        validator = branches[doc["command"]]
    errors = list(validator.iter_errors(doc))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        where = "/".join(str(p) for p in best.absolute_path) or "(root)"
        raise PayloadError(f"{NAMES[name]}: at {where}: {best.message}")


def is_valid(name: str, doc: Any) -> bool:
    return _validator(name).is_valid(doc)
