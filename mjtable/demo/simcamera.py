"""``--camera sim``: the simulated camera (``vision.simcam``) filming the demo's table, every frame
going through the real vision pipeline (``vision.pipeline`` with the ONNX classifier).

The world shows each act as a change of the :class:`vision.scene.TableScene` (built from the engine's referee
view, :mod:`mjtable.demo.scenes`); :class:`~mjtable.service.camera.ThreadedPipelineSource` renders frames at
``fps`` on a worker thread and runs the pipeline on them; its vision event dicts reach the service as camera
observations, exactly as from a real camera.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from controller.engine.state import GameState
from controller.views import referee_view
from mjtable.demo.scenes import scene_from_view, with_change
from mjtable.service.camera import FramePipeline, ThreadedPipelineSource, default_pipeline
from vision.scene import TableScene

#: frames a re-shown change is lifted off the table (more than the pipeline's stable_frames)
BLINK_FRAMES = 5
#: camera nudges (dx, dy) in frame pixels when a change is re-shown, cycled: the pipeline's calibration re-check
#: follows the moved camera, and the re-laid tiles land on other pixels than in the misread frames (a nudge under
#: the 3 px move tolerance was tried and does not change a misread sideways tile)
RESHOW_NUDGES_PX: tuple[tuple[float, float], ...] = ((6.0, 0.0), (0.0, 6.0), (-6.0, 0.0), (0.0, -6.0), (0.0, 0.0))


class SimulatedCamera:
    """Both the world's camera (``show``) and the service's observation source (``observations``)."""

    def __init__(
        self, *, seed: int = 0, fps: float = 15.0, pipeline_factory: Callable[[], FramePipeline] | None = None
    ) -> None:
        from vision.simcam import SimCamera

        self.cam = SimCamera(seed=seed)
        self.scene = TableScene()
        self._base = TableScene()
        self._blink = 0
        self._reshows = 0
        self._lock = threading.Lock()
        # the pipeline reports every reading typed (threshold 0.2); the engine's own camera_min_confidence then
        # turns the doubtful ones into referee alerts that a referee can confirm (an untyped "uncertain" cannot be)
        self.pipeline = pipeline_factory() if pipeline_factory else default_pipeline(0.2, allow_template=True)
        self.source = ThreadedPipelineSource(self._render, self.pipeline, fps=fps)

    def show(self, state: GameState, seat: int, observation: dict[str, Any]) -> None:
        base = scene_from_view(referee_view(state))
        scene = with_change(base, observation)
        with self._lock:
            if scene == self.scene:  # shown before and not taken: the player picks the tiles up and puts them
                self._blink = BLINK_FRAMES  # down again, so the camera reads them afresh; laying them down
                self._reshows += 1  # jostles the table, so the camera sees them from a slightly different pose
                step = RESHOW_NUDGES_PX[self._reshows % len(RESHOW_NUDGES_PX)]
                self.cam.bump(*step)
            self._base, self.scene = base, scene

    def new_hand(self, state: GameState) -> None:
        """The last hand's tiles were swept into the table and the new hand dealt: the camera sees the table as
        ``state`` shows it (without this the last hand's ponds would stay in view until the first discard, and
        a first discard equal to the tile that lay in that pond slot last hand would never look new)."""
        scene = scene_from_view(referee_view(state))
        with self._lock:
            self._base = self.scene = scene
            self._blink = 0

    def _render(self) -> Any:  # worker thread
        with self._lock:
            scene = self.scene
            if self._blink > 0:
                self._blink -= 1
                scene = self._base
        return self.cam.render(scene)

    @property
    def frames(self) -> int:
        """Frames rendered and run through the pipeline so far (read from any thread)."""
        return self.source.frames

    @property
    def fps(self) -> float:
        """The pipeline's frame rate cap, frames per second."""
        return self.source.fps

    def open(self) -> SimulatedCamera:
        return self

    def observations(self) -> AsyncIterator[dict[str, Any]]:
        return self.source.observations()

    async def aclose(self) -> None:
        await self.source.aclose()
