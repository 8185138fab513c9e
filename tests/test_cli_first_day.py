"""A venue's first day with the ``mjtable`` CLI (issue 17, points 8 and 9): clean errors, no tracebacks, the
inputs the config accepts, bounded JSON lines, and commands that only look when they say they look."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mjtable.config import parse_config
from mjtable.doctor import check_data_dir
from mjtable.recorder.cli import parse_broker


def mjtable(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mjtable.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, check=False)


def lines(out: str) -> list[dict[str, object]]:
    return [json.loads(x) for x in out.splitlines() if x.strip()]


@pytest.mark.parametrize("rules", ["sichuan-xyz", "riichi-xyz", "riichi-hkma-2025:foo=1", "mcr-3000"])
def test_sim_with_bad_rules_is_a_clean_error(rules: str) -> None:
    proc = mjtable("sim", "--rules", rules)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "error" in json.loads(proc.stderr)


def test_sim_refuses_zero_hands_and_lists_every_rulebook() -> None:
    proc = mjtable("sim", "--hands", "0")
    assert proc.returncode == 2 and "at least 1" in json.loads(proc.stderr)["error"]
    helptext = " ".join(mjtable("sim", "--help").stdout.split())
    for rules in ("mcr-1998", "mcr-2006", "mcr-2017", "sichuan-sbr-2025", "riichi-hkma-2025"):
        assert rules in helptext.replace("- ", "-")


def test_version() -> None:
    proc = mjtable("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("mjtable ") and len(proc.stdout.split()) == 2


@pytest.mark.parametrize("command", ["score", "waits"])
def test_score_and_waits_take_the_profile_options_the_config_takes(command: str) -> None:
    hand = {"hand": "123456789m1122p" if command == "waits" else "12345678m1122p", "seat_wind": "E"}
    if command == "score":
        hand["win"] = "9m"
    proc = mjtable(command, "--rules", "riichi-hkma-2025:division=B", stdin=json.dumps(hand) + "\n")
    assert proc.returncode == 0, proc.stderr
    (out,) = lines(proc.stdout)
    assert out["rules"] == "riichi-hkma-2025"
    parse_config({"table": {"rules": "riichi-hkma-2025:division=B"}})  # the same name the config takes
    bad = mjtable(command, "--rules", "riichi-hkma-2025:foo=1")
    assert bad.returncode == 2 and "foo" in bad.stderr and "Traceback" not in bad.stderr


def test_json_line_errors_say_where_and_what() -> None:
    proc = mjtable("score", stdin='{"hand": "1m",\n{"hand": 123}\n\n  \n{"hand": "1m" "x"}\r\n')
    out = lines(proc.stdout)
    assert len(out) == 3  # blank lines are skipped (documented in --help)
    assert out[0]["error"] == "bad JSON at column 15: Expecting property name enclosed in double quotes"
    assert "'hand' must be a string" in str(out[1]["error"])
    assert str(out[2]["error"]).startswith("bad JSON at column 15:")
    helptext = " ".join(mjtable("score", "--help").stdout.split())
    assert "blank lines are skipped" in helptext and "65536 characters" in helptext and "[123m]" in helptext


def test_a_huge_line_is_capped_and_not_echoed() -> None:
    huge = '{"id": "' + "x" * 10_000_000 + '", "hand": "1m"}\n'
    proc = mjtable("score", stdin=huge + '{"id": 2, "hand": "123m456p789s1122z", "win": "2z"}\n')
    assert proc.returncode == 0
    first, second = proc.stdout.splitlines()
    assert len(first) < 200 and json.loads(first)["error"].startswith("line too long: 10000024 characters")
    assert json.loads(second)["id"] == 2


def test_recorder_broker_urls_as_the_help_says() -> None:
    assert parse_broker("mqtt://broker.lan") == ("broker.lan", 1883)
    assert parse_broker("broker.lan") == ("broker.lan", 1883)
    assert parse_broker("mqtt://10.0.0.2:1884") == ("10.0.0.2", 1884)
    with pytest.raises(ValueError, match="bad broker"):
        parse_broker("mqtt://broker.lan:port")


def test_doctor_only_looks_at_the_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "var" / "lib" / "mjtable"
    cfg = parse_config({"table": {"data_dir": str(missing)}})
    check = check_data_dir(cfg)
    assert check.status == "warn" and "does not exist" in check.detail
    assert not missing.exists() and not missing.parent.exists()
    missing.mkdir(parents=True)
    assert check_data_dir(cfg).status == "ok"
    assert list(missing.iterdir()) == []


def test_vision_calibrate_on_a_missing_file_is_one_clean_line(tmp_path: Path) -> None:
    proc = mjtable("vision", "calibrate", str(tmp_path / "nope.png"))
    assert proc.returncode == 2 and proc.stderr == ""
    assert "No such file" in json.loads(proc.stdout)["error"]
