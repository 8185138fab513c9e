"""SlotTracker debouncing and the event builder, without images."""

from __future__ import annotations

import pytest

from vision.pipeline.events import make_event
from vision.pipeline.tracking import EMPTY, SlotTracker

KEY = (0, "pond", 3)


def test_a_reading_commits_once_after_k_frames_and_gaps_do_not_break_it() -> None:
    tracker = SlotTracker(stable_frames=3)
    results = [tracker.observe(KEY, ("5p",), c) for c in (0.9, 0.8)]
    # an occluded or blurred frame is simply not observed: the streak survives
    results.append(tracker.observe(KEY, ("5p",), 0.7))
    results += [tracker.observe(KEY, ("5p",), 0.9) for _ in range(5)]
    commit = results[2]
    assert commit is not None and commit.value == ("5p",) and commit.confidence == pytest.approx(0.8)
    assert results[:2] == [None, None] and results[3:] == [None] * 5
    assert tracker.committed(KEY) == ("5p",)


def test_removal_is_silent_and_a_new_tile_commits_again() -> None:
    tracker = SlotTracker(stable_frames=2)
    seq = [("1m",), ("1m",), EMPTY, EMPTY, ("9s",), ("9s",)]
    commits = [tracker.observe(KEY, v, 1.0) for v in seq]
    assert [c.value for c in commits if c] == [("1m",), ("9s",)]


def test_a_slot_that_never_settles_is_flagged_once_with_its_most_common_reading() -> None:
    tracker = SlotTracker(stable_frames=3, unsettled_frames=8)
    values = [("3m",), ("2m",)] * 6 + [("3m",)]
    commits = [c for v in values if (c := tracker.observe(KEY, v, 0.9))]
    assert len(commits) == 1
    assert commits[0].unsettled and commits[0].value in (("3m",), ("2m",)) and commits[0].confidence == 0.0


def test_make_event_turns_weak_readings_into_uncertain() -> None:
    strong = make_event(
        "discard", seat=1, tiles=["5p"], claimed_from=None, position=0, confidence=0.9, frame_id=7, threshold=0.6
    )
    weak = make_event(
        "meld", seat=1, tiles=["5p"] * 3, claimed_from=0, position=0, confidence=0.4, frame_id=8, threshold=0.6
    )
    assert strong == {
        "type": "discard",
        "seat": 1,
        "tiles": ["5p"],
        "claimed_from": None,
        "position": 0,
        "confidence": 0.9,
        "frame_id": 7,
    }
    assert weak["type"] == "uncertain" and weak["about"] == "meld" and weak["claimed_from"] == 0
    with pytest.raises(ValueError, match="unknown vision event type"):
        make_event("wave", seat=0, tiles=[], claimed_from=None, position=0, confidence=1.0, frame_id=0)
