"""The referee display in headless Chromium against a real mosquitto (websockets) and the real display server.

A small engine loop in the test plays a real MCR session with the live engine (``controller.engine``) and its bots
(``controller.bots``) up to mid-hand, publishes its views through :class:`TableChannel`, and applies the referee
commands that arrive through :class:`CommandEndpoint` with ``controller.engine.step``; the page must show the state,
count down, hide concealed tiles until a referee logs in, show the effect of a command it sent, and refuse to send
one while the table is offline.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

from mjtable.broker import LocalMosquitto
from mjtable.cli_display import make_server
from mjtable.mqtt.acl import parse_roster, render_acl
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.commands import Command, CommandEndpoint, engine_event_json
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics

webdriver = pytest.importorskip("selenium.webdriver")
sim = pytest.importorskip("controller.engine.simulate")
views = pytest.importorskip("controller.views")
events = pytest.importorskip("controller.engine.events")
core = pytest.importorskip("controller.engine.step")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
PW = {"table-T1": "table-pw-123", "referee1": "referee-pw-123", "hall": "hall-pw-123"}
ROSTER = "table table-T1 T1\nreferee referee1\ndisplay hall\n"

pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)),
                                reason="Debian chromium and chromium-driver are needed")


@pytest.fixture
def browser() -> Iterator[Any]:
    profile = tempfile.mkdtemp(prefix="mjt-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", "--window-size=1400,1000"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=DRIVER))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class EngineLoop:
    """The table side: engine state, channel, command queue (commands arrive on paho's thread)."""

    def __init__(self, broker: LocalMosquitto) -> None:
        self.topics = TableTopics("T1")
        self.pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", username="table-T1",
                                 password=PW["table-T1"], will=status_message(self.topics, "offline"),
                                 online=status_message(self.topics, "online")).start()
        assert self.pub.wait_connected()
        self.run = sim.SimRun(seed=3, hands_total=4)
        self.state = self.run.start()
        for n in range(5000):  # play on until, mid-hand, some player is ready (the referee view lists waits)
            ev = self.run.next_event(self.state)
            assert ev is not None, "the session ended before anyone was ready"
            self.state, _ = core.step(self.state, ev)
            if n > 40 and self.state.phase.value == "turn" and any(
                    s["waits"] for s in views.referee_view(self.state, "T1")["seats"]):
                break
        self.clock_s = self.state.now_s
        self.channel = TableChannel("T1", self.pub, clock=self.now, game_id="g-display")
        self.commands: queue.Queue[Command] = queue.Queue()
        self.endpoint = CommandEndpoint("T1", self.pub, self.commands.put).start()
        self.publish()

    def now(self) -> float:
        """The table clock: the engine's simulated time, moved on by each command (unix seconds)."""
        return float(self.clock_s)

    def publish(self) -> None:
        self.channel.publish_state(views.public_view(self.state, "T1"),
                                   views.referee_view(self.state, "T1"))
        self.channel.publish_timers(views.public_view(self.state, "T1")["timers"], now_s=self.clock_s)

    def apply_next_command(self, timeout_s: float = 20.0) -> Command:
        cmd = self.commands.get(timeout=timeout_s)
        self.clock_s += 0.5
        ev = events.event_from_json(engine_event_json(cmd, self.clock_s))
        new, fx = core.step(self.state, ev)
        rejected = [f for f in fx if type(f).__name__ == "Rejected"]
        self.endpoint.answer(cmd.id, ok=not rejected, error=str(rejected[0]) if rejected else None)
        self.state = new
        self.publish()
        return cmd

    def inject(self, obj: dict[str, Any]) -> None:
        """Apply one engine event from the table itself (e.g. an MCU fault) and publish the new state."""
        self.clock_s += 0.5
        new, fx = core.step(self.state, events.event_from_json({"id": f"inj-{self.clock_s}", "at_s": self.clock_s,
                                                                **obj}))
        assert not [f for f in fx if type(f).__name__ == "Rejected"], fx
        self.state = new
        self.publish()

    def close(self) -> None:
        self.pub.close()


def _click(d: Any, css: str) -> bool:
    """Click the element ``css`` (a WebDriverWait that ignores stale elements retries when the page re-rendered
    between the find and the click)."""
    d.find_element(By.CSS_SELECTOR, css).click()
    return True


