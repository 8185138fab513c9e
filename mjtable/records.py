"""Records for organisers: one JSON game record per game, CSV score sheets, session standings.

A game record (``mjtable.game_record/1``, schema in ``mjtable/schemas/game_record.json``) is built from a
table's event stream as the recorder stored it: the ``hand_result`` and ``game_end`` events that
:class:`mjtable.mqtt.channel.TableChannel` emits (duplicates by id are harmless).  The CSV score sheet
follows the record form of the rulebooks (MCR V2006 附件5 麻将竞赛成绩记录表; Sichuan 记分表): per hand
(盘序) and per player (姓名, with his wind and seat in that hand: MCR rotates the seats every round) the points
won (+) and lost (−) in the hand's result, the money that changed hands outside it (false-win payments, kong
money paid at once, riichi deposits), the penalty points deducted and the running total (合计): the table's score
after the hand, so every point is accounted for; then the total row with each player's 标准分 (ranking points)
and 比赛分 (game score).  Standings rank players over games by
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


def _registered_order(g: dict[str, Any]) -> list[str]:
    """The game's players in registration order (round-1 seats): the events' ``session_players``, else the
    seating of the first recorded hand (round 1 seats everybody at his registered seat), else the last seating."""
    if g["session_players"]:
        return list(g["session_players"])
    if g["hands"]:
        first = g["hands"][min(g["hands"])][0]
        if first.get("players"):
            return list(first["players"])
    return list(g["players"] or ["P1", "P2", "P3", "P4"])


def _by_name(names: Sequence[str], seating: Sequence[str]) -> list[int] | None:
    """Seat of each of ``names`` in ``seating`` (names per seat); None unless both hold the same four distinct
    names (then the record falls back to seats: nothing else can tell who sat where)."""
    if len(set(names)) != 4 or sorted(names) != sorted(seating):
        return None
    return [list(seating).index(n) for n in names]


def _unrecorded(first: int, last: int) -> str:
    """``hand 6 not recorded`` / ``hands 3–5 not recorded`` (hand numbers ``first``..``last``)."""
    return f"hand {first} not recorded 未记录" if first == last else f"hands {first}–{last} not recorded 未记录"


def _hand_record(data: dict[str, Any], ts: Any, players: list[str], prev: dict[str, Any] | None) -> dict[str, Any]:
    """One hand of a game record: the result per seat (as the table reported it) and per player.

    Per player: ``points`` (the result's payments), ``other`` (money that changed hands outside the result:
    MCR false-win payments, Sichuan kong money paid at once, riichi deposits), ``penalty`` (penalty points
    deducted during the hand), ``running`` (his score after the hand, net of penalties, as the table showed it).
    ``other`` and ``penalty`` come from the change of the event's scores and penalties since ``prev`` (the
    previous recorded hand), so ``running`` of ``prev`` + ``points`` + ``other`` − ``penalty`` = ``running``.
    When hands before this one were not recorded, their money is in ``other``/``penalty`` and ``note`` says so;
    an event without scores (``other_known`` false) shows the result's payments only, and says so.
    """
    r = data["result"]
    hand_no = int(data["hand_no"])
    seating = list(data.get("players") or players)
    seats = _by_name(players, seating) or [0, 1, 2, 3]
    dealer = int(data["dealer"])
    penalties = list(data.get("penalties", [0, 0, 0, 0]))
    scores = data.get("scores")
    before = [pp["running"] for pp in prev["per_player"]] if prev is not None else [0, 0, 0, 0]
    pen_before = [pp["penalties"] for pp in prev["per_player"]] if prev is not None else [0, 0, 0, 0]
    prev_no = int(prev["hand_no"]) if prev is not None else 0
    missing = list(range(prev_no + 1, hand_no))
    notes = [f"{_unrecorded(missing[0], missing[-1])}: {'its' if len(missing) == 1 else 'their'} points are in "
             "other/penalty of this row"] if missing else []
    if prev is not None and not prev["other_known"] and scores is not None:
        notes.append(f"other/penalty also hold hand {prev_no}'s money outside its result")
    if scores is None:
        notes.append("the table sent no scores: money outside the result is not known")
    per_player = []
    for k, (name, seat) in enumerate(zip(players, seats, strict=True)):
        points = int(r["payments"][seat])
        penalty = int(penalties[seat]) - pen_before[k]
        running = int(scores[seat]) if scores is not None else before[k] + points - penalty
        per_player.append({"player": name, "seat": seat, "wind": WINDS[(seat - dealer) % 4], "points": points,
                           "other": running - before[k] - points + penalty, "penalty": penalty,
                           "penalties": int(penalties[seat]), "running": running})
    discarder = r.get("discarder")
    wins = []
    for w in r.get("wins") or []:
        wins.append({"player": seating[w["winner"]], "seat": w["winner"],
                     "discarder": seating[w["discarder"]] if w.get("discarder") is not None else None,
                     "self_drawn": bool(w.get("self_drawn")), "win_tile": w.get("win_tile"),
                     "hand": w.get("hand", ""),
                     "fans": [{"name": f["name"], "points": f["points"], "count": f.get("count", 1)}
                              for f in w.get("fans", [])],
                     "total": w["total"], "payments": {seating[s]: p for s, p in enumerate(w["payments"]) if p}})
    return {"hand_no": hand_no, "round_wind": data["round_wind"], "dealer": dealer,
            "dealer_player": seating[dealer], "seating": seating,
            "kind": "win" if r["kind"] == "win" else "draw", "winners": list(r["winners"]),
            "winner_players": [seating[w] for w in r["winners"]], "discarder": discarder,
            "discarder_player": seating[discarder] if discarder is not None else None,
            "fans": [{"name": f["name"], "points": f["points"], "count": f.get("count", 1)} for f in r.get("fans", [])],
            "total": r["total"], "payments": list(r["payments"]), "hands": dict(r.get("hands", {})),
            "penalties": penalties, "per_player": per_player, "wins": wins, "ended_s": ts,
            "unrecorded_before": missing, "other_known": scores is not None, "note": "; ".join(notes) or None}


def _after_last_hand(end: dict[str, Any] | None, hands: list[dict[str, Any]], totals: list[int]) -> dict[str, Any]:
    """What changed after the last recorded hand, per player: the game end's scores minus the last running
    totals (zero without a game end), and a note naming the hands whose results were not recorded."""
    running = [pp["running"] for pp in hands[-1]["per_player"]] if hands else [0, 0, 0, 0]
    if end is None:
        return {"after_last_hand": [0, 0, 0, 0], "after_last_hand_note": None}
    last = int(hands[-1]["hand_no"]) if hands else 0
    played = int(end.get("hands_played") or last)
    note = _unrecorded(last + 1, played) if played > last else None
    return {"after_last_hand": [t - r for t, r in zip(totals, running, strict=True)], "after_last_hand_note": note}


def game_records_from_events(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group stored ``mjtable.event/1`` envelopes by game and build one game record per game.

    The record is per player: ``players`` in registration order, ``totals`` in the same order, and each hand
    lists ``per_player`` the seat, seat wind, result points, other money, penalty and running total of every
    player (seats rotate between rounds in MCR; see :func:`_hand_record`); ``payments``/``winners``/``discarder``
    stay per seat as the table reported them, with ``seating`` naming who sat where.  ``totals`` are the game
    end's scores, else (``complete: false``) the last recorded running totals; ``after_last_hand`` is what
    changed after the last recorded hand.  Events of unknown types are ignored.
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
                                     "last_s": ev.get("ts_s"), "rules": None, "players": None,
                                     "session_players": None})
        g["last_s"] = ev.get("ts_s", g["last_s"])
        data = ev.get("data", {})
        if ev.get("type") in ("hand_result", "game_end"):
            g["rules"] = data.get("rules", g["rules"])
            g["players"] = data.get("players", g["players"])
            g["session_players"] = data.get("session_players", g["session_players"])
        # in seq order, a later hand_result of a hand or a later game_end (a corrected one, id <first id>:r<k>) wins
        if ev.get("type") == "hand_result":
            g["hands"][int(data["hand_no"])] = (data, ev.get("ts_s"))
        elif ev.get("type") == "game_infractions":  # the first pages of a long infraction list, before its game_end
            g.setdefault("pages", {}).setdefault(str(data.get("end")), []).extend(data.get("infractions", []))
        elif ev.get("type") == "game_end":
            g["end"] = {**data, "infractions": [*g.get("pages", {}).get(str(ev.get("id")), []),
                                                *data.get("infractions", [])]}
    records = []
    for gid, g in by_game.items():
        if not g["hands"] and g["end"] is None:
            continue
        players = _registered_order(g)
        hands: list[dict[str, Any]] = []
        for n in sorted(g["hands"]):
            hands.append(_hand_record(g["hands"][n][0], g["hands"][n][1], players, hands[-1] if hands else None))
        if g["end"] is not None:
            end_seats = _by_name(players, g["end"].get("players") or players) or [0, 1, 2, 3]
            totals = [int(g["end"]["scores"][s]) for s in end_seats]
        elif hands:
            totals = [pp["running"] for pp in hands[-1]["per_player"]]
        else:
            totals = [0, 0, 0, 0]
        record = {"schema": "mjtable.game_record/1", "game_id": gid, "table": g["table"],
                  "rules": g["rules"] or "mcr-2006", "round": None, "started_s": g["first_s"],
                  "ended_s": g["last_s"] if g["end"] is not None else None,
                  "players": players, "hands": hands,
                  "penalties": list(g["end"].get("infractions", [])) if g["end"] is not None else [],
                  "totals": totals, **_after_last_hand(g["end"], hands, totals), "complete": g["end"] is not None}
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


def _seat_label(seat: int, wind: str) -> str:
    return f"{wind} {WIND_ZH[wind]} seat {seat}"


def score_sheet_csv(record: dict[str, Any]) -> str:
    """The score sheet (成绩记录表 / 记分表) of one game as CSV text (UTF-8, one header row).

    One block of columns per player (registration order, named in the header): per hand his wind and seat
    (they change when seats rotate), the result's points won (+) and lost (−), money that changed hands
    outside the result (other ±: false-win payments, kong money paid at once, riichi deposits), penalty points
    deducted (penalty −) and his running total (合计, net of penalties): each row adds up to its running total.
    A hand after unrecorded ones says so; changes after the last recorded hand get their own row; the total
    row gives ranking points (标准分) and the game score (比赛分, the game end's scores), equal to the last
    running total.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    players = record["players"]
    header = ["table 桌", "game 局", "hand 盘序", "round_wind 圈风", "result 结果", "fans 番种", "total 番数"]
    for name in players:
        header += [f"{name} 姓名", f"{name} wind/seat 方位", f"{name} + 得分", f"{name} − 失分",
                   f"{name} other ± 其他", f"{name} penalty − 罚分", f"{name} running 合计"]
    w.writerow(header)
    for h in record["hands"]:
        result = ("win 和 " + "; ".join(_win_text(h))) if h["kind"] == "win" else "draw 荒牌"
        if h.get("note"):
            result += f" [{h['note']}]"
        fans = "; ".join(_fan_text(f) for f in h["fans"]) if len(h.get("wins") or []) < 2 else " | ".join(
            f"{x['player']}: " + "; ".join(_fan_text(f) for f in x["fans"]) for x in h["wins"])
        total = h["total"] if len(h.get("wins") or []) < 2 else " | ".join(str(x["total"]) for x in h["wins"])
        row: list[Any] = [record["table"], record["game_id"], h["hand_no"], h["round_wind"], result, fans, total]
        for pp in h["per_player"]:
            row += [pp["player"], _seat_label(pp["seat"], pp["wind"]), max(pp["points"], 0), max(-pp["points"], 0),
                    pp["other"], pp["penalty"], pp["running"]]
        w.writerow(row)
    after = record.get("after_last_hand") or [0, 0, 0, 0]
    if any(after) or record.get("after_last_hand_note"):
        last = record["hands"][-1]["hand_no"] if record["hands"] else None
        label = f"after hand {last} 第{last}盘后" if last is not None else "no hand recorded 无盘记录"
        note = "; ".join(x for x in (record.get("after_last_hand_note"),
                                     "change after the last recorded hand, net of penalties 盘后变动") if x)
        after_row: list[Any] = [record["table"], record["game_id"], label, "", note, "", ""]
        for k, name in enumerate(players):
            after_row += [name, "", "", "", after[k], "", record["totals"][k]]
        w.writerow(after_row)
    rp = ranking_points(record["totals"], record["rules"])
    total_row: list[Any] = [record["table"], record["game_id"], "total 合计", "", "", "", ""]
    for k, name in enumerate(players):
        total_row += [name, f"ranking 标准分 {_num(rp[k])}", "", "", "", "", record["totals"][k]]
    w.writerow(total_row)
    return buf.getvalue()


def _fan_text(f: dict[str, Any]) -> str:
    return f"{f['name']} {f['points']}" + (f" x{f['count']}" if f.get("count", 1) > 1 else "")


def _win_text(h: dict[str, Any]) -> list[str]:
    """Who won and how, by name (one entry per winner)."""
    wins = h.get("wins") or [{"player": p, "discarder": h.get("discarder_player"),
                              "self_drawn": h.get("discarder") is None} for p in h["winner_players"]]
    out = []
    for x in wins:
        how = "self-drawn 自摸" if x.get("discarder") is None else f"discard by {x['discarder']} 点炮"
        out.append(f"{x['player']} ({how})")
    return out


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
        index = inf.get("player_index")
        player = inf.get("player") or (record["players"][index] if isinstance(index, int) and 0 <= index < 4 else "")
        what = f"{inf.get('kind', '')}: {inf.get('message', '')}".strip(": ")
        w.writerow([i, player, record["game_id"], inf.get("hand_no", ""), record["table"], seat, what,
                    f"{inf.get('points', 0)} points ({inf.get('status', 'applied')})"])
    return buf.getvalue()
