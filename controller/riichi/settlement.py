"""HKMA 2025 riichi settlement outside a single win: noten payments, dealer rotation, honba, final scores.

Seed ``002_40e04c10307d973b.txt``.  Points are table points (start 30000 or 25000); final scores are in
thousands (league points).  Pure; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .scoring import DEFAULT_OPTIONS, RiichiOptions

NOTEN_TOTAL = 3000  # L24, L429-L433
#: Yakuman with liability (包牌, L730-L738), by the set that makes the feeder liable: the third dragon set, the
#: fourth wind set, the fourth kan.
PAO_YAKU = {"dragons": "Daisangen", "winds": "Dai Suushii", "kans": "Suu Kantsu"}

#: (start points, return points) per division, L16-L18.
DIVISIONS: dict[str, tuple[int, int]] = {"A": (30000, 35000), "B": (25000, 30000)}
#: Uma of L19 (thousands), 1st..4th.
UMA_L19: tuple[int, int, int, int] = (50, 10, -10, -30)
#: Rank points of L453-L456 (points), 1st..4th.
RANK_POINTS_L453: dict[str, tuple[int, int, int, int]] = {
    "A": (45000, 15000, -20000, -40000),
    "B": (45000, 15000, -15000, -45000),
}


def noten_payments(tenpai: Sequence[bool]) -> tuple[int, int, int, int]:
    """Noten penalty, 3000 in total from the noten players to the tenpai players (L429-L433).

    1 tenpai: 1000 from each noten player; 2 tenpai: 1500 from each noten player, split; 3 tenpai: the noten
    player pays 1000 to each; 0 or 4: nothing.
    """
    if len(tenpai) != 4:
        raise ValueError("four seats")
    n = sum(tenpai)
    d = [0, 0, 0, 0]
    if n in (0, 4):
        return (0, 0, 0, 0)
    receive = NOTEN_TOTAL // n
    pay = NOTEN_TOTAL // (4 - n)
    for s in range(4):
        d[s] = receive if tenpai[s] else -pay
    return (d[0], d[1], d[2], d[3])


@dataclass(frozen=True, slots=True)
class NextHand:
    """Where the half-game goes after a hand: dealer seat, round (0 East, 1 South), hand index, honba, done."""

    dealer: int
    round_no: int
    hand_in_round: int
    honba: int
    finished: bool


def next_hand(*, dealer: int, round_no: int, hand_in_round: int, honba: int, dealer_won: bool,
              non_dealer_won: bool, dealer_tenpai: bool) -> NextHand:
    """Renchan on a dealer win or dealer tenpai at a draw (L26, L224, L435); honba +1 on renchan or any draw,
    reset after a non-dealer win (L440).  East 1 to South 4, no West round (L13, L446, L450)."""
    exhaustive = not dealer_won and not non_dealer_won
    renchan = dealer_won or (exhaustive and dealer_tenpai)
    new_honba = 0 if non_dealer_won else honba + 1
    if renchan:
        return NextHand(dealer, round_no, hand_in_round, new_honba, False)
    hand_in_round += 1
    if hand_in_round == 4:
        round_no += 1
        hand_in_round = 0
    return NextHand((dealer + 1) % 4, round_no, hand_in_round, new_honba, round_no >= 2)


def _split(amount: Fraction, seats: Sequence[int], first_dealer: int) -> dict[int, Fraction]:
    """Split ``amount`` equally over tied ``seats``; in a three-way tie a remainder of 100-point units goes to
    the seat nearest the first dealer in turn order (L449)."""
    n = len(seats)
    if n == 1:
        return {seats[0]: amount}
    if amount.denominator == 1 and int(amount) % 100 == 0:
        units = int(amount) // 100
        each, rem = divmod(units, n)
        order = sorted(seats, key=lambda s: (s - first_dealer) % 4)
        return {s: Fraction((each + (1 if i < rem else 0)) * 100) for i, s in enumerate(order)}
    return dict.fromkeys(seats, amount / n)


@dataclass(frozen=True, slots=True)
class FinalScores:
    """End of the half-game: raw points (with leftover deposits), ranks (1-based, ties share), final scores
    in thousands."""

    raw: tuple[int, int, int, int]
    ranks: tuple[int, int, int, int]
    final: tuple[float, float, float, float]

    def to_json(self) -> dict[str, object]:
        return {"raw": list(self.raw), "ranks": list(self.ranks), "final": list(self.final)}


def final_scores(points: Sequence[int], leftover_sticks: int, options: RiichiOptions = DEFAULT_OPTIONS,
                 first_dealer: int = 0) -> FinalScores:
    """Leftover deposits to first place, split if tied (L47); uma shared by tied players (L19, L448-L449).

    ``uma_mode="l19"``: final = (points - return)/1000 + uma; ``"l453"``: (points + rank points - start)/1000.
    [DESIGN] leftover deposits are added before ranking (digest App. B 14 leaves it open).
    """
    if len(points) != 4:
        raise ValueError("four seats")
    start, ret = DIVISIONS[options.division]
    raw = [Fraction(p) for p in points]
    top = max(points)
    firsts = [s for s in range(4) if points[s] == top]
    for s, share in _split(Fraction(leftover_sticks * 1000), firsts, first_dealer).items():
        raw[s] += share
    order = sorted(range(4), key=lambda s: -raw[s])
    ranks = [0, 0, 0, 0]
    final = [Fraction(0)] * 4
    i = 0
    while i < 4:
        j = i
        while j + 1 < 4 and raw[order[j + 1]] == raw[order[i]]:
            j += 1
        tied = order[i:j + 1]
        if options.uma_mode == "l19":
            uma_sum = Fraction(sum(UMA_L19[i:j + 1]) * 1000)
        else:
            uma_sum = Fraction(sum(RANK_POINTS_L453[options.division][i:j + 1]))
        shares = _split(uma_sum, tied, first_dealer)
        for s in tied:
            ranks[s] = i + 1
            base = raw[s] - (ret if options.uma_mode == "l19" else start)
            final[s] = (base + shares[s]) / 1000
        i = j + 1
    rawi = [int(x) if x.denominator == 1 else round(float(x)) for x in raw]
    return FinalScores((rawi[0], rawi[1], rawi[2], rawi[3]), (ranks[0], ranks[1], ranks[2], ranks[3]),
                       (float(final[0]), float(final[1]), float(final[2]), float(final[3])))


#: A false win (錯和) redeals only with at least this many live tiles left, dead wall not counted (L657).
REDEAL_THRESHOLD = 20


def after_false_win(kind: str, live_tiles_left: int, options: RiichiOptions = DEFAULT_OPTIONS) -> str:
    """What happens to the hand after a false declaration: ``"redeal"`` (same dealer) or ``"play_on"``.

    ``kind`` is ``"empty"`` (空和: declared a win that is not there, L645-L649) or ``"false"`` (錯和: revealed a
    hand that cannot win, L651-L659).  Appendix B 4: L647 redeals every empty win; L657-L659 redeal a false
    win only with >= 20 live tiles.  ``options.redeal_on_empty_win`` = ``"always"`` applies L647 to empty wins,
    ``"threshold"`` (default) applies the L657 rule to both.  A false win always redeals or plays on by L657.
    """
    if kind not in ("empty", "false"):
        raise ValueError(f"kind must be 'empty' or 'false', got {kind!r}")
    if live_tiles_left < 0:
        raise ValueError("live tiles left cannot be negative")
    if kind == "empty" and options.redeal_on_empty_win == "always":
        return "redeal"
    return "redeal" if live_tiles_left >= REDEAL_THRESHOLD else "play_on"
