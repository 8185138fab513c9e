"""The ``[panel]`` section: the commented example in deploy/table.toml.example is the worked example of
docs/wiring.md, and every mistake is a ConfigError naming the key."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.commands import FaultCode
from firmware_bridge.panel_config import EXAMPLE_PANEL
from mjtable.config import ConfigError, load_config, parse_config

EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "table.toml.example"


def _uncommented_example(tmp_path: Path) -> Path:
    lines, in_panel = [], False
    for raw in EXAMPLE.read_text().splitlines():
        in_panel = (in_panel or raw.startswith("#[panel]")) and bool(raw.strip())
        text = raw[1:] if in_panel else raw
        lines.append('port = ""' if text.startswith('port = "/dev/mjtable-mcu"') else text)
    out = tmp_path / "table.toml"
    out.write_text("\n".join(lines) + "\n")
    return out


def test_the_commented_example_is_the_worked_example(tmp_path: Path) -> None:
    assert load_config(EXAMPLE).panel is None  # commented out: the serial link stays the default
    cfg = load_config(_uncommented_example(tmp_path))
    assert cfg.panel == EXAMPLE_PANEL
    assert cfg.serial.port == ""


def _doc(**panel: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"model": "m", "buttons": {"build": {"pin": 17}}, "signals": {"ready": {"pin": 23}}}
    base.update(panel)
    return {"panel": base}


def test_minimal_panel_and_serial_port_defaults_to_none() -> None:
    cfg = parse_config(tomllib.loads('[panel]\nmodel = "x"\nbuttons = { build = { pin = 17 } }\n'
                                    'signals = { ready = { pin = 23, active_low = false } }\n'
                                    'fault_code = "sensor_fault"'))
    assert cfg.serial.port == "" and cfg.panel is not None
    assert cfg.panel.fault_code == FaultCode.SENSOR_FAULT and cfg.panel.signals[0].active_low is False


@pytest.mark.parametrize(("doc", "message"), [
    (_doc(model=""), "panel.model must name"),
    (_doc(buttons={}), "panel.buttons.build is missing"),
    (_doc(signals={}), "panel.signals.ready is missing"),
    (_doc(buttons={"build": {"pin": 17}, "shuffle": {"pin": 18}}), "unknown button 'shuffle'"),
    (_doc(signals={"ready": {"pin": 23}, "lid": {"pin": 24}}), "unknown signal 'lid'"),
    (_doc(buttons={"build": {"pin": 40}}), r"panel.buttons.build.pin must be within \[2, 27\]"),
    (_doc(buttons={"build": {"pin": 17, "press": 1}}), r"unknown key\(s\) in \[panel.buttons.build\]: press"),
    (_doc(buttons={"build": {"press_s": 0.2}}), "panel.buttons.build.pin is missing"),
    (_doc(signals={"ready": {"pin": 17}}), "share a GPIO"),
    (_doc(fault_code="fire"), "panel.fault_code must be one of jam"),
    ({**_doc(), "gpio": {"backend": "none"}}, "but \\[panel\\] needs GPIO"),
    (_doc(build_timeout_s=0), r"panel.build_timeout_s must be within"),
    (_doc(buttons={"build": {"pin": 5}}), "GPIO5 is used by both seat 0 call and panel button build"),
    ({**_doc(), "serial": {"port": "/dev/ttyACM0"}}, "both serial.port and \\[panel\\]"),
])
def test_panel_mistakes_name_the_key(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(doc, "t.toml")
