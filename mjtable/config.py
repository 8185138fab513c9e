"""The table service's configuration: one TOML file (``deploy/table.toml.example`` documents every key).

``load_config(path)`` parses with ``tomllib`` and validates everything up front: an unknown key, a wrong
type, an out-of-range value or a pin used twice is a :class:`ConfigError` whose message names the file, the
key and the fix.  The result is a tree of frozen dataclasses; nothing else in the service reads TOML.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from controller.engine.events import repeated_name
from firmware_bridge.panel_config import PanelTableConfig
from hw.panel import PanelPinout, SeatPinout

RULES = ("mcr-1998", "mcr-2006", "mcr-2017", "sichuan-sbr-2025", "riichi-hkma-2025")
GPIO_BACKENDS = ("pigpio", "lgpio", "fake", "none")
LOG_LEVELS = ("debug", "info", "warning", "error")
#: engine timer names that ``[table] timers`` may override (seconds), see controller.engine.step
TIMER_NAMES = ("opening_s", "flowers_s", "first_discard_s", "turn_s", "claim_s", "session_s", "session_warning_s")

T = TypeVar("T")
#: a table config is a few kB; anything much larger is not one
MAX_CONFIG_BYTES = 1024 * 1024


class ConfigError(ValueError):
    """The configuration file is missing, unreadable or invalid; the message says where and why."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TableConfig:
    id: str = "table-1"
    rules: str = "mcr-2006"
    players: tuple[str, str, str, str] = ("East", "South", "West", "North")
    hands: int = 16
    data_dir: Path = Path("/var/lib/mjtable")
    information: str = "partial"
    timers: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class SerialConfig:
    """``port`` empty = no table MCU (the service runs degraded); ``baud`` in bit/s."""

    port: str = "/dev/mjtable-mcu"
    baud: int = 115200


#: The camera's confidence threshold by default: the committed classifier's model card
#: (vision/models/tile_classifier.json, ``calibration.min_confidence``: chosen on real photographs so that at most
#: 0.2 % of reads are confident and wrong, docs/vision.md); a test keeps the two equal.
DEFAULT_MIN_CONFIDENCE = 0.9731
#: The threshold for the simulated camera (``source = "sim"``), which films rendered tile art, not photographs:
#: the model card's ``calibration.simulated_camera.min_confidence``, chosen by the same rule on the synthetic
#: held-out reads (``vision.modelcard``); a test keeps the two equal.  A configured ``min_confidence`` wins.
DEFAULT_SIM_MIN_CONFIDENCE = 0.5194


def default_min_confidence(source: str) -> float:
    """The camera's confidence threshold when the configuration sets none: the simulated camera's for ``sim``,
    the real photographs' for every real source."""
    return DEFAULT_SIM_MIN_CONFIDENCE if source == "sim" else DEFAULT_MIN_CONFIDENCE


@dataclass(frozen=True, kw_only=True, slots=True)
class CameraConfig:
    """``source``: ``picamera2``, ``opencv:<index>``, ``file:<path>``, ``sim`` or ``none``; ``fps`` frames/s;
    ``hfov_deg``: the frame's horizontal field of view (degrees); ``tile_thickness_mm``: how high a lying tile's top
    is above the felt; ``marker_height_mm``: how high the ArUco markers are above the felt (both mm);
    ``width`` x ``height``: the frame asked of the camera, px (1920 x 1080: a tile covers about 28 x 39 px; at
    1280 x 720, 19 x 26 px, the classifier misreads 2-8 % of tiles that it reads right at 1080p, docs/vision.md);
    ``model``: the tile classifier's ONNX file, its ``.json`` card beside it ("": the shipped model);
    ``enrollment``: a venue's adapted head from ``mjtable vision enroll`` (``.npz``; "": the model's own head)."""

    source: str = "picamera2"
    fps: float = 8.0
    width: int = 1920
    height: int = 1080
    model: str = ""
    enrollment: str = ""
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    hfov_deg: float = 66.0
    tile_thickness_mm: float = 20.0
    marker_height_mm: float = 0.0


