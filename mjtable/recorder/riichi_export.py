"""Riichi game exports that existing viewers open: tenhou.net/6 JSON and mjai JSON lines.

Input is a riichi game log: per hand the deal (dealer, round wind, honba, deposits, the 136-tile wall in draw
order) and the hand's events in the riichi procedure's JSON vocabulary (``controller/riichi/table.py``: ``draw``,
``discard {tile, riichi?}``, ``pass``, ``chi``, ``pon``, ``kan {kind}``, ``ron``, ``tsumo``).  Every hand is
replayed through the real procedure (``controller.riichi.table.apply``), so the export carries the actual
draws, replacement tiles, kan dora, riichi deposits and payments; an event the rules refuse raises
:class:`ExportError`.  Pure; thread-safe.

tenhou.net/6: tiles 11-19 man, 21-29 pin, 31-39 sou, 41-47 E S W N white green red, 51/52/53 red fives; 60 a
tsumogiri discard; calls ``c``/``p``/``m`` in the draw list and ``a``/``k`` kans in the discard list, with the
letter's position giving the seat the tile came from.  mjai: ``start_game``, ``start_kyoku``, ``tsumo``,
``dahai``, ``reach``/``reach_accepted``, ``chi``/``pon``/``daiminkan``/``ankan``/``kakan``, ``dora``,
``hora``, ``ryukyoku``, ``end_kyoku``, ``end_game``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mjtable.tiles import Hand, Tile, tile


class ExportError(ValueError):
    """A game log that cannot be replayed or exported."""


@dataclass(frozen=True, slots=True)
class RiichiHandLog:
    """One hand: the deal and its events (``controller.riichi.table`` event dicts)."""

    dealer: int
    round_wind: str  # "1z" East, "2z" South
    honba: int
    sticks: int
    wall: tuple[str, ...]
    events: tuple[dict[str, Any], ...]

    @classmethod
    def from_run(cls, run: Any) -> RiichiHandLog:
        """From a ``controller.riichi.simulate.HandRun`` (or anything with the same attributes)."""
        rw = run.round_wind.code if isinstance(run.round_wind, Tile) else str(run.round_wind)
        wall = tuple(t.code if isinstance(t, Tile) else str(t) for t in run.wall)
        return cls(int(run.dealer), rw, int(run.honba), int(run.sticks), wall, tuple(dict(e) for e in run.events))


@dataclass(frozen=True, slots=True)
class RiichiGameLog:
    """A riichi game: players in seat order (seat 0 = first dealer), start points, hands in order."""

    players: tuple[str, str, str, str]
    hands: tuple[RiichiHandLog, ...]
    start_points: int = 30000
    title: str = "mjtable"
    rules: str = "riichi-hkma-2025"
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``mjtable.riichi_log/1``: what a riichi table stores per game (input of the exports)."""
        return {"schema": "mjtable.riichi_log/1", "players": list(self.players), "start_points": self.start_points,
                "title": self.title, "rules": self.rules, "meta": self.meta,
                "hands": [{"dealer": h.dealer, "round_wind": h.round_wind, "honba": h.honba, "sticks": h.sticks,
                           "wall": list(h.wall), "events": list(h.events)} for h in self.hands]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> RiichiGameLog:
        """Parse :meth:`to_json` output; raises :class:`ExportError` naming the problem."""
        try:
            players = tuple(str(x) for x in doc["players"])
            if len(players) != 4:
                raise ExportError("a riichi game has four players")
            hands = tuple(RiichiHandLog(int(h["dealer"]), str(h["round_wind"]), int(h["honba"]), int(h["sticks"]),
                                        tuple(str(t) for t in h["wall"]), tuple(dict(e) for e in h["events"]))
                          for h in doc["hands"])
            return cls((players[0], players[1], players[2], players[3]), hands, int(doc.get("start_points", 30000)),
                       str(doc.get("title", "mjtable")), str(doc.get("rules", "riichi-hkma-2025")),
                       dict(doc.get("meta", {})))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ExportError):
                raise
            raise ExportError(f"not a riichi game log: {exc!r}") from exc


def tenhou_tile(t: Tile) -> int:
    if t.red:
        return {"m": 51, "p": 52, "s": 53}[t.suit]
    if t.is_honor:
        return 40 + t.rank
    return {"m": 10, "p": 20, "s": 30}[t.suit] + t.rank


