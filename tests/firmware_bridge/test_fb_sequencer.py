"""Event sequencing: any arrival order with duplicates still delivers each event once, in seq order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.sequencer import EventSequencer, seq_add, seq_distance


@given(st.integers(1, 0xFFFF), st.integers(1, 60), st.data())
def test_any_order_with_duplicates_delivers_once_in_order(start: int, n: int, data: st.DataObject) -> None:
    seqs = [seq_add(start, i) for i in range(n)]
    arrivals = data.draw(st.permutations(seqs + data.draw(st.lists(st.sampled_from(seqs), max_size=20))))
    sq: EventSequencer[int] = EventSequencer()
    sq.restart(start)
    out: list[int] = []
    for s in arrivals:
        out += sq.offer(s, s)
    assert out == seqs
    assert sq.missing() is None and sq.expected == seq_add(start, n)


@given(st.integers(1, 0xFFFF), st.integers(2, 30), st.data())
def test_missing_names_the_first_gap(start: int, n: int, data: st.DataObject) -> None:
    seqs = [seq_add(start, i) for i in range(n)]
    hole = data.draw(st.integers(0, n - 2))
    sq: EventSequencer[int] = EventSequencer()
    sq.restart(start)
    delivered = [x for s in seqs if s != seqs[hole] for x in sq.offer(s, s)]
    assert delivered == seqs[:hole]
    assert sq.missing() == (seqs[hole], 1)
    assert sq.offer(seqs[hole], seqs[hole]) == seqs[hole:]


def test_trailing_loss_is_found_from_the_newest_seq() -> None:
    sq: EventSequencer[str] = EventSequencer()
    sq.restart(5)
    assert sq.missing(newest=4) is None
    assert sq.missing(newest=7) == (5, 3)


def test_skip_gives_up_on_lost_events() -> None:
    sq: EventSequencer[int] = EventSequencer()
    assert sq.offer(4, 4) == []
    assert sq.skip(3) == [4]
    assert sq.offer(2, 2) == [] and sq.duplicates == 1


def test_ring_arithmetic_wraps_without_zero() -> None:
    assert seq_add(0xFFFF, 1) == 1
    assert seq_distance(1, 0xFFFF) == 1
    assert seq_distance(0xFFFF, 1) == -1