@dataclass(frozen=True, kw_only=True, slots=True)
class MqttConfig:
    host: str = "127.0.0.1"
    port: int = 1883
    username: str = ""
    password_file: str = ""
    validate: bool = False
    spectator_delay_s: float = 0.0


#: The wiring in docs/wiring.md: seat 0..3 call / pass-ready / LED, buzzer on GPIO18 (hardware PWM0).
DEFAULT_PINOUT = PanelPinout(
    seats=(SeatPinout(call=5, pass_ready=6, led=13), SeatPinout(call=19, pass_ready=26, led=21),
           SeatPinout(call=20, pass_ready=16, led=12), SeatPinout(call=7, pass_ready=8, led=25)),
    buzzer=18, buzzer_hz=2000.0, bounce_s=0.02)


@dataclass(frozen=True, kw_only=True, slots=True)
class GpioConfig:
    backend: str = "pigpio"
    chip: int = 0
    pigpiod_host: str = "127.0.0.1"
    pigpiod_port: int = 8888
    pinout: PanelPinout = DEFAULT_PINOUT


@dataclass(frozen=True, kw_only=True, slots=True)
class ServiceConfig:
    """``watchdog_s``: ping interval fallback when systemd gives none; ``display_port`` 0 = no display server."""

    log_level: str = "info"
    display_port: int = 8080
    status_interval_s: float = 5.0


