"""Debounce, devices and the panel on the fake backend with a fake clock (no sleeps, no wall time)."""

from __future__ import annotations

import asyncio

import pytest

from hw.backend import BackendUnavailableError, PinEdge, PinInUseError
from hw.devices import Button, Buzzer, Debouncer, Led
from hw.factory import open_backend
from hw.fake import FakeBackend, FakeClock
from hw.panel import PanelPinout, SeatPinout, SeatPress, TablePanel
from hw.pigpio_backend import TickUnwrapper


def test_debouncer_accepts_first_edge_and_locks_out_bounces() -> None:
    d = Debouncer(initial=1, bounce_s=0.02)
    assert d.feed(0, 1.000) == [(0, 1.000)]  # press registers at once
    assert d.feed(1, 1.001) == []  # bounce
    assert d.feed(0, 1.002) == []
    assert d.feed(1, 1.200) == [(1, 1.200)]  # release
    assert d.level == 1


def test_debouncer_recovers_a_tap_shorter_than_the_lockout() -> None:
    d = Debouncer(initial=1, bounce_s=0.05)
    assert d.feed(0, 0.00) == [(0, 0.00)]
    assert d.feed(1, 0.01) == []  # released inside the lock-out
    assert d.feed(0, 0.20) == [(1, 0.05), (0, 0.20)]  # the release is recovered, then the new press


def test_debouncer_rejects_negative_bounce() -> None:
    with pytest.raises(ValueError, match="bounce_s"):
        Debouncer(1, -0.1)


def test_bouncy_press_is_one_press_and_one_release() -> None:
    clock = FakeClock(100.0)
    fake = FakeBackend(clock)
    button = Button(fake, 5, name="seat0.call", bounce_s=0.02)
    changes = []
    raw = []

    def on_edge(e: PinEdge) -> None:
        raw.append(e)
        changes.extend(button.process(e))

    fake.watch(5, on_edge)
    fake.press(5, duration_s=0.15, bounces=4, bounce_interval_s=0.001)
    assert [(c.pressed, c.t_s) for c in changes] == [(True, 100.0), (False, pytest.approx(100.15))]
    assert len(raw) == 18  # 9 raw edges at each end, all seen, two accepted


def test_two_presses_closer_than_bounce_are_one() -> None:
    clock = FakeClock()
    fake = FakeBackend(clock)
    button = Button(fake, 6, name="seat0.pass", bounce_s=0.05)
    accepted = []
    fake.watch(6, lambda e: accepted.extend(button.process(e)))
    fake.press(6, duration_s=0.01)
    fake.press(6, duration_s=0.01)
    clock.advance(0.1)
    fake.press(6, duration_s=0.01)
    assert [(c.pressed, c.t_s) for c in accepted] == [(True, 0.0), (False, 0.05), (True, pytest.approx(0.12))]


def test_led_and_buzzer_histories_on_the_fake_clock() -> None:
    clock = FakeClock()
    fake = FakeBackend(clock)
    led = Led(fake, 13, name="seat0.led")
    buzzer = Buzzer(fake, 18, frequency_hz=2500.0)
    led.set(True)
    clock.advance(1.5)
    led.set(False)
    led.set(False)
    buzzer.set(True)
    clock.advance(0.2)
    buzzer.set(False)
    assert fake.history[13] == [(0.0, 0), (0.0, 1), (1.5, 0)]
    assert fake.pwm_history[18] == [(1.5, 2500.0, 0.5), (1.7, 2500.0, 0.0)]
    active = Buzzer(fake, 12, name="active", frequency_hz=None)
    active.set(True)
    assert fake.history[12] == [(1.7, 0), (1.7, 1)]


def test_panel_pin_conflict_names_both_and_leaves_nothing_reserved() -> None:
    fake = FakeBackend()
    pinout = PanelPinout(seats=(SeatPinout(5, 6, 13), SeatPinout(19, 5, 21)))
    with pytest.raises(PinInUseError, match=r"'seat0\.call'.*'seat1\.pass'"):
        TablePanel(fake, pinout)
    assert all(fake.owner(p) is None for p in (5, 6, 13, 19, 21))


async def test_panel_delivers_presses_in_order_and_buzzes() -> None:
    clock = FakeClock()
    fake = FakeBackend(clock)
    seats = tuple(SeatPinout(call=c, pass_ready=p, led=led) for c, p, led in
                  ((5, 6, 13), (19, 26, 21), (20, 16, 12), (7, 8, 25)))
    panel = TablePanel(fake, PanelPinout(seats=seats, buzzer=18, bounce_s=0.02))
    async with panel:
        fake.press(panel.pin_of(2, "call"), 0.1, bounces=3)
        fake.press(panel.pin_of(0, "pass"), 0.1)
        fake.press(panel.pin_of(3, "call"), 0.1, bounces=2)
        got = [await panel.next_press() for _ in range(3)]
        assert [(p.seat, p.button) for p in got] == [(2, "call"), (0, "pass"), (3, "call")]
        assert got[0] == SeatPress(2, "call", 0.0)
        assert panel._queue is not None and panel._queue.empty()
        panel.buzz(0.0)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert [d for _, _, d in fake.pwm_history[18]] == [0.5, 0.0]
        panel.set_led(3, True)
        with pytest.raises(ValueError, match="seat 4"):
            panel.set_led(4, True)
    assert fake.history[25][-1][1] == 0
    assert fake.owner(18) is None


def test_edges_on_other_pins_are_ignored_by_a_button() -> None:
    fake = FakeBackend()
    button = Button(fake, 5, name="b")
    assert button.process(PinEdge(6, 0, 0.0)) == []


def test_pigpio_without_daemon_is_a_clear_error() -> None:
    pytest.importorskip("pigpio")
    from hw.pigpio_backend import PigpioBackend
    from mjtable.broker import free_port

    with pytest.raises(BackendUnavailableError, match=r"pigpio daemon at 127.0.0.1:\d+.*systemctl"):
        PigpioBackend("127.0.0.1", free_port())


def test_lgpio_without_gpiochip_is_a_clear_error() -> None:
    pytest.importorskip("lgpio")
    import os

    if os.path.exists("/dev/gpiochip7"):
        pytest.skip("this machine has a gpiochip7")
    with pytest.raises(BackendUnavailableError, match="/dev/gpiochip7"):
        open_backend("lgpio", chip=7)


def test_unknown_backend_name() -> None:
    with pytest.raises(ValueError, match="pigpio, lgpio, fake"):
        open_backend("rpi")


def test_tick_unwrapper_handles_the_32_bit_wrap() -> None:
    u = TickUnwrapper()
    assert u.seconds(4_294_000_000) == pytest.approx(4294.0)
    assert u.seconds(1_000_000) == pytest.approx((2**32 + 1_000_000) / 1e6)
    assert u.seconds(2_000_000) == pytest.approx((2**32 + 2_000_000) / 1e6)


def test_pigpio_daemon_going_away_is_a_clear_error() -> None:
    pytest.importorskip("pigpio")
    from hw.pigpio_backend import PigpioBackend
    from tests.hw.fake_pigpiod import FakePigpiod

    daemon = FakePigpiod()
    backend = PigpioBackend("127.0.0.1", daemon.port)
    backend.setup_output(17, initial=0, owner="led")
    daemon.close()
    with pytest.raises(BackendUnavailableError, match="lost the pigpio daemon"):
        for _ in range(3):  # the first write may still fit in the socket buffer
            backend.write(17, 1)
            backend.read(17)
    backend.close()
