"""The demo's floor referee: answers what the table asks a referee for, through the real command path
(an MQTT client publishing ``mjtable.command/1`` to ``.../referee/command``, the service's ``CommandEndpoint``,
the engine, and the answer on ``.../referee/result``).

* the game is paused by a table fault (MCU fault, reset, link lost): wait ``resume_after_s``, then *resume*;
* a table that throws dice it cannot read (``--table panel``): enter the values read off the table
  (``dice`` command); a paused MCU or panel fault is cleared with the ``clear_fault`` command (the service
  clears it on the table link, then resumes), any other pause with *resume*;
* an uncertain camera read (``camera_uncertain``) that shows what the player really did (the world's truth):
  *confirm* it; any other camera alert: *reject* it (the player puts the tiles down again and the camera
  reads them afresh).

Deterministic ids (``demo-<alert id>-<command>``) make a resumed demo's repeats duplicates, not new commands.
A pause command the table has not answered while it stays paused is sent again, under the same id, every
``resend_after_s`` seconds (a floor referee who sees the table still stopped asks again; the table ignores a
repeat it already applied).
Decisions run on the service loop; the MQTT client runs paho's network thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.engine.state import GameState, Phase
from mjtable.mqtt.topics import TableTopics
from mjtable.service.runner import TableService

LOGGER = logging.getLogger(__name__)
#: () -> (throws so far, the last throw's values): dice the referee reads off a table that cannot report them
TableDice = Callable[[], tuple[int, tuple[int, int] | None]]


class DemoReferee:
    """Args: service: the table; host, port: the broker; resume_after_s: pause before resuming a fault (s);
    resend_after_s: how long an unanswered pause command waits before it is sent again (s)."""

    def __init__(self, service: TableService, host: str, port: int, *, resume_after_s: float = 1.0,
                 resend_after_s: float = 5.0, truth: dict[int, dict[str, Any]] | None = None,
                 table_dice: TableDice | None = None) -> None:
        self.service = service
        self.resend_after_s = resend_after_s
        #: pause commands not answered yet: command id -> (the document, the pause's seq, monotonic time sent)
        self._unanswered: dict[str, tuple[dict[str, Any], int, float]] = {}
        self.table_dice = table_dice
        self._dice_entered = 0
        self.truth = truth if truth is not None else {}
        self.topics = TableTopics(service.state.config.table_id)
        self.resume_after_s = resume_after_s
        self.sent: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._acted: set[str] = set()
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"demo-referee-{self.topics.table_id}")
        self._client.on_connect = lambda c, *_: c.subscribe(self.topics.command_result, qos=1)
        self._client.on_message = self._on_result
        self._client.connect_async(host, port)
        self._client.loop_start()

    def _on_result(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:  # paho thread
        with self._lock:
            self.results.append(json.loads(msg.payload))

    def command(self, command: str, key: str, **args: Any) -> dict[str, Any]:
        """Publish one referee command (QoS 1); returns the document sent."""
        doc = {"schema": "mjtable.command/1", "id": f"demo-{key}-{command}"[:64], "command": command,
               "referee": "demo", **args}
        self._send(doc)
        return doc

    def _send(self, doc: dict[str, Any]) -> None:
        self.sent.append(doc)
        self._client.publish(self.topics.command, json.dumps(doc).encode(), qos=1)

    def _answered(self, command_id: str) -> bool:
        with self._lock:
            return any(r.get("command_id") == command_id for r in self.results if isinstance(r, dict))

    def _resend_unanswered(self, st: GameState) -> None:
        """Send again each pause command still unanswered after ``resend_after_s`` while its pause lasts."""
        now = time.monotonic()
        for cid, (doc, seq, sent_at) in list(self._unanswered.items()):
            if self._answered(cid) or not st.paused or st.seq != seq:
                del self._unanswered[cid]
            elif now - sent_at >= self.resend_after_s:
                LOGGER.warning("demo referee: no answer to %s after %.0f s, sending it again", cid, now - sent_at)
                self._send(doc)
                self._unanswered[cid] = (doc, seq, now)

    async def run(self) -> None:
        """Watch the table and step in when needed (service loop)."""
        while True:
            # cleared before the state is read, not after deciding: a change while deciding (which may wait out
            # a pause) leaves the event set, so the next wait returns at once and the change is looked at
            self.service.changed.clear()
            st = self.service.state
            await self._decide(st)
            self._resend_unanswered(self.service.state)
            if self.table_dice is None and not self._unanswered:
                await self.service.changed.wait()
            else:  # a throw changes no engine state, an unanswered command no state either: look again soon
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.service.changed.wait(), min(0.5, self.resend_after_s))

    async def _decide(self, st: GameState) -> None:
        if st.paused:
            key = f"pause{st.seq}"
            if key not in self._acted:
                self._acted.add(key)
                await asyncio.sleep(self.resume_after_s)
                if self.service.state.paused:  # a table fault is cleared at the MCU (CLEAR_FAULT), then resumed
                    fault = any(a.open and a.kind == "mcu_fault" for a in self.service.state.alerts)
                    doc = self.command("clear_fault" if fault else "resume", key,
                                       reason="table fault cleared (demo referee)")
                    self._unanswered[doc["id"]] = (doc, st.seq, time.monotonic())
            return
        if self.table_dice is not None and st.phase is Phase.DICE:
            throws, values = self.table_dice()
            if throws > self._dice_entered and values is not None:
                self._dice_entered = throws
                # keyed by the engine's seq: unique in the session, also after a resume (the throw count restarts)
                self.command("dice", f"dice{st.seq}", dice=list(values), reason="read off the table")
        for alert in st.alerts:
            if not alert.open or alert.id in self._acted or not alert.kind.startswith("camera_"):
                continue
            self._acted.add(alert.id)
            obs = dict(alert.data).get("observation")
            # the engine can only apply a typed reading; a pipeline "uncertain" (type unknown) is rejected and the
            # player puts the tiles down again
            typed = isinstance(obs, dict) and obs.get("type") != "uncertain"
            verdict = "confirm" if alert.kind == "camera_uncertain" and typed and self._true(obs) else "reject"
            self.command(verdict, alert.id, alert_id=alert.id)

    def _true(self, obs: object) -> bool:
        """Whether an uncertain camera reading shows what the player really did (the world's last act)."""
        if not isinstance(obs, dict):
            return False
        truth = self.truth.get(int(obs.get("seat", -1)))
        if truth is None:
            return False
        kind = obs.get("about", obs.get("type"))
        return bool(kind == truth["type"] and sorted(obs.get("tiles", [])) == sorted(truth.get("tiles", [])))

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
