"""The broadcast table view in headless Chromium at 1920x1080 and 1280x720 (issue 17, display).

Real mosquitto (websockets, ACL), the real display server, real engine states played by the bots and published
through :class:`TableChannel`.  Checks: everything fits without scrolling, four seats around the centre, ponds
in rows of six, names and scores large, timers as m:ss with their meaning, no concealed tile anywhere in the
public page's DOM (only backs), faces for a logged-in referee, the referee panel one click away, every Sichuan
winner shown with his hand, fans and payments by name, riichi scores on one scale, and the broker address taken
only from the server.  Screenshots are compared with the references in ``docs/display/`` (tolerant: a pixel
differs when a channel moves by more than 48, and at most 1.5 % may differ: countdown digits tick); set
``MJTABLE_UPDATE_SCREENSHOTS=1`` to rewrite the references after a deliberate change, then look at them.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import tempfile
import threading
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.engine.effects import HandEnded
from controller.engine.simulate import SimRun
from controller.engine.state import GameState, Phase
from controller.engine.step import step
from controller.views import public_view, referee_view
from mjtable.broker import LocalMosquitto
from mjtable.cli_display import make_server
from mjtable.mqtt.acl import parse_roster, render_acl
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics

webdriver = pytest.importorskip("selenium.webdriver")
Image = pytest.importorskip("PIL.Image")
np = pytest.importorskip("numpy")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
PW = {"table-T1": "table-pw-123", "referee1": "referee-pw-123", "hall": "hall-pw-123"}
ROSTER = "table table-T1 T1\nreferee referee1\ndisplay hall\n"
REFS = Path(__file__).resolve().parents[2] / "docs" / "display"
SIZES = [(1920, 1080), (1280, 720)]
PLAYERS = ("Ann Lee", "Bo Chen", "Cyril Dubois", "Dana Kowalska")
MAX_DIFF = 0.015

pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)),
                                reason="Debian chromium and chromium-driver are needed")


def mid_hand_state() -> GameState:
    """An MCR hand in play: a few melds, long ponds, a player to discard (the bots, seed 3, second hand)."""
    run = SimRun(seed=3, players=PLAYERS, hands_total=16)
    st = run.start()
    for _ in range(20000):
        ev = run.next_event(st)
        assert ev is not None
        st, _ = step(st, ev)
        hand = st.hand
        if (hand is not None and st.session.hand_no >= 1 and st.phase is Phase.TURN and hand.result is None
                and sum(len(s.pond) for s in hand.seats) >= 34 and sum(len(s.melds) for s in hand.seats) >= 2):
            return st
    raise AssertionError("no mid-hand state with melds")


def sichuan_several_winners() -> GameState:
    """The first Sichuan hand that ends with several winners (bloody battle), seed 0."""
    found: list[GameState] = []

    def sink(ev: Any, st: GameState, fx: Any) -> None:
        if not found and any(isinstance(e, HandEnded) and len(e.result.get("wins", [])) >= 2 for e in fx):
            found.append(st)

    SimRun(rules="sichuan-sbr-2025", seed=0, players=PLAYERS, hands_total=1, sink=sink).play()
    assert found
    return found[0]


class Table:
    """The table side: publishes engine views through a real channel to mosquitto."""

    def __init__(self, broker: LocalMosquitto) -> None:
        topics = TableTopics("T1")
        self.pub = PahoPublisher(broker.host, broker.port, "mjtable-table-T1", username="table-T1",
                                 password=PW["table-T1"], will=status_message(topics, "offline"),
                                 online=status_message(topics, "online")).start()
        assert self.pub.wait_connected()
        self.channel: TableChannel | None = None
        self.n = 0

    def show(self, st: GameState) -> None:
        self.n += 1  # a fresh channel per state: each is a different game's story
        self.channel = TableChannel("T1", self.pub, clock=lambda: st.now_s, game_id=f"g{self.n}")
        public = public_view(st, "T1")
        self.channel.publish_state(public, referee_view(st, "T1"))
        self.channel.publish_timers(public["timers"], now_s=st.now_s)


@pytest.fixture(scope="module")
def stack() -> Iterator[dict[str, Any]]:
    with LocalMosquitto(passwords=PW, acl=render_acl(parse_roster(ROSTER))) as broker:
        table = Table(broker)
        ws = f"ws://127.0.0.1:{broker.ws_port}"
        server = make_server("127.0.0.1", 0, ws, table="T1", public_user="hall", public_password=PW["hall"])
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield {"table": table, "url": f"http://127.0.0.1:{server.server_address[1]}/", "ws": ws}
        finally:
            server.shutdown()
            server.server_close()
            table.pub.close()


@pytest.fixture(scope="module")
def states() -> dict[str, GameState]:
    return {"mid": mid_hand_state(), "sichuan": sichuan_several_winners()}


def chromium(width: int, height: int) -> Any:
    profile = tempfile.mkdtemp(prefix="mjt-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--hide-scrollbars", "--force-device-scale-factor=1", "--font-render-hinting=none",
                 f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.mjt_profile = profile
    inner = driver.execute_script("return [innerWidth, innerHeight]")
    if inner != [width, height]:  # headless window decorations: grow the window until the viewport is exact
        driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    return driver


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    width, height = request.param
    driver = chromium(width, height)
    try:
        assert driver.execute_script("return [innerWidth, innerHeight]") == [width, height]
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(driver.mjt_profile, ignore_errors=True)


def wait_for(driver: Any, what: Any, timeout_s: float = 20) -> Any:
    return WebDriverWait(driver, timeout_s, ignored_exceptions=[StaleElementReferenceException]).until(what)


def texts(driver: Any, css: str) -> list[str]:
    return [str(e.text) for e in driver.find_elements(By.CSS_SELECTOR, css)]


def dom_codes(driver: Any, css: str = "#stage") -> Counter[str]:
    """Every tile code anywhere in the DOM under ``css``: data-code attributes and face images."""
    codes = driver.execute_script(
        "const r = document.querySelector(arguments[0]); const out = [];"
        "for (const e of r.querySelectorAll('[data-code]')) out.push(e.getAttribute('data-code'));"
        "for (const e of r.querySelectorAll('img')) out.push('img:' + e.getAttribute('alt'));"
        "return out;", css)
    return Counter(str(c) for c in codes)


def public_codes(view: dict[str, Any]) -> Counter[str]:
    """The face-up tiles of a public view, as the page may show them."""
    out: Counter[str] = Counter()
    for s in view["seats"]:
        out.update(s["flowers"])
        out.update(p["tile"] for p in s["pond"])
        out.update(c for m in s["melds"] for c in (m["tiles"] or []))
    if view["last_discard"] is not None and view["result"] is None:
        out[view["last_discard"]["tile"]] += 1
    if view["claim_window"] is not None:
        out[view["claim_window"]["tile"]] += 1
    return out


def assert_fits(driver: Any) -> None:
    w, h = driver.execute_script("return [innerWidth, innerHeight]")
    sw, sh = driver.execute_script("const e = document.documentElement; return [e.scrollWidth, e.scrollHeight]")
    assert (sw, sh) == (w, h), f"the page scrolls: {sw}x{sh} in a {w}x{h} window"
    for css in ("#seat-0 .plate", "#seat-1 .plate", "#seat-2 .plate", "#seat-3 .plate", "#center", "#bar",
                "#referee-toggle", "#pond-0", "#pond-1", "#pond-2", "#pond-3"):
        r = driver.execute_script("const b = document.querySelector(arguments[0]).getBoundingClientRect();"
                                  "return [b.left, b.top, b.right, b.bottom];", css)
        assert r[0] >= -1 and r[1] >= -1 and r[2] <= w + 1 and r[3] <= h + 1, f"{css} outside the window: {r}"


def compare_screenshot(driver: Any, name: str) -> float:
    """Fraction of pixels that differ from ``docs/display/<name>.png`` (written when updating)."""
    png = driver.get_screenshot_as_png()
    ref = REFS / f"{name}.png"
    if os.environ.get("MJTABLE_UPDATE_SCREENSHOTS") == "1":
        REFS.mkdir(parents=True, exist_ok=True)
        Image.open(io.BytesIO(png)).convert("RGB").save(ref, optimize=True)
        return 0.0
    assert ref.exists(), f"no reference {ref}: run with MJTABLE_UPDATE_SCREENSHOTS=1 and look at it"
    got = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
    want = np.asarray(Image.open(ref).convert("RGB"), dtype=np.int16)
    assert got.shape == want.shape, f"{name}: {got.shape} vs reference {want.shape}"
    diff = float((np.abs(got - want).max(axis=2) > 48).mean())
    if diff > MAX_DIFF:
        (Path(tempfile.gettempdir()) / f"{name}-got.png").write_bytes(png)
    return diff


def show(stack: dict[str, Any], browser: Any, st: GameState) -> dict[str, Any]:
    stack["table"].show(st)
    view = public_view(st, "T1")
    browser.get(stack["url"])
    wait_for(browser, lambda d: texts(d, "#seat-0 .player") == [view["seats"][0]["player"]])
    label = f"Hand {view['session']['hand_no']} of {view['session']['hands_total']}"
    wait_for(browser, lambda d: texts(d, "#hand-label") == [label])
    return view


def test_public_and_referee_table_view(stack: dict[str, Any], states: dict[str, GameState], browser: Any) -> None:
    st = states["mid"]
    view = show(stack, browser, st)
    w, h = browser.execute_script("return [innerWidth, innerHeight]")
    size = f"{w}x{h}"
    assert_fits(browser)
    # four seats around the centre: bottom seat 0, right 1, top 2, left 3
    boxes = {s: browser.execute_script("const b = document.querySelector(arguments[0]).getBoundingClientRect();"
                                       "return [(b.left + b.right) / 2, (b.top + b.bottom) / 2];", f"#pond-{s}")
             for s in range(4)}
    assert boxes[0][1] > h / 2 > boxes[2][1] and boxes[3][0] < w / 2 < boxes[1][0]
    # ponds in order, six to a row (the row breaks are where the tiles' y (or x, for the side seats) jumps)
    for seat in view["seats"]:
        css = f"#pond-{seat['seat']} .tile"
        wait_for(browser, lambda d, css=css, seat=seat: [e.get_attribute("data-code") for e in
                                                         d.find_elements(By.CSS_SELECTOR, css)]
                 == [p["tile"] for p in seat["pond"]])
        assert browser.execute_script(
            "return getComputedStyle(document.querySelector(arguments[0])).gridTemplateColumns.split(' ').length",
            f"#pond-{seat['seat']}") == 6
    # names and scores big, winds, no seat numbers
    for seat in view["seats"]:
        size_px = browser.execute_script(
            "return parseFloat(getComputedStyle(document.querySelector(arguments[0])).fontSize)",
            f"#seat-{seat['seat']} .player")
        assert size_px >= 0.028 * h
        assert texts(browser, f"#score-{seat['seat']}") == [str(seat["score"])]
    assert "seat 0" not in browser.find_element(By.ID, "stage").text
    # timers as m:ss with their meaning
    turn = next(t for t in view["timers"] if t["name"] == "turn")
    css = f"#timer-turn-{turn['seat']}"
    wait_for(browser, lambda d: re.fullmatch(r"\d+:\d\d", texts(d, css)[0] if texts(d, css) else "") is not None)
    label = browser.find_element(By.CSS_SELECTOR, f"#seat-{turn['seat']} .timer-label").text
    assert label == "to discard"
    # hidden information: concealed hands are backs, and no tile face in the DOM but the public ones
    for seat in view["seats"]:
        backs = browser.find_elements(By.CSS_SELECTOR, f"#hand-{seat['seat']} .tile")
        assert len(backs) == seat["hand_size"] and all(b.get_attribute("data-code") is None for b in backs)
    assert not browser.find_elements(By.CSS_SELECTOR, "[id^=concealed-]")
    codes = dom_codes(browser)
    faces = Counter({c: n for c, n in codes.items() if not c.startswith("img:")})
    assert faces == public_codes(view)
    assert sum(n for c, n in codes.items() if c.startswith("img:")) == sum(n for c, n in faces.items()
                                                                          if not c.endswith("f"))  # flowers: text
    assert not browser.find_element(By.ID, "drawer").is_displayed()
    diff = compare_screenshot(browser, f"public-{size}")
    assert diff <= MAX_DIFF, f"public-{size} differs from its reference in {diff:.2%} of the pixels"

    # the referee panel is one click away; a referee logs in and sees the concealed faces
    browser.find_element(By.ID, "referee-toggle").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "drawer").is_displayed())
    assert not browser.find_element(By.ID, "referee-panel").is_displayed()
    browser.find_element(By.ID, "login-user").send_keys("referee1")
    browser.find_element(By.ID, "login-pass").send_keys(PW["referee1"])
    browser.find_element(By.ID, "login-btn").click()
    ref = referee_view(st, "T1")
    for seat in ref["seats"]:
        wait_for(browser, lambda d, seat=seat: [e.get_attribute("data-code") for e in
                                                d.find_elements(By.CSS_SELECTOR, f"#concealed-{seat['seat']} .tile")]
                 == seat["concealed"])
    wait_for(browser, lambda d: d.find_element(By.ID, "referee-panel").is_displayed())
    assert_fits(browser)
    for css in ("#cmd-pause", "#correct-form button", "#penalty-form button", "#dead-form button"):
        r = browser.execute_script("const b = document.querySelector(arguments[0]).getBoundingClientRect();"
                                   "return [b.right, b.bottom];", css)
        assert r[0] <= w and r[1] <= h, f"{css} needs scrolling"
    names = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#penalty-seat option")]
    assert names == [f"{s['player']} ({s['wind']})" for s in view["seats"]]
    diff = compare_screenshot(browser, f"referee-panel-{size}")
    assert diff <= MAX_DIFF, f"referee-panel-{size}: {diff:.2%}"
    browser.find_element(By.ID, "drawer-close").click()
    wait_for(browser, lambda d: not d.find_element(By.ID, "drawer").is_displayed())
    diff = compare_screenshot(browser, f"referee-{size}")
    assert diff <= MAX_DIFF, f"referee-{size}: {diff:.2%}"


def test_several_winners_each_with_hand_fans_and_payments(stack: dict[str, Any], states: dict[str, GameState],
                                                          browser: Any) -> None:
    st = states["sichuan"]
    view = show(stack, browser, st)
    w, h = browser.execute_script("return [innerWidth, innerHeight]")
    result = view["result"]
    wins = result["wins"]
    assert len(wins) >= 2
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#result .win-block")) == len(wins))
    assert_fits(browser)
    blocks = browser.find_elements(By.CSS_SELECTOR, "#result .win-block")
    for block, win in zip(blocks, wins, strict=True):
        name = view["seats"][win["winner"]]["player"]
        assert block.find_element(By.TAG_NAME, "h3").text.startswith(name)
        lines = block.find_elements(By.CSS_SELECTOR, ".fans li:not(.total):not(.plain)")
        fans = [li.text.split("\n")[0] for li in lines]
        assert fans == [f["name"] + (f" ×{f['count']}" if f.get("count", 1) > 1 else "") for f in win["fans"]]
        assert block.find_element(By.CSS_SELECTOR, ".fans .total").text.split("\n")[-1] == str(win["total"])
        pays = block.find_element(By.CSS_SELECTOR, ".payments").text
        for s, p in enumerate(win["payments"]):
            if p < 0:
                assert f"{view['seats'][s]['player']} pays {name} {-p}" in pays
        drawn = [e.get_attribute("data-code") for e in block.find_elements(By.CSS_SELECTOR, ".win-hand .tile")]
        assert drawn and win["win_tile"] in drawn
    diff = compare_screenshot(browser, f"result-sichuan-{w}x{h}")
    assert diff <= MAX_DIFF, f"result-sichuan-{w}x{h}: {diff:.2%}"


def test_riichi_scores_on_one_scale(stack: dict[str, Any]) -> None:
    run = SimRun(rules="riichi-hkma-2025", seed=1, players=PLAYERS, hands_total=4)
    st = run.start()
    while not st.history:  # one hand played: scores have moved
        ev = run.next_event(st)
        assert ev is not None
        st, _ = step(st, ev)
    driver = chromium(1280, 720)
    try:
        view = show(stack, driver, st)
        points = view["riichi"]["points"]
        for s in range(4):
            assert texts(driver, f"#score-{s}") == [str(points[s])]
        assert not [t for t in texts(driver, "#stage") if " / ".join(map(str, points)) in t]
    finally:
        driver.quit()
        shutil.rmtree(driver.mjt_profile, ignore_errors=True)


def test_broker_only_from_the_server_config_and_csp(stack: dict[str, Any]) -> None:
    driver = chromium(1280, 720)
    try:
        driver.get(stack["url"] + "?table=T1&broker=ws://127.0.0.2:1")
        wait_for(driver, lambda d: d.execute_script("return app.client && app.client.url") is not None)
        assert driver.execute_script("return app.client.url") == stack["ws"]
    finally:
        driver.quit()
        shutil.rmtree(driver.mjt_profile, ignore_errors=True)
    with urllib.request.urlopen(stack["url"]) as resp:
        csp = resp.headers["Content-Security-Policy"]
    connect = next(p for p in csp.split(";") if p.strip().startswith("connect-src")).split()[1:]
    assert connect == ["'self'", stack["ws"]]
