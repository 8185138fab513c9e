"""Venue topology: per-room mosquitto brokers bridged to one venue broker (topic names unchanged).

A room broker serves the tables of one room (their Pis connect to it on the room LAN); its bridge forwards every
table topic *out* to the venue broker (public, referee, status, records, the spectator mirror) and referee
commands *in*, so the recorders, the standings and the referee displays on the venue broker see every table
under the same ``mjtable/v1/...`` names as on a single broker.  Commands are the only topics bridged in, and
never out again, so nothing loops.  The bridge keeps a persistent session on both sides (``cleansession
false``): while the venue broker is away the room broker queues the tables' QoS 1 messages and delivers them
when the bridge is back.  The bridge reports its own link on ``mjtable/v1/bridge/<room>/state`` (``1`` up,
``0`` down, retained; the venue broker publishes ``0`` as the bridge's last will when the room is lost).

:func:`room_bridge_config` renders the mosquitto config lines for a room broker; :func:`bridge_acl_rules` the
venue ACL lines for the bridge's user.  Pure functions; thread-safe.  See docs/mqtt.md ("Venue topology").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mjtable.mqtt.topics import PREFIX, check_table_id

#: table topic leaves a room sends to the venue (everything a table writes); commands come the other way
OUT_LEAVES = ("state", "events", "timers", "status", "health", "referee/state", "referee/result", "referee/events",
              "referee/record")
#: commands (bare on an anonymous broker, ``/<referee user>`` under the venue ACL) and the recorder's end-to-end ack
IN_LEAVES = ("referee/command", "referee/command/+", "recorder/ack")
ROOM_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def bridge_state_topic(room: str) -> str:
    """The retained ``1``/``0`` link state of a room's bridge (on both brokers)."""
    return f"{PREFIX}/bridge/{check_room(room)}/state"


def check_room(room: str) -> str:
    if not ROOM_RE.match(room):
        raise ValueError(f"bad room id {room!r}: use 1-32 letters, digits, '_' or '-'")
    return room


def _table_patterns(tables: Sequence[str] | None) -> list[str]:
    return ["+"] if tables is None else [check_table_id(t) for t in tables]


def room_bridge_config(room: str, venue_host: str, venue_port: int, *, tables: Sequence[str] | None = None,
                       username: str | None = None, password: str | None = None, qos: int = 1,
                       restart_timeout_s: tuple[int, int] = (1, 10), cafile: str | None = None) -> str:
    """Mosquitto config lines (append to the room broker's config) for the bridge of ``room`` to the venue.

    Args:
        room: the room's id (bridge name ``room-<room>``, remote client id ``bridge-<room>``).
        venue_host, venue_port: the venue broker.
        tables: the room's table ids (None: every table that connects to this broker, ``+``).
        username, password: the bridge's user on the venue broker (:func:`bridge_acl_rules`); the password sits
            in the config file, so keep that file readable by mosquitto only.
        cafile: verify the venue broker's TLS certificate with this CA (the venue LAN default; None: plain TCP).
    """
    check_room(room)
    if qos not in (1, 2):
        raise ValueError("bridge QoS must be 1 or 2: the tables' events must not be dropped")
    lines = [f"connection room-{room}", f"address {venue_host}:{int(venue_port)}", f"remote_clientid bridge-{room}",
             f"local_clientid bridge-{room}-local", "bridge_protocol_version mqttv311", "cleansession false",
             "start_type automatic", f"restart_timeout {restart_timeout_s[0]} {restart_timeout_s[1]}",
             "keepalive_interval 10", "try_private true", "notifications true", "notifications_local_only false",
             f"notification_topic {bridge_state_topic(room)}"]
    if username is not None:
        lines.append(f"remote_username {username}")
        if password is not None:
            if any(c.isspace() for c in password):
                raise ValueError("the bridge password must not contain whitespace (mosquitto config syntax)")
            lines.append(f"remote_password {password}")
    if cafile is not None:
        lines.append(f"bridge_cafile {cafile}")
    for t in _table_patterns(tables):
        lines += [f"topic {PREFIX}/table/{t}/{leaf} out {qos}" for leaf in OUT_LEAVES]
        lines.append(f"topic {PREFIX}/spectator/{t}/# out {qos}")
        lines += [f"topic {PREFIX}/table/{t}/{leaf} in {qos}" for leaf in IN_LEAVES]
    return "\n".join(lines) + "\n"


def bridge_watch_acl_rules(username: str) -> str:
    """Venue ACL lines that let ``username`` (a referee, the organiser's standings) read every bridge's state."""
    return f"# bridge link states\nuser {username}\ntopic read {PREFIX}/bridge/+/state\n"


def bridge_acl_rules(username: str, room: str, tables: Sequence[str] | None = None) -> str:
    """Venue broker ACL lines for a room bridge's user: write the room's table topics, read their commands."""
    check_room(room)
    lines = [f"# bridge of room {room}", f"user {username}", f"topic readwrite {bridge_state_topic(room)}"]
    for t in _table_patterns(tables):
        lines += [f"topic write {PREFIX}/table/{t}/{leaf}" for leaf in OUT_LEAVES]
        lines.append(f"topic write {PREFIX}/spectator/{t}/#")
        lines += [f"topic read {PREFIX}/table/{t}/{leaf}" for leaf in IN_LEAVES]
    return "\n".join(lines) + "\n"
