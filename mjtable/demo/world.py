"""The demo's simulated table world: four bot players acting through the table's real input channels.

The service only learns what a real table would tell it: a bot's discard, meld, concealed kong or shown hand
becomes a change of the physical scene that the camera reports (:class:`TableCamera`: the simulated camera and
the real vision pipeline, or the scene's ground-truth observations with ``--camera direct``); *pass*, *ready*
and *call* are presses of the seat buttons on the fake GPIO backend (through the real debounce and the
loop hand-off).  Flowers and promoted kongs have no sensor on a one-camera table: they are entered as the
referee's operator would (``via: operator``).  The wall is shuffled by the world (seeded per hand) and read
by the service through its ``wall_reader`` port (a tile-reading table).  An act the camera does not get
accepted within ``referee_entry_s`` of first showing it (a face the classifier keeps misreading) is entered by
the floor referee as the engine event the camera should have produced, so the demo never waits forever for a
reading.

Deterministic for a seed: a bot's choice depends only on the seed, the game's progress and the seat, so a
run killed and resumed from its journal makes the same choices as an uninterrupted one.  Loop thread only.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.bots import Action, Bot, claim_order
from controller.engine import camera as camera_engine
from controller.engine.errors import Reject
from controller.engine.events import ButtonPressed, CameraObserved, ChooseVoid, Claim, Event, Flower, PromotedKong
from controller.engine.query import ruleset_of
from controller.engine.state import GameState, Phase
from hw.backend import GpioError
from hw.fake import FakeBackend
from hw.panel import PanelPinout
from mjtable.service.runner import TableService

LOGGER = logging.getLogger(__name__)


class TableCamera(Protocol):
    """How the world shows a physical change to the camera (see :mod:`mjtable.demo.camera`)."""

    def show(self, state: GameState, seat: int, observation: dict[str, Any]) -> None:
        """The scene now also contains what ``observation`` describes (a vision event dict)."""
        ...

    def new_hand(self, state: GameState) -> None:
        """The table swept the last hand's tiles away and dealt a new one: the scene is what ``state`` shows."""
        ...


@dataclass
class WorldStats:
    actions: int = 0
    camera: int = 0
    buttons: int = 0
    operator: int = 0
    stalls: int = 0
    #: acts the camera did not get accepted within ``referee_entry_s``, entered by the floor referee instead
    referee_entries: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)


def _call_registered(st: GameState, seat: int) -> bool:
    """The engine took ``seat``'s *call* press (or the window is gone)."""
    hand = st.hand
    if hand is None or hand.claim is None:
        return True
    return seat in hand.claim.pending or any(c.seat == seat for c in hand.claim.calls)


def progress_key(st: GameState) -> str:
    """Where the game is, independent of events that do not move it (link up/down, rejected or duplicate input,
    clock ticks): the bots' random choices are keyed on it, so a resumed run decides like an uninterrupted one."""
    hand = st.hand
    if hand is None:
        return f"{st.session.hand_no}:-"
    ponds = sum(len(s.pond) for s in hand.seats)
    melds = sum(len(s.melds) for s in hand.seats)
    flowers = sum(len(s.flowers) for s in hand.seats)
    return f"{st.session.hand_no}:{hand.wall_remaining}:{ponds}:{melds}:{flowers}:{st.phase}"


