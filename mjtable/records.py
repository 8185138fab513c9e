"""Records for organisers: one JSON game record per game, CSV score sheets, session standings.

A game record (``mjtable.game_record/1``, schema in ``mjtable/schemas/game_record.json``) is built from a
table's event stream as the recorder stored it: the ``hand_result`` and ``game_end`` events that
:class:`mjtable.mqtt.channel.TableChannel` emits (duplicates by id are harmless).  The CSV score sheet
follows the record form of the rulebooks (MCR V2006 附件5 麻将竞赛成绩记录表; Sichuan 记分表): per hand
(盘序) and per seat (方位, 姓名) the points won (+), lost (−) and the running total (合计), then the total row
with each player's 标准分 (ranking points) and 比赛分 (game score).  Standings rank players over games by
ranking points, ties broken by total game score (MCR V2006 §9.3).  Riichi exports (tenhou.net/6, mjai) live
in :mod:`mjtable.recorder.riichi_export`.  Pure functions; thread-safe.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from mjtable import schemas

WINDS = ("E", "S", "W", "N")
WIND_ZH = {"E": "东", "S": "南", "W": "西", "N": "北"}

#: ranking points for places 1..4 per rules family (ties: the tied places' points are summed and split)
RANK_POINTS: dict[str, tuple[int, int, int, int]] = {
    "mcr": (4, 2, 1, 0),  # MCR V2006 标准分 4/2/1/0
    "sichuan": (4, 3, 2, 1),  # SBR 2025 盘分 4/3/2/1
    "riichi": (50, 10, -10, -30),  # HKMA uma, thousands of points
}


def rules_family(rules: str) -> str:
    """``mcr-2006`` -> ``mcr``; ``sichuan-sbr-2025`` -> ``sichuan``; ``riichi-hkma-2025`` -> ``riichi``."""
    for family in RANK_POINTS:
        if rules.lower().startswith(family):
            return family
    return "mcr"


def game_records_from_events(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group stored ``mjtable.event/1`` envelopes by game and build one game record per game.

    Events of unknown types are ignored; a game with no ``game_end`` is marked ``complete: false``.
    """
    by_game: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, str]] = set()
    for ev in sorted(events, key=lambda e: (e.get("game") or "", e.get("seq", 0))):
        key = (str(ev.get("table")), str(ev.get("id")))
        if key in seen:
            continue
        seen.add(key)
        gid = ev.get("game") or f"{ev.get('table')}-unknown"
        g = by_game.setdefault(gid, {"table": ev["table"], "hands": {}, "end": None, "first_s": ev.get("ts_s"),
                                     "last_s": ev.get("ts_s"), "rules": None, "players": None})
        g["last_s"] = ev.get("ts_s", g["last_s"])
        data = ev.get("data", {})
        if ev.get("type") == "hand_result":
            g["hands"][int(data["hand_no"])] = (data, ev.get("ts_s"))
            g["rules"] = data.get("rules", g["rules"])
            g["players"] = data.get("players", g["players"])
        elif ev.get("type") == "game_end":
            g["end"] = data
            g["rules"] = data.get("rules", g["rules"])
            g["players"] = data.get("players", g["players"])
    records = []
    for gid, g in by_game.items():
        if not g["hands"] and g["end"] is None:
            continue
        hands = []
        for hand_no in sorted(g["hands"]):
            data, ts = g["hands"][hand_no]
            r = data["result"]
            hands.append({"hand_no": hand_no, "round_wind": data["round_wind"], "dealer": data["dealer"],
                          "kind": r["kind"], "winners": list(r["winners"]), "discarder": r.get("discarder"),
                          "fans": [{"name": f["name"], "points": f["points"], "count": f.get("count", 1)}
                                   for f in r.get("fans", [])],
                          "total": r["total"], "payments": list(r["payments"]), "hands": dict(r.get("hands", {})),
                          "penalties": list(data.get("penalties", [0, 0, 0, 0])), "ended_s": ts})
        if g["end"] is not None:
            totals = list(g["end"]["scores"])
        elif hands:
            totals = [sum(h["payments"][s] for h in hands) - hands[-1]["penalties"][s] for s in range(4)]
        else:
            totals = [0, 0, 0, 0]
        record = {"schema": "mjtable.game_record/1", "game_id": gid, "table": g["table"],
                  "rules": g["rules"] or "mcr-2006", "round": None, "started_s": g["first_s"],
                  "ended_s": g["last_s"] if g["end"] is not None else None,
                  "players": list(g["players"] or ["P1", "P2", "P3", "P4"]), "hands": hands,
                  "penalties": list(g["end"].get("infractions", [])) if g["end"] is not None else [],
                  "totals": totals, "complete": g["end"] is not None}
        schemas.validate("game_record", record)
        records.append(record)
    return records


