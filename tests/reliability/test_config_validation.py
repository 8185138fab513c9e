"""Issue 19 point 6: configs that ``doctor`` passed crashed ``run`` (a restart loop under systemd).  Both now share
one validation (:mod:`mjtable.config_check`): for each case ``doctor`` fails the config and ``run`` exits 2, each
with ONE clear line and no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mjtable.cli import main
from mjtable.config import ConfigError, parse_config
from mjtable.config_check import check_runtime
from mjtable.doctor import check_data_dir

BASE = """
[serial]
port = ""
[camera]
source = "none"
[gpio]
backend = "none"
[mqtt]
port = 1
"""


def _cases(tmp: Path) -> dict[str, tuple[bytes, str]]:
    (tmp / "pwdir").mkdir()
    (tmp / "a-file").write_text("x")
    data = f'data_dir = "{tmp / "data"}"'
    return {
        "bad_profile_option": (f'[table]\n{data}\nrules = "riichi-hkma-2025:division=Z"\n'.encode(), "division"),
        "unknown_profile_option": (f'[table]\n{data}\nrules = "mcr-2006:foo=1"\n'.encode(), "table.rules"),
        "missing_password_file": (f'[table]\n{data}\n'.encode(), "does not exist"),
        "directory_password_file": (f'[table]\n{data}\n'.encode(), "not a regular file"),
        "non_utf8_file": (f'[table]\n{data}\nplayers = ["\xe9", "b", "c", "d"]\n'.encode("latin-1"), "not UTF-8"),
        "deeply_nested_arrays": (f'[table]\n{data}\nx = {"[" * 3000}{"]" * 3000}\n'.encode(), "nested too deeply"),
        "data_dir_on_a_file": (f'[table]\ndata_dir = "{tmp / "a-file"}"\n'.encode(), "not a directory"),
        "data_dir_under_proc": (b'[table]\ndata_dir = "/proc/mjtable"\n', "pseudo file system"),
    }


def _config(tmp: Path, name: str, body: bytes) -> Path:
    mqtt = BASE.encode()
    if name == "missing_password_file":
        mqtt += f'username = "table-T1"\npassword_file = "{tmp / "nope"}"\n'.encode()
    elif name == "directory_password_file":
        mqtt += f'username = "table-T1"\npassword_file = "{tmp / "pwdir"}"\n'.encode()
    path = tmp / f"{name}.toml"
    path.write_bytes(body + mqtt)
    return path


@pytest.mark.parametrize("name", ["bad_profile_option", "unknown_profile_option", "missing_password_file",
                                  "directory_password_file", "non_utf8_file", "deeply_nested_arrays",
                                  "data_dir_on_a_file", "data_dir_under_proc"])
def test_doctor_and_run_refuse_the_same_config_with_one_clear_line(tmp_path: Path, name: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    body, words = _cases(tmp_path)[name]
    cfg = _config(tmp_path, name, body)
    assert main(["doctor", "--config", str(cfg), "--timeout", "0.2"]) == 2
    out = capsys.readouterr().out
    first = json.loads(out.splitlines()[0])
    assert first["check"] == "config" and first["status"] == "fail", out
    assert words in first["detail"] and "\n" not in first["detail"]
    assert main(["run", "--config", str(cfg)]) == 2  # in-process: an exception here would be the traceback
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in json.loads(lines[0])["msg"], err[-2000:]
    assert not (tmp_path / "data").exists()  # nothing created by a refused config


def test_run_as_a_process_exits_2_without_a_traceback(tmp_path: Path) -> None:
    body, words = _cases(tmp_path)["bad_profile_option"]
    cfg = _config(tmp_path, "bad_profile_option", body)
    run = subprocess.run([sys.executable, "-m", "mjtable.cli", "run", "--config", str(cfg)], capture_output=True,
                         text=True, check=False, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr and words in run.stderr


@pytest.mark.parametrize(("data_dir", "words"), [("/proc/mjtable", "pseudo file system"),
                                                 ("{tmp}/a-file/data", "is a file")])
def test_doctors_data_dir_check_is_the_run_check(tmp_path: Path, data_dir: str, words: str) -> None:
    """``doctor``'s own data_dir check (also reached with ``--config -`` and from ``run_checks``) had a second
    notion of a valid data_dir: a missing dir under /proc was 'the service will create it' (warn), one under a
    file 'not writable'.  It now fails with run's line."""
    (tmp_path / "a-file").write_text("x")
    cfg = parse_config({"table": {"data_dir": data_dir.format(tmp=tmp_path)}}, str(tmp_path / "t.toml"))
    with pytest.raises(ConfigError, match=words):
        check_runtime(cfg)
    check = check_data_dir(cfg)
    assert check.status == "fail" and words in check.detail, check
