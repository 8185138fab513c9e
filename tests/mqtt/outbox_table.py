"""One table process's publishing side as the service builds it, with its broker out of reach: a
:class:`~mjtable.mqtt.channel.TableChannel` over a ``PahoPublisher`` (never started) into the persistent outbox
ledger.  What a broker would be handed on reconnect is the outbox's content, in order; :meth:`OutboxTable.restart`
is the process killed and started again on the same file."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from controller.engine.state import GameState
from controller.views import public_view
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics

Source = Callable[[], Sequence[Mapping[str, Any]]]


class OutboxTable:
    """Table ``table`` publishing game ``game``; ``infractions``: the channel's source of the session's infractions."""

    def __init__(self, path: Path, *, table: str = "T1", game: str = "T1-g1",
                 infractions: Source | None = None) -> None:
        self.path = path
        self.table = table
        self.game = game
        self.infractions = infractions
        self.topics = TableTopics(table)
        self.ledger = Outbox(path)
        self.channel = self._channel()

    def _channel(self) -> TableChannel:
        publisher = PahoPublisher("127.0.0.1", 1, f"mjtable-{self.table}", outbox=self.ledger)  # never started
        return TableChannel(self.table, publisher, clock=lambda: 1.0, game_id=self.game, ledger=self.ledger,
                            infractions=self.infractions)

    def show(self, state: GameState) -> None:
        """Publish the views of ``state``, as the service does after each step."""
        self.channel.publish_state(public_view(state, self.table))

    def restart(self) -> None:
        self.ledger.close()
        self.ledger = Outbox(self.path)
        self.channel = self._channel()

    def payloads(self) -> list[bytes]:
        """The public events in the outbox, as sent."""
        return [m.payload for m in self.ledger.pending() if m.topic == self.topics.events]

    def sent(self) -> list[dict[str, Any]]:
        """The public events in the outbox, in the order a broker gets them."""
        return [json.loads(p) for p in self.payloads()]

    def close(self) -> None:
        self.ledger.close()
