"""Import-layer check: dependencies run one way, rulebook knowledge -> engine core -> extensions -> bots/shell/service.

    .venv/bin/python -m tests.tools.import_layers        # one JSON line; exit 1 on a violation

Every ``import`` / ``from ... import`` of the project's packages (``controller``, ``mjtable``, ``firmware_bridge``,
``vision``) is read from the source with :mod:`ast` -- module level, inside functions and under ``TYPE_CHECKING``
alike: a lazy import is still a dependency.  ``from pkg import name`` counts as an import of ``pkg.name`` when
that is a module.  A module may import its own layer and lower ones, never a higher one; and the ``controller``
modules may not import each other in a circle, even within one layer.  A package's ``__init__`` is its facade and
may gather its own submodules.  Layers (``docs/architecture.md``, "Layers of the rules engine", gives the reasons):

0. ``foundation``: ``mjtable.tiles`` (tile notation, hands, melds), ``mjtable.typed_json`` (the one ``to_json`` of
   events and effects).
1. ``contract``: what a rulebook fills in for the engine -- ``controller.engine.ruleset`` (the ``Ruleset``
   protocol, ``WinSituation``, ``WinCheck``, ``ClaimKind``, timer profiles), ``controller.engine.profile_options``,
   ``controller.engine.errors``.
2. ``rulebook``: ``controller.mcr``, ``controller.sichuan``, ``controller.riichi`` (shapes, fans, scoring,
   settlement, penalties, options, and each rulebook's ``Ruleset``).
3. ``core``: the rest of ``controller.engine`` (state, events, effects, ``step`` and the procedure modules, the
   extension hook protocol ``ext.py``).
4. ``extensions``: ``controller.engine.ext_sichuan*``, ``controller.engine.ext_riichi*`` (the rules the
   ``Ruleset`` protocol cannot express, run through the core's hooks; found by name in ``ext.EXTENSIONS``).
5. ``app``: bots, simulator, views, journal, shell and CLIs (``controller.bots``, ``controller.engine.simulate``,
   ``controller.views``, ``controller.journal``, ``controller.shell``, ``controller.cli_*``) and everything else
   of ``mjtable``, ``firmware_bridge`` and ``vision`` (service, MQTT, recorder, displays).

Pure; reads files only.  :func:`violations` is what ``tests/engine/test_import_layers.py`` asserts empty.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("controller", "mjtable", "firmware_bridge", "vision")
LAYER_NAMES = ("foundation", "contract", "rulebook", "core", "extensions", "app")

# (module or package prefix, layer); the longest matching prefix wins
_RULES: tuple[tuple[str, int], ...] = (
    ("mjtable.tiles", 0),
    ("mjtable.typed_json", 0),
    ("controller.engine.ruleset", 1),
    ("controller.engine.profile_options", 1),
    ("controller.engine.errors", 1),
    ("controller.mcr", 2),
    ("controller.sichuan", 2),
    ("controller.riichi", 2),
    ("controller.engine", 3),
    ("controller.engine.ext_sichuan", 4),
    ("controller.engine.ext_sichuan_state", 4),
    ("controller.engine.ext_riichi", 4),
    ("controller.engine.ext_riichi_state", 4),
    ("controller.engine.simulate", 5),
    ("controller", 5),
    ("mjtable", 5),
    ("firmware_bridge", 5),
    ("vision", 5),
)


def layer_of(module: str) -> int:
    """The layer of a dotted module name (``controller.engine.step`` -> 3)."""
    if module.startswith("controller.engine.ext_"):  # every extension module (ext_riichi_penalties, ...)
        return 4
    best, found = -1, 5
    for prefix, layer in _RULES:
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
            best, found = len(prefix), layer
    return found


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the project's packages: dotted name -> file."""
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: Iterable[str]) -> list[tuple[str, int]]:
    """(imported project module, line) for every import statement in ``path`` (module ``name``)."""
    known = set(known)
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    out: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names if a.name.split(".")[0] in PACKAGES)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] not in PACKAGES:
                continue
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            if subs and len(subs) == len(node.names):
                out.extend((s, node.lineno) for s in subs)  # from pkg import submodule(s)
            else:
                out.append((target, node.lineno))
    return out


def _resolve(target: str, known: set[str]) -> str | None:
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def graph(root: Path = ROOT) -> dict[str, list[tuple[str, int]]]:
    """Module -> [(imported project module, line)], self-imports left out."""
    mods = modules(root)
    known = set(mods)
    out: dict[str, list[tuple[str, int]]] = {}
    for name, path in mods.items():
        edges = []
        for target, line in imports(name, path, known):
            got = _resolve(target, known)
            if got is not None and got != name:
                edges.append((got, line))
        out[name] = edges
    return out


def _is_facade(importer: str, imported: str, g: dict[str, list[tuple[str, int]]]) -> bool:
    """A package ``__init__`` importing its own submodules (its facade)."""
    return imported.startswith(importer + ".") and any(m.startswith(importer + ".") for m in g)


def _cycles(g: dict[str, list[tuple[str, int]]], within: str) -> list[list[str]]:
    """Strongly connected components (size > 1) among modules under ``within`` (facade edges left out)."""
    nodes = [m for m in g if m == within or m.startswith(within + ".")]
    succ = {m: sorted({t for t, _ in g[m] if t in g and (t == within or t.startswith(within + "."))
                       and not _is_facade(m, t, g)}) for m in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(nodes) + 100))
    for v in nodes:
        if v not in index:
            visit(v)
    return found


def violations(root: Path = ROOT) -> list[str]:
    """Human-readable violations: upward imports, then import cycles among ``controller`` modules."""
    g = graph(root)
    mods = modules(root)
    out = []
    for name, edges in sorted(g.items()):
        for target, line in edges:
            if _is_facade(name, target, g):
                continue
            a, b = layer_of(name), layer_of(target)
            if b > a:
                where = mods[name].relative_to(root)
                out.append(f"{where}:{line}: {name} ({LAYER_NAMES[a]}) imports {target} ({LAYER_NAMES[b]}), "
                           "a higher layer")
    for comp in _cycles(g, "controller"):
        out.append("import cycle: " + " <-> ".join(comp))
    return out


def main() -> int:
    found = violations()
    print(json.dumps({"check": "import_layers", "ok": not found, "violations": found}, ensure_ascii=False))
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