@dataclass(frozen=True, kw_only=True, slots=True)
class Config:
    table: TableConfig = field(default_factory=TableConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    source: str = "<defaults>"
    #: a closed table driven through its control panel (``[panel]``, mjtable.config_panel); None: ``[serial]``
    panel: PanelTableConfig | None = None

    @property
    def journal_path(self) -> Path:
        """Where the engine journal of this table lives (``<data_dir>/<table id>.journal.jsonl``)."""
        return self.table.data_dir / f"{self.table.id}.journal.jsonl"


class _Section:
    """Typed access to one TOML table; records which keys were read so leftovers are reported."""

    def __init__(self, source: str, name: str, data: Any) -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(f"{source}: [{name}] must be a table")
        self.source, self.name, self.data = source, name, dict(data)
        self.used: set[str] = set()

    def where(self, key: str) -> str:
        return f"{self.source}: {self.name}.{key}"

    def get(self, key: str, kind: type[T], default: T) -> T:
        self.used.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ConfigError(f"{self.where(key)} must be {kind.__name__}, got {value!r}")
        return value

    def choice(self, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.get(key, str, default)
        if value not in choices:
            raise ConfigError(f"{self.where(key)} must be one of {', '.join(choices)}; got {value!r}")
        return value

    def number(self, key: str, kind: type[T], default: T, lo: float, hi: float) -> T:
        value = self.get(key, kind, default)
        if not lo <= value <= hi:  # type: ignore[operator]
            raise ConfigError(f"{self.where(key)} must be within [{lo}, {hi}]; got {value!r}")
        return value

    def finish(self) -> None:
        extra = sorted(set(self.data) - self.used)
        if extra:
            raise ConfigError(f"{self.source}: unknown key(s) in [{self.name}]: {', '.join(extra)} "
                              "(see deploy/table.toml.example)")


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> Config:
    """Validate a parsed TOML document.  Raises :class:`ConfigError`."""
    known = {"table", "serial", "camera", "mqtt", "gpio", "service", "panel"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{source}: unknown section(s) {', '.join(unknown)}; expected {', '.join(sorted(known))}")
    base_dir = Path(source).parent if source not in ("<config>", "<defaults>") else Path.cwd()

    t = _Section(source, "table", data.get("table", {}))
    players = t.get("players", list, list(TableConfig().players))
    if len(players) != 4 or not all(isinstance(p, str) and p.strip() for p in players):
        raise ConfigError(f"{t.where('players')} must list 4 non-empty names, got {players!r}")
    twice = repeated_name(players)
    if twice is not None:
        raise ConfigError(f"{t.where('players')} names {twice!r} twice; records and standings credit players by "
                          "name, so each needs one of its own")
    table_id = t.get("id", str, "table-1")
    if not 1 <= len(table_id) <= 32 or not all(c.isascii() and (c.isalnum() or c in "-_") for c in table_id):
        raise ConfigError(f"{t.where('id')} must be 1-32 letters, digits, '-' or '_' (it is an MQTT topic level); "
                          f"got {table_id!r}")
    data_dir = Path(t.get("data_dir", str, "/var/lib/mjtable"))
    timers_raw = t.get("timers", dict, {})
    timers: list[tuple[str, float]] = []
    for name, value in sorted(timers_raw.items()):
        if name not in TIMER_NAMES:
            raise ConfigError(f"{t.where('timers')}: unknown timer {name!r}; known: {', '.join(TIMER_NAMES)}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 36000:
            raise ConfigError(f"{t.where('timers')}.{name} must be seconds in (0, 36000], got {value!r}")
        timers.append((name, float(value)))
    rules = t.get("rules", str, "mcr-2006")
    if rules.split(":", 1)[0] not in RULES:
        raise ConfigError(f"{t.where('rules')} must be one of {', '.join(RULES)} (optionally with profile options "
                          f"after ':', e.g. riichi-hkma-2025:division=B); got {rules!r}")
    table = TableConfig(id=table_id, rules=rules,
                        information=t.choice("information", ("partial", "full"), "partial"),
                        timers=tuple(timers),
                        players=(players[0], players[1], players[2], players[3]),
                        hands=t.number("hands", int, 16, 1, 64),
                        data_dir=data_dir if data_dir.is_absolute() else base_dir / data_dir)
    t.finish()

    s = _Section(source, "serial", data.get("serial", {}))
    serial = SerialConfig(port=s.get("port", str, "" if "panel" in data else "/dev/mjtable-mcu"),
                          baud=s.number("baud", int, 115200, 1200, 4_000_000))
    s.finish()
    panel: PanelTableConfig | None = None
    if "panel" in data:
        from mjtable.config_panel import parse_panel

        panel = parse_panel(source, data["panel"])
        if serial.port:
            raise ConfigError(f"{source}: both serial.port and [panel] are set; a table is driven either over "
                              "serial (a protocol-v1 board) or through its panel: remove one")

    c = _Section(source, "camera", data.get("camera", {}))
    cam_source = c.get("source", str, "picamera2")
    if not (cam_source in ("picamera2", "sim", "none") or cam_source.startswith(("opencv:", "file:"))):
        raise ConfigError(f"{c.where('source')} must be picamera2, opencv:<index>, file:<path>, sim or none; "
                          f"got {cam_source!r}")
    threshold = c.number("min_confidence", float, default_min_confidence(cam_source), 0.0, 1.0)
    camera = CameraConfig(source=cam_source, fps=c.number("fps", float, 8.0, 0.5, 60.0),
                          width=c.number("width", int, 1920, 160, 4096),
                          height=c.number("height", int, 1080, 120, 3072),
                          model=c.get("model", str, ""),
                          enrollment=c.get("enrollment", str, ""),
                          min_confidence=threshold,
                          hfov_deg=c.number("hfov_deg", float, 66.0, 20.0, 170.0),
                          tile_thickness_mm=c.number("tile_thickness_mm", float, 20.0, 0.0, 60.0),
                          marker_height_mm=c.number("marker_height_mm", float, 0.0, -50.0, 200.0))
    c.finish()

    m = _Section(source, "mqtt", data.get("mqtt", {}))
    mqtt = MqttConfig(host=m.get("host", str, "127.0.0.1"), port=m.number("port", int, 1883, 1, 65535),
                      username=m.get("username", str, ""), password_file=m.get("password_file", str, ""),
                      validate=m.get("validate", bool, False),
                      spectator_delay_s=m.number("spectator_delay_s", float, 0.0, 0.0, 300.0))
    if mqtt.password_file and not mqtt.username:
        raise ConfigError(f"{m.where('password_file')} is set but mqtt.username is empty")
    m.finish()

    g = _Section(source, "gpio", data.get("gpio", {}))
    backend = g.choice("backend", GPIO_BACKENDS, "pigpio")
    seats_raw = g.get("seat", list, [])
    seats: list[SeatPinout] = []
    if seats_raw:
        if len(seats_raw) != 4:
            raise ConfigError(f"{g.where('seat')}: give exactly 4 [[gpio.seat]] tables (seat 0..3), "
                              f"got {len(seats_raw)}")
        for i, raw in enumerate(seats_raw):
            sec = _Section(source, f"gpio.seat[{i}]", raw)
            for key in ("call", "pass", "led"):
                if key not in sec.data:
                    raise ConfigError(f"{sec.where(key)} is missing")
            seats.append(SeatPinout(call=sec.number("call", int, 0, 2, 27),
                                    pass_ready=sec.number("pass", int, 0, 2, 27),
                                    led=sec.number("led", int, 0, 2, 27)))
            sec.finish()
    buzzer = g.number("buzzer", int, DEFAULT_PINOUT.buzzer or 18, -1, 27)
    buzzer_hz = g.number("buzzer_hz", float, 2000.0, 0.0, 20000.0)
    pinout = PanelPinout(seats=tuple(seats) if seats else DEFAULT_PINOUT.seats,
                         buzzer=None if buzzer < 0 else buzzer, buzzer_hz=buzzer_hz or None,
                         bounce_s=g.number("bounce_s", float, 0.02, 0.0, 0.5))
    _check_pins_unique(source, pinout, panel)
    if panel is not None and backend == "none":
        raise ConfigError(f"{g.where('backend')} is none, but [panel] needs GPIO: choose pigpio, lgpio or fake")
    gpio = GpioConfig(backend=backend, chip=g.number("chip", int, 0, 0, 16),
                      pigpiod_host=g.get("pigpiod_host", str, "127.0.0.1"),
                      pigpiod_port=g.number("pigpiod_port", int, 8888, 1, 65535), pinout=pinout)
    g.finish()

    v = _Section(source, "service", data.get("service", {}))
    service = ServiceConfig(log_level=v.choice("log_level", LOG_LEVELS, "info"),
                            display_port=v.number("display_port", int, 8080, 0, 65535),
                            status_interval_s=v.number("status_interval_s", float, 5.0, 0.1, 3600.0))
    v.finish()
    return Config(table=table, serial=serial, camera=camera, mqtt=mqtt, gpio=gpio, service=service, source=source,
                  panel=panel)


def _check_pins_unique(source: str, pinout: PanelPinout, panel: PanelTableConfig | None = None) -> None:
    seen: dict[int, str] = {}
    uses = [(f"seat {i} {name}", pin) for i, s in enumerate(pinout.seats)
            for name, pin in (("call", s.call), ("pass", s.pass_ready), ("led", s.led))]
    if pinout.buzzer is not None:
        uses.append(("buzzer", pinout.buzzer))
    if panel is not None:
        uses.extend(panel.pins())
    for what, pin in uses:
        if pin in seen:
            raise ConfigError(f"{source}: GPIO{pin} is used by both {seen[pin]} and {what}")
        seen[pin] = what


def load_config(path: str | Path) -> Config:
    """Read and validate a TOML config file.  Raises :class:`ConfigError` (never a bare KeyError/TypeError)."""
    p = Path(path)
    try:
        if p.is_dir():
            raise ConfigError(f"{p}: is a directory, not a config file")
        raw = p.read_bytes()
    except FileNotFoundError as exc:
        raise ConfigError(f"{p}: no such config file (copy deploy/table.toml.example)") from exc
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror}") from exc
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{p}: {len(raw)} bytes is too large for a table config (limit {MAX_CONFIG_BYTES})")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not UTF-8 text (byte {exc.start}): save the file as UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{p}: arrays or tables nested too deeply") from exc
    return parse_config(data, str(p))
