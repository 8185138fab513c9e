"""A referee's own words (a penalty's or a dead hand's free-text reason) and the referee's user name never reach a
public topic, through the real path: a referee command (``mjtable.mqtt.commands``, the referee taken from the
topic) -> the engine (``controller.engine.step``) -> the views -> :class:`TableChannel` (retained state, the public
event stream, the spectator mirror, the derived ``game_end``) -> the organiser's game record and penalty sheet
(``mjtable.records``, built from the public events).  The referee topics and the journal keep the words in full.

Before: ``apply_penalty`` made the reason (or, with none, ``"referee <user>"``) the infraction's message, which the
public state, the ``infraction`` and ``game_end`` events and the penalty sheet showed; a ``dead_hand`` reason came
back in the false-win message of that seat's win call.  The guard let a compact hand (``123m456p789s1122z``) or
adjacent codes (``5p5p``) through: it wanted a non-alphanumeric character on both sides of each code.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from controller.engine.effects import Effect, Rejected
from controller.engine.events import Event, event_from_json
from controller.engine.step import step
from controller.views import public_view, referee_view
from mjtable.mqtt.channel import TableChannel
from mjtable.mqtt.commands import Command, engine_event_json
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.guard import HiddenInformationError, check_public, redact_infraction
from mjtable.records import game_records_from_events, penalty_sheet_csv
from mjtable.service.events_out import public_event
from tests.engine.engine_helpers import DICE, TWO_WINNERS_HANDS, Table, stacked_wall

#: what a referee may type: a player's concealed hand, compact, as the shared notation writes it
PENALTY_REASON = "showed his hand 123m456p789s1122z to seat 3"
#: plain words, no tile in them: the guard cannot know them, only the routing keeps them off public topics
DEAD_REASON = "argued with the referee after a wrong tile count"
REFEREES = ("alice", "bob", "carol")
#: what must not appear anywhere on a public topic (fragments of the reasons and the referee user names)
SECRETS = ("showed his hand", "123m456p", "1122z", "argued with", "wrong tile count", *REFEREES)
NEUTRAL = "penalty by the referee"


@dataclass
class RefereedTable:
    """The engine driven by hand, every step published through a real :class:`TableChannel` the way the table
    service does (``mjtable.service.ports``): the public form of the input event, the state, the effects."""

    broker: MemoryBroker = field(default_factory=MemoryBroker)
    table: Table = field(default_factory=Table)
    channel: TableChannel = field(init=False)
    referee_states: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.channel = TableChannel("T1", FakePublisher(self.broker, "table-T1"), game_id="g1", clock=lambda: 1e9)
        self._publish(None, ())

    def _publish(self, ev: Event | None, fx: tuple[Effect, ...], before: Any = None) -> None:
        if ev is not None and not (fx and isinstance(fx[0], Rejected)):
            for k, (kind, data) in enumerate(public_event(ev, (), before)):
                self.channel.publish_event(kind, data, event_id=f"g1:{ev.id}:{k}")
        for k, e in enumerate(fx):
            self.channel.publish_effect(e.to_json(), event_id=f"g1:{self.table.state.seq}:fx{k}")
        referee = referee_view(self.table.state, "T1", with_waits=False)
        self.channel.publish_state(public_view(self.table.state, "T1"), referee)
        self.referee_states.append(referee)

    def send(self, etype: str, /, **fields: Any) -> tuple[Effect, ...]:
        before = self.table.state
        fx = self.table.ok(etype, **fields)
        self._publish(event_from_json({"type": etype, "id": f"e{self.table.n}", "at_s": self.table.now_s, **fields}),
                      fx, before)
        return fx

    def command(self, cid: str, name: str, args: dict[str, Any], *, referee: str, reason: str | None = None
                ) -> tuple[Effect, ...]:
        """A referee command as the table receives it (the referee from the command topic)."""
        self.table.now_s += 0.5
        ev = event_from_json(engine_event_json(Command(cid, name, args, referee, reason), self.table.now_s))
        before = self.table.state
        self.table.state, fx = step(before, ev)
        assert not (fx and isinstance(fx[0], Rejected)), fx
        self._publish(ev, fx, before)
        return fx

    def public(self) -> list[tuple[str, str]]:
        return [(m.topic, m.payload.decode()) for m in self.broker.log if self.channel.topics.is_public(m.topic)]

    def referee_only(self) -> str:
        topics = self.channel.topics
        return "\n".join(m.payload.decode() for m in self.broker.log
                         if m.topic in (topics.referee_state, topics.referee_events))


@pytest.fixture(scope="module")
def game() -> Iterator[RefereedTable]:
    """A penalty without a reason (alice), one with a hand in its reason (bob), a dead hand with a reason (carol);
    the dead seat then calls a win (a false win), the live seat wins, and the session is ended: ``game_end``."""
    g = RefereedTable()
    g.send("table_built", **_deal())
    g.command("c1", "apply_penalty", {"seat": 2, "points": 10}, referee="alice")
    g.command("c2", "apply_penalty", {"seat": 0, "points": 5}, referee="bob", reason=PENALTY_REASON)
    g.command("c3", "dead_hand", {"seat": 1}, referee="carol", reason=DEAD_REASON)
    g.send("discard", seat=0, tile="5p")
    g.send("claim", seat=1, kind="win")  # seat 1 is dead: a false win
    g.send("claim", seat=3, kind="win")
    g.send("button", seat=2, button="pass")
    assert g.table.state.history and g.table.state.history[-1].winners == (3,)
    g.command("c4", "end_session", {}, referee="alice")
    assert g.table.state.phase.value == "session_over"
    yield g


def _deal() -> dict[str, Any]:
    return {"tiles": list(stacked_wall(TWO_WINNERS_HANDS)), "dice": [list(d) for d in DICE]}


def test_no_referee_words_or_user_name_on_any_public_topic(game: RefereedTable) -> None:
    topics = game.channel.topics
    public = game.public()
    seen = {t for t, _ in public}
    assert {topics.state, topics.events, topics.spectator("state"), topics.spectator("events")} <= seen
    for topic, text in public:
        check_public(json.loads(text))
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} on {topic}: {text}"


def test_the_public_infractions_say_what_happened_in_neutral_words(game: RefereedTable) -> None:
    topics = game.channel.topics
    state = json.loads(game.broker.retained[topics.state])
    by_kind = {(i["kind"], i["seat"]): i for i in state["infractions"]}
    penalty = by_kind[("referee", 2)]
    assert (penalty["message"], penalty["points"], penalty["status"], penalty["player"]) == (NEUTRAL, 10, "applied",
                                                                                           "P3")
    assert by_kind[("referee", 0)]["message"] == NEUTRAL and by_kind[("referee", 0)]["points"] == 5
    false_win = by_kind[("false_win_dead_hand", 1)]
    assert "dead hand (相公) by the referee" in false_win["message"] and "pays 60" in false_win["message"]
    events = [json.loads(m.payload) for m in game.broker.messages(topics.events)]
    infraction_events = [e["data"] for e in events if e["type"] == "infraction"]
    assert [(i["kind"], i["seat"], i["points"]) for i in infraction_events] == [
        ("referee", 2, 10), ("referee", 0, 5), ("false_win_dead_hand", 1, 0)]
    assert [i["message"] for i in infraction_events[:2]] == [NEUTRAL, NEUTRAL]
    end = next(e["data"] for e in events if e["type"] == "game_end")
    assert [i["message"] for i in end["infractions"][:2]] == [NEUTRAL, NEUTRAL]
    assert not any("referee_note" in i for i in end["infractions"])


def test_the_referee_topics_keep_the_words(game: RefereedTable) -> None:
    full = game.referee_only()
    for secret in (PENALTY_REASON, DEAD_REASON, "referee alice"):
        assert secret in full, secret
    referee = game.referee_states[-1]
    notes = {(i["kind"], i["seat"]): i.get("referee_note") for i in referee["infractions"]}
    assert notes[("referee", 2)] == "referee alice" and notes[("referee", 0)] == PENALTY_REASON
    assert notes[("false_win_dead_hand", 1)] == DEAD_REASON  # why the seat was dead, for the referee
    messages = {(i["kind"], i["seat"]): i["message"] for i in referee["infractions"]}
    assert PENALTY_REASON in messages[("referee", 0)]  # the referee display shows the message: words included
    dead_seen = [s["dead_reason"] for r in game.referee_states for s in r["seats"] if s.get("dead_reason")]
    assert any(DEAD_REASON in d for d in dead_seen)


def test_the_organisers_game_record_and_penalty_sheet_carry_no_referee_words(game: RefereedTable) -> None:
    events = [json.loads(m.payload) for m in game.broker.messages(game.channel.topics.events)]
    (record,) = game_records_from_events(events)
    sheet = penalty_sheet_csv(record)
    for secret in SECRETS:
        assert secret not in json.dumps(record, ensure_ascii=False) and secret not in sheet, secret
    rows = sheet.splitlines()[1:]
    assert rows[0].endswith(f"referee: {NEUTRAL},10 points (applied)"), rows[0]
    assert rows[1].endswith(f"referee: {NEUTRAL},5 points (applied)"), rows[1]


# --- the guard ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("words", [
    PENALTY_REASON, "123m456p789s11z", "he held 5p5p", "5p5p5p and 7z7z", "[123m]{5555p}11223s33p",
    "seat 2: 0m0p0s", "hand 1122z", "tiles 5p,5p",
])
def test_the_guard_catches_compact_hands_and_adjacent_tile_codes(words: str) -> None:
    for kind in ("infraction", "alert", "rejected", "referee"):
        with pytest.raises(HiddenInformationError, match="tile named"):
            check_public({"type": kind, "data": {"seat": 1, "message": words}})
    with pytest.raises(HiddenInformationError, match="tile named"):
        check_public({"infractions": [{"id": "inf-1", "kind": "referee", "message": words}]})
    public = redact_infraction({"id": "inf-1", "seat": 1, "kind": "false_win_far_short", "points": 10,
                                "message": words})
    assert public["message"] == "false win far short"
    check_public({"type": "infraction", "data": public})


@pytest.mark.parametrize("words", [
    NEUTRAL, "intentional false win (有意诈和): warning [003:L45@3775]",
    "a second intentional false win: disqualification (取消比赛资格) [003:L45@3775]",
    "false win (dead_hand): seat 1 has lost the right to win: dead hand (相公) by the referee; pays 60",
    "錯和: level 5 (L651-L655)", "诈和: category 2 (L780)", "顺和: 3 fan after letting 2 fan pass (L248)",
    "holds the missing suit after discarding another suit (L574)", "discard limit exceeded",
    "pung called after its time: void [000:L797; 004:L455]", "1st warning at 5pm, 2nd at 3pm", "mcr-2006",
    "riichi: level 2 (和了禁止)", "disconnected for 25 000 ms",
])
def test_the_guard_lets_the_engines_public_words_through(words: str) -> None:
    check_public({"type": "infraction", "data": {"seat": 1, "message": words}})
    assert redact_infraction({"kind": "x", "message": words})["message"] == words


def test_the_guard_refuses_referee_only_words_by_key() -> None:
    with pytest.raises(HiddenInformationError, match="referee_note"):
        check_public({"infractions": [{"id": "inf-1", "kind": "referee", "message": NEUTRAL, "referee_note": "x"}]})
    with pytest.raises(HiddenInformationError, match="referee_note"):
        check_public({"type": "infraction", "data": {"kind": "referee", "referee_note": "x"}})
    with pytest.raises(HiddenInformationError, match="dead_reason"):
        check_public({"seats": [{"seat": 0, "dead": True, "dead_reason": "x"}]})
    assert "referee_note" not in redact_infraction({"id": "inf-1", "kind": "referee", "referee_note": "x"})
