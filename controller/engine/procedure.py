"""The hand procedure up to play: wall, dice and break, the deal and the jump, draws and flower replacement.

Wall layout (docs/engine.md): physical tile index ``p = (ring * stacks + k) * 2 + level`` where ``ring`` 0..3
walks the sides clockwise from physical seat 0 (seat 0, 3, 2, 1), ``k`` counts a side's stacks from its
owner's right end (0) to his left end, ``level`` 0 is the top tile.  The live wall in draw order starts after
the ``total``-th stack of the second thrower's wall counted from its right end [000:L468; 004:L235;
003:L45@923] and goes clockwise (ring order).  Replacements come from the other end, top tile first
("先上后下" [004:L166]).
"""

from __future__ import annotations

from dataclasses import replace

from controller.engine.effects import Effect, McuCommand, SetLed
from controller.engine.errors import Reject
from controller.engine.ext import ext_of
from controller.engine.query import round_wind_tile, ruleset_of
from controller.engine.ruleset import InformationMode
from controller.engine.state import GameState, HandState, Phase, SeatState
from controller.engine.timers import limits, start
from mjtable.tiles import NotationError, Tile, TileSet, tile


def with_seat(hand: HandState, seat: int, s: SeatState) -> HandState:
    seats = list(hand.seats)
    seats[seat] = s
    return replace(hand, seats=(seats[0], seats[1], seats[2], seats[3]))


def parse_tile(code: object) -> Tile:
    """A tile from an event field; a bad code is a rejection."""
    if not isinstance(code, str):
        raise Reject("unknown_tile", f"tile must be a code like '5p', got {code!r}")
    try:
        return tile(code)
    except NotationError as exc:
        raise Reject("unknown_tile", str(exc)) from exc


def sorted_tiles(tiles: list[Tile] | tuple[Tile, ...]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles, key=lambda t: (t.kind, not t.red)))


def remove_tiles(held: tuple[Tile, ...], gone: list[Tile]) -> tuple[Tile, ...]:
    """``held`` minus ``gone`` (exact tiles first, then same face); raises KeyError if one is missing."""
    rest = list(held)
    for t in gone:
        if t in rest:
            rest.remove(t)
            continue
        for i, h in enumerate(rest):
            if h.kind == t.kind:
                del rest[i]
                break
        else:
            raise KeyError(t.code)
    return tuple(rest)


def start_hand(state: GameState, tiles: tuple[str, ...] | None, fx: list[Effect]) -> GameState:
    """The MCU built the wall: a new hand waits for the dice."""
    rules = ruleset_of(state)
    size = rules.tileset.total
    physical: tuple[Tile, ...] = ()
    if tiles is not None:
        if len(tiles) != size:
            raise Reject("bad_event", f"a built wall has {size} tiles, got {len(tiles)}")
        physical = tuple(parse_tile(c) for c in tiles)
        check_set(rules.tileset, physical)
    elif state.config.mode is InformationMode.FULL:
        raise Reject("bad_event", "full information needs the wall's faces (tiles)")
    sess = state.session
    empty = SeatState()
    hand = HandState(hand_no=sess.hand_no, dealer=sess.dealer, round_wind=round_wind_tile(sess.round_no),
                     seats=(empty, empty, empty, empty), wall_size=size - rules.wall.dead_wall,
                     wall_physical=physical, red_fives=rules.tileset.red_fives)
    return replace(state, hand=hand, phase=Phase.DICE)


def check_set(ts: TileSet, tiles: tuple[Tile, ...]) -> None:
    """Reject tiles that cannot all come from one set (a fifth copy, a tile not in the set, too many reds):
    :meth:`mjtable.tiles.TileSet.check`, its error turned into an ``impossible_tile`` rejection."""
    try:
        ts.check(tiles)
    except NotationError as exc:
        raise Reject("impossible_tile", str(exc)) from exc


def linear_wall(physical: tuple[Tile, ...], second_seat: int, total: int) -> tuple[Tile, ...]:
    """The wall in draw order for a break on ``second_seat``'s wall after ``total`` stacks (see module doc).
    A total larger than one side continues clockwise onto the next wall (our reading of §2.5)."""
    stacks = len(physical) // 2
    per_side = stacks // 4
    ring = (-second_seat) % 4
    first = (ring * per_side + total) % stacks
    out: list[Tile] = []
    for i in range(stacks):
        g = (first + i) % stacks
        out.append(physical[2 * g])
        out.append(physical[2 * g + 1])
    return tuple(out)


