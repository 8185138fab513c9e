"""MQTT for mjtable: versioned topics, schema-checked payloads, a publisher with an outbox and last will,
the hidden-information guard, the delayed spectator mirror and referee command intake.

Import paths used by other packages:

* :class:`mjtable.mqtt.topics.TableTopics`, :data:`mjtable.mqtt.topics.PREFIX`
* :class:`mjtable.mqtt.publisher.Publisher` (protocol), :class:`mjtable.mqtt.publisher.PahoPublisher`
* :class:`mjtable.mqtt.fake.MemoryBroker`, :class:`mjtable.mqtt.fake.FakePublisher`
* :class:`mjtable.mqtt.channel.TableChannel`
* :class:`mjtable.mqtt.commands.CommandEndpoint`, :class:`mjtable.mqtt.commands.Command`
* :func:`mjtable.mqtt.guard.check_public`, :class:`mjtable.mqtt.guard.HiddenInformationError`
* :func:`mjtable.mqtt.acl.render_acl`
"""

from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.commands import Command, CommandEndpoint, CommandError, parse_command
from mjtable.mqtt.guard import HiddenInformationError, check_public
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import Message, PahoPublisher, Publisher
from mjtable.mqtt.topics import PREFIX, TableTopics

__all__ = [
    "PREFIX",
    "Command",
    "CommandEndpoint",
    "CommandError",
    "HiddenInformationError",
    "Message",
    "Outbox",
    "PahoPublisher",
    "Publisher",
    "TableChannel",
    "TableTopics",
    "check_public",
    "parse_command",
]
