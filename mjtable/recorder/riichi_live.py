"""tenhou.net/6 JSON and mjai JSON lines from a LIVE-engine riichi game (``controller.engine`` + ``ext_riichi``).

Input is the list of accepted engine input events (``Event.to_json()`` dicts, ``session_start`` first): a
journal (``mjtable sim --rules riichi-hkma-2025 --journal-dir D`` writes one; :func:`events_from_journal`), or
the complete game record a table publishes on its referee-only ``referee/record`` topic
(:mod:`mjtable.recorder.engine_record`).  The events are replayed through the real engine (``step``) and the
export is read off the engine's own states: the deal (full information: the wall's faces), each seat's draws
(tiles that appear in its concealed hand), discards (pond growth; ``tsumogiri`` when the drawn tile goes out),
riichi declarations and accepted sticks, calls and kans (new or promoted melds), kan dora, the hand result
with the engine's payments, and han/fu/yaku recomputed with the riichi package's public scorer
(``controller.riichi.scoring.score_hand``) from the engine's own win situation.  Pure; thread-safe.

A hand whose concealed tiles the engine did not know (partial information: no wall faces) cannot be exported;
:class:`~mjtable.recorder.riichi_export.ExportError` says which.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mjtable.recorder.riichi_export import ExportError, _called, mjai_tile, tenhou_tile
from mjtable.tiles import MeldKind, Tile


def events_from_journal(path: Path) -> list[dict[str, Any]]:
    """The accepted events of an engine journal (``controller.journal``), in order; raises ExportError."""
    from controller.journal import read_records

    try:
        records, _ = read_records(path)
    except OSError as exc:
        raise ExportError(f"cannot read journal {path}: {exc}") from exc
    events = [r.event for r in records if r.rec == "event"]
    if not events or events[0].get("type") != "session_start":
        raise ExportError(f"{path} is not an engine journal (no session_start)")
    return events


def _minus(a: Iterable[Tile], b: Iterable[Tile]) -> list[Tile]:
    """Multiset difference ``a - b`` (red fives are distinct tiles)."""
    rest = Counter(b)
    out = []
    for t in a:
        if rest[t]:
            rest[t] -= 1
        else:
            out.append(t)
    return out


class _Kyoku:
    """The tenhou arrays and bookkeeping of one hand in progress."""

    def __init__(self, hai: list[list[Tile]], first: Tile, dealer: int) -> None:
        self.hai = hai
        self.take: list[list[Any]] = [[], [], [], []]
        self.dahai: list[list[Any]] = [[], [], [], []]
        self.take[dealer].append(tenhou_tile(first))
        self.pon_strings: dict[tuple[int, int], str] = {}
        self.kakan_done: set[tuple[int, int]] = set()
        self.riichi_seats: list[int] = []


class LiveRiichiExporter:
    """Replays engine events and builds (tenhou.net/6 JSON, mjai events).  Use :func:`export_engine_events`."""

    def __init__(self, title: str = "mjtable") -> None:
        self.title = title
        self.mj: list[dict[str, Any]] = []
        self.log: list[Any] = []
        self.kyoku: _Kyoku | None = None
        self.entry_head: list[Any] = []
        self.hand_no: int | None = None

    # -- driving ---------------------------------------------------------------------------------------------
    def run(self, events: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        from controller.engine.effects import Rejected
        from controller.engine.events import SessionStart, event_from_json
        from controller.engine.step import start_session, step

        if not events:
            raise ExportError("no events")
        try:
            first = event_from_json(events[0])
        except (KeyError, TypeError, ValueError) as exc:
            raise ExportError(f"bad session_start: {exc}") from exc
        if not isinstance(first, SessionStart):
            raise ExportError("the events must start with session_start")
        if not first.rules.startswith("riichi"):
            raise ExportError(f"tenhou/mjai export is for riichi games, not {first.rules}")
        state, _ = start_session(first)
        self.players = [state.session.players[self._player(state, s)] for s in range(4)]
        self.start_points = self._start_points(state)
        self.mj.append({"type": "start_game", "names": list(self.players)})
        for i, obj in enumerate(events[1:], 1):
            try:
                ev = event_from_json(obj)
            except (KeyError, TypeError, ValueError) as exc:
                raise ExportError(f"event {i}: {exc}") from exc
            new, fx = step(state, ev)
            if fx and isinstance(fx[0], Rejected):
                raise ExportError(f"event {i} ({obj.get('id')}) is rejected on replay: {fx[0].reason}")
            self._observe(state, new, ev)
            state = new
        if self.kyoku is not None:
            raise ExportError(f"hand {self.hand_no} is not over at the end of the events")
        points = self._points(state)
        self.mj.append({"type": "end_game", "scores": points})
        tenhou = {"title": [self.title, ""], "name": list(self.players),
                  "rule": {"disp": state.config.rules, "aka": 1}, "dan": [""] * 4, "rate": [0] * 4,
                  "sx": ["C"] * 4, "sc": [x for p in points for x in (p, round((p - self.start_points) / 1000, 1))],
                  "log": self.log}
        return tenhou, self.mj

    @staticmethod
    def _player(state: Any, seat: int) -> int:
        from controller.engine.query import player_index

        return int(player_index(state, seat))

    @staticmethod
    def _start_points(state: Any) -> int:
        from controller.engine.query import ruleset_of

        rules = ruleset_of(state)
        start = getattr(rules, "start_points", None)
        return int(start()) if callable(start) else 30000

    def _points(self, state: Any) -> list[int]:
        return [self.start_points + int(state.session.scores[self._player(state, s)]) for s in range(4)]

    # -- per step ------------------------------------------------------------------------------------------
    def _observe(self, old: Any, new: Any, ev: Any) -> None:
        hand = new.hand
        if hand is None:
            return
        if self.kyoku is None:
            if hand.hand_no != self.hand_no and hand.result is None and any(s.known or s.unknown
                                                                            for s in hand.seats):
                self._start(new)
            return
        before = old.hand
        if before is None or before.hand_no != hand.hand_no:
            raise ExportError(f"hand {self.hand_no} ended without a result")
        self._actions(old, new, ev)
        if hand.result is not None:
            self._finish(old, new)

    def _start(self, state: Any) -> None:
        from controller.engine.ext_riichi import dora_indicators, session_of

        hand = state.hand
        if not all(s.fully_known for s in hand.seats) or len(hand.wall) < hand.front or hand.front == 0:
            raise ExportError(f"hand {hand.hand_no}: the concealed tiles are unknown (partial information); "
                              "tenhou/mjai export needs the deal's faces")
        first = hand.wall[hand.front - 1]  # the dealer's 14th tile: his first draw in tenhou's terms
        hai = [list(s.known) for s in hand.seats]
        if first not in hai[hand.dealer]:
            raise ExportError(f"hand {hand.hand_no}: cannot tell the dealer's first draw")
        hai[hand.dealer].remove(first)
        self.hand_no = hand.hand_no
        self.kyoku = _Kyoku(hai, first, hand.dealer)
        sx = session_of(state.session)
        round_idx = hand.round_wind.rank - 1
        points = self._points(state)
        dora = dora_indicators(hand)
        self.entry_head = [[round_idx * 4 + hand.dealer, sx.honba, sx.sticks], points]
        self.mj.append({"type": "start_kyoku", "bakaze": "ESWN"[round_idx], "kyoku": hand.dealer + 1,
                        "honba": sx.honba, "kyotaku": sx.sticks, "oya": hand.dealer,
                        "dora_marker": mjai_tile(dora[0]) if dora else None, "scores": points,
                        "tehais": [[mjai_tile(t) for t in sorted(x)] for x in hai]})
        self.mj.append({"type": "tsumo", "actor": hand.dealer, "pai": mjai_tile(first)})

    def _actions(self, old: Any, new: Any, ev: Any) -> None:
        from controller.engine.ext_riichi import dora_indicators, riichi_of, session_of

        k = self.kyoku
        assert k is not None
        b, a = old.hand, new.hand
        rb, ra = riichi_of(b), riichi_of(a)
        for s in range(4):  # discards (with a riichi declaration)
            if len(a.seats[s].pond) > len(b.seats[s].pond):
                t = a.seats[s].pond[-1].tile
                declared = ra is not None and rb is not None and (ra.riichi[s] or ra.pending == s) and not (
                    rb.riichi[s] or rb.pending == s)
                tg = b.turn == s and b.drew and b.drawn == t
                if declared:
                    self.mj.append({"type": "reach", "actor": s})
                    k.riichi_seats.append(s)
                self.mj.append({"type": "dahai", "actor": s, "pai": mjai_tile(t), "tsumogiri": bool(tg)})
                code: Any = 60 if tg else tenhou_tile(t)
                k.dahai[s].append(f"r{code}" if declared else code)
        sticks_b, sticks_a = session_of(old.session).sticks, session_of(new.session).sticks
        if sticks_a > sticks_b and rb is not None and ra is not None:
            # the stick goes down once nobody rons the declaration tile: in a later step (pending) or at once
            flipped = [x for x in range(4) if ra.riichi[x] and not rb.riichi[x]]
            actor = rb.pending if rb.pending is not None else (flipped[0] if flipped else -1)
            if actor < 0:
                raise ExportError(f"hand {self.hand_no}: a riichi stick without a declaration")
            deltas = [-1000 if x == actor else 0 for x in range(4)]
            self.mj.append({"type": "reach_accepted", "actor": actor, "deltas": deltas, "scores": self._points(new)})
        kans_before = len(dora_indicators(b))
        for s in range(4):
            self._melds(b, a, s)
        for t in dora_indicators(a)[kans_before:]:
            self.mj.append({"type": "dora", "dora_marker": mjai_tile(t)})
        if a.result is None:
            for s in range(4):  # draws: tiles that appear in a concealed hand
                for t in _minus(a.seats[s].known, b.seats[s].known):
                    self.mj.append({"type": "tsumo", "actor": s, "pai": mjai_tile(t)})
                    k.take[s].append(tenhou_tile(t))

    def _melds(self, b: Any, a: Any, s: int) -> None:
        k = self.kyoku
        assert k is not None
        mb, ma = b.seats[s].melds, a.seats[s].melds
        if a.promoted is not None and b.promoted is None and a.promoted[0] == s:
            self._kakan(s, a.promoted[1], mb)
        for i, m in enumerate(ma):
            if i < len(mb):
                if mb[i].kind is MeldKind.PUNG and m.kind is MeldKind.KONG:
                    added = _minus(m.tiles, mb[i].tiles)
                    self._kakan(s, added[0] if added else m.tiles[-1], mb)
                continue
            if m.kind is MeldKind.CONCEALED_KONG:
                self.mj.append({"type": "ankan", "actor": s, "consumed": [mjai_tile(x) for x in m.tiles]})
                n = [str(tenhou_tile(x)) for x in m.tiles]
                k.dahai[s].append("".join(n[:3]) + "a" + n[3])
                continue
            if m.claimed_tile is None or m.claimed_from is None:
                raise ExportError(f"hand {self.hand_no}: a called meld without its claimed tile")
            own = _minus(m.tiles, [m.claimed_tile])
            name = {MeldKind.CHOW: "chi", MeldKind.PUNG: "pon", MeldKind.KONG: "daiminkan"}[m.kind]
            self.mj.append({"type": name, "actor": s, "target": m.claimed_from, "pai": mjai_tile(m.claimed_tile),
                            "consumed": [mjai_tile(x) for x in own]})
            letter = {"chi": "c", "pon": "p", "daiminkan": "m"}[name]
            call = _called(letter, m.claimed_tile, own, (m.claimed_from - s) % 4)
            k.take[s].append(call)
            if name == "pon":
                k.pon_strings[(s, m.claimed_tile.kind)] = call
            elif name == "daiminkan":
                k.dahai[s].append(0)

    def _kakan(self, s: int, added: Tile, melds: Sequence[Any]) -> None:
        k = self.kyoku
        assert k is not None
        if (s, added.kind) in k.kakan_done:
            return
        k.kakan_done.add((s, added.kind))
        pon = next((m for m in melds if m.kind is MeldKind.PUNG and m.tiles[0].kind == added.kind), None)
        if pon is None:
            raise ExportError(f"hand {self.hand_no}: seat {s} adds {added.code} to no pon")
        self.mj.append({"type": "kakan", "actor": s, "pai": mjai_tile(added),
                        "consumed": [mjai_tile(x) for x in pon.tiles]})
        base = k.pon_strings.get((s, added.kind), "p" + "".join(str(tenhou_tile(x)) for x in pon.tiles))
        k.dahai[s].append(base.replace("p", "k" + str(tenhou_tile(added)), 1))

    def _finish(self, old: Any, new: Any) -> None:
        from controller.engine.ext_riichi import dora_indicators, riichi_of, ura_indicators

        k = self.kyoku
        assert k is not None
        hand = new.hand
        r = hand.result
        deltas = list(r.payments)
        points = self._points(new)
        ura: list[Tile] = []
        ext = riichi_of(hand)
        if r.kind == "win":
            result: list[Any] = ["和了"]
            for w in r.winners:
                frm = w if r.self_drawn or r.discarder is None else r.discarder
                pai = r.win_tile
                if pai is None:
                    raise ExportError(f"hand {self.hand_no}: a win without its winning tile")
                if ext is not None and ext.riichi[w]:
                    ura = list(ura_indicators(hand))
                pao_seat = ext.pao[w][0] if ext is not None and ext.pao[w] is not None else w
                score = self._score(old, w, pai, self_drawn=r.self_drawn, discarder=r.discarder)
                han = sum(p * c for _, p, c in r.fans)
                fu = score.fu if score is not None else 0
                point = (f"役満{r.total}点" if score is not None and score.yakuman else f"{fu}符{han}飜{r.total}点")
                yaku = [f"{name}({p * c}飜)" for name, p, c in r.fans]
                concealed = old.hand.seats[w].known
                self.mj.append({"type": "hora", "actor": w, "target": frm, "pai": mjai_tile(pai),
                                "uradora_markers": [mjai_tile(t) for t in ura],
                                "hora_tehais": [mjai_tile(t) for t in concealed], "fu": fu, "han": han,
                                "deltas": deltas, "scores": points})
                result += [deltas, [w, frm, pao_seat, point, *yaku]]
        else:
            self.mj.append({"type": "ryukyoku", "reason": "exhaustive" if r.kind == "draw" else str(r.kind),
                            "tehais": [[mjai_tile(t) for t in s.known] for s in hand.seats], "deltas": deltas,
                            "scores": points})
            result = ["流局" if r.kind == "draw" else "中断", deltas]
        entry: list[Any] = [*self.entry_head, [tenhou_tile(t) for t in dora_indicators(hand)],
                            [tenhou_tile(t) for t in ura]]
        for s in range(4):
            entry += [[tenhou_tile(t) for t in sorted(k.hai[s])], k.take[s], k.dahai[s]]
        entry.append(result)
        self.log.append(entry)
        self.mj.append({"type": "end_kyoku"})
        self.kyoku = None

    @staticmethod
    def _score(old: Any, w: int, pai: Tile, *, self_drawn: bool, discarder: int | None) -> Any:
        """The riichi scorer (controller.riichi.scoring) on the engine's own win situation (for fu and the limit name);
        None if not riichi."""
        from controller.engine.query import ruleset_of, scoring_hand
        from controller.engine.wins import situation
        from controller.riichi.ruleset import RiichiRuleset
        from controller.riichi.scoring import NotWinningHand, score_hand

        rules = ruleset_of(old)
        if not isinstance(rules, RiichiRuleset):
            return None
        hand = old.hand
        robbing = hand.promoted is not None
        concealed = hand.seats[w].known
        if self_drawn:
            concealed = tuple(_minus(concealed, [pai]))
        sit = situation(old, w, pai, self_drawn=self_drawn, discarder=discarder, robbing=robbing)
        try:
            return score_hand(scoring_hand(hand, w, concealed), pai, rules.situation(sit), rules.options)
        except (NotWinningHand, ValueError):
            return None


def export_engine_events(events: Sequence[dict[str, Any]], title: str = "mjtable"
                         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(tenhou.net/6 JSON, mjai events) of a live-engine riichi game; raises ExportError."""
    return LiveRiichiExporter(title).run(events)


def write_exports(events: Sequence[dict[str, Any]], tenhou_path: Path, mjai_path: Path,
                  title: str = "mjtable") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Export and write ``tenhou_path`` (one JSON document) and ``mjai_path`` (JSON lines)."""
    tenhou, mj = export_engine_events(events, title)
    tenhou_path.write_text(json.dumps(tenhou, ensure_ascii=False), encoding="utf-8")
    mjai_path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in mj), encoding="utf-8")
    return tenhou, mj
