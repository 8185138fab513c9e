"""deploy/: the install script (dry run, shellcheck), the systemd unit (systemd-analyze), udev rules, template."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mjtable.config import load_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def test_install_dry_run_changes_nothing_and_covers_every_step(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "PREFIX": str(tmp_path / "opt"), "HOME": str(tmp_path)}
    r = subprocess.run(["bash", str(DEPLOY / "install.sh"), "--dry-run"], capture_output=True, text=True, env=env,
                       timeout=60, check=False)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for step in ("venv --system-site-packages", "table.toml.example", "/etc/mosquitto/conf.d/mjtable.conf",
                 "99-mjtable.rules", "/etc/systemd/system/mjtable.service", "systemctl daemon-reload",
                 "systemctl enable mosquitto mjtable", "doctor --config"):
        assert step in out, f"dry run does not show {step!r}"
    assert not (tmp_path / "opt").exists()  # nothing was created
    bad = subprocess.run(["bash", str(DEPLOY / "install.sh"), "--frobnicate"], capture_output=True, text=True,
                         timeout=60, check=False)
    assert bad.returncode == 2 and "unknown option" in bad.stderr


def test_install_script_passes_shellcheck() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck not installed (apt-get install shellcheck)")
    r = subprocess.run(["shellcheck", str(DEPLOY / "install.sh")], capture_output=True, text=True, timeout=60,
                       check=False)
    assert r.returncode == 0, r.stdout


def test_systemd_unit_verifies(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not available")
    unit = (DEPLOY / "systemd" / "mjtable.service").read_text()
    assert "Type=notify" in unit and "WatchdogSec=" in unit and "Restart=on-failure" in unit
    local = tmp_path / "mjtable.service"
    local.write_text(unit.replace("/opt/mjtable/.venv/bin/mjtable", "/bin/true"))
    r = subprocess.run(["systemd-analyze", "verify", str(local)], capture_output=True, text=True, timeout=60,
                       check=False)
    problems = [ln for ln in (r.stdout + r.stderr).splitlines() if "mjtable.service" in ln]
    assert not problems, problems


def test_udev_rules_and_template() -> None:
    rules = (DEPLOY / "udev" / "99-mjtable.rules").read_text()
    assert 'SYMLINK+="mjtable-mcu"' in rules and "video4linux" in rules and "gpiochip" in rules
    cfg = load_config(DEPLOY / "table.toml.example")
    assert cfg.serial.port == "/dev/mjtable-mcu"
