"""Per-slot tracking over frames: a reading counts only once it has been the same for ``stable_frames``.

Each slot (a pond position, a meld position, a seat's shown hand) has a key.  Every frame in which the
slot's zone was readable the pipeline calls :meth:`SlotTracker.observe` with what it read there (a
signature: a tuple of codes and layout, or ``EMPTY``), with a confidence.  Frames that are blurred, or in
which the zone was occluded, are simply not observed: they neither confirm nor break a streak.

A new stable reading is *committed* and returned once; a slot that stays readable but never settles for
``unsettled_frames`` is returned once as unsettled (the pipeline turns that into an ``uncertain`` event).
Every commit carries ``previous``: the slot's last stable reading since it was last seen empty (``EMPTY`` when
the slot has been empty since).  A commit with a ``previous`` is a *re-read* of something already there (the
camera moved and was recalibrated, the light changed, the classifier flickered on a new pose): the tiles
were not lifted in between, so the pipeline reports a meld or shown hand again only when its layout changed
(a promoted kong).  Pond slots keep reporting (a discard laid where a claimed tile lay under a hand is new;
the pipeline's per-tile vote keeps a tile that stayed in place from flipping).
Pure bookkeeping; call from one thread.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

EMPTY: tuple[Any, ...] = ()


@dataclass
class _Slot:
    committed: tuple[Any, ...] = EMPTY
    candidate: tuple[Any, ...] = EMPTY
    streak: int = 0
    confidences: list[float] = field(default_factory=list)
    unsettled: int = 0
    seen: Counter[tuple[Any, ...]] = field(default_factory=Counter)
    flagged: bool = False
    #: last stable non-EMPTY reading since the slot was last committed EMPTY
    reported: tuple[Any, ...] = EMPTY


@dataclass(frozen=True, slots=True)
class Commit:
    """A slot's reading became stable (``unsettled`` False) or would not settle (``unsettled`` True).

    ``previous``: the slot's last stable reading since it was last seen empty (``EMPTY`` if none): when set,
    this commit re-reads tiles that stayed in place (see the module doc)."""

    key: tuple[Any, ...]
    value: tuple[Any, ...]
    confidence: float
    unsettled: bool = False
    previous: tuple[Any, ...] = EMPTY


class SlotTracker:
    """Debounces readings per slot (see module doc)."""

    def __init__(self, stable_frames: int = 3, unsettled_frames: int = 12) -> None:
        if stable_frames < 1:
            raise ValueError("stable_frames must be >= 1")
        self.stable_frames = stable_frames
        self.unsettled_frames = max(unsettled_frames, stable_frames + 1)
        self._slots: dict[tuple[Any, ...], _Slot] = {}

    def committed(self, key: tuple[Any, ...]) -> tuple[Any, ...]:
        """The slot's committed reading (EMPTY if none)."""
        slot = self._slots.get(key)
        return EMPTY if slot is None else slot.committed

    def keys(self) -> list[tuple[Any, ...]]:
        return list(self._slots)

    def observe(self, key: tuple[Any, ...], value: tuple[Any, ...], confidence: float) -> Commit | None:
        """Record one frame's reading of slot ``key``; returns a Commit when it becomes stable."""
        slot = self._slots.setdefault(key, _Slot())
        if value == slot.candidate:
            slot.streak += 1
        else:
            slot.candidate, slot.streak, slot.confidences = value, 1, []
        slot.confidences.append(confidence)
        if value not in (slot.committed, EMPTY):
            slot.unsettled += 1
            slot.seen[value] += 1
        if slot.streak >= self.stable_frames and value != slot.committed:
            slot.committed = value
            slot.unsettled, slot.flagged = 0, False
            slot.seen.clear()
            previous, slot.reported = slot.reported, value
            if value == EMPTY:
                return None
            return Commit(key, value, sum(slot.confidences) / len(slot.confidences), previous=previous)
        if value == slot.committed:
            slot.unsettled = 0
            slot.seen.clear()
        if slot.unsettled >= self.unsettled_frames and not slot.flagged:
            slot.flagged = True
            common, _ = slot.seen.most_common(1)[0]
            return Commit(key, common, 0.0, unsettled=True, previous=slot.reported)
        return None
