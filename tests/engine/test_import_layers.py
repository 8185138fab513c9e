"""The import layers of docs/architecture.md hold (tests/tools/import_layers.py), and the check catches an upward
import and a cycle (a throw-away tree in tmp_path)."""

from __future__ import annotations

from pathlib import Path

from tests.tools import import_layers


def test_the_project_imports_run_one_way() -> None:
    assert import_layers.violations() == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_an_upward_import_is_reported_even_when_lazy(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "controller/__init__.py": "",
        "controller/bots.py": "",
        "controller/engine/__init__.py": "",
        "controller/engine/ruleset.py": "",
        "controller/engine/step.py": "from controller.engine import ruleset\n",
        "controller/sichuan/__init__.py": "",
        "controller/sichuan/ruleset.py": "def f():\n    from controller.engine.step import x\n",
        "controller/engine/ext.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import controller.bots\n",
    })
    found = import_layers.violations(root)
    assert any("controller.sichuan.ruleset (rulebook) imports controller.engine.step (core)" in v for v in found)
    assert any("controller.engine.ext (core) imports controller.bots (app)" in v for v in found)
    assert not any("controller.engine.step" in v.split(" imports ")[0] for v in found)  # downward is fine


def test_a_cycle_within_one_layer_is_reported(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "controller/__init__.py": "",
        "controller/engine/__init__.py": "from controller.engine import claims, wins\n",  # a facade: fine
        "controller/engine/claims.py": "def f():\n    from controller.engine.wins import g\n",
        "controller/engine/wins.py": "from controller.engine.claims import f\n",
    })
    assert import_layers.violations(root) == [
        "import cycle: controller.engine.claims <-> controller.engine.wins"]


def test_layers_of_known_modules() -> None:
    names = import_layers.LAYER_NAMES
    assert names[import_layers.layer_of("mjtable.tiles")] == "foundation"
    assert names[import_layers.layer_of("controller.engine.ruleset")] == "contract"
    assert names[import_layers.layer_of("controller.riichi.settlement")] == "rulebook"
    assert names[import_layers.layer_of("controller.engine.step")] == "core"
    assert names[import_layers.layer_of("controller.engine.ext_riichi_state")] == "extensions"
    assert names[import_layers.layer_of("controller.engine.simulate")] == "app"
    assert names[import_layers.layer_of("mjtable.service.runner")] == "app"
