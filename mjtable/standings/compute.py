"""Live standings from the recorder's events: pure functions, no I/O, thread-safe.

Input: the stored ``hand_result`` and ``game_end`` events (``mjtable.event/1``; :class:`mjtable.mqtt.channel.
TableChannel` emits them with the players' *names* and the running scores) and the tables' ``status``.  Output:

* :func:`live_tables`: per table its latest game: rules, players by name with their running score (and the
  wind each sat in the last hand: seats rotate, names do not), hands played, the last hand's result, status;
* :func:`tournament_tables`: one table per rules family over the **complete** games, players ranked by
  tournament points, with ``provisional_points`` that also count the running games as if they ended now:

  - MCR: 标准分 table points 4-2-1-0 per game (ties split; MCR V2006 §9.3), tie-break by 比赛分 (game score);
  - Sichuan SBR 2025: 盘分 4/3/2/1 by 副分 (ties split, L161), tie-break by 副分;
  - riichi HKMA 2025: final = (points - return points)/1000 + uma +50/+10/-10/-30, ties share the uma, leftover
    deposits to first place (``controller.riichi.settlement.final_scores``, L19; ``uma_mode="l453"`` for the
    L451-L456 rank-point tables); the division (A: 30000/35000, B: 25000/30000) is read from the points'
    sum unless given; tie-break by raw points.

Ranking points of MCR and Sichuan come from :func:`mjtable.records.ranking_points` (the same numbers as the
recorder's score sheets).  Points are ints when whole, else floats rounded to 0.01.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mjtable.records import WINDS, ranking_points, rules_family

#: what the points column means, per rules family (shown in the web view and the CSV)
POINTS_NAME = {"mcr": "标准分 table points 4-2-1-0", "sichuan": "盘分 session points 4-3-2-1",
               "riichi": "HKMA final points (uma +50/+10/-10/-30)"}
SCORE_NAME = {"mcr": "比赛分 game score", "sichuan": "副分 hand score", "riichi": "raw points"}


@dataclass(frozen=True, slots=True)
class RiichiSettings:
    """How riichi games are totalled: ``division`` ``"A"``, ``"B"`` or ``"auto"`` (from the points' sum);
    ``uma_mode`` ``"l19"`` or ``"l453"`` (see :mod:`controller.riichi.settlement`)."""

    division: str = "auto"
    uma_mode: str = "l19"


@dataclass
class _Game:
    table: str
    game: str
    rules: str = "mcr-2006"
    players: list[str] | None = None
    scores: list[int] | None = None
    hands: int = 0
    last_hand: dict[str, Any] | None = None
    last_hand_no: int = -1
    complete: bool = False
    first_s: float = 0.0
    last_s: float = 0.0


def _games(events: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], _Game]:
    games: dict[tuple[str, str], _Game] = {}
    for ev in events:
        kind = ev.get("type")
        if kind not in ("hand_result", "game_end"):
            continue
        data = ev.get("data") or {}
        table, game = str(ev.get("table")), str(ev.get("game") or f"{ev.get('table')}-unknown")
        ts = float(ev.get("ts_s") or 0.0)
        g = games.get((table, game))
        if g is None:
            g = games[(table, game)] = _Game(table, game, first_s=ts, last_s=ts)
        g.first_s, g.last_s = min(g.first_s, ts), max(g.last_s, ts)
        g.rules = str(data.get("rules") or g.rules)
        if isinstance(data.get("players"), list) and len(data["players"]) == 4:
            g.players = [str(p) for p in data["players"]]
        if kind == "game_end":
            g.complete = True
            g.scores = [int(x) for x in data["scores"]]
            g.hands = max(g.hands, int(data.get("hands_played") or 0))
        else:
            hand_no = int(data["hand_no"])
            g.hands = max(g.hands, hand_no)
            if hand_no >= g.last_hand_no:
                g.last_hand_no = hand_no
                g.last_hand = data
                if not g.complete:
                    g.scores = [int(x) for x in data["scores"]]
    return games


def _last_hand_summary(g: _Game) -> dict[str, Any] | None:
    data = g.last_hand
    if data is None or g.players is None:
        return None
    result = data.get("result") or {}
    dealer = int(data.get("dealer", 0))
    winners = [g.players[int(s)] for s in result.get("winners", []) if 0 <= int(s) < 4]
    discarder = result.get("discarder")
    return {"hand_no": int(data["hand_no"]), "kind": result.get("kind", "?"), "winners": winners,
            "discarder": g.players[int(discarder)] if isinstance(discarder, int) and 0 <= discarder < 4 else None,
            "total": result.get("total"), "winds": {g.players[s]: WINDS[(s - dealer) % 4] for s in range(4)}}


def live_tables(events: Iterable[Mapping[str, Any]], statuses: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Every table's latest game (by its last result), players by name with their running scores, by table id.

    Tables that reported a status but no result yet are listed with ``game: null``."""
    latest: dict[str, _Game] = {}
    for g in _games(events).values():
        cur = latest.get(g.table)
        if cur is None or (g.last_s, g.game) > (cur.last_s, cur.game):
            latest[g.table] = g
    out: list[dict[str, Any]] = []
    for table in sorted(set(latest) | set(statuses or {})):
        game = latest.get(table)
        status = (statuses or {}).get(table, "unknown")
        if game is None or game.players is None or game.scores is None:
            out.append({"table": table, "status": status, "game": None, "rules": None, "players": [],
                        "hands_played": 0, "complete": False, "last_hand": None})
            continue
        summary = _last_hand_summary(game)
        scores = game.scores
        players = [{"player": name, "score": scores[s],
                    "wind": summary["winds"][name] if summary else None} for s, name in enumerate(game.players)]
        out.append({"table": table, "status": status, "game": game.game, "rules": game.rules, "players": players,
                    "hands_played": game.hands, "complete": game.complete, "last_hand": summary})
    return out


def _infer_division(scores: Sequence[int]) -> tuple[str, int]:
    """(division, leftover deposits) from final points: the points are conserved but for riichi sticks left on
    the table, so the sum is 4 x start points minus 1000 per stick."""
    total = sum(scores)
    division = "A" if total > 4 * 27500 else "B"
    start = 30000 if division == "A" else 25000
    missing = 4 * start - total
    return division, missing // 1000 if missing > 0 and missing % 1000 == 0 else 0


def game_points(rules: str, scores: Sequence[int], riichi: RiichiSettings = RiichiSettings()) -> list[Fraction]:
    """Tournament points of one game's four players (seat order) from its final (or current) scores."""
    family = rules_family(rules)
    if family != "riichi":
        return ranking_points(scores, rules)
    from controller.riichi.scoring import RiichiOptions
    from controller.riichi.settlement import final_scores

    division, leftover = _infer_division(scores)
    if riichi.division != "auto":
        division, leftover = riichi.division, 0
    result = final_scores(list(scores), leftover, RiichiOptions(division=division, uma_mode=riichi.uma_mode))
    return [Fraction(x).limit_denominator(1000) for x in result.final]


def tournament_tables(events: Iterable[Mapping[str, Any]],
                      riichi: RiichiSettings = RiichiSettings()) -> list[dict[str, Any]]:
    """One ranked table per rules family (``mcr``, ``sichuan``, ``riichi``) over every game in ``events``."""
    acc: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    rules_seen: dict[str, set[str]] = defaultdict(set)
    for g in sorted(_games(events).values(), key=lambda g: (g.first_s, g.table, g.game)):
        if g.players is None or g.scores is None:
            continue
        family = rules_family(g.rules)
        rules_seen[family].add(g.rules)
        points = game_points(g.rules, g.scores, riichi)
        for s, name in enumerate(g.players):
            row = acc[family].setdefault(name, {"points": Fraction(0), "score": 0, "games": 0,
                                                "provisional_points": Fraction(0), "running": 0})
            row["provisional_points"] += points[s]
            if g.complete:
                row["points"] += points[s]
                row["score"] += g.scores[s]
                row["games"] += 1
            else:
                row["running"] += 1
    out = []
    for family in ("mcr", "sichuan", "riichi"):
        if family not in acc:
            continue
        ranked = sorted(acc[family].items(), key=lambda kv: (-kv[1]["points"], -kv[1]["score"], kv[0]))
        rows: list[dict[str, Any]] = []
        for i, (name, a) in enumerate(ranked):
            tied = rows and (rows[-1]["_p"], rows[-1]["score"]) == (a["points"], a["score"])
            rows.append({"place": rows[-1]["place"] if tied else i + 1, "player": name,
                         "points": _num(a["points"]), "score": a["score"], "games": a["games"],
                         "provisional_points": _num(a["provisional_points"]),
                         "running": a["running"], "_p": a["points"]})
        for r in rows:
            del r["_p"]
        out.append({"family": family, "rules": sorted(rules_seen[family]), "points_name": POINTS_NAME[family],
                    "score_name": SCORE_NAME[family], "rows": rows})
    return out


def _num(x: Fraction) -> int | float:
    """An integral value as int, else rounded to 0.01."""
    return int(x) if x.denominator == 1 else round(float(x), 2)


def standings_report(events: Sequence[Mapping[str, Any]], statuses: Mapping[str, str] | None = None, *,
                     riichi: RiichiSettings = RiichiSettings(), now_s: float | None = None) -> dict[str, Any]:
    """Everything the organiser's view shows: ``tables`` (:func:`live_tables`) and ``tournaments``
    (:func:`tournament_tables`)."""
    return {"schema": "mjtable.standings/1", "generated_s": now_s, "tables": live_tables(events, statuses),
            "tournaments": tournament_tables(events, riichi)}


def standings_csv(report: Mapping[str, Any]) -> str:
    """The tournament tables as CSV (UTF-8, one header row; one block per rules family)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rules 规则", "place 名次", "player 姓名", "points 积分", "score 比赛分", "games 局数",
                "provisional_points 含进行中", "running 进行中", "points_name"])
    for t in report["tournaments"]:
        for r in t["rows"]:
            w.writerow([t["family"], r["place"], r["player"], r["points"], r["score"], r["games"],
                        r["provisional_points"], r["running"], t["points_name"]])
    return buf.getvalue()


def tables_csv(report: Mapping[str, Any]) -> str:
    """Every table's running scores as CSV: one row per table and player."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["table 桌", "status", "game 局", "rules 规则", "hands 盘数", "complete", "player 姓名", "wind 方位",
                "score 得分"])
    for t in report["tables"]:
        for p in t["players"]:
            w.writerow([t["table"], t["status"], t["game"], t["rules"], t["hands_played"], t["complete"],
                        p["player"], p["wind"] or "", p["score"]])
    return buf.getvalue()
