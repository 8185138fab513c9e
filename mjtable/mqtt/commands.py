"""Referee command intake: size limit, JSON, schema, duplicates; every command gets one answer.

Commands arrive on ``mjtable/v1/table/<id>/referee/command/<referee user>`` (the ACL lets each referee
write only under its own user name, see ``deploy/mosquitto``, so the topic says who sent it: the payload's
``referee`` field is ignored), or on the bare ``.../referee/command`` of an anonymous local broker (referee
unknown).  :class:`CommandEndpoint` subscribes through a
:class:`~mjtable.mqtt.publisher.Publisher`, rejects oversized, non-JSON, schema-invalid and duplicate
payloads (logged at WARNING, answered on ``referee/result`` with ``ok: false``) and hands each valid
:class:`Command` to ``on_command``.  The owner applies it (e.g. feeds the engine) and calls
:meth:`CommandEndpoint.answer`.  ``on_command`` runs on the publisher's network thread: hand the command
to your loop (``loop.call_soon_threadsafe``) rather than doing work there.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mjtable import schemas
from mjtable.mqtt.channel import dumps
from mjtable.mqtt.payload import loads_bounded
from mjtable.mqtt.publisher import Publisher
from mjtable.mqtt.topics import TableTopics

LOGGER = logging.getLogger(__name__)

MAX_COMMAND_BYTES = 4096
COMMANDS = ("pause", "resume", "correct_tile", "correct_meld", "confirm", "reject", "apply_penalty", "waive_penalty",
            "confirm_penalty", "dead_hand", "end_session", "dice", "clear_fault")


@dataclass(frozen=True, slots=True)
class Command:
    """One validated referee command: ``args`` holds the fields beyond schema/id/command/referee/reason."""

    id: str
    command: str
    args: dict[str, Any]
    referee: str | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"schema": "mjtable.command/1", "id": self.id, "command": self.command, **self.args}
        if self.referee is not None:
            doc["referee"] = self.referee
        if self.reason is not None:
            doc["reason"] = self.reason
        return doc


class CommandError(ValueError):
    """A payload that is not a valid command; ``command_id`` is set when the payload named one."""

    def __init__(self, reason: str, command_id: str | None = None) -> None:
        self.reason = reason
        self.command_id = command_id
        super().__init__(reason)


class DuplicateCommandError(CommandError):
    """A command id seen before (a QoS 1 redelivery or a double click)."""


def parse_command(payload: bytes, *, max_bytes: int = MAX_COMMAND_BYTES) -> Command:
    """Decode and validate one command payload; raises :class:`CommandError` with a readable reason."""
    try:
        doc = loads_bounded(payload, max_bytes=max_bytes)
    except schemas.PayloadError as exc:
        raise CommandError(str(exc)) from exc
    cid = doc.get("id") if isinstance(doc, dict) and isinstance(doc.get("id"), str) else None
    try:
        schemas.validate("command", doc)
    except schemas.PayloadError as exc:
        raise CommandError(str(exc), cid[:64] if cid else None) from exc
    args = {k: v for k, v in doc.items() if k not in ("schema", "id", "command", "referee", "reason")}
    return Command(doc["id"], doc["command"], args, doc.get("referee"), doc.get("reason"))


def referee_of(topic: str, command_topic: str) -> str | None:
    """The authenticated referee of a command: the last level of ``<command topic>/<username>`` (the ACL lets a
    referee write only under its own user name, see :mod:`mjtable.mqtt.acl`); None on the bare command topic (an
    anonymous local broker).  Whatever the payload's ``referee`` field says is ignored."""
    if topic.startswith(command_topic + "/"):
        return topic[len(command_topic) + 1:][:64] or None
    return None


def engine_event_json(cmd: Command, at_s: float) -> dict[str, Any]:
    """The engine's ``referee`` input event (``controller.engine.events.RefereeCommand`` JSON) for ``cmd``; for
    ``dice``, the ``dice_rolled`` event with ``source: referee``.

    Feed it to ``controller.engine.events.event_from_json`` and then to ``step``; the event id is
    ``cmd:<command id>`` so a command replayed from the journal is dropped as a duplicate by the engine.
    """
    if cmd.command == "dice":  # the values of a throw the table cannot read (a closed table's panel)
        return {"type": "dice_rolled", "id": f"cmd:{cmd.id}", "at_s": at_s, "dice": list(cmd.args["dice"]),
                "source": "referee"}
    doc: dict[str, Any] = {"type": "referee", "id": f"cmd:{cmd.id}", "at_s": at_s, "command": cmd.command}
    for key in ("alert_id", "infraction_id", "seat", "player", "position", "tile", "tiles", "points"):
        if key in cmd.args:
            doc[key] = cmd.args[key]
    doc["reason"] = cmd.reason or (f"referee {cmd.referee}" if cmd.referee else "")
    return doc


def result_doc(table_id: str, command_id: str | None, ok: bool, error: str | None,
               ts_s: float | None = None) -> dict[str, Any]:
    """The ``mjtable.command_result/1`` answer to one command."""
    return {"schema": "mjtable.command_result/1", "table": table_id, "command_id": command_id, "ok": ok,
            "error": error, "ts_s": time.time() if ts_s is None else ts_s}


class CommandEndpoint:
    """Subscribes to one table's command topic and answers every command.

    Args:
        table_id: the table.
        publisher: subscribes to the command topic and publishes the results.
        on_command: called with each valid, new command (on the publisher's network thread).
        max_bytes: payload size limit.
        remember: how many recent command ids are kept for duplicate detection.
    """

    def __init__(self, table_id: str, publisher: Publisher, on_command: Callable[[Command], None], *,
                 max_bytes: int = MAX_COMMAND_BYTES, remember: int = 4096) -> None:
        self.topics = TableTopics(table_id)
        self.publisher = publisher
        self.on_command = on_command
        self.max_bytes = max_bytes
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._remember = remember
        self.rejected = 0

    def start(self) -> CommandEndpoint:
        self.publisher.subscribe(self.topics.command, self._on_message, qos=1)
        self.publisher.subscribe(self.topics.command + "/+", self._on_message, qos=1)
        return self

    def _on_message(self, topic: str, payload: bytes) -> None:
        try:
            cmd = parse_command(payload, max_bytes=self.max_bytes)
            cmd = replace(cmd, referee=referee_of(topic, self.topics.command))
            if cmd.id in self._seen:
                raise DuplicateCommandError(f"duplicate command id {cmd.id!r}", cmd.id)
        except DuplicateCommandError as exc:
            LOGGER.info("table %s: ignored %s", self.topics.table_id, exc.reason)
            return
        except CommandError as exc:
            self.rejected += 1
            LOGGER.warning("table %s: rejected command: %s", self.topics.table_id, exc.reason)
            self.answer(exc.command_id, ok=False, error=exc.reason)
            return
        except Exception as exc:  # never let a payload take the network thread down; still answer
            self.rejected += 1
            LOGGER.exception("table %s: command payload broke the parser", self.topics.table_id)
            self.answer(None, ok=False, error=f"unreadable command ({type(exc).__name__})")
            return
        self._seen[cmd.id] = None
        while len(self._seen) > self._remember:
            self._seen.popitem(last=False)
        self.on_command(cmd)

    def answer(self, command_id: str | None, *, ok: bool, error: str | None = None) -> None:
        """Publish the result of one command (call it once the command was applied or refused)."""
        doc = result_doc(self.topics.table_id, command_id, ok, error)
        self.publisher.publish(self.topics.command_result, dumps(doc), qos=1, retain=False)
