"""Tile model: notation round trips, tile sets, and clear errors for bad notation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjtable.tiles import (
    ALL_CODES,
    MCR_TILESET,
    RIICHI_TILESET,
    SICHUAN_TILESET,
    MeldKind,
    NotationError,
    Relative,
    Tile,
    check_hand,
    format_tiles,
    parse_hand,
    parse_tiles,
    tile,
)


def test_tileset_sizes() -> None:
    assert MCR_TILESET.total == 144
    assert RIICHI_TILESET.total == 136
    assert SICHUAN_TILESET.total == 108
    assert len(MCR_TILESET.all_tiles()) == 144
    assert sum(t.red for t in RIICHI_TILESET.all_tiles()) == 3
    assert not SICHUAN_TILESET.has(tile("1z"))
    assert not MCR_TILESET.has(tile("0p"))


def test_codes_and_names() -> None:
    assert len(ALL_CODES) == 34 + 3 + 8
    assert tile("0p") == Tile(13, red=True)
    assert tile("0p").plain == tile("5p")
    assert tile("5p").name == "5 Dots"
    assert tile("7z").name == "Red Dragon"
    assert tile("1z").name == "East Wind"
    assert tile("5f").name == "Plum"
    assert tile("9s").is_terminal and tile("4z").is_honor and tile("6z").is_dragon


def test_parse_hand_with_melds() -> None:
    h = parse_hand("[123m]{5555p}1122s", expect_size=10)
    assert [m.kind for m in h.melds] == [MeldKind.CHOW, MeldKind.CONCEALED_KONG]
    assert format_tiles(h.concealed) == "1122s"
    assert h.code == "[123m]{5555p}1122s"
    h2 = parse_hand("[555p^][7777z]12m3f")
    assert h2.melds[0].claimed_from is Relative.OPPOSITE
    assert h2.melds[1].kind is MeldKind.KONG
    assert [t.code for t in h2.flowers] == ["3f"]


@pytest.mark.parametrize(
    ("text", "position", "reason"),
    [
        ("123x", 3, "unknown suit"),
        ("8z", 0, "unknown tile 8z"),
        ("9f", 0, "unknown tile 9f"),
        ("123", 0, "no suit letter"),
        ("m", 0, "no digits"),
        ("[124m]", 0, "not a set"),
        ("[123m", 0, "not closed"),
        ("12m]", 3, "without a matching"),
        ("{555m}", 0, "only a kong"),
        ("12m#", 3, "unexpected character"),
    ],
)
def test_bad_notation_names_position_and_reason(text: str, position: int, reason: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_hand(text)
    assert err.value.position == position
    assert reason in err.value.reason


def test_fifth_copy_and_count() -> None:
    with pytest.raises(NotationError, match="fifth copy of 1m"):
        check_hand(parse_hand("[1111m]1m"), MCR_TILESET)
    with pytest.raises(NotationError, match="wrong tile count"):
        parse_hand("123m", expect_size=13)
    with pytest.raises(NotationError, match="not in the Sichuan"):
        check_hand(parse_hand("1z"), SICHUAN_TILESET)
    with pytest.raises(NotationError, match="red fives"):
        check_hand(parse_hand("00m"), RIICHI_TILESET)


@given(st.lists(st.sampled_from(MCR_TILESET.all_tiles()), max_size=14))
def test_format_parse_round_trip(tiles: list[Tile]) -> None:
    assert sorted(parse_tiles(format_tiles(tiles))) == sorted(tiles)


def test_check_accepts_honors_and_flowers_in_every_set() -> None:
    check_hand(parse_hand("123456789m234p7z1f"), MCR_TILESET)
    check_hand(parse_hand("123456789m0p34p77z"), RIICHI_TILESET)


def test_copy_too_many_is_reported_at_its_position() -> None:
    with pytest.raises(NotationError, match="fifth copy of 5m") as err:
        parse_hand("1234m5555m5m")
    assert err.value.position == 10
    with pytest.raises(NotationError, match="fifth copy of 1m") as err:
        parse_hand("[1111m]1m")
    assert err.value.position == 7
    with pytest.raises(NotationError, match="second copy of 3f") as err:
        parse_hand("123m3f3f")
    assert err.value.position == 6
    with pytest.raises(NotationError, match="red fives") as err:
        parse_hand("0p0p", tileset=RIICHI_TILESET)
    assert err.value.position == 2
    with pytest.raises(NotationError, match="not in the Sichuan") as err:
        parse_hand("123m1z", tileset=SICHUAN_TILESET)
    assert err.value.position == 4
