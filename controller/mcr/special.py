"""Special winning shapes: Seven Pairs (and Seven Shifted Pairs, the 2017 pair fans), Thirteen Orphans,
Honors and Knitted Tiles, and Knitted Straight plus a set and a pair.  Each returns a scored
:class:`~controller.mcr.calculator.Candidate`.  Pure functions, called from any thread.
"""

from __future__ import annotations

from controller.mcr import shapes
from controller.mcr.calculator import (
    Candidate,
    Job,
    Notes,
    _add_hand_fans,
    _finish,
    _note,
    _special_concealment,
    _tile_hog,
    _wait_fan,
    _win_flag_fans,
    code,
    set_code,
)
from controller.mcr.fans import NUM_FANS
from controller.mcr.shapes import CHOW, KONG, PAIR
from controller.mcr.traits import GREEN, F


def seven_pairs(job: Job, explain: bool) -> Candidate:
    """七对 [004:L313] / 连七对 [004:L295] and the 2017 seven-pairs fans [003:L45@3036-3199]."""
    notes: Notes | None = {} if explain else None
    tab = [0] * NUM_FANS
    c = job.conc
    kinds = [t for t in range(34) if c[t]]
    shifted = (
        len(kinds) == 7 and kinds[-1] < 27 and kinds[0] // 9 == kinds[-1] // 9 and kinds[-1] - kinds[0] == 6
    )
    pairs = " ".join(code(t) * (c[t] // 2) for t in kinds)
    if shifted:
        tab[F.SEVEN_SHIFTED_PAIRS] = 1
        _note(notes, F.SEVEN_SHIFTED_PAIRS, pairs)
    tab[F.SEVEN_PAIRS] = 1
    _note(notes, F.SEVEN_PAIRS, pairs)
    _add_hand_fans(job, tab, notes)
    _tile_hog(job, 0, tab, notes)
    if job.prof.new_fans:
        if all(t in GREEN for t in kinds):
            tab[F.GREEN_SEVEN_PAIRS] = 1
            _note(notes, F.GREEN_SEVEN_PAIRS, pairs)
        if kinds == list(range(27, 34)):
            tab[F.ALL_HONOR_PAIRS] = 1
            _note(notes, F.ALL_HONOR_PAIRS, pairs)
        elif kinds[0] >= 27:
            tab[F.HONOR_SEVEN_PAIRS] = 1
            _note(notes, F.HONOR_SEVEN_PAIRS, pairs)
        if all(t < 27 and t % 9 in (0, 8) for t in kinds):
            tab[F.TERMINAL_SEVEN_PAIRS] = 1
            _note(notes, F.TERMINAL_SEVEN_PAIRS, pairs)
    _win_flag_fans(job, tab, notes)
    _special_concealment(job, tab, notes)
    return _finish(job, tab, notes, [], False)


def thirteen_orphans(job: Job, explain: bool) -> Candidate:
    """十三幺 [004:L296]: win flags and concealment only (its own fans are all implied)."""
    notes: Notes | None = {} if explain else None
    tab = [0] * NUM_FANS
    tab[F.THIRTEEN_ORPHANS] = 1
    dup = next(t for t in shapes.ORPHANS if job.conc[t] == 2)
    _note(notes, F.THIRTEEN_ORPHANS, f"one of each terminal and honor, pair of {code(dup)}")
    _win_flag_fans(job, tab, notes)
    _special_concealment(job, tab, notes)
    return _finish(job, tab, notes, [], False)


def honors_and_knitted(job: Job, pattern: tuple[int, ...], explain: bool) -> Candidate:
    """七星不靠 [004:L314] / 全不靠 [004:L328] (+ 组合龙 [004:L329] when all nine knitted tiles are there)."""
    notes: Notes | None = {} if explain else None
    tab = [0] * NUM_FANS
    c = job.conc
    tiles = " ".join(code(t) for t in range(34) if c[t])
    if all(c[t] for t in range(27, 34)):
        tab[F.GREATER_HONORS_AND_KNITTED] = 1
        _note(notes, F.GREATER_HONORS_AND_KNITTED, tiles)
    else:
        tab[F.LESSER_HONORS_AND_KNITTED] = 1
        _note(notes, F.LESSER_HONORS_AND_KNITTED, tiles)
        if all(c[t] for t in pattern):
            tab[F.KNITTED_STRAIGHT] = 1
            _note(notes, F.KNITTED_STRAIGHT, " ".join(code(t) for t in pattern))
    _win_flag_fans(job, tab, notes)
    _special_concealment(job, tab, notes)
    return _finish(job, tab, notes, [], False)


def knitted_straight(job: Job, pattern: tuple[int, ...], rest: tuple[tuple[int, int], ...],
                     explain: bool) -> Candidate:
    """组合龙 [004:L329] with one more set (concealed in ``rest`` or the one meld) and a pair."""
    notes: Notes | None = {} if explain else None
    tab = [0] * NUM_FANS
    prof = job.prof
    tab[F.KNITTED_STRAIGHT] = 1
    _note(notes, F.KNITTED_STRAIGHT, " ".join(code(t) for t in pattern))
    sets = [(k, t, m) for k, t, m in job.fixed] + [(k, t, False) for k, t in rest]
    fourth = next((s for s in sets if s[0] != PAIR), None)
    pair = next(t for k, t, _ in sets if k == PAIR)
    pungs: list[int] = []
    kongs = 0
    if fourth is not None:
        kind, t, melded = fourth
        if kind == CHOW:
            if pair < 27 and not prof.knitted_plain:
                tab[F.ALL_CHOWS] = 1  # 1998/2006 examples; 2017 says no [003:L45@4823]
                _note(notes, F.ALL_CHOWS, f"{set_code(CHOW, t)} and a {code(pair)} pair with the knitted straight")
        else:
            pungs.append(t)
            if t >= 31:
                tab[F.DRAGON_PUNG] = 1
                _note(notes, F.DRAGON_PUNG, f"pung of {code(t)}")
            if kind == KONG:
                kongs = 1
                fan = F.MELDED_KONG if melded else F.CONCEALED_KONG
                tab[fan] = 1
                _note(notes, fan, set_code(KONG, t))
        if not melded:
            if job.self_drawn:
                tab[F.FULLY_CONCEALED_HAND] = 1
                _note(notes, F.FULLY_CONCEALED_HAND, "nothing claimed, self-drawn")
            else:
                tab[F.CONCEALED_HAND] = 1
                _note(notes, F.CONCEALED_HAND, "nothing claimed, won on a discard")
    _add_hand_fans(job, tab, notes)
    if not prof.knitted_plain:
        _tile_hog(job, kongs, tab, notes)
    _win_flag_fans(job, tab, notes)
    w = job.win
    in_rest = any(t <= w <= t + 2 if k == CHOW else t == w for k, t in rest)
    if prof.waits_by_definition:
        if in_rest:
            _wait_fan(job, list(rest), tab, notes)
        elif w % 9 in (3, 4, 5):
            tab[F.CLOSED_WAIT] = 1  # [003:L45@4823] 组合龙 may have 坎张: 4, 5 or 6 between its neighbours
            _note(notes, F.CLOSED_WAIT, f"{code(w)} inside the knitted straight")
    elif in_rest:
        left = list(job.conc)
        left[w] -= 1
        if len(shapes.waiting_tiles(tuple(left), len(job.fixed), prof.waits_count_held_fourth)) == 1:
            _wait_fan(job, list(rest), tab, notes)
    return _finish(job, tab, notes, pungs, False)
