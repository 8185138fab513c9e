"""Bad input is rejected with a stable reason and leaves the state untouched (issue 3, "Journal")."""

from __future__ import annotations

import pytest

from controller.engine.events import EventFormatError, event_from_json
from tests.engine.engine_helpers import PRIORITY_HANDS, Table, pass_all


@pytest.fixture
def table() -> Table:
    t = Table()
    t.deal(PRIORITY_HANDS)
    return t


def test_out_of_turn(table: Table) -> None:
    assert table.rejected("discard", seat=2, tile="5p").reason == "out_of_turn"


def test_tile_not_held(table: Table) -> None:
    assert table.rejected("discard", seat=0, tile="9s").reason == "not_held"


def test_unknown_tile(table: Table) -> None:
    assert table.rejected("discard", seat=0, tile="8z").reason == "unknown_tile"
    assert table.rejected("discard", seat=0, tile="xx").reason == "unknown_tile"


def test_bad_seat(table: Table) -> None:
    assert table.rejected("discard", seat=7, tile="5p").reason == "bad_seat"


def test_duplicate_id(table: Table) -> None:
    table.ok("discard", seat=0, tile="5p")
    table.n -= 1  # reuse the last id
    assert table.rejected("button", seat=1, button="pass").reason == "duplicate_id"


def test_illegal_claims(table: Table) -> None:
    table.ok("discard", seat=0, tile="5p")
    assert table.rejected("claim", seat=0, kind="pung", dt_s=0.1).reason == "illegal_claim"  # own discard
    assert table.rejected("claim", seat=1, kind="steal", dt_s=0.1).reason == "bad_event"
    # a call the seat cannot make is an empty call (空碰), recorded, not refused (issue 16 point 8,
    # tests/fidelity/test_mcr_referee.py); the seat has then acted on this discard
    table.ok("claim", seat=1, kind="pung", dt_s=0.1)
    assert table.state.infractions[-1].kind == "empty_call"
    assert table.rejected("claim", seat=1, kind="chow", tiles=["3p", "4p"], dt_s=0.1).reason == "already_acted"
    assert table.rejected("button", seat=1, button="pass", dt_s=0.1).reason == "already_acted"


def test_no_window_and_wrong_phase(table: Table) -> None:
    assert table.rejected("claim", seat=1, kind="pung").reason == "no_window"
    assert table.rejected("dice_rolled", dice=[1, 2]).reason == "wrong_phase"
    assert table.rejected("table_built", tiles=None).reason == "wrong_phase"
    assert table.rejected("button", seat=0, button="ready").reason == "wrong_phase"


def test_paused_then_resumed(table: Table) -> None:
    table.ok("referee", command="pause")
    assert table.rejected("discard", seat=0, tile="5p").reason == "paused"
    table.ok("referee", command="resume")
    table.ok("discard", seat=0, tile="5p")


def test_unknown_alert_and_infraction(table: Table) -> None:
    assert table.rejected("referee", command="confirm", alert_id="nope").reason == "unknown_alert"
    assert table.rejected("referee", command="waive_penalty", infraction_id="x").reason == "unknown_infraction"
    assert table.rejected("referee", command="dance").reason == "bad_event"


def test_session_over_rejects_play() -> None:
    t = Table()
    t.ok("referee", command="end_session")
    assert t.rejected("table_built", tiles=None).reason == "session_over"


def test_second_session_start_is_rejected(table: Table) -> None:
    assert table.rejected("session_start").reason == "bad_event"


def test_a_wall_that_is_not_one_tile_set() -> None:
    t = Table()
    tiles = ["1m"] * 144
    assert t.rejected("table_built", tiles=tiles).reason == "impossible_tile"
    assert t.rejected("table_built", tiles=["1m"] * 10).reason == "bad_event"
    assert t.rejected("table_built", tiles=None).reason == "bad_event"  # full information needs the faces


def test_bad_dice() -> None:
    t = Table()
    from tests.engine.engine_helpers import stacked_wall

    t.ok("table_built", tiles=list(stacked_wall(PRIORITY_HANDS)))
    assert t.rejected("dice_rolled", dice=[0, 7]).reason == "bad_event"


def test_wall_empty_kong_is_rejected_and_last_discard_allows_only_a_win() -> None:
    t = Table()
    t.deal(PRIORITY_HANDS)
    # play the wall out with bots' worth of discards: everyone discards what they drew
    t.ok("discard", seat=0, tile="5p")
    pass_all(t)
    while t.state.hand is not None and t.state.hand.result is None:
        hand = t.state.hand
        assert hand.turn is not None
        seat = hand.turn
        drawn = hand.drawn
        assert drawn is not None
        if drawn.is_flower:
            t.ok("flower", seat=seat, tile=drawn.code)
            continue
        if hand.wall_remaining == 0:  # no replacement left for a kong [000:L390]
            assert t.rejected("concealed_kong", seat=seat, tile=drawn.code).reason == "wall_empty"
        t.ok("discard", seat=seat, tile=drawn.code)
        if t.state.hand is not None and t.state.hand.wall_remaining == 0 and t.state.hand.claim is not None:
            assert t.rejected("claim", seat=(seat + 2) % 4, kind="pung").reason in ("illegal_claim", "not_held")
        pass_all(t)
    assert t.state.history[-1].kind == "draw"


@pytest.mark.parametrize("obj", [
    {"type": "nope", "id": "a", "at_s": 1.0},
    {"type": "discard", "at_s": 1.0, "seat": 0, "tile": "1m"},
    {"type": "discard", "id": "a", "at_s": "soon", "seat": 0, "tile": "1m"},
    {"type": "discard", "id": "a", "at_s": 1.0, "seat": 0, "tile": "1m", "extra": 1},
    ["not", "an", "object"],
])
def test_malformed_event_json(obj: object) -> None:
    with pytest.raises(EventFormatError):
        event_from_json(obj)  # type: ignore[arg-type]


def test_every_event_round_trips_through_json() -> None:
    from controller.engine.events import EVENT_TYPES

    for kind, cls in EVENT_TYPES.items():
        ev = cls(id=f"x-{kind}", at_s=12.5)
        assert event_from_json(ev.to_json()) == ev


@pytest.mark.parametrize(("tileset", "codes", "message"), [
    ("mcr", "1111m2z2z2z2z2z", "fifth copy of 2z"),  # honours: the path TileSet.check used to get wrong
    ("mcr", "0m", "not in the MCR tile set"),
    ("mcr", "1f1f", "copy #2 of 1f"),
    ("riichi", "05m0m", "too many red fives 0m"),
    ("riichi", "7z7z7z7z7z", "fifth copy of 7z"),
    ("riichi", "1f", "not in the riichi tile set"),
    ("sichuan", "1z", "not in the Sichuan tile set"),
])
def test_check_set_rejects_what_no_set_holds(tileset: str, codes: str, message: str) -> None:
    from controller.engine.errors import Reject
    from controller.engine.procedure import check_set
    from mjtable.tiles import TILESETS, parse_tiles

    ts = TILESETS[tileset]
    with pytest.raises(Reject) as err:
        check_set(ts, tuple(parse_tiles(codes)))
    assert err.value.reason == "impossible_tile" and message in err.value.message
    check_set(ts, tuple(ts.all_tiles()))  # the whole set itself is fine