class DemoWorld:
    """The four bot players at the table.  Loop thread only.

    Args:
        service: the running table service (its state is what the players see: full information).
        seed: the session seed (walls and bot choices).
        gpio: the fake backend the service's panel uses; pinout: its pins.
        camera: where scene changes go.
        press_s: how long a button is held, seconds (real time: the debounce runs on real edges).
        act_timeout_s: how long to wait for the service to accept an act before trying again, seconds.
        referee_entry_s: how long a camera act (discard, meld, concealed kong, shown hand) may go untaken,
            seconds from its first showing, before the floor referee enters it by hand at the next showing, as
            a referee does when the camera keeps misreading a tile (a stall then lasts at most about
            ``referee_entry_s + act_timeout_s``).
    """

    def __init__(
        self,
        service: TableService,
        *,
        seed: int,
        gpio: FakeBackend,
        pinout: PanelPinout,
        camera: TableCamera,
        press_s: float = 0.01,
        act_timeout_s: float = 5.0,
        referee_entry_s: float = 15.0,
        on_act: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.service = service
        self.seed = seed
        self.gpio = gpio
        self.pinout = pinout
        self.camera = camera
        self.press_s = press_s
        self.act_timeout_s = act_timeout_s
        self.on_act = on_act
        self.referee_entry_s = referee_entry_s
        self.stats = WorldStats()
        #: seat -> the last change that seat made in front of the camera (the truth the demo referee knows)
        self.shown: dict[int, dict[str, Any]] = {}
        self._first_shown: dict[str, float] = {}  # progress key, seat, act -> monotonic s of its first showing
        self._dealt: int | None = None  # the hand whose deal the camera has seen

    # --- the table's tile reader ------------------------------------------------------------------------
    def wall_reader(self, build_id: int) -> tuple[str, ...]:
        """Faces of the wall the table just built, in physical order (seeded per hand)."""
        st = self.service.state
        tiles = ruleset_of(st).tileset.all_tiles()
        random.Random(f"{self.seed}:wall:{st.session.hand_no}").shuffle(tiles)
        return tuple(t.code for t in tiles)

    # --- the players --------------------------------------------------------------------------------------
    def next_actions(self, st: GameState) -> list[tuple[int, Action]]:
        """What the players do now: the one player whose turn it is, or every player still deciding on an open
        discard (they answer at the same time, as at a real table).  Empty when the table must act."""
        hand = st.hand
        if hand is None or st.paused or st.phase in (Phase.BUILDING, Phase.HAND_OVER, Phase.DICE, Phase.SESSION_OVER):
            return []
        if st.phase is Phase.FLOWERS:
            seats = [hand.flower_seat] if hand.flower_seat is not None else []
        elif st.phase is Phase.VOID:  # Sichuan 定缺: every seat chooses, the bots return None once they have
            seats = [0, 1, 2, 3]
        elif st.phase is Phase.TURN:
            seats = [hand.turn] if hand.turn is not None else []
        else:
            seats = list(claim_order(st))
        acts: list[tuple[int, Action]] = []
        for seat in seats:
            bot = Bot(seat, random.Random(f"{self.seed}:{progress_key(st)}:{seat}"))
            act = bot.decide(st)
            if act is not None:
                acts.append((seat, act))
        return acts

    async def run(self) -> None:
        """Play until the session is over (service loop)."""
        while True:
            st = self.service.state
            if st.phase is Phase.SESSION_OVER:
                return
            dealt = st.hand is not None and st.phase not in (Phase.HAND_OVER, Phase.BUILDING)
            if dealt and st.session.hand_no != self._dealt:
                self._dealt = st.session.hand_no  # the table swept the last hand away and built the walls
                self._first_shown.clear()
                self.camera.new_hand(st)
            acts = self.next_actions(st)
            if not acts:
                await self._wait_change(st.seq, None)
                continue
            await asyncio.gather(*(self.perform(st, seat, act) for seat, act in acts))
            acted = {seat for seat, _ in acts}
            if not await self._wait_until(self._answered(st.seq, acted), self.act_timeout_s):
                self.stats.stalls += 1
                LOGGER.warning(
                    "seats %s: %s not accepted within %.1f s; acting again",
                    sorted(acted),
                    [a.kind for _, a in acts],
                    self.act_timeout_s,
                )

    def _answered(self, seq: int, acted: set[int]) -> Callable[[GameState], bool]:
        def done(now: GameState) -> bool:
            return now.seq != seq and not acted & self._undecided(now)

        return done

    def _undecided(self, st: GameState) -> set[int]:
        """Seats that still owe an answer to the open claim window (all acted seats otherwise)."""
        if st.phase not in (Phase.CLAIMS, Phase.ROB_KONG) or st.hand is None or st.hand.claim is None:
            return set()
        w = st.hand.claim
        called = {c.seat for c in w.calls}
        return {s for s in w.eligible if s not in w.passed and s not in called}

    async def _wait_until(self, done: Callable[[GameState], bool], timeout_s: float) -> bool:
        async def wait() -> None:
            while not done(self.service.state):
                self.service.changed.clear()
                await self.service.changed.wait()

        try:
            await asyncio.wait_for(wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    async def _wait_change(self, seq: int, timeout_s: float | None) -> bool:
        async def changed() -> None:
            while self.service.state.seq == seq:
                self.service.changed.clear()
                await self.service.changed.wait()

        try:
            await asyncio.wait_for(changed(), timeout_s)
        except TimeoutError:
            return False
        return True

    async def perform(self, st: GameState, seat: int, act: Action) -> None:
        """Turn one bot action into physical acts."""
        fields = dict(act.fields)
        self.stats.actions += 1
        self.stats.by_kind[act.kind] = self.stats.by_kind.get(act.kind, 0) + 1
        hand = st.hand
        assert hand is not None
        via = "camera"
        if act.kind == "button":
            await self.press(seat, "call" if fields["button"] == "call" else "pass")
            via = "button"
        elif act.kind == "discard":
            if fields.get("riichi"):  # riichi: the declaration (no riichi button on this panel), then the discard
                self._operator(
                    ButtonPressed(id=self._op_id(seat, "riichi"), at_s=self.service.clock(), seat=seat, button="riichi")
                )
                if not await self._wait_change(st.seq, self.act_timeout_s):
                    return
                via = "operator+camera"
            self._show(
                st, seat, {"type": "discard", "tiles": [str(fields["tile"])], "position": len(hand.seats[seat].pond)}
            )
        elif act.kind == "claim":
            window = hand.claim
            assert window is not None
            if seat not in window.pending:
                await self.press(seat, "call")
                if not await self._wait_until(lambda now: _call_registered(now, seat), self.act_timeout_s):
                    return
            self._show(
                self.service.state, seat, self._claim_observation(st, seat, str(fields["kind"]), fields.get("tiles"))
            )
            via = "button+camera"
        elif act.kind == "concealed_kong":
            t = str(fields["tile"])
            self._show(st, seat, {"type": "concealed_kong", "tiles": ["back", t, t, "back"],
                                  "position": len(st.hand.seats[seat].melds) if st.hand else 0})
        elif act.kind == "declare_win":
            s = hand.seats[seat]
            self._show(st, seat, {"type": "win_shown", "tiles": [t.code for t in s.known]})
        elif act.kind in ("flower", "promoted_kong"):
            cls = Flower if act.kind == "flower" else PromotedKong
            self._operator(
                cls(id=self._op_id(seat, act.kind), at_s=self.service.clock(), seat=seat, tile=str(fields["tile"]))
            )
            via = "operator"
        elif act.kind == "void":  # Sichuan 定缺: chosen face down, entered like a referee tablet would
            self._operator(
                ChooseVoid(id=self._op_id(seat, "void"), at_s=self.service.clock(), seat=seat, suit=str(fields["suit"]))
            )
            via = "operator"
        else:
            raise ValueError(f"the demo world cannot perform {act.kind!r}")
        if self.on_act is not None:
            self.on_act(
                {
                    "seat": seat,
                    "act": act.kind,
                    "via": via,
                    **{k: (list(v) if isinstance(v, tuple) else v) for k, v in fields.items()},
                }
            )

    def _claim_observation(self, st: GameState, seat: int, kind: str, tiles: object) -> dict[str, Any]:
        hand = st.hand
        assert hand is not None and hand.claim is not None
        d = hand.claim.tile.code
        if kind == "win":
            return {"type": "win_shown", "tiles": [t.code for t in hand.seats[seat].known] + [d]}
        if kind == "chow":
            assert isinstance(tiles, list | tuple)
            meld = sorted([*(str(t) for t in tiles), d], key=lambda c: (c[1], c[0]))
        else:
            meld = [d] * (4 if kind == "kong" else 3)
        return {"type": "meld", "tiles": meld, "claimed_from": hand.claim.discard_seat,
                "position": len(hand.seats[seat].melds)}

    def _show(self, st: GameState, seat: int, observation: dict[str, Any]) -> None:
        """Put the change in front of the camera (again, when the table did not take it).  Shown again
        ``referee_entry_s`` or more after its first showing, the floor referee also enters it (the camera keeps
        misreading it: a human referee types in what the player did rather than have the tiles laid down again
        forever)."""
        self.stats.camera += 1
        obs = {"seat": seat, "claimed_from": None, "position": 0, **observation}
        self.shown[seat] = obs
        self.camera.show(st, seat, obs)
        key = f"{progress_key(st)}:{seat}:{obs['type']}"
        first = self._first_shown.setdefault(key, time.monotonic())
        if time.monotonic() - first >= self.referee_entry_s:
            self._referee_entry(seat, obs, time.monotonic() - first)

    def _referee_entry(self, seat: int, obs: dict[str, Any], waited_s: float) -> None:
        """Enter ``obs`` (what the player really did) as the engine event the camera should have produced."""
        st = self.service.state
        ev_id = self._op_id(seat, f"referee-{obs['type']}")
        try:
            event = camera_engine.translate(
                st, obs, CameraObserved(id=ev_id, at_s=self.service.clock(), observation=obs)
            )
        except Reject as exc:  # the game moved on meanwhile: nothing to enter
            LOGGER.info("seat %d %s: no referee entry (%s)", seat, obs["type"], exc.message)
            return
        if event is None and obs["type"] == "meld":
            event = self._claim_of(st, seat, obs, ev_id)
        if event is None:
            return
        self.stats.referee_entries += 1
        LOGGER.warning(
            "seat %d %s %s: not taken from the camera in %.1f s; entered by the floor referee",
            seat,
            obs["type"],
            obs.get("tiles"),
            waited_s,
        )
        self._operator(event)

    def _claim_of(self, st: GameState, seat: int, obs: dict[str, Any], ev_id: str) -> Event | None:
        """The claim a meld observation shows, when the engine's camera check takes it for a meld the seat
        already holds (an observation without a meld slot: the check then compares tiles)."""
        hand = st.hand
        if hand is None or hand.claim is None or seat not in hand.claim.pending:
            return None
        tiles = [str(t) for t in obs["tiles"]]
        if len(tiles) == 4:
            return Claim(id=ev_id, at_s=self.service.clock(), seat=seat, kind="kong")
        if len(set(tiles)) == 1:
            return Claim(id=ev_id, at_s=self.service.clock(), seat=seat, kind="pung")
        if hand.claim.tile.code not in tiles:
            return None
        tiles.remove(hand.claim.tile.code)
        return Claim(id=ev_id, at_s=self.service.clock(), seat=seat, kind="chow", tiles=tuple(tiles))

    async def press(self, seat: int, button: str) -> None:
        """Press a seat button on the fake GPIO (edges cross the backend/loop boundary like real ones)."""
        self.stats.buttons += 1
        pins = self.pinout.seats[seat]
        pin = pins.call if button == "call" else pins.pass_ready
        try:
            await asyncio.to_thread(self.gpio.press, pin, self.press_s)
        except GpioError as exc:  # the service closed its panel (shutting down) while the finger was on it
            LOGGER.info("press of seat %d %s not delivered: %s", seat, button, exc)

    def _op_id(self, seat: int, what: str) -> str:
        return f"op-{progress_key(self.service.state)}-{seat}-{what}".replace(":", "-")

    def _operator(self, ev: Event) -> None:
        """An act no sensor of a one-camera table sees, entered as the referee's operator would."""
        self.stats.operator += 1
        self.service.submit_nowait(ev)
