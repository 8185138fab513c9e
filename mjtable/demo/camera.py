"""The demo's cameras: what the world shows reaches the service as vision event dicts.

* :class:`DirectCamera` (``--camera direct``): the scene's ground truth, as the pipeline would report it
  (confidence 0.99) — for machines where rendering and classifying frames is too slow.
* The simulated camera feeding the real vision pipeline is :class:`mjtable.demo.simcamera.SimCamera`.

Both are at once the world's :class:`mjtable.demo.world.TableCamera` and the service's
:class:`mjtable.service.parts.ObservationSource`.  Loop thread only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from controller.engine.state import GameState


class DirectCamera:
    """Ground-truth observations, one per shown change, in order."""

    def __init__(self, confidence: float = 0.99) -> None:
        self.confidence = confidence
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._frame = 0

    def show(self, state: GameState, seat: int, observation: dict[str, Any]) -> None:
        self._frame += 1
        self._queue.put_nowait({**observation, "confidence": self.confidence, "frame_id": self._frame})

    def new_hand(self, state: GameState) -> None:
        """Nothing to do: ground truth has no memory of the last hand's tiles."""

    async def observations(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            obs = await self._queue.get()
            if obs is None:
                return
            yield obs

    async def aclose(self) -> None:
        self._queue.put_nowait(None)

    def open(self) -> DirectCamera:
        """The service's ``observations`` factory (the same object every time)."""
        return self