def on_dice(state: GameState, dice: tuple[int, int], fx: list[Effect]) -> GameState:
    hand = state.hand
    assert hand is not None
    if len(dice) != 2 or any(not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6 for d in dice):
        raise Reject("bad_event", f"two dice of 1..6 expected, got {dice!r}")
    if state.phase is not Phase.DICE:
        return state  # rules extension: a throw beyond the rules' count (Sichuan throws once) is ignored
    hand = replace(hand, dice=(*hand.dice, (dice[0], dice[1])))
    state = replace(state, hand=hand)
    if len(hand.dice) < ext_of(state).dice_throws():  # rules extension: MCR/riichi 2 throws, Sichuan 1 (L318)
        fx.append(McuCommand(name="roll_dice", args={"throw": 2}))
        return state
    return deal(state, fx)


def deal(state: GameState, fx: list[Effect]) -> GameState:
    """Break the wall and deal 3 x 4 tiles each, then the jump (dealer two, others one) [000:L468; 004:L235]."""
    hand = state.hand
    assert hand is not None
    rules = ruleset_of(state)
    custom = ext_of(state).live_wall(state, hand)  # rules extension: Sichuan 14/13 stacks, one throw (L310-L332)
    if custom is not None:
        wall = custom
    else:
        first, second = hand.dice[0], hand.dice[1]
        second_seat = rules.dice_to_seat(hand.dealer, sum(first))
        wall = linear_wall(hand.wall_physical, second_seat, sum(first) + sum(second)) if hand.wall_physical else ()
    order = [(hand.dealer + i) % 4 for i in range(4)]
    taken: dict[int, list[int]] = {s: [] for s in range(4)}
    pos = 0
    for _ in range(3):
        for s in order:
            taken[s].extend(range(pos, pos + 4))
            pos += 4
    jump = {order[0]: [pos, pos + 4], order[1]: [pos + 1], order[2]: [pos + 2], order[3]: [pos + 3]}
    counts = rules.deal_counts(hand.dealer)
    for s in range(4):
        taken[s].extend(jump[s][: counts[s] - 12])
    front = max(max(v) for v in taken.values()) + 1
    seats = []
    for s in range(4):
        if wall:
            seats.append(SeatState(known=sorted_tiles([wall[i] for i in taken[s]])))
        else:
            seats.append(SeatState(unknown=len(taken[s])))
    hand = replace(hand, wall=wall, front=front, live=tuple(range(front, hand.wall_size)),
                   seats=(seats[0], seats[1], seats[2], seats[3]), turn=hand.dealer, flower_seat=hand.dealer,
                   flower_done=frozenset(), drew=False)
    state = replace(state, hand=hand, phase=Phase.FLOWERS)
    lim = limits(state)
    if lim.opening_s is not None:
        state = start(state, "opening", hand.dealer, lim.opening_s, fx)
    elif lim.flowers_s is not None:
        state = start(state, "flowers", None, lim.flowers_s, fx)
    fx.append(SetLed(seat=hand.dealer, on=True))
    state = ext_of(state).after_deal(state, fx)  # rules extension (ext.py: Sichuan 定缺 phase)
    if state.phase is not Phase.FLOWERS:
        return state
    return advance_flowers(state, fx)


def take(state: GameState, seat: int, *, from_back: bool) -> GameState:
    """``seat`` takes the next tile from the front (draw) or the back (replacement) of the wall."""
    hand = state.hand
    assert hand is not None
    if hand.wall_remaining <= 0 or not hand.live:
        raise Reject("wall_empty", "no tile left in the wall")
    if from_back and not ruleset_of(state).wall.replacements_from_back:
        from_back = False  # Sichuan (ext_sichuan): kong replacement is the next wall tile in normal order (L403)
    live = hand.live
    dead = ext_of(state).dead_wall_replacement(hand) if from_back else None  # ext_riichi: riichi rinshan
    if dead is not None:
        idx, live = dead, live[:-1]  # from the dead wall; the live wall's last tile joins it (keeps 14)
        hand = replace(hand, back=hand.back + 1, live=live)
    elif from_back:
        last = live[-1]
        # the end stack's top tile first, then its bottom ("先上后下" [004:L166])
        pick = len(live) - 2 if last % 2 == 1 and len(live) >= 2 and live[-2] == last - 1 else len(live) - 1
        idx = live[pick]
        live = live[:pick] + live[pick + 1:]
        hand = replace(hand, back=hand.back + 1, live=live)
    else:
        idx = live[0]
        hand = replace(hand, front=hand.front + 1, live=live[1:])
    s = hand.seats[seat]
    got: Tile | None = None
    if hand.wall:
        got = hand.wall[idx]
        s = replace(s, known=sorted_tiles([*s.known, got]))
    else:
        s = replace(s, unknown=s.unknown + 1)
    hand = with_seat(hand, seat, s)
    return replace(state, hand=replace(hand, drawn=got, drew=True))


