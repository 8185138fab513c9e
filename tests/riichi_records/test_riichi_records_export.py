"""The riichi record exports themselves: tenhou's texts, names, final points, the tsumogiri of issue 22 point 1,
irregular hand ends, and the ``mjtable records export`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mjtable.cli import main as mjtable_main
from mjtable.recorder.records_cli import export_journal
from mjtable.recorder.riichi_export import ExportError, draw_tag, point_text, yaku_text
from mjtable.recorder.riichi_live import MAX_DEPTH, events_from_journal, export_engine_events
from tests.riichi_records.conftest import Exported, write_journal
from tests.riichi_records.games import PLAYERS, play

#: the session fixture plays and exports 20 half-games (about a minute on two idle cores)
pytestmark = pytest.mark.timeout(900)


def test_tenhou_point_texts() -> None:
    def text(fu: int, han: int, value: int, *, dealer: bool = False, tsumo: bool = False, main: int = 0,
             additional: int = 0, yakuman: int = 0) -> str:
        return point_text(fu=fu, han=han, value=value, dealer=dealer, self_drawn=tsumo, main=main or value,
                          additional=additional, yakuman=yakuman)

    assert text(30, 1, 1000) == "30符1飜1000点"
    assert text(30, 1, 1100, tsumo=True, main=500, additional=300) == "30符1飜300-500点"
    assert text(30, 1, 1500, dealer=True, tsumo=True, main=500) == "30符1飜500点∀"
    assert text(30, 5, 8000) == "満貫8000点"
    assert text(40, 4, 8000) == "満貫8000点"  # 4 han 40 fu is over the mangan cap
    assert text(30, 4, 8000) == "満貫8000点"  # kiriage mangan (HKMA Appendix B 1)
    assert text(30, 4, 7700) == "30符4飜7700点"  # the same hand without kiriage
    assert text(30, 4, 12000, dealer=True, tsumo=True, main=4000) == "満貫4000点∀"
    assert text(30, 6, 12000, tsumo=True, main=6000, additional=3000) == "跳満3000-6000点"
    assert text(30, 8, 16000) == "倍満16000点"
    assert text(30, 11, 24000) == "三倍満24000点"
    assert text(30, 13, 24000) == "三倍満24000点"  # no counted yakuman: the top is sanbaiman (L60)
    assert text(0, 26, 64000, yakuman=2) == "役満64000点"
    assert yaku_text("Riichi", 1) == "立直(1飜)" and yaku_text("Dora", 3) == "ドラ(3飜)"
    assert yaku_text("Daisangen", 13) == "大三元(役満)" and yaku_text("Yakuhai (chun)", 1) == "役牌 中(1飜)"
    assert draw_tag((True,) * 4) == "全員聴牌" and draw_tag((False,) * 4) == "全員不聴"
    assert draw_tag((True, False, True, False)) == "流局"


def test_the_dealers_fourteenth_tile_discarded_is_tsumogiri(exported: list[Exported]) -> None:
    """Issue 22 point 1 (seed 17068, South 3 honba 1): the dealer discards the 南 he was dealt as his 14th tile
    (tenhou's first draw) and holds no other 南; the record said 42 and tsumogiri false."""
    g = next(g for g in exported if g.name == "seed17068")
    entry = g.tenhou["log"][8]
    dealer = entry[0][0] % 4
    assert entry[0][:2] == [6, 1] and dealer == 2
    assert 42 not in entry[4 + 3 * dealer] and entry[5 + 3 * dealer][0] == 42 and entry[6 + 3 * dealer][0] == 60
    kyoku = [i for i, e in enumerate(g.mjai) if e["type"] == "start_kyoku"][8]
    first = next(e for e in g.mjai[kyoku:] if e["type"] == "dahai")
    assert first == {"type": "dahai", "actor": dealer, "pai": "S", "tsumogiri": True}


def test_names_are_the_players_in_the_seating_of_the_game(exported: list[Exported]) -> None:
    for g in exported:
        assert g.tenhou["name"] == list(PLAYERS)
        assert g.mjai[0]["type"] == "start_game" and g.mjai[0]["names"] == list(PLAYERS)
    renamed = [dict(e) for e in exported[0].events]
    renamed[0]["players"] = ["Zoe", "Yan", "Xi", "Wu"]
    doc, mj = export_engine_events(renamed)
    assert doc["name"] == mj[0]["names"] == ["Zoe", "Yan", "Xi", "Wu"]


def test_final_points_with_deposits_and_uma_as_tenhou_writes_them(exported: list[Exported]) -> None:
    """``sc``: per seat the raw points in hundreds (leftover deposits to first, L47) and the final score with
    uma (L19: (points - 35000 return) / 1000 + 50/10/-10/-30 in division A); mjai ``end_game`` has the same
    raw points."""
    for g in exported:
        end = g.mjai[-1]
        assert end["type"] == "end_game"
        assert [100 * x for x in g.tenhou["sc"][0::2]] == end["scores"]
        assert g.tenhou["sc"][1::2] == end["final_scores"]
        assert sum(end["scores"]) == 4 * 30000
        ranked = sorted(range(4), key=lambda s: -end["scores"][s])
        uma = [end["final_scores"][s] - (end["scores"][s] - 35000) / 1000 for s in ranked]
        if len(set(end["scores"])) == 4:
            assert [round(u, 1) for u in uma] == [50.0, 10.0, -10.0, -30.0], uma


def test_the_ruleset_options_are_in_both_records(exported: list[Exported]) -> None:
    g = exported[0]
    for where in (g.tenhou["rule"], g.mjai[0]):
        assert where["profile"] == "riichi-hkma-2025"
        assert where["options"]["kiriage_mangan"] is True and where["options"]["composite_yakuman"] is False
        assert where["rules"]["kiriage_mangan"] is True and where["rules"]["double_wind_fu"] == 2
    assert g.tenhou["rule"]["aka"] == 1 and g.tenhou["rule"]["disp"] == "riichi-hkma-2025"


def test_a_false_win_redeal_is_written_as_a_draw_and_named() -> None:
    """HKMA has no abortive draws; a false win (錯和) with 20+ live tiles is redealt (L657).  tenhou has no tag
    for it: the hand is written 流局 with its zero payments and named in ``mjtable.irregular``."""
    events = play(1, hands=1)[:2]
    events.append({"type": "declare_win", "id": "x1", "at_s": 1767225601.0, "seat": 0})
    doc, mj = export_engine_events(events)
    assert doc["log"][0][-1] == ["流局", [0, 0, 0, 0]]
    assert doc["mjtable"]["irregular"] == [{"log": 0, "hand": 0, "reason": "false_win_redeal", "players": ["Ann"]}]
    assert next(e for e in mj if e["type"] == "ryukyoku")["reason"] == "false_win_redeal"


def test_records_export_command(exported: list[Exported], tmp_path: Path) -> None:
    g = exported[0]
    exe = str(Path(sys.executable).with_name("mjtable"))
    out = subprocess.run([exe, "records", "export", str(g.journal), "--tenhou", str(tmp_path / "t.json"),
                          "--mjai", str(tmp_path / "m.jsonl")], capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    line = json.loads(out.stdout)
    assert line["event"] == "records_export" and line["hands"] == len(g.tenhou["log"])
    assert line["players"] == list(PLAYERS)
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8")) == g.tenhou
    assert (tmp_path / "m.jsonl").read_text(encoding="utf-8") == g.mjai_path.read_text(encoding="utf-8")
    assert mjtable_main(["records", "export", str(g.journal)]) == 2  # no output named


def test_records_export_refuses_bad_journals_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mcr = write_journal(tmp_path / "mcr.jsonl", play(1, rules="mcr-2006", hands=1))
    with pytest.raises(ExportError, match=r"mcr-2006 game has no tenhou\.net/6 or mjai form"):
        export_journal(mcr, tenhou=tmp_path / "x.json", mjai=None)
    assert mjtable_main(["records", "export", str(mcr), "--tenhou", str(tmp_path / "x.json")]) == 1
    assert "no tenhou.net/6 or mjai form" in json.loads(capsys.readouterr().out.splitlines()[-1])["error"]
    assert not (tmp_path / "x.json").exists()

    good = write_journal(tmp_path / "g.jsonl", play(1, hands=1))
    lines = good.read_text().splitlines(keepends=True)
    (tmp_path / "torn.jsonl").write_text("".join(lines) + lines[5][:20])  # a crash mid-write: left out
    assert events_from_journal(tmp_path / "torn.jsonl") == events_from_journal(good)
    (tmp_path / "mid.jsonl").write_text("".join(lines[:5]) + "{oops\n" + "".join(lines[5:]))
    with pytest.raises(ExportError, match="line 6: not a journal record"):
        events_from_journal(tmp_path / "mid.jsonl")
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    (tmp_path / "deep.jsonl").write_text(lines[0] + '{"rec": "event", "n": 2, "event": ' + deep + "}\n")
    with pytest.raises(ExportError, match="line 2: longer or deeper"):
        events_from_journal(tmp_path / "deep.jsonl")
    with pytest.raises(ExportError, match="not over"):
        export_engine_events(events_from_journal(good)[:40])
