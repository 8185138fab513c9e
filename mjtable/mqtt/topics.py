"""The versioned MQTT topic tree of one table (``mjtable/v1/...``).

Layout (``<id>`` is the table id, ``[A-Za-z0-9_-]{1,32}``):

* ``mjtable/v1/table/<id>/state``            retained public state (``mjtable.public_state/1``), QoS 1
* ``mjtable/v1/table/<id>/events``           event stream (``mjtable.event/1``), QoS 1, not retained
* ``mjtable/v1/table/<id>/timers``           retained running countdowns (``mjtable.timers/1``), QoS 1
* ``mjtable/v1/table/<id>/status``           retained ``online``/``offline`` (``mjtable.status/1``), last will;
  optional ``degraded`` and ``parts`` (``{"mcu": "ok", "camera": "down: no frames"}``) from the service
* ``mjtable/v1/table/<id>/health``           retained service health detail (mjtable.service, referees only, no tiles)
* ``mjtable/v1/table/<id>/referee/state``    retained referee state (``mjtable.referee_state/1``), QoS 1
* ``mjtable/v1/table/<id>/referee/command``  referee commands in (``mjtable.command/1``), QoS 1
* ``mjtable/v1/table/<id>/referee/result``   one answer per command (``mjtable.command_result/1``), QoS 1
* ``mjtable/v1/table/<id>/referee/events``   alerts, rejections and infractions in full (``mjtable.event/1``), QoS 1
* ``mjtable/v1/table/<id>/referee/record``   retained complete game record at the game end
  (``mjtable.engine_record/1``: every accepted engine event, wall faces included), QoS 1; referees and recorders
* ``mjtable/v1/table/<id>/recorder/ack``     retained end-to-end acknowledgement from the recorder
  (``mjtable.recorder_ack/1``: every event of ``game`` up to ``seq`` is stored), QoS 1; recorders write, the table reads
* ``mjtable/v1/spectator/<id>/{state,events,timers}``  the public tree again, delayed by the broadcast delay

Pure and thread-safe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "mjtable/v1"
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")

#: topic leaf -> schema file stem (mjtable/schemas/<stem>.json)
PUBLIC_LEAVES = ("state", "events", "timers", "status")


class TopicError(ValueError):
    """A table id or topic that is not part of the mjtable tree."""


def check_table_id(table_id: str) -> str:
    """Return ``table_id`` if it is a valid id (letters, digits, ``_``, ``-``; 1-32 chars), else raise."""
    if not TABLE_ID_RE.match(table_id):
        raise TopicError(f"bad table id {table_id!r}: use 1-32 letters, digits, '_' or '-'")
    return table_id


@dataclass(frozen=True, slots=True)
class TableTopics:
    """All topic names of one table."""

    table_id: str
    prefix: str = PREFIX

    def __post_init__(self) -> None:
        check_table_id(self.table_id)

    @property
    def base(self) -> str:
        return f"{self.prefix}/table/{self.table_id}"

    @property
    def state(self) -> str:
        return f"{self.base}/state"

    @property
    def events(self) -> str:
        return f"{self.base}/events"

    @property
    def timers(self) -> str:
        return f"{self.base}/timers"

    @property
    def status(self) -> str:
        return f"{self.base}/status"

    @property
    def health(self) -> str:
        return f"{self.base}/health"

    @property
    def referee_state(self) -> str:
        return f"{self.base}/referee/state"

    @property
    def command(self) -> str:
        return f"{self.base}/referee/command"

    @property
    def command_result(self) -> str:
        return f"{self.base}/referee/result"

    @property
    def referee_events(self) -> str:
        return f"{self.base}/referee/events"

    @property
    def referee_record(self) -> str:
        return f"{self.base}/referee/record"

    @property
    def recorder_ack(self) -> str:
        return f"{self.base}/recorder/ack"

    @property
    def spectator_base(self) -> str:
        return f"{self.prefix}/spectator/{self.table_id}"

    def spectator(self, leaf: str) -> str:
        """The delayed mirror of a public leaf (``state``, ``events`` or ``timers``)."""
        if leaf not in ("state", "events", "timers"):
            raise TopicError(f"no spectator mirror for {leaf!r}")
        return f"{self.spectator_base}/{leaf}"

    def public_topics(self) -> tuple[str, ...]:
        """Every topic a spectator or public display may see (live and delayed)."""
        live = tuple(f"{self.base}/{leaf}" for leaf in PUBLIC_LEAVES)
        return live + tuple(self.spectator(leaf) for leaf in ("state", "events", "timers"))

    def is_public(self, topic: str) -> bool:
        return topic in self.public_topics()


#: wildcard subscriptions for consumers of every table on a broker
ALL_EVENTS = f"{PREFIX}/table/+/events"
ALL_STATES = f"{PREFIX}/table/+/state"
ALL_STATUS = f"{PREFIX}/table/+/status"
ALL_COMMANDS = f"{PREFIX}/table/+/referee/command"
ALL_RECORDS = f"{PREFIX}/table/+/referee/record"


def table_of(topic: str) -> tuple[str, str]:
    """Split ``mjtable/v1/table/<id>/<leaf...>`` into ``(id, leaf)``; raises :class:`TopicError`."""
    parts = topic.split("/")
    if len(parts) < 5 or "/".join(parts[:2]) != PREFIX or parts[2] not in ("table", "spectator"):
        raise TopicError(f"not an mjtable table topic: {topic!r}")
    return check_table_id(parts[3]), "/".join(parts[4:])
