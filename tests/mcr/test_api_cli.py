"""Public API (is_complete, find_waits, errors) and the JSON-lines CLI contract of ``mjtable score|waits``."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from controller.cli_jsonlines import handle_text_line, handler_for, run_lines
from controller.mcr import (
    RULE_PROFILES,
    InvalidHand,
    NotWinningHand,
    WinContext,
    all_readings,
    find_waits,
    is_complete,
    score_hand,
    waits_detail,
)
from controller.mcr.generate import random_wins
from mjtable.tiles import parse_hand, tile

E, S = tile("1z"), tile("2z")


def _ctx(win: str, **kw: object) -> WinContext:
    return WinContext(tile(win), bool(kw.pop("self_drawn", False)), E, S, **kw)  # type: ignore[arg-type]


def test_contract_names() -> None:
    assert RULE_PROFILES == ("mcr-1998", "mcr-2006", "mcr-2017")
    res = score_hand(parse_hand("123456789m234p7z"), _ctx("7z", flowers=1))
    assert [(f.name, f.points, f.count) for f in res.fans] == [
        ("Pure Straight", 16, 1), ("Concealed Hand", 2, 1), ("One Voided Suit", 1, 1), ("Single Wait", 1, 1),
        ("Flower Tiles", 1, 1)]
    assert res.total == 21 and res.meets_minimum
    assert res.fans[0].explain == "123m + 456m + 789m"


def test_flowers_do_not_count_towards_minimum() -> None:
    # [004:L386] 花牌 ... 不计在起和分内
    res = score_hand(parse_hand("[234m][567m]444p78p55z"), _ctx("6p", flowers=8))
    assert [(f.name, f.count) for f in res.fans] == [("Short Straight", 1), ("One Voided Suit", 1),
                                                     ("Flower Tiles", 8)]
    assert res.total == 10 and not res.meets_minimum


def test_is_complete_all_shapes() -> None:
    for s in random_wins(300, seed=5):
        assert is_complete(s.hand, s.ctx.win_tile), s.hand.code
    assert not is_complete(parse_hand("123456789m234p7z"), tile("6z"))
    assert not is_complete(parse_hand("123m"), tile("1m"))


def test_find_waits_lists_every_completing_tile() -> None:
    waits = find_waits(parse_hand("1112345678999m"), seat_wind=E, round_wind=S)
    assert [t.code for t, _ in waits] == [f"{r}m" for r in range(1, 10)]
    assert {t.code: n for t, n in waits}["1m"] == 88 + 16 + 2  # [004:L564] +清龙、四归一
    low = waits_detail(parse_hand("[234m][567p]444p78s55z"), seat_wind=E, round_wind=S)
    assert [(t.code, r.total, r.meets_minimum) for t, r in low] == [("6s", 8, True), ("9s", 8, True)]


def test_no_wait_on_a_fifth_copy() -> None:
    waits = find_waits(parse_hand("[222s<]3336789999s"), seat_wind=E, round_wind=S)
    assert "9s" not in [t.code for t, _ in waits]
    assert waits


@pytest.mark.parametrize(("hand", "ctx", "message"), [
    ("123m", _ctx("1m"), "wrong tile count"),
    ("1111m23456789m9m", _ctx("1m"), "fifth copy of 1m"),
    ("123456789m234p7z", _ctx("7z", kong=True, self_drawn=True), "no kong"),
    ("123456789m234p7z", _ctx("6z"), "not a winning hand"),
    ("123456789m234p7z", _ctx("1m", kong=True), "already uses 1m"),
    ("123456789m234p7z", _ctx("7z", flowers=9), "flowers must be 0..8"),
])
def test_impossible_input_is_rejected(hand: str, ctx: WinContext, message: str) -> None:
    with pytest.raises(NotWinningHand, match=message):
        score_hand(parse_hand(hand), ctx)


def test_invalid_is_a_not_winning_subclass() -> None:
    assert issubclass(InvalidHand, NotWinningHand)
    with pytest.raises(ValueError, match="unknown MCR rules"):
        score_hand(parse_hand("123456789m234p7z"), _ctx("7z"), "mcr-1999")


def test_all_readings_best_first() -> None:
    readings = all_readings(parse_hand("1122334455667m"), _ctx("7m"))
    assert [r.total for r in readings] == sorted((r.total for r in readings), reverse=True)
    assert readings[0].total == score_hand(parse_hand("1122334455667m"), _ctx("7m")).total


def _lines(text: str, rules: str = "mcr-2006", command: str = "score", *,
           explain: bool = False) -> list[dict[str, object]]:
    out = io.StringIO()
    run_lines(io.StringIO(text), out, handler_for(rules, command, explain=explain))
    return [json.loads(x) for x in out.getvalue().splitlines()]


def test_score_lines_one_bad_line_never_stops_the_others() -> None:
    good = {"hand": "123456789m234p7z", "win": "7z", "self_drawn": False, "seat_wind": "E", "round_wind": "S",
            "flowers": 1, "last_of_kind": False, "kong": False, "last_tile": False}
    text = "\n".join([
        json.dumps(good), "{not json", "[1, 2]", json.dumps({**good, "hand": "123m456p789s11z2x"}),
        json.dumps({**good, "win": "8z"}), json.dumps({**good, "self_drawn": "yes"}),
        json.dumps({**good, "hand": "1111m23456789m9m", "win": "1m"}), json.dumps({**good, "win": "6z"}),
        json.dumps({**good, "colour": 1}), "", json.dumps({**good, "id": 42}),
    ])
    out = _lines(text)
    assert len(out) == 10
    assert out[0] == {"ok": True, "fans": [{"name": "Pure Straight", "points": 16, "count": 1},
                      {"name": "Concealed Hand", "points": 2, "count": 1},
                      {"name": "One Voided Suit", "points": 1, "count": 1},
                      {"name": "Single Wait", "points": 1, "count": 1},
                      {"name": "Flower Tiles", "points": 1, "count": 1}], "total": 21, "meets_minimum": True}
    errors = [str(o.get("error", "")) for o in out[1:9]]
    assert all(o["ok"] is False for o in out[1:9])
    assert "bad JSON" in errors[0]
    assert "JSON object" in errors[1]
    assert "position 16" in errors[2]
    assert "honors are 1z-7z" in errors[3]
    assert "true or false" in errors[4]
    assert "fifth copy" in errors[5]
    assert "not a winning hand" in errors[6]
    assert "unknown field" in errors[7]
    assert out[9]["id"] == 42 and out[9]["ok"] is True


def test_explain_mode_names_the_sets() -> None:
    out = _lines(json.dumps({"hand": "123456789m234p7z", "win": "7z"}), explain=True)
    assert out[0]["fans"][0]["explain"] == "123m + 456m + 789m"  # type: ignore[index]


def test_waits_lines() -> None:
    out = _lines(json.dumps({"hand": "[234m][567p]444p78s55z", "flowers": 2}) + "\n" +
                 json.dumps({"hand": "123m", "seat_wind": "X"}), command="waits")
    assert out[0] == {"ok": True, "waits": [{"tile": "6s", "total": 10, "meets_minimum": True},
                                            {"tile": "9s", "total": 10, "meets_minimum": True}]}
    assert out[1]["ok"] is False


def test_other_rule_families_dispatch_or_fail_per_line() -> None:
    res = handle_text_line(json.dumps({"hand": "1112345678999m", "win": "5m"}),
                           handler_for("sichuan-sbr-2025", "score"))
    assert "ok" in res  # controller.sichuan's handler answers (ok or a clear error), never raises
    bad = handle_text_line("{}", handler_for("no-such-rules", "score"))
    assert bad["ok"] is False and "unknown rules" in str(bad["error"])


def test_console_script_end_to_end() -> None:
    proc = subprocess.run([sys.executable, "-m", "mjtable.cli", "score", "--rules", "mcr-2017"],
                          input='{"hand": "1155m2288p3399s1z", "win": "1z"}\nnope\n', capture_output=True,
                          text=True, timeout=60, check=True)
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert lines[0]["ok"] is True and {"name": "Concealed Hand", "points": 2, "count": 1} in lines[0]["fans"]
    assert lines[1]["ok"] is False


def test_option_switches_change_the_reading_on_the_command_line() -> None:
    """``--option name=value`` sets an interpretation switch (docs/mcr-interpretations.md) for score and waits;
    a bad option is a usage error (exit 2) before any line is read."""
    four_kongs = '{"hand": "[1111m][2222p]{3333s}{4444z}5z", "win": "5z"}\n'

    def score(*opts: str) -> dict[str, int]:
        argv = [sys.executable, "-m", "mjtable.cli", "score", *(f"--option={o}" for o in opts)]
        proc = subprocess.run(argv, input=four_kongs, capture_output=True, text=True, timeout=60, check=True)
        out = json.loads(proc.stdout)
        assert out["ok"] is True
        return {f["name"]: f["points"] for f in out["fans"]}

    assert "Two Concealed Kongs" in score()  # 2006 "暗杠加计"
    fans = score("four_kongs_adds_concealed=false")  # the 1998 reading
    assert "Two Concealed Kongs" not in fans and "Two Concealed Pungs" in fans
    assert score("two_concealed_kongs_points=6")["Two Concealed Kongs"] == 6
    waits = subprocess.run([sys.executable, "-m", "mjtable.cli", "waits", "--option", "four_kongs_adds_concealed=no"],
                           input='{"hand": "[1111m][2222p]{3333s}{4444z}5z"}\n', capture_output=True, text=True,
                           timeout=60, check=True)
    assert json.loads(waits.stdout)["waits"] == [{"tile": "5z", "total": 106, "meets_minimum": True}]
    for bad in (["--option", "nope=1"], ["--option", "combined_kong_points=lots"], ["--option", "novalue"],
                ["--rules", "riichi-hkma-2025", "--option", "new_pairs_stack=true"]):
        proc = subprocess.run([sys.executable, "-m", "mjtable.cli", "score", *bad], input="", capture_output=True,
                              text=True, timeout=60, check=False)
        assert proc.returncode == 2 and proc.stdout == "" and "option" in proc.stderr, bad


def test_undecodable_bytes_fail_one_line_only() -> None:
    good = b'{"hand": "123456789m234p7z", "win": "7z"}\n'
    data = good + b'{"hand": "\xff\xfe"}\n' + good
    proc = subprocess.run([sys.executable, "-m", "mjtable.cli", "score"], input=data, capture_output=True,
                          timeout=60, check=True)
    lines = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert [o["ok"] for o in lines] == [True, False, True]


def test_fuzzed_lines_always_answer() -> None:
    """Random objects built from plausible and hostile fields: every line gets ok true/false, nothing raises."""
    import random as _random

    rng = _random.Random(77)
    handler = handler_for("mcr-2006", "score")
    waits = handler_for("mcr-2017", "waits")
    values: list[object] = [None, True, 3, -1, 2.5, "", "1z", "0m", "9f", "E", "Q", [], {}, "[123m", "{1111m}",
                            "123m456p789s1122z", "[5555p]{5555p}", "1f2f3f4f5f6f7f8f", "x" * 500]
    keys = ["hand", "win", "self_drawn", "seat_wind", "round_wind", "flowers", "last_of_kind", "kong", "last_tile",
            "id", "heavenly"]
    for _ in range(2000):
        obj = {k: rng.choice(values) for k in rng.sample(keys, rng.randrange(len(keys)))}
        for h in (handler, waits):
            out = handle_text_line(json.dumps(obj), h)
            assert out["ok"] in (True, False)
            if not out["ok"]:
                assert isinstance(out["error"], str) and out["error"]
                assert not str(out["error"]).startswith("internal error"), (obj, out)


def test_every_option_is_written_up() -> None:
    from pathlib import Path

    from controller.mcr.profiles import OPTIONS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "mcr-interpretations.md").read_text(encoding="utf-8")
    for name in OPTIONS:
        assert f"`{name}`" in doc, name
