"""The recorder's fast envelope check accepts exactly what the JSON Schema of mjtable.event/1 accepts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjtable import schemas
from mjtable.recorder.envelope import check_event, is_event_envelope

GOOD: dict[str, Any] = {"schema": "mjtable.event/1", "table": "T1", "game": "T1-g", "id": "T1-g:1", "seq": 1,
                        "ts_s": 1.5, "type": "discard", "data": {"seat": 0, "tile": "5p"}}

_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, min_value=-3,
                                                                              max_value=3),
                    st.sampled_from([0.0, 2.0, 1e300, -0.0]), st.text(max_size=40),
                    st.sampled_from(["T1", "T1\n", "", "a" * 32, "a" * 33, "t-_9", "discard", "Discard", "x" * 48,
                                     "x" * 49, "mjtable.event/1", "mjtable.event/2", "y" * 128, "y" * 129,
                                     "ü", "5p"]),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.lists(st.integers(),
                                                                                               max_size=2))


@st.composite
def envelopes(draw: st.DrawFn) -> Any:
    doc = dict(GOOD)
    for key in draw(st.lists(st.sampled_from([*GOOD, "extra"]), max_size=3, unique=True)):
        if draw(st.booleans()):
            doc.pop(key, None)
        else:
            doc[key] = draw(_values)
    return doc


@settings(max_examples=600, deadline=None)
@given(envelopes())
def test_fast_check_agrees_with_the_schema(doc: Any) -> None:
    assert is_event_envelope(doc) == schemas.is_valid("event", doc), doc


@pytest.mark.parametrize("doc", [GOOD, {**GOOD, "seq": 3.0}, {**GOOD, "game": None}, {k: v for k, v in GOOD.items()
                                                                                          if k != "game"}])
def test_good_envelopes(doc: dict[str, Any]) -> None:
    assert is_event_envelope(doc) and schemas.is_valid("event", doc)
    check_event(doc)


@pytest.mark.parametrize("doc", [[], "x", {**GOOD, "seq": True}, {**GOOD, "seq": -1}, {**GOOD, "ts_s": False},
                                 {**GOOD, "table": "T 1"}, {**GOOD, "type": "BAD"}, {**GOOD, "extra": 1},
                                 {**GOOD, "id": ""}, {**GOOD, "data": []}, {**GOOD, "seq": 1.5}])
def test_bad_envelopes_get_the_schema_error(doc: Any) -> None:
    assert not is_event_envelope(doc) and not schemas.is_valid("event", doc)
    with pytest.raises(schemas.PayloadError, match=r"mjtable\.event/1"):
        check_event(doc)
