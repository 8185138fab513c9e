"""Public/referee views of a Sichuan hand: schema-valid, and the public view never depends on hidden tiles."""

from __future__ import annotations

import random
from dataclasses import replace

from controller.sichuan.simulate import play_hand
from controller.sichuan.table import HandState, apply, new_hand
from controller.sichuan.views import SessionInfo, public_view, referee_view
from mjtable.schemas import validate
from mjtable.tiles import SICHUAN_TILESET, tile


def _scrambled(st: HandState) -> HandState:
    """The same table with every concealed hand (and the void choices before the reveal) replaced."""
    seats = tuple(replace(x, concealed=tuple(tile("1m") for _ in x.concealed)) for x in st.seats)
    voids = st.voids if all(v is not None for v in st.voids) else tuple(None if v is None else "p" for v in st.voids)
    return replace(st, seats=seats, voids=voids)  # type: ignore[arg-type]


def test_views_validate_and_hide_concealed_tiles() -> None:
    run = play_hand(random.Random(5), 0, check=False)
    st = new_hand(0, run.wall)
    info = SessionInfo(table="sc1", hand_no=0)
    states = [st]
    for ev in run.events:
        st = apply(st, ev)
        states.append(st)
    for i, s in enumerate(states):
        pub = public_view(s, info)
        validate("public_state", pub)
        validate("referee_state", referee_view(s, info))
        if s.phase != "over":  # at the end every hand is revealed (L414)
            assert public_view(_scrambled(s), info) == pub, f"hidden information leaks at step {i}"
    assert states[-1].phase == "over"


def test_void_choice_is_secret_until_all_four_are_down_L346() -> None:
    wall = SICHUAN_TILESET.all_tiles()
    random.Random(2).shuffle(wall)
    st = apply(new_hand(0, wall), {"type": "void", "seat": 0, "suit": "s"})
    assert public_view(st)["sichuan"]["voids"] is None
    assert referee_view(st)["sichuan"]["voids"][0] == "s"