def ranking_points(totals: Sequence[int], rules: str) -> list[Fraction]:
    """Ranking points per seat from final game scores; tied places share their points equally."""
    table = RANK_POINTS[rules_family(rules)]
    order = sorted(range(4), key=lambda s: -totals[s])
    out = [Fraction(0)] * 4
    i = 0
    while i < 4:
        j = i
        while j + 1 < 4 and totals[order[j + 1]] == totals[order[i]]:
            j += 1
        share = Fraction(sum(table[i:j + 1]), j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = share
        i = j + 1
    return out


def _num(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.2f}"


def score_sheet_csv(record: dict[str, Any]) -> str:
    """The score sheet (成绩记录表 / 记分表) of one game as CSV text (UTF-8, one header row)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    players = record["players"]
    header = ["table 桌", "game 局", "hand 盘序", "round_wind 圈风", "result 结果", "fans 番种", "total 番数"]
    for s in range(4):
        header += [f"seat{s} player 姓名", f"seat{s} wind 方位", f"seat{s} + 得分", f"seat{s} − 失分",
                   f"seat{s} running 合计"]
    w.writerow(header)
    running = [0, 0, 0, 0]
    for h in record["hands"]:
        if h["kind"] == "win":
            winners = ", ".join(str(s) for s in h["winners"])
            how = "self-drawn 自摸" if h.get("discarder") is None else f"discard by seat {h['discarder']} 点炮"
            result = f"win 和 seat {winners} ({how})"
        else:
            result = "draw 荒牌"
        fans = "; ".join(f"{f['name']} {f['points']}" + (f" x{f['count']}" if f.get("count", 1) > 1 else "")
                         for f in h["fans"])
        row: list[Any] = [record["table"], record["game_id"], h["hand_no"], h["round_wind"], result, fans, h["total"]]
        for s in range(4):
            pay = h["payments"][s]
            running[s] += pay
            wind = WINDS[(s - h["dealer"]) % 4]
            row += [players[s], f"{wind} {WIND_ZH[wind]}", max(pay, 0), max(-pay, 0), running[s]]
        w.writerow(row)
    rp = ranking_points(record["totals"], record["rules"])
    total_row: list[Any] = [record["table"], record["game_id"], "total 合计", "", "", "", ""]
    for s in range(4):
        total_row += [players[s], f"ranking 标准分 {_num(rp[s])}", "", "", record["totals"][s]]
    w.writerow(total_row)
    return buf.getvalue()


def standings(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Session standings over game records: per player ranking points, game score, games; sorted and ranked.

    Ties on ranking points are broken by total game score (比赛分); players still tied share the place.
    """
    acc: dict[str, dict[str, Any]] = defaultdict(lambda: {"ranking_points": Fraction(0), "score": 0, "games": 0,
                                                          "best_game_points": Fraction(-10**9)})
    for rec in records:
        rp = ranking_points(rec["totals"], rec["rules"])
        for s, name in enumerate(rec["players"]):
            a = acc[name]
            a["ranking_points"] += rp[s]
            a["score"] += rec["totals"][s]
            a["games"] += 1
            a["best_game_points"] = max(a["best_game_points"], rp[s])
    rows = sorted(acc.items(), key=lambda kv: (-kv[1]["ranking_points"], -kv[1]["score"], kv[0]))
    out: list[dict[str, Any]] = []
    for i, (name, a) in enumerate(rows):
        tied = out and out[-1]["_key"] == (a["ranking_points"], a["score"])
        place = out[-1]["place"] if tied else i + 1
        out.append({"place": place, "player": name, "ranking_points": float(a["ranking_points"]),
                    "score": a["score"], "games": a["games"], "_key": (a["ranking_points"], a["score"])})
    for row in out:
        del row["_key"]
    return out


def standings_csv(rows: Sequence[dict[str, Any]]) -> str:
    """Standings (竞赛成绩统计公布表) as CSV: place 名次, player 姓名, ranking points 标准分, score 比赛分, games."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["place 名次", "player 姓名", "ranking_points 标准分", "score 比赛分", "games 局数"])
    for r in rows:
        w.writerow([r["place"], r["player"], r["ranking_points"], r["score"], r["games"]])
    return buf.getvalue()


def penalty_sheet_csv(record: dict[str, Any]) -> str:
    """The penalty record (处罚记录表, MCR V1998 附件4 / V2006 附件6) of one game as CSV.

    Columns: 序号 no., 姓名 player, 局 game, 盘 hand, 桌 table, 位 seat, 违规内容 infraction, 处罚方法 penalty
    (points and whether applied, proposed or waived).
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["no 序号", "player 姓名", "game 局", "hand 盘", "table 桌", "seat 位", "infraction 违规内容",
                "penalty 处罚方法"])
    for i, inf in enumerate(record.get("penalties", []), 1):
        seat = inf.get("seat")
        player = inf.get("player") or (record["players"][seat] if isinstance(seat, int) else "")
        what = f"{inf.get('kind', '')}: {inf.get('message', '')}".strip(": ")
        w.writerow([i, player, record["game_id"], inf.get("hand_no", ""), record["table"], seat, what,
                    f"{inf.get('points', 0)} points ({inf.get('status', 'applied')})"])
    return buf.getvalue()