def advance_flowers(state: GameState, fx: list[Effect]) -> GameState:
    """Move the initial flower replacement on [000:L472; 004:L237; 003:L45@1169].

    Continuous (V1998/V2006): a seat replaces until it holds no flower, then the next seat.  In rounds
    (V2017, ``config.flower_rounds``): each seat replaces only the flowers it held when its turn came; flowers
    drawn as replacements wait for the next round.  A fully known seat with nothing (more) to replace is
    passed automatically; a partially known seat ends its turn with the *ready* / *pass* button.
    """
    hand = state.hand
    assert hand is not None
    rounds = state.config.flower_rounds
    while state.phase is Phase.FLOWERS and hand.flower_seat is not None:
        seat = hand.flower_seat
        s = hand.seats[seat]
        if not s.fully_known:
            break
        held = sum(1 for t in s.known if t.is_flower)
        if rounds and hand.flower_budget is None:
            hand = replace(hand, flower_budget=held)
        if (hand.flower_budget if rounds else held):
            break
        hand = replace(hand, flower_done=hand.flower_done | {seat}, flower_budget=None)
        nxt = (seat + 1) % 4
        if nxt == hand.dealer:
            return _round_over(replace(state, hand=hand), fx)
        hand = replace(hand, flower_seat=nxt)
        state = replace(state, hand=hand)
    return replace(state, hand=hand)


def _round_over(state: GameState, fx: list[Effect]) -> GameState:
    """After the last seat's turn: V2017 starts another round while replacements may still be flowers
    (exactly known with full information; "someone replaced a flower this round" otherwise)."""
    hand = state.hand
    assert hand is not None
    if state.config.flower_rounds:
        if all(x.fully_known for x in hand.seats):
            more = any(any(t.is_flower for t in x.known) for x in hand.seats)
        else:
            more = hand.flowers_this_round > 0
        if more:
            hand = replace(hand, flower_seat=hand.dealer, flower_done=frozenset(), flower_budget=None,
                           flowers_this_round=0)
            return advance_flowers(replace(state, hand=hand), fx)
    return finish_flowers(replace(state, hand=replace(hand, flower_seat=None)), fx)


def end_flower_turn(state: GameState, seat: int, fx: list[Effect]) -> GameState:
    """``seat`` says "过": its initial replacement is over (it may keep or discard a flower, V2006/V2017)."""
    hand = state.hand
    assert hand is not None
    nxt = (seat + 1) % 4
    hand = replace(hand, flower_done=hand.flower_done | {seat}, flower_budget=None)
    if nxt == hand.dealer:
        return _round_over(replace(state, hand=hand), fx)
    return advance_flowers(replace(state, hand=replace(hand, flower_seat=nxt)), fx)


def finish_flowers(state: GameState, fx: list[Effect]) -> GameState:
    """Initial flowers done: the dealer must make his first discard (timed per version)."""
    hand = state.hand
    assert hand is not None
    # the dealer's 14th tile counts as his draw: he may declare a concealed kong or a win (天和) first
    # (no single "drawn" tile: clear the last flower replacement, which may be another seat's tile)
    state = replace(state, phase=Phase.TURN, hand=replace(hand, turn=hand.dealer, first_turn=True, drew=True,
                                                          drawn=None))
    lim = limits(state)
    from controller.engine.timers import cancel

    state = cancel(state, "flowers", fx)
    if lim.opening_s is None:
        state = start(state, "turn", hand.dealer, lim.first_discard_s or lim.turn_s, fx)
    return state


def flower(state: GameState, seat: int, t: Tile, fx: list[Effect]) -> GameState:
    """``seat`` lays down flower ``t`` and takes a replacement from the back [000:L350; 004:L166]."""
    hand = state.hand
    assert hand is not None
    if not t.is_flower:
        raise Reject("illegal_claim", f"{t.code} is not a flower (replacing a non-flower is 错补花)")
    s = hand.seats[seat]
    if t in s.known:
        s = replace(s, known=remove_tiles(s.known, [t]))
    elif s.unknown > 0 and t not in _all_flowers_seen(hand):
        s = replace(s, unknown=s.unknown - 1)
    else:
        raise Reject("not_held", f"seat {seat} does not hold {t.code}")
    s = replace(s, flowers=(*s.flowers, t))
    hand = with_seat(hand, seat, s)
    if state.phase is Phase.FLOWERS:
        if hand.flower_budget is not None:
            if hand.flower_budget <= 0:
                raise Reject("out_of_turn", "this round's replacements are done; wait for the next round "
                             "[003:L45@1169]")
            hand = replace(hand, flower_budget=hand.flower_budget - 1)
        hand = replace(hand, flowers_this_round=hand.flowers_this_round + 1)
    state = replace(state, hand=hand)
    if hand.wall_remaining <= 0:
        raise Reject("wall_empty", "no replacement tile left")
    return take(state, seat, from_back=True)


def _all_flowers_seen(hand: HandState) -> set[Tile]:
    out: set[Tile] = set()
    for s in hand.seats:
        out.update(s.flowers)
        out.update(p.tile for p in s.pond if p.tile.is_flower)
    return out
