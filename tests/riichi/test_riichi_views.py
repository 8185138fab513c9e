"""Public/referee views of a riichi hand: schema-valid, and the public view never depends on hidden tiles."""

from __future__ import annotations

import random
from dataclasses import replace

from controller.riichi.simulate import play_hand
from controller.riichi.table import WINDS, HandState, apply, new_hand
from controller.riichi.views import SessionInfo, public_view, referee_view
from mjtable.schemas import validate
from mjtable.tiles import tile


def _scrambled(st: HandState) -> HandState:
    """Same table, every concealed hand and every unrevealed dead-wall tile replaced."""
    seats = tuple(replace(x, concealed=tuple(tile("1z") for _ in x.concealed)) for x in st.seats)
    shown = set(range(4, 5 + st.kans))
    dead = tuple(t if i in shown else tile("9s") for i, t in enumerate(st.dead))
    return replace(st, seats=seats, dead=dead, live=tuple(tile("9s") for _ in st.live))  # type: ignore[arg-type]


def test_views_validate_and_hide_concealed_tiles() -> None:
    run = play_hand(random.Random(11), 0, WINDS[0], 0, 0, check=False)
    st = new_hand(0, run.wall)
    info = SessionInfo(table="rc1")
    for i, ev in enumerate([{}, *run.events]):
        if ev:
            st = apply(st, ev)
        pub = public_view(st, info)
        validate("public_state", pub)
        validate("referee_state", referee_view(st, info))
        if st.phase != "over":
            assert public_view(_scrambled(st), info) == pub, f"hidden information leaks at step {i}"
        else:
            assert pub["result"] is not None
