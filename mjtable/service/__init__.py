"""``mjtable run --config table.toml``: the table service (composition root).

:func:`build_service` turns a validated :class:`mjtable.config.Config` into a :class:`TableService` with real
parts (serial MCU link, camera pipeline, GPIO backend, paho publisher); :class:`Injected` lets the demo and the
tests swap in simulated ones (a pty MCU, the simulated camera, the fake GPIO backend) without touching the
rest.  ``run`` sets up JSON-line logging, signals (SIGTERM/SIGINT: graceful stop) and systemd notification.
Exit codes: 0 stopped cleanly, 2 bad config, 1 engine failure (systemd restarts; the journal resumes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.engine.events import ENGINE_REV, SessionStart
from controller.journal import JournalError
from firmware_bridge.session import LinkTiming
from hw.backend import PinBackend
from hw.factory import open_backend
from hw.panel import TablePanel
from mjtable.config import LOG_LEVELS, Config, ConfigError
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.commands import Command
from mjtable.mqtt.delay import SpectatorDelayQueue
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import PahoPublisher, Publisher
from mjtable.mqtt.topics import TableTopics
from mjtable.service.health import Health
from mjtable.service.logs import setup_logging
from mjtable.service.mcu import LinkFactory, McuPart, WallReader, panel_link_factory, serial_link_factory
from mjtable.service.notify import Notifier, SystemdNotifier
from mjtable.service.parts import CameraPart, GpioPart, MqttPart, ObservationSource
from mjtable.service.ports import game_id_of
from mjtable.service.runner import TableService
from mjtable.service.session_journal import open_table
from mjtable.snapshots import SnapshotStore

LOGGER = logging.getLogger("mjtable.service")

__all__ = ["Injected", "TableService", "add_arguments", "build_service", "run", "session_start"]


@dataclass
class Injected:
    """Replacements for real parts (demo, tests, bench).  None = build the real part from the config."""

    notifier: Notifier | None = None
    clock: Callable[[], float] = time.time
    wall_reader: WallReader | None = None
    gpio_backend: PinBackend | None = None
    observations: Callable[[], ObservationSource] | None = None
    link_timing: LinkTiming | None = None
    publisher: Publisher | None = None
    mcu_link: LinkFactory | None = None
    session_extra: dict[str, Any] = field(default_factory=dict)


def session_start(cfg: Config, at_s: float, **extra: Any) -> SessionStart:
    """The first journal event of a new session from the config (``extra`` overrides fields)."""
    fields: dict[str, Any] = {
        "id": f"{cfg.table.id}-session-{int(at_s)}", "at_s": at_s, "table_id": cfg.table.id, "rules": cfg.table.rules,
        "players": cfg.table.players, "mode": cfg.table.information, "hands_total": cfg.table.hands,
        "camera_min_confidence": cfg.camera.min_confidence, "timer_overrides": cfg.table.timers,
        "engine_rev": ENGINE_REV,
    }
    fields.update(extra)
    return SessionStart(**fields)


def build_service(cfg: Config, injected: Injected | None = None) -> TableService:
    """Open the journal (resume or start) and build every part; nothing is connected until ``run``."""
    inj = injected or Injected()
    health = Health(cfg.table.data_dir / f"{cfg.table.id}.health.json", clock=inj.clock)
    cfg.table.data_dir.mkdir(parents=True, exist_ok=True)
    # the outbox also says whether a finished session's public events are all out (session_journal)
    ledger = Outbox(cfg.table.data_dir / f"{cfg.table.id}.outbox.sqlite") if inj.publisher is None else None
    try:
        table = open_table(cfg, session_start(cfg, inj.clock(), **inj.session_extra), ledger)
    except BaseException:
        if ledger is not None:
            ledger.close()
        raise
    notifier = inj.notifier or SystemdNotifier()
    service_ref: list[TableService] = []

    def emit(cls: Any, **fields: Any) -> Any:
        return service_ref[0].emit(cls, **fields)

    def phase() -> str:
        return service_ref[0].phase()

    mcu = McuPart(inj.mcu_link or _link_factory(cfg, inj), emit, health, describe=_link_name(cfg),
                  wall_reader=inj.wall_reader)

    open_panel: Callable[[], TablePanel] | None = None
    if inj.gpio_backend is not None:
        backend = inj.gpio_backend

        def open_panel() -> TablePanel:
            return TablePanel(backend, cfg.gpio.pinout)
    elif cfg.gpio.backend != "none":
        def open_panel() -> TablePanel:
            b = open_backend(cfg.gpio.backend, host=cfg.gpio.pigpiod_host, port=cfg.gpio.pigpiod_port,
                             chip=cfg.gpio.chip)
            try:
                return TablePanel(b, cfg.gpio.pinout)
            except BaseException:
                b.close()
                raise
    gpio = GpioPart(open_panel, emit, health, phase)

    camera_open = inj.observations
    if camera_open is None and cfg.camera.source != "none":
        from mjtable.service.camera import open_camera_source

        def camera_open() -> ObservationSource:
            return open_camera_source(cfg)
    camera = CameraPart(camera_open, emit, health, describe=f"camera {cfg.camera.source}",
                        snapshots=SnapshotStore(cfg.journal_path))

    topics = TableTopics(cfg.table.id)
    publisher = inj.publisher
    if publisher is None:
        assert ledger is not None  # opened above whenever no publisher is injected
        password = Path(cfg.mqtt.password_file).read_text().strip() if cfg.mqtt.password_file else None
        paho = PahoPublisher(
            cfg.mqtt.host, cfg.mqtt.port, f"mjtable-{cfg.table.id}", outbox=ledger,
            will=status_message(topics, "offline"), online=status_message(topics, "online"),
            username=cfg.mqtt.username or None, password=password)
        paho.follow_recorder(topics.recorder_ack)  # events stay in the outbox until the recorder has them
        publisher = paho.start()
    game_id = game_id_of(cfg.table.id, table.state.session.start_s)
    journal_path = cfg.journal_path

    def record_events() -> list[dict[str, Any]]:
        from mjtable.recorder.engine_record import record_from_journal

        events: list[dict[str, Any]] = record_from_journal(journal_path)["events"]
        return events

    delay_queue = SpectatorDelayQueue(cfg.table.data_dir / f"{cfg.table.id}.spectator.sqlite") \
        if cfg.mqtt.spectator_delay_s > 0 else None
    channel = TableChannel(cfg.table.id, publisher, clock=inj.clock, game_id=game_id, validate=cfg.mqtt.validate,
                           spectator_delay_s=cfg.mqtt.spectator_delay_s, delay_queue=delay_queue,
                           record_events=record_events, ledger=ledger,
                           infractions=lambda: [i.public_json() for i in table.state.infractions])  # all: game_end

    def emit_json(obj: dict[str, Any], done: Callable[[str | None], None]) -> None:
        service_ref[0].emit_json(obj, done)

    def clear_fault(cmd: Command, answer: Callable[[str | None], None]) -> None:
        service_ref[0].clear_fault(cmd.id, cmd.referee, answer)

    mqtt = MqttPart(publisher, channel, emit_json, health, inj.clock,
                    status_interval_s=cfg.service.status_interval_s, clear_fault=clear_fault)

    service = TableService(table, mcu=mcu, gpio=gpio, camera=camera, mqtt=mqtt, health=health, notifier=notifier,
                           clock=inj.clock)
    service_ref.append(service)
    return service


def _link_factory(cfg: Config, inj: Injected) -> LinkFactory | None:
    """The table's controller: a protocol-v1 board on ``serial.port``, a closed table's ``[panel]`` on GPIO, or
    none."""
    if cfg.panel is not None:
        shared = inj.gpio_backend
        if shared is not None:
            return panel_link_factory(cfg.panel, lambda: shared, close_backend=False)
        gpio = cfg.gpio

        def open_gpio() -> PinBackend:
            return open_backend(gpio.backend, host=gpio.pigpiod_host, port=gpio.pigpiod_port, chip=gpio.chip)

        return panel_link_factory(cfg.panel, open_gpio)
    if cfg.serial.port:
        return serial_link_factory(cfg.serial.port, cfg.serial.baud, inj.link_timing)
    return None


def _link_name(cfg: Config) -> str:
    return f"panel of {cfg.panel.model}" if cfg.panel is not None else cfg.serial.port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="the table's TOML config (see deploy/table.toml.example)")
    parser.add_argument("--log-level", default=None, choices=LOG_LEVELS, help="override service.log_level")


async def serve(service: TableService) -> None:
    """Run ``service`` until SIGTERM/SIGINT (installed on the running loop)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, service.stop)
    try:
        await service.run()
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


def run(args: argparse.Namespace) -> int:
    from mjtable.config_check import load_checked

    try:
        cfg = load_checked(args.config)  # the same validation as ``mjtable doctor``
    except ConfigError as exc:
        print(json.dumps({"level": "error", "msg": str(exc)}), file=sys.stderr)
        return 2
    setup_logging(args.log_level or cfg.service.log_level)
    try:
        service = build_service(cfg)
    except JournalError as exc:
        LOGGER.error("cannot resume the journal %s: %s", cfg.journal_path, exc)
        return 1
    except OSError as exc:  # the file system changed since the check (a full disk, a vanished mount)
        LOGGER.error("cannot start: %s", exc)
        return 2
    try:
        asyncio.run(serve(service))
    except Exception:
        LOGGER.exception("the service failed")
        return 1
    finally:
        if service.mqtt is not None:
            service.mqtt.publisher.close()
        service.table.close()
    LOGGER.info("stopped")
    return 0
