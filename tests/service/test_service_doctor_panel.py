"""``mjtable doctor`` with a ``[panel]`` table: claims the panel pins, reads the lamps, reports taken pins and a
table not at rest; the serial check is replaced by it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hw.backend import BackendUnavailableError, PinBackend, Pull
from hw.fake import FakeBackend
from mjtable.config import Config, parse_config
from mjtable.demo.stack import demo_panel_doc
from mjtable.doctor import run_checks
from mjtable.doctor_panel import check_panel


def _cfg(**gpio: Any) -> Config:
    return parse_config({"gpio": {"backend": "fake", **gpio}, "panel": demo_panel_doc(1.0)})


def test_lamps_at_rest_are_ok_and_every_pin_is_released() -> None:
    backend = FakeBackend()
    backend.hold(23, 0)  # the ready lamp is lit (walls built), pulling its input low
    check = check_panel(_cfg(), lambda: backend)
    assert check.status == "ok", check
    assert "build GPIO17" in check.detail and "ready lit, motor dark, fault dark" in check.detail
    assert backend.closed and backend.owner(17) is None and backend.owner(23) is None
    assert [lvl for _, lvl in backend.history[17]] == [0]  # set up released, never pressed


def test_a_lit_fault_lamp_warns() -> None:
    backend = FakeBackend()
    backend.hold(10, 0)
    check = check_panel(_cfg(), lambda: backend)
    assert check.status == "warn" and "fault lit" in check.detail and "polarity" in check.detail


def test_a_taken_pin_and_a_missing_backend_fail() -> None:
    backend = FakeBackend()
    backend.setup_input(24, pull=Pull.UP, owner="1-wire sensor")
    check = check_panel(_cfg(), lambda: backend)
    assert check.status == "fail" and "GPIO24 is already used by '1-wire sensor'" in check.detail

    def missing() -> PinBackend:
        raise BackendUnavailableError("pigpiod is not running")

    assert check_panel(_cfg(), missing).status == "fail"


def test_run_checks_uses_the_panel_check_instead_of_serial(tmp_path: Path) -> None:
    cfg = parse_config({"table": {"data_dir": str(tmp_path)}, "gpio": {"backend": "fake"},
                        "panel": demo_panel_doc(1.0), "mqtt": {"port": 1}})
    checks = run_checks(cfg, timeout_s=0.2)
    assert "serial" not in [c.check for c in checks]
    panel = next(c for c in checks if c.check == "panel")
    assert panel.status == "ok"  # the fake backend: lamps dark