def _text(driver: Any, css: str) -> str:
    found = driver.find_elements(By.CSS_SELECTOR, css)
    return str(found[0].text) if found else ""


def _seconds(driver: Any, css: str) -> float:
    """A countdown's value in seconds (it reads "1:27"; ``data-left`` keeps the tenths), or -1 while not shown."""
    found = driver.find_elements(By.CSS_SELECTOR, css)
    if not found or not re.fullmatch(r"\d+:\d\d", str(found[0].text)):
        return -1.0
    return float(found[0].get_attribute("data-left"))


def _badge_reads(driver: Any, want: str) -> bool:
    return _text(driver, "#table-status") == want


def _codes(driver: Any, css: str) -> list[str]:
    return [str(e.get_attribute("data-code")) for e in driver.find_elements(By.CSS_SELECTOR, css)]


def _shows(driver: Any, *, css: str, codes: list[str]) -> bool:
    return _codes(driver, css) == codes


def test_display_shows_state_counts_down_and_round_trips_a_referee_command(browser: Any) -> None:
    with LocalMosquitto(passwords=PW, acl=render_acl(parse_roster(ROSTER))) as broker:
        assert broker.ws_port is not None
        table = EngineLoop(broker)
        server = make_server("127.0.0.1", 0, f"ws://127.0.0.1:{broker.ws_port}", table="T1",
                             public_user="hall", public_password=PW["hall"])
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            public = views.public_view(table.state, "T1")
            browser.get(f"http://127.0.0.1:{server.server_address[1]}/")
            # the page re-renders on every state message: an element found a moment ago may be replaced
            wait = WebDriverWait(browser, 20, ignored_exceptions=[StaleElementReferenceException])
            # the page shows the state from the broker: players, scores, ponds in order
            wait.until(lambda d: _text(d, "#seat-0 .player") == public["seats"][0]["player"])
            for seat in public["seats"]:
                codes = [p["tile"] for p in seat["pond"]]
                css = f"#pond-{seat['seat']} .tile"
                wait.until(partial(_shows, css=css, codes=codes))
            assert "table T1 online" in _text(browser, "#table-status")
            # a part down (the service's retained status, mjtable.service.parts.MqttPart.publish_health): the
            # badge names it, the reason is in its tooltip, and it clears when the part is back
            why = "down: camera picamera2: camera.enrollment: /var/lib/mjtable/venue.npz is not an enrollment file"
            off = "off: camera.source = none (referee enters discards and melds)"
            for camera, shown, badge in ((why, "camera down", "badge off"), (off, "camera off", "badge on"),
                                         ("ok", "", "badge on")):
                doc = {"schema": "mjtable.status/1", "table": "T1", "status": "online", "ts_s": table.clock_s,
                       "degraded": camera != "ok", "parts": {"engine": "ok", "camera": camera, "mqtt": "ok"}}
                table.pub.publish(table.topics.status, json.dumps(doc).encode(), qos=1, retain=True)
                want = f"table T1 online \u00b7 {shown}" if shown else "table T1 online"
                wait.until(partial(_badge_reads, want=want))
                badge_el = browser.find_element(By.ID, "table-status")
                assert badge_el.get_attribute("class") == badge
                assert (camera[5:] if shown else "") in str(badge_el.get_attribute("title"))
            # public mode: no concealed tiles, no command buttons
            assert not browser.find_elements(By.CSS_SELECTOR, "[id^=concealed-]")
            assert not browser.find_element(By.ID, "referee-panel").is_displayed()
            # the countdown runs: a fresh turn timer on the table clock
            table.channel.publish_timers([{"name": "probe", "seat": 1, "deadline_s": table.clock_s + 120,
                                           "limit_s": 120.0}], now_s=table.clock_s)
            wait.until(lambda d: _seconds(d, "#timer-probe-1") > 0)
            first = _seconds(browser, "#timer-probe-1")
            assert 100 < first <= 120
            wait.until(lambda d: 0 < _seconds(d, "#timer-probe-1") < first)
            # a wrong referee password is refused and the page stays public (the panel is one click away)
            browser.find_element(By.ID, "referee-toggle").click()
            browser.find_element(By.ID, "login-user").send_keys("referee1")
            browser.find_element(By.ID, "login-pass").send_keys("wrong-password")
            browser.find_element(By.ID, "login-btn").click()
            wait.until(lambda d: "login refused" in _text(d, "#login-error"))
            assert not browser.find_elements(By.CSS_SELECTOR, "[id^=concealed-]")
            # referee login: concealed hands appear, then a pause command round-trips to the engine
            wait.until(lambda d: d.find_element(By.ID, "login").is_displayed())
            browser.find_element(By.ID, "login-user").clear()
            browser.find_element(By.ID, "login-user").send_keys("referee1")
            browser.find_element(By.ID, "login-pass").clear()
            browser.find_element(By.ID, "login-pass").send_keys(PW["referee1"])
            browser.find_element(By.ID, "login-btn").click()
            referee = views.referee_view(table.state, "T1")
            hand0 = referee["seats"][0]["concealed"]
            wait.until(lambda d: _codes(d, "#concealed-0 .tile") == hand0)
            ready = next(s for s in referee["seats"] if s["waits"])
            waits_css = f"#waits-{ready['seat']}"
            wait.until(partial(_shows, css=f"{waits_css} .tile", codes=[w["tile"] for w in ready["waits"]]))
            assert all(f" {w['total']} " in " " + _text(browser, waits_css).replace("\n", " ") + " "
                       for w in ready["waits"])
            assert not browser.find_element(By.ID, "paused").is_displayed()
            browser.find_element(By.ID, "cmd-pause").click()
            cmd = table.apply_next_command()
            assert cmd.command == "pause" and cmd.referee == "referee1"
            assert table.state.paused
            wait.until(lambda d: d.find_element(By.ID, "paused").is_displayed())
            wait.until(lambda d: _text(d, "#command-result") == "pause: done")
            browser.find_element(By.ID, "cmd-resume").click()
            assert table.apply_next_command().command == "resume"
            wait.until(lambda d: not d.find_element(By.ID, "paused").is_displayed())
            # an MCU fault raises an alert; the referee closes it from the page ("reject" = no action needed)
            table.inject({"type": "mcu_fault", "code": "E12", "message": "tile jam in lift 2"})
            alert = views.public_view(table.state, "T1")["alerts"][-1]
            css = f'#alerts li[data-id="{alert["id"]}"]'
            wait.until(lambda d: "tile jam" in _text(d, css) and "alert-open" in str(
                d.find_element(By.CSS_SELECTOR, css).get_attribute("class")))
            # an mcu_fault alert offers "clear fault" to the referee (issue 19.5): it sends the clear_fault command
            wait.until(partial(_click, css=f"{css} button:nth-of-type(3)"))  # the list re-renders: find it anew
            cmd = table.apply_next_command()
            assert (cmd.command, cmd.referee) == ("clear_fault", "referee1")
            wait.until(partial(_click, css=f"{css} button:nth-of-type(2)"))
            cmd = table.apply_next_command()
            assert (cmd.command, cmd.args) == ("reject", {"alert_id": alert["id"]})
            wait.until(lambda d: "alert-open" not in str(d.find_element(By.CSS_SELECTOR, css).get_attribute("class")))
            # the table goes offline: a command would vanish (not queued), so the page says so and sends nothing
            # (issue 19, smaller; before: "sent pause (...)…" and no answer ever)
            table.close()
            wait.until(lambda d: "table T1 offline" in _text(d, "#table-status"))
            browser.find_element(By.ID, "cmd-pause").click()
            wait.until(lambda d: "pause: not sent: table T1 is offline" in _text(d, "#command-result"))
            assert table.commands.empty()
            # spectator mode reads the (delayed) spectator tree and never shows hidden tiles
            browser.get(f"http://127.0.0.1:{server.server_address[1]}/?spectator=1")
            wait.until(lambda d: "spectator" in _text(d, "#mode"))
            now = views.public_view(table.state, "T1")
            wait.until(lambda d: _text(d, "#seat-1 .player") == now["seats"][1]["player"])
            wait.until(partial(_shows, css="#pond-0 .tile", codes=[p["tile"] for p in now["seats"][0]["pond"]]))
            assert not browser.find_elements(By.CSS_SELECTOR, "[id^=concealed-]")
        finally:
            server.shutdown()
            server.server_close()
            table.close()
