"""Start, run and tear down everything ``mjtable demo`` needs (see :mod:`mjtable.demo`).

``start`` (blocking, main thread): broker, MCU simulator subprocess, recorder, display server.  ``play``
(the asyncio loop): the table service plus the bot world until the session is over and the recorder holds
the game end.  ``finish``: export the records.  ``close``: stop everything this object started, idempotent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.engine.effects import Effect, HandEnded, SessionEnded
from controller.engine.events import Event
from controller.engine.state import GameState, Phase
from controller.journal import read_records
from controller.views import seated_players
from firmware_bridge.panel_config import EXAMPLE_PANEL
from firmware_bridge.panel_sim import simulated_closed_table
from hw.closed_table import ClosedTableTiming, SimulatedClosedTable
from hw.fake import FakeBackend, WallClock
from mjtable.broker import LocalMosquitto
from mjtable.childproc import with_parent_death
from mjtable.config import Config, parse_config
from mjtable.demo.camera import DirectCamera
from mjtable.demo.referee import DemoReferee, TableDice
from mjtable.demo.world import DemoWorld, TableCamera
from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import SqlEventStore
from mjtable.service import Injected, build_service
from mjtable.service.logs import JsonLineFormatter
from mjtable.service.notify import RecordingNotifier
from mjtable.service.parts import ObservationSource
from mjtable.service.runner import TableService

LOGGER = logging.getLogger(__name__)
Emit = Callable[[dict[str, Any]], None]
#: the camera ``mjtable demo`` uses unless told otherwise
DEFAULT_CAMERA = "direct"


@dataclass
class DemoOptions:
    rules: str = "mcr-2006"
    seed: int = 1
    hands: int | None = None
    build_s: float = 0.2
    camera: str = "direct"
    run_dir: Path = Path("runs/demo")
    broker: str | None = None
    broker_ws: str | None = None
    mcu_pty: str | None = None
    display_port: int = -1
    timers: dict[str, float] = field(default_factory=dict)
    table: str = "demo"
    recorder: bool = True
    validate: bool = False
    mcu_control: list[dict[str, Any]] = field(default_factory=list)
    end_wait_s: float = 20.0
    #: how long the world waits for the table to take an act before acting again, s
    act_timeout_s: float = 5.0
    #: how long a camera act may go untaken before the floor referee enters it by hand, s (see DemoWorld)
    referee_entry_s: float = 15.0
    #: "serial": the MCU simulator over protocol v1; "panel": a simulated closed table through the GPIO adapter
    table_link: str = "serial"
    #: faults of the simulated closed table (``--table panel``), see hw.closed_table.SimulatedClosedTable.inject
    panel_faults: list[str] = field(default_factory=list)


def demo_panel_doc(build_s: float) -> dict[str, Any]:
    """The ``[panel]`` section of ``--table panel``: the worked example's pins (docs/wiring.md), presses and
    timeouts scaled to the simulated build time ``build_s``."""
    return {
        "model": "simulated closed table",
        "debounce_s": 0.005,
        "start_timeout_s": 0.5,
        "build_timeout_s": max(1.0, build_s * 5),
        "raise_timeout_s": max(1.0, build_s * 2),
        "clear_timeout_s": 1.0,
        "buttons": {b.name: {"pin": b.pin, "press_s": 0.05} for b in EXAMPLE_PANEL.buttons},
        "signals": {s.name: {"pin": s.pin} for s in EXAMPLE_PANEL.signals},
    }


class DemoCamera(TableCamera, ObservationSource, Protocol):
    def open(self) -> ObservationSource: ...


class DemoStack:
    """Everything of one demo run.  ``emit`` receives the progress lines."""

    def __init__(self, opts: DemoOptions, emit: Emit) -> None:
        self.opts = opts
        self.emit = emit
        self.broker: LocalMosquitto | None = None
        self.host = "127.0.0.1"
        self.port = 0
        self.ws_url: str | None = opts.broker_ws
        self.mcu_proc: subprocess.Popen[bytes] | None = None
        self.pty = opts.mcu_pty
        self.store: SqlEventStore | None = None
        self.recorder: Recorder | None = None
        self.display: Any = None
        self.service: TableService | None = None
        self.world: DemoWorld | None = None
        self.gpio = FakeBackend(WallClock())
        self.camera: DemoCamera = DirectCamera()
        self.closed_table: SimulatedClosedTable | None = None
        self.cfg: Config | None = None
        self._log_handler: logging.Handler | None = None
        self._t0 = time.monotonic()
        self.hand_lines: list[dict[str, Any]] = []
        self.referee_commands = 0
        #: tests: end the run as soon as this holds for the engine state (e.g. "four discards seen")
        self.stop_when: Callable[[GameState], bool] | None = None

    def _make_camera(self) -> DemoCamera:
        if self.opts.camera == "direct":
            return DirectCamera()
        try:
            from mjtable.demo.simcamera import SimulatedCamera
        except ImportError as exc:
            raise RuntimeError(f"--camera sim needs the vision pipeline ({exc}); use --camera direct") from exc
        return SimulatedCamera(seed=self.opts.seed)

    # --- start ------------------------------------------------------------------------------------------
    def start(self) -> None:
        o = self.opts
        self.camera = self._make_camera()
        o.run_dir.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(o.run_dir / "service.log.jsonl")
        handler.setFormatter(JsonLineFormatter())
        logging.getLogger().addHandler(handler)
        logging.getLogger().setLevel(logging.INFO)
        self._log_handler = handler
        if o.broker is None:
            self.broker = LocalMosquitto(workdir=o.run_dir / "mosquitto", die_with_parent=True).start()
            self.port = self.broker.port
            self.ws_url = f"ws://127.0.0.1:{self.broker.ws_port}"
        else:
            host, _, port = o.broker.rpartition(":")
            self.host, self.port = host or "127.0.0.1", int(port)
        if o.table_link not in ("serial", "panel"):
            raise ValueError(f"table_link must be serial or panel, not {o.table_link!r}")
        if self.pty is None and o.table_link == "serial":
            self._start_mcu_sim()
        if o.recorder:
            self.store = SqlEventStore(f"sqlite:///{o.run_dir / 'recorder.sqlite'}")
            self.recorder = Recorder(self.store, self.host, self.port, client_id=f"mjtable-demo-rec-{o.table}").start()
        if o.display_port >= 0 and self.ws_url is not None:
            self._start_display()
        self.emit(
            {
                "event": "started",
                "run_dir": str(o.run_dir),
                "broker": f"{self.host}:{self.port}",
                "mcu_pty": self.pty,
                "rules": o.rules,
                "seed": o.seed,
                "camera": o.camera,
                "table": o.table_link,
                "resumed": (o.run_dir / f"{o.table}.journal.jsonl").exists(),
            }
        )

    def journaled_throws(self) -> int:
        """Dice throws the table's journal holds (0 for a new session): a resumed demo's simulated table starts
        at that throw, so its dice (a function of the seed and the throw's number) are an undisturbed run's."""
        journal = self.opts.run_dir / f"{self.opts.table}.journal.jsonl"
        if not journal.exists():
            return 0
        records, _ = read_records(journal)  # a corrupt journal: JournalCorruptError names the line
        return sum(1 for r in records if r.rec == "event" and r.event.get("type") == "dice_rolled")

    def _start_mcu_sim(self) -> None:
        cmd = [
            sys.executable,
            "-m",
            "mjtable.cli",
            "table-sim",
            "--seed",
            str(self.opts.seed),
            "--fast",
            "--build-s",
            str(self.opts.build_s),
            "--first-throw",
            str(self.journaled_throws()),
        ]
        log = open(self.opts.run_dir / "table-sim.log", "ab")  # noqa: SIM115 (the child keeps it open)
        self.mcu_proc = subprocess.Popen(with_parent_death(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=log)  # gone with a SIGKILLed demo
        assert self.mcu_proc.stdout is not None
        line = self.mcu_proc.stdout.readline()
        try:
            self.pty = str(json.loads(line)["pty"])
        except (ValueError, KeyError) as exc:
            raise RuntimeError(f"mjtable table-sim did not announce its pty (got {line[:200]!r})") from exc
        for control in self.opts.mcu_control:  # faults to inject, e.g. {"op": "reset_during_build"}
            assert self.mcu_proc.stdin is not None
            self.mcu_proc.stdin.write((json.dumps(control) + "\n").encode())
            self.mcu_proc.stdin.flush()
            reply = json.loads(self.mcu_proc.stdout.readline())
            self.emit({"event": "mcu_control", "command": control, "reply": reply})

    def _start_display(self) -> None:
        from mjtable.cli_display import make_server

        assert self.ws_url is not None
        server = make_server("127.0.0.1", self.opts.display_port, self.ws_url, table=self.opts.table)
        threading.Thread(target=server.serve_forever, name="demo.display", daemon=True).start()
        self.display = server
        port = int(server.server_address[1])
        note = ("local demo: the broker listens on 127.0.0.1 only and is anonymous, so the referee login accepts any "
                "name and password; a venue broker checks them (README: broker users)") if self.broker else None
        self.emit(
            {"event": "display", "url": f"http://127.0.0.1:{port}/?table={self.opts.table}", "broker_ws": self.ws_url,
             "login": note}
        )

    # --- play -------------------------------------------------------------------------------------------
    def config(self) -> Config:
        o = self.opts
        doc: dict[str, Any] = {
            "table": {
                "id": o.table,
                "rules": o.rules,
                "data_dir": str(o.run_dir),
                "information": "full",
                "players": ["Bot East", "Bot South", "Bot West", "Bot North"],
                "timers": o.timers,
            },
            "serial": {"port": self.pty or ""},
            "camera": {"source": "sim"},
            "mqtt": {"host": self.host, "port": self.port, "validate": o.validate},
            "gpio": {"backend": "fake", "bounce_s": 0.005},
            "service": {"display_port": 0},
        }
        if o.hands is not None:
            doc["table"]["hands"] = o.hands
        if o.table_link == "panel":
            doc["serial"] = {"port": ""}
            doc["panel"] = demo_panel_doc(o.build_s)
        return parse_config(doc, str(o.run_dir / "demo.toml"))

    async def play(self) -> dict[str, Any]:
        cfg = self.cfg = self.config()
        world_ref: list[DemoWorld] = []

        def wall_reader(build_id: int) -> tuple[str, ...]:
            return world_ref[0].wall_reader(build_id)

        inj = Injected(
            notifier=RecordingNotifier(), wall_reader=wall_reader, gpio_backend=self.gpio, observations=self.camera.open
        )
        service = self.service = build_service(cfg, inj)
        world = DemoWorld(
            service,
            seed=self.opts.seed,
            gpio=self.gpio,
            pinout=cfg.gpio.pinout,
            camera=self.camera,
            act_timeout_s=self.opts.act_timeout_s,
            referee_entry_s=self.opts.referee_entry_s,
        )
        world_ref.append(world)
        self.world = world
        service.listeners.append(self._on_step)
        table_dice = self._start_closed_table(cfg, service) if self.opts.table_link == "panel" else None
        run_task = asyncio.create_task(service.run(), name="demo.service")
        await service.ready.wait()
        self.emit(
            {
                "event": "service_ready",
                "ready_s": round(service.stats.ready_s or 0.0, 3),
                "resumed_at_seq": service.state.seq if service.table.resumed else None,
                "health": dict(service.health.parts),
            }
        )
        world_task = asyncio.create_task(world.run(), name="demo.world")
        referee = DemoReferee(service, self.host, self.port, truth=world.shown, table_dice=table_dice)
        referee_task = asyncio.create_task(referee.run(), name="demo.referee")
        waits = {run_task, world_task}
        if self.stop_when is not None:
            waits.add(asyncio.create_task(self._watch(service, self.stop_when), name="demo.stop_when"))
        done, pending_waits = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in pending_waits - {run_task, world_task}:
            task.cancel()
        if world_task in done:
            world_task.result()
            await self._wait_recorded(service)
        for task in (world_task, referee_task):  # the players leave the table first, then the service stops
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        service.stop()
        referee.close()
        self.referee_commands = len(referee.sent)
        await run_task
        return self._summary(service)

    def _start_closed_table(self, cfg: Config, service: TableService) -> TableDice:
        """``--table panel``: the simulated closed table on the demo's fake backend, where ``cfg.panel`` wires the
        adapter; returns how the floor referee reads its dice (its faults are cleared by the ``clear_fault``
        command, through the service's table link)."""
        assert cfg.panel is not None
        b = self.opts.build_s
        timing = ClosedTableTiming(build_s=b, raise_s=b / 10, start_delay_s=0.02, min_press_s=0.02)
        sim = simulated_closed_table(self.gpio, cfg.panel, timing, dice_seed=self.opts.seed,
                                     first_throw=self.journaled_throws())
        sim.on_change = service.changed.set  # the floor referee looks at the table when it changes
        sim.start(asyncio.get_running_loop())
        for fault in self.opts.panel_faults:
            sim.inject(fault)
        self.closed_table = sim

        def table_dice() -> tuple[int, tuple[int, int] | None]:
            return sim.dice_throws, sim.dice

        return table_dice

    async def _watch(self, service: TableService, stop_when: Callable[[GameState], bool]) -> None:
        while not stop_when(service.state):
            service.changed.clear()
            await service.changed.wait()

    def stop(self) -> None:
        """SIGINT/SIGTERM: stop the service (the journal keeps the session for a resume)."""
        if self.service is not None:
            self.service.stop()

    def _on_step(self, ev: Event, st: GameState, fx: tuple[Effect, ...]) -> None:
        for e in fx:
            if isinstance(e, HandEnded):
                r = e.result
                seated = seated_players(st)  # the seating the hand was played in (MCR rotates every round)
                line = {
                    "event": "hand",
                    "hand": len(st.history),
                    "kind": r.get("kind"),
                    "winners": r.get("winners"),
                    "winner_players": [seated[w] for w in r.get("winners") or []],
                    "total": r.get("total"),
                    "fans": [f["name"] for f in r.get("fans", [])],
                    "scores": list(st.session.scores),
                    "t_s": round(time.monotonic() - self._t0, 2),
                }
                self.hand_lines.append(line)
                self.emit(line)
            elif isinstance(e, SessionEnded):
                self.emit({"event": "session_end", "scores": e.scores, "ranking_points": e.ranking_points})

    async def _wait_recorded(self, service: TableService) -> None:
        """Give the recorder time to store the game end (it comes through the broker)."""
        if self.store is None:
            return
        deadline = time.monotonic() + self.opts.end_wait_s
        while time.monotonic() < deadline:
            events = await asyncio.to_thread(self.store.events, self.opts.table)
            if any(e.get("type") == "game_end" for e in events):
                return
            await asyncio.sleep(0.2)
        LOGGER.warning("the recorder did not receive the game end within %.0f s", self.opts.end_wait_s)

    def _summary(self, service: TableService) -> dict[str, Any]:
        st = service.state
        sess = st.session
        w = self.world
        return {
            "event": "summary",
            "ok": st.phase is Phase.SESSION_OVER,
            "rules": st.config.rules,
            "seed": self.opts.seed,
            "hands": len(st.history),
            "wins": sess.wins,
            "draws": sess.draws,
            "scores": list(sess.scores),
            "penalties": list(sess.penalties),
            "players": list(sess.players),
            "events_accepted": service.stats.accepted,
            "events_rejected": service.stats.rejected,
            "rejections": service.stats.rejections,
            "camera_events": w.stats.camera if w else 0,
            "button_presses": w.stats.buttons if w else 0,
            "operator_entries": w.stats.operator if w else 0,
            "stalls": w.stats.stalls if w else 0,
            "referee_entries": w.stats.referee_entries if w else 0,
            "referee_commands": self.referee_commands,
            **self._closed_table_figures(),
            "health": dict(service.health.parts),
            "seconds": round(time.monotonic() - self._t0, 2),
            "journal": str(self.opts.run_dir / f"{self.opts.table}.journal.jsonl"),
            **self._camera_figures(),
        }

    def _closed_table_figures(self) -> dict[str, Any]:
        """What the simulated closed table saw (``--table panel`` only)."""
        sim = self.closed_table
        if sim is None:
            return {}
        return {"table": "panel", "panel_presses": dict(sim.stats.presses), "panel_ignored": sim.stats.ignored,
                "panel_builds": sim.stats.builds, "panel_faults": list(sim.stats.faults),
                "dice_throws": sim.dice_throws}

    def _camera_figures(self) -> dict[str, Any]:
        """Frames the simulated camera ran through the pipeline and its frame rate cap (``--camera sim`` only)."""
        frames = getattr(self.camera, "frames", None)
        if not isinstance(frames, int):
            return {}
        return {"camera_frames": frames, "camera_fps_target": float(getattr(self.camera, "fps", 0.0))}

    # --- after ------------------------------------------------------------------------------------------
    def finish(self) -> dict[str, Any]:
        """Export game records and score sheets from the recorder database into ``<run_dir>/records``."""
        if self.store is None:
            return {}
        from mjtable.recorder.cli import export

        out = export(self.store, self.opts.run_dir / "records")
        return {
            "records": out.get("dir"),
            "games_recorded": out.get("games"),
            "recorded_events": len(self.store.events(self.opts.table)),
        }

    def close(self) -> None:
        if self.closed_table is not None:
            self.closed_table.close()
        if self.service is not None and self.service.mqtt is not None:
            with contextlib.suppress(Exception):
                self.service.mqtt.publisher.close()
        if self.service is not None:
            with contextlib.suppress(Exception):
                self.service.table.close()
        if self.display is not None:
            self.display.shutdown()
            self.display = None
        if self.recorder is not None:
            self.recorder.stop()
            self.recorder = None
        if self.store is not None:
            self.store.close()
            self.store = None
        if self.mcu_proc is not None:
            self.mcu_proc.terminate()
            try:
                self.mcu_proc.wait(5)
            except subprocess.TimeoutExpired:
                self.mcu_proc.kill()
                self.mcu_proc.wait(5)
            for stream in (self.mcu_proc.stdin, self.mcu_proc.stdout):
                if stream is not None:
                    stream.close()
            self.mcu_proc = None
        if self.broker is not None:
            self.broker.close()
            self.broker = None
        if self._log_handler is not None:
            logging.getLogger().removeHandler(self._log_handler)
            self._log_handler.close()
            self._log_handler = None
