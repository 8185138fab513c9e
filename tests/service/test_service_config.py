"""Config validation: every mistake is a ConfigError naming the file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from mjtable.config import DEFAULT_PINOUT, ConfigError, load_config, parse_config

EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "table.toml.example"


def test_example_config_is_valid_and_matches_defaults() -> None:
    cfg = load_config(EXAMPLE)
    assert cfg.gpio.pinout == DEFAULT_PINOUT
    assert cfg.table.rules == "mcr-2006"
    assert cfg.serial.baud == 115200
    assert cfg.journal_path == Path("/var/lib/mjtable/table-1.journal.jsonl")
    assert parse_config({}).gpio == cfg.gpio
    assert (cfg.camera.hfov_deg, cfg.camera.tile_thickness_mm, cfg.camera.marker_height_mm) == (66.0, 20.0, 0.0)


@pytest.mark.parametrize(("doc", "message"), [
    ({"tabel": {}}, "unknown section"),
    ({"table": {"rulez": "x"}}, r"unknown key\(s\) in \[table\]: rulez"),
    ({"table": {"rules": "mcr-2099"}}, "table.rules must be one of"),
    ({"table": {"hands": "16"}}, "table.hands must be int"),
    ({"table": {"hands": 0}}, r"table.hands must be within \[1, 64\]"),
    ({"table": {"players": ["a", "b", "c"]}}, "4 non-empty names"),
    # records, standings and displays credit each player by name: two alike would swap their points
    ({"table": {"players": ["Li", "Wu", " Li", "Zhao"]}}, "table.players names 'Li' twice"),
    ({"table": {"players": ["Li", "Wu", "li", "Zhao"]}}, "table.players names 'Li' twice"),
    ({"table": {"id": "table/1"}}, "MQTT topic level"),
    ({"serial": {"baud": True}}, "serial.baud must be int"),
    ({"camera": {"source": "webcam"}}, "camera.source must be picamera2"),
    ({"camera": {"min_confidence": 1.5}}, "camera.min_confidence"),
    ({"camera": {"hfov_deg": 200.0}}, r"camera.hfov_deg must be within \[20.0, 170.0\]"),
    ({"camera": {"tile_thickness_mm": -1.0}}, "camera.tile_thickness_mm"),
    ({"mqtt": {"port": 70000}}, "mqtt.port"),
    ({"mqtt": {"password_file": "/x"}}, "mqtt.username is empty"),
    ({"gpio": {"backend": "rpi"}}, "gpio.backend must be one of pigpio, lgpio, fake, none"),
    ({"gpio": {"seat": [{"call": 5, "pass": 6, "led": 13}]}}, "exactly 4"),
    ({"gpio": {"buzzer": 5}}, "GPIO5 is used by both seat 0 call and buzzer"),
    ({"gpio": {"seat": [{"call": 5, "pass": 6, "led": 13}, {"call": 19, "pass": 26, "led": 21},
                        {"call": 20, "pass": 16, "led": 12}, {"call": 7, "pass": 8}]}}, r"seat\[3\].led is missing"),
    ({"gpio": {"seat": [{"call": 5, "pass": 6, "led": 13, "lamp": 1}, {"call": 19, "pass": 26, "led": 21},
                        {"call": 20, "pass": 16, "led": 12}, {"call": 7, "pass": 8, "led": 25}]}}, "lamp"),
    ({"service": {"log_level": "loud"}}, "service.log_level"),
])
def test_bad_values_are_clear_errors(doc: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(doc, "t.toml")


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nid=1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)


def test_the_simulated_camera_has_its_own_default_threshold() -> None:
    """Rendered art and photographs are read with different confidence (mjtable.config, vision.modelcard): a
    ``sim`` camera defaults to the simulated camera's threshold, every real source to the photographs'; a
    configured threshold wins for both."""
    from mjtable.config import DEFAULT_MIN_CONFIDENCE, DEFAULT_SIM_MIN_CONFIDENCE

    def threshold(camera: dict[str, object]) -> float:
        return parse_config({"camera": camera}).camera.min_confidence

    assert threshold({"source": "sim"}) == DEFAULT_SIM_MIN_CONFIDENCE
    for real in ("picamera2", "opencv:0", "file:/tmp", "none"):
        assert threshold({"source": real}) == DEFAULT_MIN_CONFIDENCE
    assert threshold({"source": "sim", "min_confidence": 0.91}) == 0.91
    assert threshold({"source": "opencv:0", "min_confidence": 0.42}) == 0.42


def test_relative_data_dir_is_relative_to_the_file(tmp_path: Path) -> None:
    f = tmp_path / "table.toml"
    f.write_text('[table]\nid = "T7"\ndata_dir = "data"\n[gpio]\nbuzzer = -1\nbuzzer_hz = 0\n')
    cfg = load_config(f)
    assert cfg.table.data_dir == tmp_path / "data"
    assert cfg.journal_path == tmp_path / "data" / "T7.journal.jsonl"
    assert cfg.gpio.pinout.buzzer is None
    assert cfg.gpio.pinout.buzzer_hz is None


def test_rules_profile_options_and_spectator_delay() -> None:
    cfg = parse_config({"table": {"rules": "riichi-hkma-2025:division=B"}, "mqtt": {"spectator_delay_s": 60}})
    assert cfg.table.rules == "riichi-hkma-2025:division=B" and cfg.mqtt.spectator_delay_s == 60.0
    with pytest.raises(ConfigError, match="optionally with profile options"):
        parse_config({"table": {"rules": "poker:limit"}})
    with pytest.raises(ConfigError, match="spectator_delay_s"):
        parse_config({"mqtt": {"spectator_delay_s": 600}})
