"""tenhou.net/6 JSON and mjai JSON lines from a riichi game's ENGINE journal (``controller.engine`` + ``ext_riichi``).

Input is the list of accepted engine input events (``Event.to_json()`` dicts, ``session_start`` first): a
journal (``mjtable sim --rules riichi-hkma-2025 --journal-dir D`` writes one; :func:`events_from_journal`), or
the complete game record a table publishes on its referee-only ``referee/record`` topic
(:mod:`mjtable.recorder.engine_record`).  The events are replayed through the real engine (``step``) and the
export is read off the engine's own states: the deal (full information: the wall's faces), each seat's draws
(tiles that appear in its concealed hand), discards (pond growth; ``tsumogiri`` / tenhou's 60 when the tile the
seat drew last, the dealer's 14th tile included, goes out: the engine does not tell two equal tiles apart),
riichi declarations and accepted sticks, calls and kans (new or promoted melds), kan dora, the hand result
with the engine's payments, and han/fu/yaku recomputed with the riichi package's public scorer
(``controller.riichi.scoring.score_hand``) from the engine's own win situation, written in tenhou's own texts
(:mod:`mjtable.recorder.riichi_export`).  Names are the players' (seat 0 = the first dealer), in the seating of
that game.  ``sc`` and mjai ``end_game`` hold the raw final points with the leftover deposits to first place
(L47); ``sc`` has them in hundreds, as tenhou does, each followed by the final score with uma (L19).  The
ruleset's options (kiriage mangan, composite yakuman, uma, division) are in tenhou's ``rule`` and mjai's
``start_game`` (:func:`~mjtable.recorder.riichi_export.rules_block`).  Pure; thread-safe.

An exhaustive draw is settled by the engine at once with its default declarations and settled again by each
「聽牌」/「不聽」 a seat declares before the next wall (002 L427, ``controller.engine.ext_riichi_tenpai``): the draw
written for the hand (mjai ``ryukyoku``: ``tenpais``, ``deltas``, ``scores``; tenhou's result) follows each of them,
so the exports hold the final settlement.

A hand that ended without a tenhou equivalent (a false win 錯和 redealt, L657; a session stopped mid-hand) is
written as ``流局`` with its (zero) payments and named in the top-level ``mjtable.irregular`` list of the tenhou
document and the mjai ``ryukyoku`` ``reason`` (``false_win_redeal`` / ``stopped``): no reader can replay it.

A hand whose concealed tiles the engine did not know (partial information: no wall faces) cannot be exported;
:class:`~mjtable.recorder.riichi_export.ExportError` says which.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mjtable.mqtt.payload import json_depth
from mjtable.recorder.riichi_export import (
    ExportError,
    called_string,
    draw_tag,
    mjai_tile,
    point_text,
    rules_block,
    tenhou_tile,
    yaku_text,
)
from mjtable.tiles import MeldKind, Tile

#: bounds on a journal read for export (a half-game journal is ~0.3 MB, its longest line ~2 KB)
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 256 * 1024
MAX_DEPTH = 16


def events_from_journal(path: Path) -> list[dict[str, Any]]:
    """The accepted events of an engine journal (``controller.journal`` JSON lines), in order.

    The file is bounded before it is parsed (``MAX_JOURNAL_BYTES``, ``MAX_LINE_BYTES`` a line, ``MAX_DEPTH``
    nesting); a torn last line (a crash mid-write) is left out as the journal itself does, any other bad line
    raises :class:`ExportError` naming it (nothing after it is dropped silently)."""
    try:
        size = path.stat().st_size
        if size > MAX_JOURNAL_BYTES:
            raise ExportError(f"{path}: {size} bytes, more than a journal may hold ({MAX_JOURNAL_BYTES})")
        data = path.read_bytes()
    except OSError as exc:
        raise ExportError(f"cannot read journal {path}: {exc}") from exc
    lines = data.split(b"\n")[:-1]  # the last piece is b"" or a torn line
    events: list[dict[str, Any]] = []
    for no, line in enumerate(lines, 1):
        if len(line) > MAX_LINE_BYTES or json_depth(line) > MAX_DEPTH:
            raise ExportError(f"{path} line {no}: longer or deeper than a journal record may be")
        try:
            obj = json.loads(line)
            if obj["rec"] == "event":
                events.append(dict(obj["event"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ExportError(f"{path} line {no}: not a journal record ({exc})") from exc
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
        #: per seat the tile it drew last and has not discarded or melded since (tsumogiri = that tile goes out)
        self.drawn: list[Tile | None] = [None, None, None, None]
        self.drawn[dealer] = first


class LiveRiichiExporter:
    """Replays engine events and builds (tenhou.net/6 JSON, mjai events).  Use :func:`export_engine_events`."""

    def __init__(self, title: str = "mjtable") -> None:
        self.title = title
        self.mj: list[dict[str, Any]] = []
        self.log: list[Any] = []
        self.kyoku: _Kyoku | None = None
        self.entry_head: list[Any] = []
        self.hand_no: int | None = None
        self.irregular: list[dict[str, Any]] = []
        #: the draw written for the finished hand (its mjai ``ryukyoku``, its tenhou log entry, whether irregular):
        #: declarations after it re-settle it until the next hand starts (:meth:`_settle_again`)
        self.draw: tuple[dict[str, Any], list[Any], bool] | None = None

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
        self.rules = rules_block(state.config.rules, self._options(state), self.start_points)
        self.mj.append({"type": "start_game", "names": list(self.players), **self.rules})
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
        raw, final = self._final(state)
        self.mj.append({"type": "end_game", "scores": raw, "final_scores": final})
        tenhou: dict[str, Any] = {
            "title": [self.title, ""], "name": list(self.players),
            "rule": {"disp": state.config.rules, "aka": 1, "aka51": 1, "aka52": 1, "aka53": 1, **self.rules},
            "dan": [""] * 4, "rate": [0] * 4, "sx": ["C"] * 4,
            "sc": [x for p, f in zip(raw, final, strict=True) for x in (p // 100, f)], "log": self.log}
        if self.irregular:
            tenhou["mjtable"] = {"irregular": self.irregular}
        return tenhou, self.mj

    @staticmethod
    def _options(state: Any) -> Any:
        from controller.engine.query import ruleset_of

        return getattr(ruleset_of(state), "options", None)

    def _final(self, state: Any) -> tuple[list[int], list[float]]:
        """Raw final points (leftover deposits to first, L47) and final scores with uma (L19), per seat."""
        from controller.engine.ext_riichi import session_of
        from controller.engine.query import ruleset_of

        points = self._points(state)
        final_scores = getattr(ruleset_of(state), "final_scores", None)
        if final_scores is None:
            return points, [round((p - self.start_points) / 1000, 1) for p in points]
        f = final_scores(points, session_of(state.session).sticks)
        return list(f.raw), [round(float(x), 1) for x in f.final]

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
            if self.draw is not None and hand.hand_no == self.hand_no and hand.result is not None:
                self._settle_again(new)
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
        if hand.hand_no == 0 and hand.dealer != 0:
            raise ExportError("tenhou/mjai number the seats from the first dealer: seat 0 must deal first")
        self.hand_no = hand.hand_no
        self.kyoku = _Kyoku(hai, first, hand.dealer)
        self.draw = None
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
                tg = k.drawn[s] is not None and k.drawn[s] == t
                k.drawn[s] = None
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
                    k.drawn[s] = t

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
            k.drawn[s] = None
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
            call = called_string(letter, m.claimed_tile, own, (m.claimed_from - s) % 4)
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
        k.drawn[s] = None
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
        written: tuple[dict[str, Any], bool] | None = None  # a draw's ryukyoku, whether irregular
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
                han = score.han if score is not None else sum(p * c for _, p, c in r.fans)
                fu = score.fu if score is not None else 0
                point = point_text(fu=fu, han=han, value=r.total, dealer=w == hand.dealer, self_drawn=r.self_drawn,
                                   main=score.main if score is not None else r.total,
                                   additional=score.additional if score is not None else 0,
                                   yakuman=score.yakuman if score is not None else 0)
                yaku = [yaku_text(name, p * c) for name, p, c in r.fans]
                concealed = old.hand.seats[w].known
                hora: dict[str, Any] = {
                    "type": "hora", "actor": w, "target": frm, "pai": mjai_tile(pai),
                    "uradora_markers": [mjai_tile(t) for t in ura], "hora_tehais": [mjai_tile(t) for t in concealed],
                    "yakus": [[name, p * c] for name, p, c in r.fans], "fu": fu, "fan": han, "han": han,
                    "hora_points": r.total, "deltas": deltas, "scores": points}
                if pao_seat != w:
                    hora["pao"] = pao_seat
                self.mj.append(hora)
                result += [deltas, [w, frm, pao_seat, point, *yaku]]
        else:
            tenpai = tuple(ext.tenpai) if ext is not None and ext.tenpai is not None else (False,) * 4
            irregular = r.kind != "draw" or (ext is not None and ext.redeal)
            reason = "exhaustive"
            if irregular:
                reason = "stopped" if r.kind == "stopped" else "false_win_redeal"
                who = [i.player for i in new.infractions  # an infraction's hand_no is 1-based, as people count
                       if i.hand_no == hand.hand_no + 1 and i.kind == "false_win_lv5"]
                self.irregular.append({"log": len(self.log), "hand": self.hand_no, "reason": reason, "players": who})
            ryukyoku = {"type": "ryukyoku", "reason": reason,
                        "tehais": [[mjai_tile(t) for t in s.known] for s in hand.seats],
                        "tenpais": list(tenpai), "deltas": deltas, "scores": points}
            self.mj.append(ryukyoku)
            written = (ryukyoku, irregular)
            result = ["流局" if irregular else draw_tag(tenpai), deltas]
        entry: list[Any] = [*self.entry_head, [tenhou_tile(t) for t in dora_indicators(hand)],
                            [tenhou_tile(t) for t in ura]]
        for s in range(4):
            entry += [[tenhou_tile(t) for t in sorted(k.hai[s])], k.take[s], k.dahai[s]]
        entry.append(result)
        self.log.append(entry)
        self.mj.append({"type": "end_kyoku"})
        self.kyoku = None
        if written is not None:
            self.draw = (written[0], entry, written[1])

    def _settle_again(self, new: Any) -> None:
        """A step after the draw was written, before the next hand: a seat's 「聽牌」/「不聽」 (002 L427) may have
        re-settled the noten payments; the written draw takes the engine's settlement now (the last one wins)."""
        from controller.engine.ext_riichi import riichi_of

        assert self.draw is not None
        ryukyoku, entry, irregular = self.draw
        hand = new.hand
        ext = riichi_of(hand)
        tenpai = list(ext.tenpai) if ext is not None and ext.tenpai is not None else [False] * 4
        deltas = list(hand.result.payments)
        if ryukyoku["tenpais"] == tenpai and ryukyoku["deltas"] == deltas:
            return
        ryukyoku.update(tenpais=tenpai, deltas=deltas, scores=self._points(new))
        entry[-1] = ["流局" if irregular else draw_tag(tenpai), deltas]

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