def mjai_tile(t: Tile) -> str:
    if t.is_honor:
        return "ESWNPFC"[t.rank - 1]
    return f"{t.rank}{t.suit}{'r' if t.red else ''}"


def _diff(before: Sequence[Tile], after: Sequence[Tile]) -> list[Tile]:
    rest = list(after)
    out = []
    for t in before:
        if t in rest:
            rest.remove(t)
        else:
            out.append(t)
    return out


def _called(letter: str, called: Tile, own: Sequence[Tile], rel: int) -> str:
    """tenhou call string: the letter sits before the called tile, placed by the source seat."""
    o = [str(tenhou_tile(x)) for x in own]
    c = letter + str(tenhou_tile(called))
    if rel == 3:  # from the left player (kamicha)
        return c + "".join(o)
    if rel == 2:  # opposite (toimen)
        return o[0] + c + "".join(o[1:])
    return "".join(o) + c  # from the right (shimocha)


def _point_string(score: Any) -> str:
    if score is None:
        return ""
    if getattr(score, "yakuman", 0):
        return f"役満{score.value}点"
    return f"{score.fu}符{score.han}飜{score.value}点"


def export(game: RiichiGameLog) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Replay the game; return (tenhou.net/6 JSON, mjai events)."""
    from controller.riichi import table as rt

    points = [game.start_points] * 4
    mj: list[dict[str, Any]] = [{"type": "start_game", "names": list(game.players)}]
    log: list[Any] = []
    for hand_no, h in enumerate(game.hands):
        try:
            st = rt.new_hand(h.dealer, [tile(c) for c in h.wall], round_wind=tile(h.round_wind), honba=h.honba,
                             sticks=h.sticks)
        except (rt.IllegalEventError, ValueError) as exc:
            raise ExportError(f"hand {hand_no}: bad deal: {exc}") from exc
        round_idx = tile(h.round_wind).rank - 1
        hai = [list(s.concealed) for s in st.seats]
        assert st.drawn is not None
        hai[h.dealer].remove(st.drawn)
        take: list[list[Any]] = [[], [], [], []]
        dahai: list[list[Any]] = [[], [], [], []]
        take[h.dealer].append(tenhou_tile(st.drawn))
        pon_strings: dict[tuple[int, int], str] = {}
        scores_before = list(points)
        mj.append({"type": "start_kyoku", "bakaze": "ESWN"[round_idx], "kyoku": h.dealer + 1, "honba": h.honba,
                   "kyotaku": h.sticks, "oya": h.dealer, "dora_marker": mjai_tile(st.dora_indicators()[0]),
                   "scores": list(points), "tehais": [[mjai_tile(t) for t in sorted(x)] for x in hai]})
        mj.append({"type": "tsumo", "actor": h.dealer, "pai": mjai_tile(st.drawn)})
        result: list[Any] = []
        for i, ev in enumerate(h.events):
            before = st
            score = None
            typ = ev.get("type")
            if typ in ("ron", "tsumo"):
                score = _win_score(rt, before, ev)
            try:
                st = rt.apply(st, ev)
            except rt.IllegalEventError as exc:
                raise ExportError(f"hand {hand_no} event {i} {ev}: {exc}") from exc
            s = ev.get("seat")
            if typ == "draw":
                assert st.drawn is not None
                mj.append({"type": "tsumo", "actor": s, "pai": mjai_tile(st.drawn)})
                take[st.turn].append(tenhou_tile(st.drawn))
            elif typ == "discard":
                t = tile(str(ev["tile"]))
                tg = before.drawn is not None and before.drawn == t
                if ev.get("riichi") is True:
                    mj.append({"type": "reach", "actor": s})
                mj.append({"type": "dahai", "actor": s, "pai": mjai_tile(t), "tsumogiri": tg})
                code: Any = 60 if tg else tenhou_tile(t)
                dahai[int(str(s))].append(f"r{code}" if ev.get("riichi") is True else code)
            elif typ in ("chi", "pon") or (typ == "kan" and ev.get("kind") == "called"):
                assert before.last_discard is not None
                d, t = before.last_discard
                seat = int(str(s))
                own = _diff(before.seats[seat].concealed, st.seats[seat].concealed)
                if typ == "kan":  # the replacement tile is in the hand now
                    assert st.drawn is not None
                    own = _diff(before.seats[seat].concealed, _without(st.seats[seat].concealed, st.drawn))
                name = {"chi": "chi", "pon": "pon", "kan": "daiminkan"}[str(typ)]
                mj.append({"type": name, "actor": seat, "target": d, "pai": mjai_tile(t),
                           "consumed": [mjai_tile(x) for x in own]})
                letter = {"chi": "c", "pon": "p", "kan": "m"}[str(typ)]
                call = _called(letter, t, own, (d - seat) % 4)
                take[seat].append(call)
                if typ == "pon":
                    pon_strings[(seat, t.kind)] = call
                if typ == "kan":
                    dahai[seat].append(0)
            elif typ == "kan" and ev.get("kind") == "concealed":
                seat = int(str(s))
                used = next(m for m in st.seats[seat].melds if m not in before.seats[seat].melds).tiles
                mj.append({"type": "ankan", "actor": seat, "consumed": [mjai_tile(x) for x in used]})
                n = [str(tenhou_tile(x)) for x in used]
                dahai[seat].append("".join(n[:3]) + "a" + n[3])
            elif typ == "kan" and ev.get("kind") == "added":
                seat = int(str(s))
                assert st.added is not None
                added = st.added[1]
                pon = next(m for m in before.seats[seat].melds if m.first.kind == added.kind)
                mj.append({"type": "kakan", "actor": seat, "pai": mjai_tile(added),
                           "consumed": [mjai_tile(x) for x in pon.tiles]})
                base = pon_strings.get((seat, added.kind), "p" + "".join(str(tenhou_tile(x)) for x in pon.tiles))
                dahai[seat].append(base.replace("p", "k" + str(tenhou_tile(added)), 1))
            for line in st.ledger[len(before.ledger):]:
                if line.kind == "riichi":
                    actor = next(k for k in range(4) if line.deltas[k] < 0)
                    for k in range(4):
                        points[k] += line.deltas[k]
                    mj.append({"type": "reach_accepted", "actor": actor, "deltas": list(line.deltas),
                               "scores": list(points)})
            if st.kans > before.kans:
                mj.append({"type": "dora", "dora_marker": mjai_tile(st.dora_indicators()[-1])})
            if st.rinshan and st.drawn is not None and not (before.rinshan and before.drawn == st.drawn):
                seat = st.turn
                mj.append({"type": "tsumo", "actor": seat, "pai": mjai_tile(st.drawn)})
                take[seat].append(tenhou_tile(st.drawn))
            if st.phase == "over":
                result = _settle(st, before, ev, score=score, points=points, mj=mj)
                break
        else:
            raise ExportError(f"hand {hand_no}: the events end before the hand is over")
        winner = st.winner
        ura = [tenhou_tile(t) for t in st.ura_indicators()] if winner is not None and st.seats[winner].riichi else []
        entry: list[Any] = [[round_idx * 4 + h.dealer, h.honba, h.sticks], scores_before,
                            [tenhou_tile(t) for t in st.dora_indicators()], ura]
        for k in range(4):
            entry += [[tenhou_tile(t) for t in sorted(hai[k])], take[k], dahai[k]]
        entry.append(result)
        log.append(entry)
        mj.append({"type": "end_kyoku"})
    mj.append({"type": "end_game", "scores": list(points)})
    tenhou = {"title": [game.title, game.meta.get("date", "")], "name": list(game.players),
              "rule": {"disp": game.rules, "aka": 1}, "dan": [""] * 4, "rate": [0] * 4, "sx": ["C"] * 4,
              "sc": [x for p in points for x in (p, round((p - game.start_points) / 1000, 1))], "log": log}
    return tenhou, mj


def _without(tiles: Sequence[Tile], t: Tile) -> list[Tile]:
    rest = list(tiles)
    rest.remove(t)
    return rest


def _win_score(rt: Any, st: Any, ev: dict[str, Any]) -> Any:
    """The winning hand's score (for the han/fu/yaku strings) from the riichi package's public scorer
    (``controller.riichi.scoring.score_hand``) on the procedure state; None if it cannot be recomputed."""
    from controller.riichi.scoring import NotWinningHand, RiichiSituation, score_hand

    try:
        if ev["type"] == "tsumo":
            s, t, tsumo, chankan = int(ev["seat"]), st.drawn, True, False
        else:
            src = st.added if st.phase == "rob" else st.last_discard
            seats = sorted({int(x) for x in ev["seats"]} - {src[0]}, key=lambda x: (x - src[0]) % 4)
            s, t, tsumo, chankan = seats[0], src[1], False, st.phase == "rob"
        seat = st.seats[s]
        riichi = bool(seat.riichi)
        first = st.first_round[s] and not st.calls_made and tsumo
        sit = RiichiSituation(
            self_drawn=tsumo, seat_wind=rt.seat_wind(st, s), round_wind=st.round_wind, riichi=riichi,
            double_riichi=seat.double_riichi, ippatsu=seat.ippatsu and riichi, rinshan=tsumo and st.rinshan,
            chankan=chankan, haitei=tsumo and not st.live and not st.rinshan, houtei=not tsumo and not st.live,
            tenhou=first and s == st.dealer, chiihou=first and s != st.dealer,
            dora_indicators=st.dora_indicators(), ura_indicators=st.ura_indicators() if riichi else ())
        hand = Hand(seat.take([t]) if tsumo else seat.concealed, seat.melds)
        return score_hand(hand, t, sit, rt.DEFAULT_OPTIONS)
    except (NotWinningHand, KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None  # the procedure itself decides; the strings are cosmetic


def _settle(st: Any, before: Any, ev: dict[str, Any], *, score: Any, points: list[int],
            mj: list[dict[str, Any]]) -> list[Any]:
    line = st.ledger[-1]
    deltas = list(line.deltas)
    for k in range(4):
        points[k] += deltas[k]
    if st.winner is None:
        mj.append({"type": "ryukyoku", "reason": "exhaustive", "tehais": [[mjai_tile(t) for t in s.concealed]
                   for s in st.seats], "deltas": deltas, "scores": list(points)})
        return ["流局", deltas]
    w = st.winner
    if ev["type"] == "tsumo":
        frm, pai = w, before.drawn
    else:
        frm, pai = (before.added if before.phase == "rob" else before.last_discard)
    ura = [mjai_tile(t) for t in st.ura_indicators()] if st.seats[w].riichi else []
    mj.append({"type": "hora", "actor": w, "target": frm, "pai": mjai_tile(pai), "uradora_markers": ura,
               "hora_tehais": [mjai_tile(t) for t in st.seats[w].concealed], "deltas": deltas,
               "scores": list(points)})
    yaku = [f"{name}({han}飜)" for name, han in (score.yaku if score is not None else ())]
    pao = st.pao[w][0] if st.pao[w] is not None else w
    return ["和了", deltas, [w, frm, pao, _point_string(score), *yaku]]


def to_tenhou6_json(game: RiichiGameLog) -> str:
    """The game as one tenhou.net/6 JSON document (paste into the tenhou.net/6 viewer)."""
    return json.dumps(export(game)[0], ensure_ascii=False)


def to_mjai_lines(game: RiichiGameLog) -> str:
    """The game as mjai JSON lines (one event per line)."""
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in export(game)[1])


def main(argv: list[str] | None = None) -> int:
    """``python -m mjtable.recorder.riichi_export GAME.json|JOURNAL.jsonl [--tenhou OUT.json] [--mjai OUT.jsonl]``:
    a ``mjtable.riichi_log/1`` file (``controller.riichi.table``'s procedure) or a live-engine journal."""
    import argparse
    import sys
    from pathlib import Path

    ap = argparse.ArgumentParser(description="export a riichi game log to tenhou.net/6 JSON and mjai JSON lines")
    ap.add_argument("game", type=Path, help="mjtable.riichi_log/1 JSON, or an engine journal (.jsonl)")
    ap.add_argument("--tenhou", type=Path, default=None)
    ap.add_argument("--mjai", type=Path, default=None)
    args = ap.parse_args(argv)
    from mjtable.recorder.riichi_live import events_from_journal, export_engine_events

    try:
        if args.game.suffix == ".jsonl":  # a live-engine journal (mjtable sim --journal-dir, the service)
            tenhou, mj = export_engine_events(events_from_journal(args.game))
        else:
            tenhou, mj = export(RiichiGameLog.from_json(json.loads(args.game.read_text(encoding="utf-8"))))
    except (OSError, json.JSONDecodeError, ExportError) as exc:
        sys.stdout.write(json.dumps({"event": "error", "error": str(exc)}) + "\n")
        return 1
    if args.tenhou:
        args.tenhou.write_text(json.dumps(tenhou, ensure_ascii=False), encoding="utf-8")
    if args.mjai:
        args.mjai.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in mj), encoding="utf-8")
    sys.stdout.write(json.dumps({"event": "riichi_export", "hands": len(tenhou["log"]), "mjai_events": len(mj)}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
