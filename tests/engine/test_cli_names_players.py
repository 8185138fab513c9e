"""``mjtable sim`` and ``mjtable replay`` name the players of every hand, in that hand's seating.

MCR moves the players to other seats every round (rotation A), so from hand 5 on the seat numbers of a hand's
``winners``/``discarder``/``payments`` no longer index ``players`` (registration order).  Before the fix both
commands printed only the seat numbers next to the scores per player: ``players[winners[0]]`` named the wrong
person.  The seating each hand was really played in is taken here from the engine itself
(:func:`controller.engine.query.player_index` at the moment the hand ends).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.engine.effects import Effect, HandEnded
from controller.engine.events import Event, event_from_json
from controller.engine.query import player_index
from controller.engine.simulate import SimRun
from controller.engine.state import GameState
from controller.journal import Record, encode_line, fold, read_records
from mjtable.cli import main

SEED = 3  # the bots of this seed win hands 5-8 at seats other people sit at than in round 1
HANDS = 8
REGISTERED = ["P1", "P2", "P3", "P4"]


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def _true_seatings(hands: int, journal: Path | None = None, stop_after: int | None = None) -> list[list[str]]:
    """Who sat at each seat in each hand of the seeded session, read from the engine as the hands end; with
    ``journal``, the session's accepted events (the first ``stop_after``) are written there as the table does
    (without its fsync per line, which would make this test slow)."""
    seatings: list[list[str]] = []
    lines: list[bytes] = []

    def sink(ev: Event, st: GameState, fx: tuple[Effect, ...]) -> None:
        if stop_after is None or len(lines) < stop_after:
            lines.append(encode_line(Record("event", st.seq, ev.to_json())) + b"\n")
        if any(isinstance(e, HandEnded) for e in fx):
            seatings.append([st.session.players[player_index(st, seat)] for seat in range(4)])

    SimRun(rules="mcr-2006", seed=SEED, hands_total=hands, sink=sink).play()
    if journal is not None:
        journal.write_bytes(b"".join(lines))
    return seatings


def _check_names(hand: dict[str, Any], seating: list[str]) -> None:
    assert hand["seating"] == seating
    assert hand["winner_players"] == [seating[w] for w in hand["winners"]]
    discarder = hand["discarder"]
    assert hand["discarder_player"] == (seating[discarder] if discarder is not None else None)
    assert hand["payments_by_player"] == {seating[s]: hand["payments"][s] for s in range(4)}


def test_sim_names_the_winner_who_really_sat_at_the_winning_seat_after_the_seats_rotate(
        capsys: pytest.CaptureFixture[str]) -> None:
    truth = _true_seatings(HANDS)
    assert truth[0] == REGISTERED and truth[4] != REGISTERED  # round 2: the players have moved
    assert main(["sim", "--rules", "mcr-2006", "--seed", str(SEED), "--hands", str(HANDS)]) == 0
    (line,) = _lines(capsys)
    assert line["players"] == REGISTERED  # the scores stay in registration order
    hands = line["hand_results"]
    assert len(hands) == HANDS
    for hand, seating in zip(hands, truth, strict=True):
        _check_names(hand, seating)
    # the defect: from hand 5 on, the registration order names somebody else than the winner for some hand
    assert any(hand["winner_players"] != [REGISTERED[w] for w in hand["winners"]] for hand in hands[4:])


def test_sim_resumed_from_its_journal_names_the_same_players(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A run killed in hand 6 and resumed from its journal names the earlier hands' players too."""
    path = tmp_path / "game-0.jsonl"
    truth = _true_seatings(HANDS, path, stop_after=650)
    stopped = fold([event_from_json(r.event) for r in read_records(path)[0]])
    assert 4 < len(stopped.history) < HANDS  # stopped in round 2, after the players moved
    assert main(["sim", "--rules", "mcr-2006", "--seed", str(SEED), "--hands", str(HANDS),
                 "--journal-dir", str(tmp_path)]) == 0
    (line,) = _lines(capsys)
    for hand, seating in zip(line["hand_results"], truth, strict=True):
        _check_names(hand, seating)


def test_replay_names_the_players_of_every_hand_in_its_seating(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A whole 16-hand session (every round, the last hand ending the session) replayed from its journal."""
    path = tmp_path / "game-0.jsonl"
    truth = _true_seatings(16, path)
    assert len({tuple(s) for s in truth}) == 4  # four rounds, four seatings
    assert main(["sim", "--rules", "mcr-2006", "--seed", str(SEED), "--hands", "16"]) == 0
    sim = _lines(capsys)[0]
    assert main(["replay", str(path)]) == 0
    lines = _lines(capsys)
    hands = [x for x in lines if x["record"] == "hand"]
    assert [h["hand_no"] for h in hands] == list(range(1, 17))
    for hand, seating, simmed in zip(hands, truth, sim["hand_results"], strict=True):
        _check_names(hand, seating)
        assert (hand["seating"], hand["winner_players"]) == (simmed["seating"], simmed["winner_players"])
        for win in hand["wins"]:  # each win of the hand names its winner and discarder too
            assert win["winner_player"] == seating[win["winner"]]
            assert win["discarder_player"] == (seating[win["discarder"]] if win["discarder"] is not None else None)
    final = lines[-1]
    assert final["record"] == "final" and final["players"] == REGISTERED and final["scores"] == sim["scores"]
