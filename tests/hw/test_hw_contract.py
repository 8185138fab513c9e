"""One contract for every PinBackend: the fake, pigpio (real client, fake daemon), lgpio (Pi rig only)."""

from __future__ import annotations

import asyncio

import pytest

from hw.backend import InvalidPinError, PinInUseError, Pull
from hw.panel import PanelPinout, SeatPinout, TablePanel
from tests.hw.conftest import BackendRig, EdgeSink


def test_output_write_reaches_the_pin(rig: BackendRig) -> None:
    rig.backend.setup_output(17, initial=0, owner="led")
    assert rig.output_level(17) == 0
    rig.backend.write(17, 1)
    assert rig.output_level(17) == 1
    rig.backend.write(17, 0)
    assert rig.output_level(17) == 0


def test_two_devices_on_one_pin_is_a_clear_error(rig: BackendRig) -> None:
    rig.backend.setup_input(5, pull=Pull.UP, owner="seat0.call")
    with pytest.raises(PinInUseError, match=r"GPIO5 is already used by 'seat0.call'; 'seat1.led' cannot"):
        rig.backend.setup_output(5, initial=0, owner="seat1.led")


def test_pin_outside_the_header_is_refused(rig: BackendRig) -> None:
    with pytest.raises(InvalidPinError, match="GPIO40"):
        rig.backend.setup_output(40, initial=0, owner="led")
    with pytest.raises(InvalidPinError, match="not set up"):
        rig.backend.write(6, 1)


def test_release_frees_the_pin_for_another_device(rig: BackendRig) -> None:
    rig.backend.setup_output(12, initial=1, owner="buzzer")
    rig.backend.release(12)
    rig.backend.setup_input(12, pull=Pull.UP, owner="button")


def test_watch_reports_every_edge_with_level(rig: BackendRig) -> None:
    rig.backend.setup_input(23, pull=Pull.UP, owner="seat2.call")
    sink = EdgeSink()
    rig.backend.watch(23, sink)
    rig.drive_input(23, 0)
    rig.drive_input(23, 1)
    rig.drive_input(23, 0)
    assert sink.wait(3) == [(23, 0), (23, 1), (23, 0)]


def test_pwm_and_level_validation(rig: BackendRig) -> None:
    rig.backend.setup_output(18, initial=0, owner="buzzer")
    rig.backend.set_pwm(18, 2000.0, 0.5)
    rig.backend.set_pwm(18, 2000.0, 0.0)
    with pytest.raises(ValueError, match="duty"):
        rig.backend.set_pwm(18, 2000.0, 1.5)
    with pytest.raises(ValueError, match="level"):
        rig.backend.write(18, 2)


async def test_panel_press_crosses_into_the_loop_debounced(rig: BackendRig) -> None:
    pinout = PanelPinout(seats=(SeatPinout(call=5, pass_ready=6, led=13), SeatPinout(call=19, pass_ready=26,
                                                                                       led=21)),
                         buzzer=None, bounce_s=0.0)
    panel = TablePanel(rig.backend, pinout)
    async with panel:
        # run the "outside world" in a worker thread for threaded backends, as hardware would
        def world() -> None:
            rig.drive_input(19, 0)
            rig.drive_input(19, 1)
            rig.drive_input(6, 0)
            rig.drive_input(6, 1)

        if rig.edges_are_threaded:
            await asyncio.to_thread(world)
        else:
            world()
        first = await asyncio.wait_for(panel.next_press(), 10)
        second = await asyncio.wait_for(panel.next_press(), 10)
        assert (first.seat, first.button) == (1, "call")
        assert (second.seat, second.button) == (0, "pass")
        panel.set_led(1, True)
        assert rig.output_level(21) == 1
        panel.set_led(1, False)
        assert rig.output_level(21) == 0


def test_close_is_idempotent(rig: BackendRig) -> None:
    rig.backend.setup_output(16, initial=0, owner="led")
    rig.backend.close()
    rig.backend.close()
