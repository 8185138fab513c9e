"""Fan counting for one prepared winning hand: every decomposition and special shape is scored, the highest
total wins (就高不就低).  Works on integer fan ids and count tables; names and explanations are attached only
for the chosen decomposition.  Pure functions, called from any thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress

from controller.mcr.combos import chow_combos, pung_combos
from controller.mcr.fans import NUM_FANS
from controller.mcr.profiles import RuleProfile
from controller.mcr.shapes import CHOW, KONG, PAIR, PUNG
from controller.mcr.traits import F, hand_fans

#: A set with its state: (kind, tile, melded).  ``melded`` is False for concealed sets and concealed kongs.
FullSet = tuple[int, int, bool]
Table = list[int]
Notes = dict[int, list[str]]

_FAN_IDS = range(NUM_FANS)
_TERMINALS = frozenset((0, 8, 9, 17, 18, 26))


def code(t: int) -> str:
    """Shared notation of kind ``t`` (``5p``, ``7z``)."""
    return f"{t - 26}z" if t >= 27 else f"{t % 9 + 1}{'mps'[t // 9]}"


def set_code(kind: int, t: int) -> str:
    """Readable set: ``123m``, ``555p``, ``5555p``, ``55p``."""
    if kind == CHOW:
        return f"{t % 9 + 1}{t % 9 + 2}{t % 9 + 3}{'mps'[t // 9]}"
    n = {PUNG: 3, KONG: 4, PAIR: 2}[kind]
    c = code(t)
    return c[0] * n + c[1]


def _is_toh(t: int) -> bool:
    return t >= 27 or t in _TERMINALS


@dataclass(slots=True)
class Job:
    """A hand ready to score (built by :mod:`controller.mcr.api`).

    ``conc`` counts the concealed tiles with the winning tile; ``total`` counts every tile (kongs 4);
    ``fixed`` are the declared melds; wind numbers are 0-3 (E S W N).
    """

    conc: tuple[int, ...]
    fixed: tuple[FullSet, ...]
    total: tuple[int, ...]
    win: int
    self_drawn: bool
    last_of_kind: bool
    kong: bool
    last_tile: bool
    seat: int
    prevalent: int
    prof: RuleProfile
    heavenly: bool = False
    earthly: bool = False
    concealed_ready: bool = False
    present: int = 0
    unique_wait: bool = field(default=False)
    conc_pungs: list[int] = field(default_factory=list)  # explain only: concealed pungs of the reading
    n_conc_pungs: int = 0
    nine_gates: bool = field(default=False)


@dataclass(slots=True)
class Candidate:
    """A scored reading of the hand: fan counts, per-fan point overrides, explanations and total."""

    table: Table
    total: int
    notes: Notes
    override: dict[int, int]


def _note(notes: Notes | None, fan: int, text: str) -> None:
    if notes is not None:
        notes.setdefault(fan, []).append(text)


def _win_flag_fans(job: Job, tab: Table, notes: Notes | None) -> None:
    """和绝张, 自摸, 妙手回春, 杠上开花, 海底捞月, 抢杠和 and the 2017 deal fans."""
    w = code(job.win) if notes is not None else ""
    if job.last_of_kind:
        tab[F.LAST_TILE] = 1
        _note(notes, F.LAST_TILE, f"{w} was the last of its kind")
    if job.self_drawn:
        tab[F.SELF_DRAWN] = 1
        _note(notes, F.SELF_DRAWN, f"drew {w}")
        if job.last_tile:
            tab[F.LAST_TILE_DRAW] = 1
            _note(notes, F.LAST_TILE_DRAW, f"{w} was the last tile of the wall")
        if job.kong:
            tab[F.OUT_WITH_REPLACEMENT_TILE] = 1
            _note(notes, F.OUT_WITH_REPLACEMENT_TILE, f"{w} was a kong replacement")
    else:
        if job.last_tile:
            tab[F.LAST_TILE_CLAIM] = 1
            _note(notes, F.LAST_TILE_CLAIM, f"{w} was the last discard")
        if job.kong:
            tab[F.ROBBING_THE_KONG] = 1
            _note(notes, F.ROBBING_THE_KONG, f"robbed {w} from a kong")
    if job.prof.new_fans:
        for flag, fan, why in ((job.heavenly, F.HEAVENLY_HAND, "dealer out on the deal"),
                               (job.earthly, F.EARTHLY_HAND, "out on the dealer's first discard"),
                               (job.concealed_ready, F.CONCEALED_READY_HAND, "ready from the deal, no tile changed")):
            if flag:
                tab[fan] = 1
                _note(notes, fan, why)


def _add_hand_fans(job: Job, tab: Table, notes: Notes | None) -> None:
    for fan, why in hand_fans(job.present):
        tab[fan] += 1
        _note(notes, fan, why)


def _tile_hog(job: Job, kongs: int, tab: Table, notes: Notes | None) -> None:
    n = job.total.count(4) - kongs
    if n > 0:
        fours = [t for t in range(34) if job.total[t] == 4]
        tab[F.TILE_HOG] = n
        if notes is not None:
            kong_tiles = {t for k, t, _ in job.fixed if k == KONG}
            for t in fours:
                if t not in kong_tiles and notes is not None:
                    _note(notes, F.TILE_HOG, f"four {code(t)} without a kong")


def _concealment(job: Job, melded_sets: int, tab: Table, notes: Notes | None) -> None:
    """不求人 / 门前清 / 全求人 for 4-sets-and-pair shapes ([004:L350, L358, L364])."""
    if melded_sets == 0:
        if job.self_drawn:
            tab[F.FULLY_CONCEALED_HAND] = 1
            _note(notes, F.FULLY_CONCEALED_HAND, "nothing claimed, self-drawn")
        else:
            tab[F.CONCEALED_HAND] = 1
            _note(notes, F.CONCEALED_HAND, "nothing claimed, won on a discard")
    elif melded_sets == 4 and not job.self_drawn:
        tab[F.MELDED_HAND] = 1
        _note(notes, F.MELDED_HAND, "four claimed sets, won on a discard")


def _special_concealment(job: Job, tab: Table, notes: Notes | None) -> None:
    """Concealed special shapes: 2006 自摸加计不求人; 1998/2017 score only 自摸; 2017 adds 门前清 on a discard."""
    if job.self_drawn:
        fan = job.prof.special_self_drawn
        if fan == F.FULLY_CONCEALED_HAND and not (tab[F.LAST_TILE_DRAW] or tab[F.OUT_WITH_REPLACEMENT_TILE]):
            tab[F.SELF_DRAWN] = 0
            tab[fan] = 1
            _note(notes, fan, "concealed special shape, self-drawn")
    elif job.prof.special_concealed_discard:
        tab[F.CONCEALED_HAND] = 1
        _note(notes, F.CONCEALED_HAND, "concealed special shape won on a discard (2017)")


def _wait_fan(job: Job, sets: list[tuple[int, int]], tab: Table, notes: Notes | None) -> None:
    """边张 / 坎张 / 单调将 from the concealed sets holding the winning tile (one of them at most)."""
    w = job.win
    edge = closed = single = False
    for kind, t in sets:
        if kind == CHOW:
            if t + 1 == w:
                closed = True
            elif (t == w or t + 2 == w) and (
                not job.prof.waits_by_definition or (t % 9 == 0 and w == t + 2) or (t % 9 == 6 and w == t)
            ):
                edge = True
        elif kind == PAIR and t == w:
            single = True
    fan = F.EDGE_WAIT if edge else F.CLOSED_WAIT if closed else F.SINGLE_WAIT if single else None
    if fan is not None:
        tab[fan] = 1
        if notes is not None:
            only = "" if job.prof.waits_by_definition else ", the only tile waited on"
            _note(notes, fan, f"won on {code(w)}{only}")


def _finish(job: Job, tab: Table, notes: Notes | None, pung_tiles: list[int], wind_group: bool, *,
            nine_gates: bool = False) -> Candidate:
    """Winds, 幺九刻, exclusions, 2017 honor-pung rule, Chicken Hand; returns the scored candidate."""
    prof = job.prof
    yao = 0
    for t in pung_tiles:
        if 27 <= t <= 30:
            wind = t - 27
            hit = False
            if wind == job.prevalent:
                tab[F.PREVALENT_WIND] = 1
                if notes is not None:
                    _note(notes, F.PREVALENT_WIND, f"pung of {code(t)}")
                hit = True
            if wind == job.seat:
                tab[F.SEAT_WIND] = 1
                if notes is not None:
                    _note(notes, F.SEAT_WIND, f"pung of {code(t)}")
                hit = True
            if not hit and not wind_group:
                yao += 1
                if notes is not None:
                    _note(notes, F.PUNG_OF_TERMINALS_OR_HONORS, f"pung of {code(t)}")
        elif t in _TERMINALS:
            yao += 1
            if notes is not None:
                _note(notes, F.PUNG_OF_TERMINALS_OR_HONORS, f"pung of {code(t)}")
    if nine_gates:
        yao = max(0, yao - 1)  # [004:L293] the Nine Gates' own terminal pung is not counted
    tab[F.PUNG_OF_TERMINALS_OR_HONORS] = yao
    if tab[F.FOUR_CONCEALED_PUNGS] and tab[F.FULLY_CONCEALED_HAND] and not prof.four_concealed_self_drawn_full:
        tab[F.FULLY_CONCEALED_HAND] = 0
        tab[F.SELF_DRAWN] = 1
    ex = prof.excludes
    present = list(compress(_FAN_IDS, tab))
    mask = 0
    for f in present:
        mask |= ex[f]
    if mask:
        for f in present:
            if mask >> f & 1:
                tab[f] = 0
    if not prof.all_terminals_double_pung and tab[F.ALL_TERMINALS]:
        tab[F.DOUBLE_PUNG] = 0
    override: dict[int, int] = {}
    pts = prof.points
    if prof.honor_pung_minus_one and (tab[F.ALL_HONORS] or tab[F.ALL_TERMINALS] or tab[F.ALL_TERMINALS_AND_HONORS]):
        # [003:L45@4660]: a pung fan worth 2+ adds its value minus 1 inside these hands
        if tab[F.TWO_DRAGON_PUNGS]:
            override[F.TWO_DRAGON_PUNGS] = pts[F.TWO_DRAGON_PUNGS] - 2
        if tab[F.DRAGON_PUNG]:
            override[F.DRAGON_PUNG] = pts[F.DRAGON_PUNG] - 1
        if tab[F.PREVALENT_WIND]:
            override[F.PREVALENT_WIND] = pts[F.PREVALENT_WIND] - 1
        if tab[F.SEAT_WIND] and not (tab[F.PREVALENT_WIND] and job.seat == job.prevalent):
            override[F.SEAT_WIND] = pts[F.SEAT_WIND] - 1
    if override:
        total = sum(tab[f] * override.get(f, pts[f]) for f in present)
    else:
        total = sum(tab[f] * pts[f] for f in present)
    if total == 0:
        tab[F.CHICKEN_HAND] = 1
        _note(notes, F.CHICKEN_HAND, "no other fan")
        total = pts[F.CHICKEN_HAND]
    return Candidate(tab, total, notes or {}, override)


def score_regular(job: Job, conc_sets: tuple[tuple[int, int], ...], explain: bool) -> Candidate:
    """Score one decomposition: ``conc_sets`` (from the concealed tiles) plus ``job.fixed``."""
    notes: Notes | None = {} if explain else None
    tab = [0] * NUM_FANS
    chows: list[int] = []
    pungs: list[int] = []
    pair = -1
    melded_kongs = concealed_kongs = concealed_pungs = melded_sets = 0
    for kind, t, melded in job.fixed:
        if kind == CHOW:
            chows.append(t)
        else:
            pungs.append(t)
            if kind == KONG:
                if melded:
                    melded_kongs += 1
                else:
                    concealed_kongs += 1
        if melded:
            melded_sets += 1
    win = job.win
    win_in_chow = False
    win_pung = False
    for kind, t in conc_sets:
        if kind == CHOW:
            chows.append(t)
            if t <= win <= t + 2:
                win_in_chow = True
        elif kind == PUNG:
            pungs.append(t)
            concealed_pungs += 1
            if t == win:
                win_pung = True
        else:
            pair = t
    if notes is not None:
        job.conc_pungs = [t for k, t in conc_sets if k == PUNG]
        job.n_conc_pungs = concealed_pungs
    if not job.self_drawn and win_pung and not win_in_chow:
        concealed_pungs -= 1  # a pung completed by a discard is an exposed pung ([004:L1109] 暗刻 = own tiles)
    _win_flag_fans(job, tab, notes)
    if pungs:
        _kong_fans(job, tab, notes, (melded_kongs, concealed_kongs, concealed_pungs))
        if len(pungs) == 4:
            tab[F.ALL_PUNGS] = 1
            _note(notes, F.ALL_PUNGS, "four pungs or kongs")
        for t in pungs:
            if t >= 31:
                tab[F.DRAGON_PUNG] += 1
                if notes is not None:
                    _note(notes, F.DRAGON_PUNG, f"pung of {code(t)}")
    chows.sort()
    pungs.sort()
    wind_group = False
    if len(chows) == 4 and pair % 9 == 4 and pair < 27 and _terminal_chows(job, chows, pair, tab, notes):
        pass
    else:
        for fan, idx in chow_combos(tuple(chows)):
            tab[fan] += 1
            if notes is not None:
                _note(notes, fan, " + ".join(set_code(CHOW, chows[i]) for i in idx))
    for fan, idx in pung_combos(tuple(pungs)):
        tab[fan] += 1
        if fan in (F.BIG_THREE_WINDS, F.BIG_FOUR_WINDS):
            wind_group = True
        if notes is not None:
            _note(notes, fan, " + ".join(set_code(PUNG, pungs[i]) for i in idx))
    _concealment(job, melded_sets, tab, notes)
    # pair-dependent fans
    if len(chows) == 4:
        if pair < 27:
            tab[F.ALL_CHOWS] = 1
            if notes is not None:
                _note(notes, F.ALL_CHOWS, f"four chows and a {code(pair)} pair")
    elif tab[F.TWO_DRAGON_PUNGS] and pair >= 31:
        tab[F.TWO_DRAGON_PUNGS] = 0
        tab[F.LITTLE_THREE_DRAGONS] = 1
        if notes is not None:
            _note(notes, F.LITTLE_THREE_DRAGONS, f"two dragon pungs and a {code(pair)} pair")
    elif tab[F.BIG_THREE_WINDS] and 27 <= pair <= 30:
        tab[F.BIG_THREE_WINDS] = 0
        tab[F.LITTLE_FOUR_WINDS] = 1
        if notes is not None:
            _note(notes, F.LITTLE_FOUR_WINDS, f"three wind pungs and a {code(pair)} pair")
    _pack_traits(job, conc_sets, tab, notes)
    _add_hand_fans(job, tab, notes)
    if not tab[F.QUADRUPLE_CHOW]:
        _tile_hog(job, melded_kongs + concealed_kongs, tab, notes)
    if (job.unique_wait or job.prof.waits_by_definition) and not tab[F.MELDED_HAND] and not tab[F.FOUR_KONGS]:
        _wait_fan(job, list(conc_sets), tab, notes)
    if job.prof.new_fans and len(chows) == 4 and pair % 9 == 4 and pair < 27:
        s = pair // 9 * 9
        if sorted(chows) == [s, s + 3, s + 3, s + 6]:
            tab[F.ALL_CONNECTED_FIVES] = 1
            _note(notes, F.ALL_CONNECTED_FIVES, "123 456 456 789 and a pair of 5s in one suit")
    if job.nine_gates:
        tab[F.NINE_GATES] = 1
        if notes is not None:
            _note(notes, F.NINE_GATES, "1112345678999 of one suit plus " + code(win))
    return _finish(job, tab, notes, pungs, wind_group, nine_gates=job.nine_gates)


def _terminal_chows(job: Job, chows: list[int], pair: int, tab: Table, notes: Notes | None) -> bool:
    """一色双龙会 / 三色双龙会: 123+789 twice with a pair of 5s ([004:L667], [004:L323])."""
    ps = pair // 9
    lows = sorted((t // 9, t % 9) for t in chows)
    if all(s == ps for s, _ in lows) and [r for _, r in lows] == [0, 0, 6, 6]:
        tab[F.PURE_TERMINAL_CHOWS] = 1
        if notes is not None:
            _note(notes, F.PURE_TERMINAL_CHOWS, f"123 123 789 789 and {code(pair)}{code(pair)[0]}")
        return True
    others = sorted({0, 1, 2} - {ps})
    want = sorted([(s, r) for s in others for r in (0, 6)])
    if lows == want:
        tab[F.THREE_SUITED_TERMINAL_CHOWS] = 1
        if notes is not None:
            _note(notes, F.THREE_SUITED_TERMINAL_CHOWS, f"123+789 in two suits and a {code(pair)} pair")
        return True
    return False


def _kong_fans(job: Job, tab: Table, notes: Notes | None, counts: tuple[int, int, int]) -> None:
    """Kong fans and concealed-pung fans ([004:L306, L345, L359, L369, L376; L301, L327, L368]).

    ``counts`` = (melded kongs, concealed kongs, concealed pungs)."""
    mk, ck, cp = counts
    kongs = mk + ck
    if kongs == 4:
        tab[F.FOUR_KONGS] = 1
        if job.prof.four_kongs_adds_concealed and ck:  # 2006 "暗杠加计" [004:L294, L568]
            tab[F.TWO_CONCEALED_KONGS if ck >= 2 else F.CONCEALED_KONG] = 1
    elif kongs == 3:
        tab[F.THREE_KONGS] = 1
        # 2006 三杠 "暗杠加计，三暗杠加计三暗刻分" [004:L306, L713]: one or two concealed kongs add their kong fan;
        # three add Three Concealed Pungs (below, as in every profile)
        if job.prof.three_kongs_adds_concealed and ck in (1, 2):
            tab[F.TWO_CONCEALED_KONGS if ck == 2 else F.CONCEALED_KONG] = 1
    elif kongs == 2:
        if ck == 2 and job.prof.concealed_kong_split:  # 2017 暗部 then 明部 [003:L45@4885]
            tab[F.TWO_MELDED_KONGS] = 1  # the concealed-pung part is scored below (Two Concealed Pungs)
        elif ck == 2:
            tab[F.TWO_CONCEALED_KONGS] = 1
        elif mk == 2:
            tab[F.TWO_MELDED_KONGS] = 1
        elif job.prof.combined_kong:
            tab[F.CONCEALED_KONG_AND_MELDED_KONG] = 1
        else:
            tab[F.MELDED_KONG] = 1
            tab[F.CONCEALED_KONG] = 1
    elif mk == 1:
        tab[F.MELDED_KONG] = 1
    elif ck == 1:
        tab[F.CONCEALED_KONG] = 1
    if kongs and notes is not None:
        for k, t, m in job.fixed:
            if k == KONG:
                for f in (F.FOUR_KONGS, F.THREE_KONGS, F.TWO_CONCEALED_KONGS, F.TWO_MELDED_KONGS,
                          F.CONCEALED_KONG_AND_MELDED_KONG, F.MELDED_KONG, F.CONCEALED_KONG):
                    if tab[f]:
                        if notes is not None:
                            _note(notes, f, ("melded" if m else "concealed") + f" kong {set_code(KONG, t)}")
                        break
    hidden = cp + ck
    fan = {2: F.TWO_CONCEALED_PUNGS, 3: F.THREE_CONCEALED_PUNGS, 4: F.FOUR_CONCEALED_PUNGS}.get(hidden)
    if fan is not None:
        tab[fan] = 1
        if notes is not None:
            win, exposed = job.win, not job.self_drawn
            own = [set_code(KONG, t) for k, t, m in job.fixed if k == KONG and not m]
            own += [set_code(PUNG, t) for t in job.conc_pungs if not (exposed and t == win and cp < job.n_conc_pungs)]
            _note(notes, fan, " + ".join(own) + " (concealed)")


def _pack_traits(job: Job, conc_sets: tuple[tuple[int, int], ...], tab: Table, notes: Notes | None) -> None:
    """全带幺, 全带五, 全双刻 (and 2017 全单刻) over the five sets ([004:L357, L325, L315])."""
    outside = five = even = odd = 0
    sets = [(k, t) for k, t, _ in job.fixed] + list(conc_sets)
    for kind, t in sets:
        if t >= 27:
            outside += 1
            continue
        r = t % 9
        if kind == CHOW:
            if r in (0, 6):
                outside += 1
            if 2 <= r <= 4:
                five += 1
        else:
            if r in (0, 8):
                outside += 1
            if r == 4:
                five += 1
            if r % 2 == 1:
                even += 1
            else:
                odd += 1
    what = " ".join(set_code(k, t) for k, t in sets) if notes is not None else ""
    if outside == 5:
        tab[F.OUTSIDE_HAND] = 1
        _note(notes, F.OUTSIDE_HAND, what)
    elif five == 5:
        tab[F.ALL_FIVE] = 1
        _note(notes, F.ALL_FIVE, what)
    elif even == 5:
        tab[F.ALL_EVEN_PUNGS] = 1
        _note(notes, F.ALL_EVEN_PUNGS, what)
    elif odd == 5 and job.prof.new_fans:
        tab[F.ALL_ODD_PUNGS] = 1
        _note(notes, F.ALL_ODD_PUNGS, what)
