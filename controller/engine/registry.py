"""Find the :class:`~controller.engine.ruleset.Ruleset` for a profile name.

``mcr-*`` are built in.  ``sichuan*`` and ``riichi*`` come from the Sichuan and riichi packages, imported lazily:
``controller.sichuan.ruleset.make_ruleset(name) -> Ruleset`` and ``controller.riichi.ruleset.make_ruleset(name)``.
Rulesets are cached per (name, seat_rotation): they are immutable.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import cast

from controller.engine.mcr_ruleset import MCR_PROFILES, McrRuleset, McrVenue
from controller.engine.ruleset import Ruleset


class UnknownRules(ValueError):  # noqa: N818 - reads as the verdict
    """No ruleset answers to this name."""


@lru_cache(maxsize=32)
def ruleset_for(name: str, seat_rotation: str = "A") -> Ruleset:
    """The ruleset for ``name`` (e.g. ``mcr-2006``); raises :class:`UnknownRules`."""
    if name in MCR_PROFILES:
        return McrRuleset(name, seat_rotation)
    base = name.partition(":")[0]
    if base in MCR_PROFILES:  # venue options, e.g. mcr-2006:overrun_penalty=true (controller/engine/infractions.py)
        from controller.engine.profile_options import profile_options

        try:
            (venue,) = profile_options(name, base, McrVenue)
        except ValueError as exc:
            raise UnknownRules(str(exc)) from exc
        return McrRuleset(base, seat_rotation, McrVenue(**venue))
    for family in ("sichuan", "riichi"):
        if name.startswith(family):
            try:
                module = importlib.import_module(f"controller.{family}.ruleset")
            except ImportError as exc:
                raise UnknownRules(f"{name}: the {family} ruleset is not installed ({exc})") from exc
            return cast(Ruleset, module.make_ruleset(name))
    raise UnknownRules(f"unknown rules {name!r}; known: {', '.join(MCR_PROFILES)}, sichuan-*, riichi-*")
