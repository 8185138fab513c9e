"""Independent checks of tenhou.net/6 JSON and mjai JSON lines (used by the live-engine riichi export tests).

Both replay the exported game tile by tile, without the engine: every discard was held, every call consumed held
tiles of a discard that was just made, hand sizes stay 13 (+1 while acting), no tile kind appears more than four
times, each winning hand is a complete shape, and the scores chain from hand to hand.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from controller.engine.shanten import is_complete

TENHOU_TILE = set(range(11, 20)) | set(range(21, 30)) | set(range(31, 40)) | set(range(41, 48)) | {51, 52, 53}
MJAI_TILE = re.compile(r"^([1-9][mps]|5[mps]r|[ESWNPFC])$")


def tenhou_kind(t: int) -> int:
    """Index 0..33 of a tenhou tile number (red fives are fives)."""
    if t in (51, 52, 53):
        t = {51: 15, 52: 25, 53: 35}[t]
    suit, rank = divmod(t, 10)
    return (suit - 1) * 9 + rank - 1


def _call_tiles(call: str) -> tuple[str, int, list[int]]:
    """(letter, called tile, own tiles) of a tenhou call string such as ``c345336`` or ``41p4141``."""
    m = re.search(r"[cpmka]", call)
    assert m, call
    letter = m.group()
    digits = call.replace(letter, "")
    tiles = [int(digits[i:i + 2]) for i in range(0, len(digits), 2)]
    pos = m.start() // 2
    called = tiles[pos]
    own = tiles[:pos] + tiles[pos + 1:]
    return letter, called, own


def assert_final(raw: list[int], points: list[int], start_points: int) -> None:
    """The raw final points are the points after the last hand plus the deposits left on the table, which go
    to first place (L47; a tie for first would split them)."""
    assert sum(raw) == 4 * start_points
    top = max(points)
    for s in range(4):
        assert raw[s] == points[s] if points[s] < top else raw[s] >= points[s], (raw, points)


def check_tenhou(doc: dict[str, Any], *, start_points: int, final_points: list[int]) -> int:
    """Validate a tenhou.net/6 document; returns the number of hands."""
    assert isinstance(doc["title"], list) and len(doc["name"]) == 4
    assert isinstance(doc["rule"], dict) and {"disp", "aka"} <= set(doc["rule"])
    assert len(doc["sc"]) == 8
    assert_final([100 * x for x in doc["sc"][0::2]], final_points, start_points)
    assert all(isinstance(x, float) for x in doc["sc"][1::2])  # the final score with uma, in thousands
    expected = [start_points] * 4
    for n, kyoku in enumerate(doc["log"]):
        assert len(kyoku) == 17, f"hand {n}: {len(kyoku)} fields"
        head, scores, dora, ura = kyoku[0], kyoku[1], kyoku[2], kyoku[3]
        assert len(head) == 3 and all(isinstance(x, int) and x >= 0 for x in head) and head[0] < 16
        assert scores == expected, f"hand {n}: scores {scores} != {expected}"
        assert 1 <= len(dora) <= 5 and all(d in TENHOU_TILE for d in dora)
        assert len(ura) in (0, len(dora))
        seen: Counter[int] = Counter(tenhou_kind(d) for d in dora + ura)
        riichi = [False] * 4
        last_discard: list[int | None] = [None] * 4
        hands: list[Counter[int]] = []
        melds = [0] * 4
        for s in range(4):
            hai, take, dahai = kyoku[4 + 3 * s], kyoku[5 + 3 * s], kyoku[6 + 3 * s]
            assert len(hai) == 13 and all(t in TENHOU_TILE for t in hai), f"hand {n} seat {s} haipai"
            hand = Counter(hai)
            seen.update(tenhou_kind(t) for t in hai)
            last: int | None = None
            ti = di = 0
            while ti < len(take):
                t = take[ti]
                ti += 1
                if isinstance(t, int):
                    assert t in TENHOU_TILE
                    hand[t] += 1
                    seen[tenhou_kind(t)] += 1
                    last = t
                else:
                    letter, _, own = _call_tiles(t)
                    assert letter in "cpm", t
                    for o in own:
                        assert hand[o] > 0, f"hand {n} seat {s}: call {t} without {o}"
                        hand[o] -= 1
                    melds[s] += 1
                    last = None
                    if letter == "m":
                        assert dahai[di] == 0, f"hand {n} seat {s}: daiminkan without its 0"
                        di += 1
                        continue  # the replacement draw comes next
                while True:  # discard (or declare kans and draw again)
                    if di >= len(dahai):
                        break
                    d = dahai[di]
                    if isinstance(d, str) and ("a" in d or "k" in d):
                        letter, _, own = _call_tiles(d)
                        di += 1
                        if letter == "a":
                            for o in [*own, _call_tiles(d)[1]]:
                                assert hand[o] > 0, f"hand {n} seat {s}: ankan {d} without {o}"
                                hand[o] -= 1
                            melds[s] += 1
                        else:
                            added = _call_tiles(d)[1]
                            assert hand[added] > 0, f"hand {n} seat {s}: kakan {d} without {added}"
                            hand[added] -= 1
                        last = None
                        break  # a replacement draw follows
                    di += 1
                    if isinstance(d, str):
                        assert d.startswith("r"), d
                        riichi[s] = True
                        d = int(d[1:])
                    if d == 60:
                        assert last is not None, f"hand {n} seat {s}: tsumogiri without a draw"
                        d = last
                    assert hand[d] > 0, f"hand {n} seat {s}: discards {d} not held"
                    hand[d] -= 1
                    last_discard[s] = d
                    assert sum(hand.values()) + 3 * melds[s] == 13
                    break
            assert di == len(dahai), f"hand {n} seat {s}: {len(dahai) - di} discards left over"
            hands.append(hand)
        assert all(v <= 4 for v in seen.values()), f"hand {n}: more than four of a kind"
        result = kyoku[16]
        deltas = result[1]
        assert isinstance(deltas, list) and len(deltas) == 4
        paid = [1000 if riichi[s] else 0 for s in range(4)]
        if result[0] == "和了":
            w, frm, _pao, point = result[2][:4]
            assert re.match(r"^(\d+符\d+飜|満貫|跳満|倍満|三倍満|役満)(\d+|\d+-\d+)点(∀)?$", point), point
            robbed = kyoku[6 + 3 * frm][-1] if kyoku[6 + 3 * frm] else None
            if frm != w and isinstance(robbed, str) and "k" in robbed:  # robbing the kong (chankan)
                win_tile: int | None = _call_tiles(robbed)[1]
            else:
                win_tile = last_discard[frm]
            hand = hands[w] if frm == w else hands[w] + Counter([win_tile])
            counts = [0] * 34
            for t, c in hand.items():
                counts[tenhou_kind(t)] += c
            assert sum(counts) + 3 * melds[w] == 14
            assert is_complete(counts, melds[w]) or sum(1 for c in counts if c == 2) == 7 or sum(
                1 for c in counts if c) == 13, f"hand {n}: the winner's hand is not complete"
            if frm != w and riichi[frm] and kyoku[6 + 3 * frm] and str(kyoku[6 + 3 * frm][-1]).startswith("r"):
                paid[frm] = 0  # ronned on the declaration tile: the stick was never paid
        else:
            assert result[0] in ("流局", "全員聴牌", "全員不聴")
        expected = [scores[s] + deltas[s] - paid[s] for s in range(4)]
    return len(doc["log"])


def check_mjai(events: list[dict[str, Any]], *, final_points: list[int]) -> dict[str, int]:
    """Validate an mjai stream; returns counts of event types."""
    assert events[0]["type"] == "start_game" and len(events[0]["names"]) == 4
    assert events[-1]["type"] == "end_game"
    assert_final(events[-1]["scores"], final_points, sum(events[1]["scores"]) // 4)
    counts: Counter[str] = Counter(e["type"] for e in events)
    hands: list[Counter[str]] = []
    melds = [0] * 4
    scores: list[int] | None = None
    last_tsumo: list[str | None] = [None] * 4
    last_dahai: tuple[int, str] | None = None
    in_kyoku = False
    reach_pending: int | None = None
    dora = 0
    for i, e in enumerate(events[1:-1], 1):
        t = e["type"]
        for key in ("pai", "dora_marker"):
            if e.get(key) is not None:
                assert MJAI_TILE.match(e[key]), (i, e)
        if t == "start_kyoku":
            assert not in_kyoku
            in_kyoku, dora = True, 1
            if scores is not None:
                assert e["scores"] == scores, (i, e["scores"], scores)
            scores = list(e["scores"])
            hands = [Counter(h) for h in e["tehais"]]
            assert all(sum(h.values()) == 13 for h in hands)
            melds = [0] * 4
            last_dahai = None
            continue
        assert in_kyoku or t == "end_kyoku", (i, e)
        a = int(e["actor"]) if "actor" in e else -1
        if t == "tsumo":
            hands[a][e["pai"]] += 1
            last_tsumo[a] = e["pai"]
            assert sum(hands[a].values()) + 3 * melds[a] == 14
        elif t == "reach":
            reach_pending = a
            assert events[i + 1]["type"] == "dahai" and events[i + 1]["actor"] == a
        elif t == "dahai":
            assert hands[a][e["pai"]] > 0, (i, e)
            if e["tsumogiri"]:
                assert last_tsumo[a] == e["pai"], (i, e)
            hands[a][e["pai"]] -= 1
            last_tsumo[a] = None
            last_dahai = (a, e["pai"])
            assert sum(hands[a].values()) + 3 * melds[a] == 13
        elif t == "reach_accepted":
            assert a == reach_pending and e["deltas"][a] == -1000
            assert scores is not None
            scores[a] -= 1000
            assert e["scores"] == scores
            reach_pending = None
        elif t in ("chi", "pon", "daiminkan"):
            assert last_dahai == (e["target"], e["pai"]) and e["target"] != a, (i, e)
            for c in e["consumed"]:
                assert hands[a][c] > 0, (i, e)
                hands[a][c] -= 1
            assert len(e["consumed"]) == (3 if t == "daiminkan" else 2)
            melds[a] += 1
            last_dahai = None
        elif t == "ankan":
            assert len(e["consumed"]) == 4
            for c in e["consumed"]:
                assert hands[a][c] > 0, (i, e)
                hands[a][c] -= 1
            melds[a] += 1
        elif t == "kakan":
            assert hands[a][e["pai"]] > 0, (i, e)
            hands[a][e["pai"]] -= 1
        elif t == "dora":
            dora += 1
            assert dora <= 5
        elif t == "hora":
            if e["target"] != a:
                assert last_dahai == (e["target"], e["pai"]) or events[i - 1]["type"] == "kakan", (i, e)
            assert sorted(e["hora_tehais"]) == sorted(hands[a].elements()), (i, e)
            assert sum(e["deltas"]) >= 0  # the winner may collect deposits left on the table
            assert scores is not None
            scores = [x + d for x, d in zip(scores, e["deltas"], strict=True)]
            assert e["scores"] == scores, (i, e["scores"], scores)
        elif t == "ryukyoku":
            assert scores is not None
            scores = [x + d for x, d in zip(scores, e["deltas"], strict=True)]
            assert e["scores"] == scores
        elif t == "end_kyoku":
            assert in_kyoku and events[i - 1]["type"] in ("hora", "ryukyoku")
            in_kyoku = False
        else:
            raise AssertionError(f"unknown mjai event {e}")
    assert not in_kyoku
    return dict(counts)
