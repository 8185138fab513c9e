"""The shared vocabulary of the riichi exports (tenhou.net/6 JSON and mjai JSON lines): tile codes, call strings,
tenhou's result texts and draw tags, the ruleset's options as the records carry them.

The exporter itself is :mod:`mjtable.recorder.riichi_live` (it replays an ENGINE journal through ``step``);
``mjtable records export JOURNAL --tenhou F --mjai F`` runs it (:mod:`mjtable.recorder.records_cli`).

tenhou.net/6: tiles 11-19 man, 21-29 pin, 31-39 sou, 41-47 E S W N white green red, 51/52/53 red fives; 60 a
tsumogiri discard; calls ``c``/``p``/``m`` in the draw list and ``a``/``k`` kans in the discard list, with the
letter's position giving the seat the tile came from.  A win's text is tenhou's own: ``30符1飜1000点`` (ron),
``30符1飜300-500点`` (non-dealer tsumo: each non-dealer - the dealer), ``30符1飜500点∀`` (dealer tsumo: each),
limit hands ``満貫``/``跳満``/``倍満``/``三倍満``/``役満`` instead of fu and han; yaku ``立直(1飜)``,
``大三元(役満)``.  Pure functions; thread-safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mjtable.tiles import Tile


class ExportError(ValueError):
    """A journal that cannot be replayed or exported (the message says which hand and event)."""


def tenhou_tile(t: Tile) -> int:
    """tenhou.net/6 tile number: 11-19 man, 21-29 pin, 31-39 sou, 41-47 honours, 51-53 red fives."""
    if t.red:
        return {"m": 51, "p": 52, "s": 53}[t.suit]
    if t.is_honor:
        return 40 + t.rank
    return {"m": 10, "p": 20, "s": 30}[t.suit] + t.rank


def mjai_tile(t: Tile) -> str:
    """mjai tile name: ``1m``..``9s``, ``5mr`` red, ``E S W N P F C`` honours."""
    if t.is_honor:
        return "ESWNPFC"[t.rank - 1]
    return f"{t.rank}{t.suit}{'r' if t.red else ''}"


def called_string(letter: str, called: Tile, own: Sequence[Tile], rel: int) -> str:
    """tenhou call string: the letter sits before the called tile, placed by the source seat ``rel`` = (source -
    caller) % 4: 3 from the left (first), 2 opposite (second), 1 from the right (last)."""
    o = [str(tenhou_tile(x)) for x in own]
    c = letter + str(tenhou_tile(called))
    if rel == 3:  # from the left player (kamicha)
        return c + "".join(o)
    if rel == 2:  # opposite (toimen)
        return o[0] + c + "".join(o[1:])
    return "".join(o) + c  # from the right (shimocha)


# --- tenhou's result texts ------------------------------------------------------------------------------------

#: tenhou's yaku names for the scorer's (``mahjong`` 2.1 names, as the engine's fans carry them)
YAKU_JA: dict[str, str] = {
    "Menzen Tsumo": "門前清自摸和", "Riichi": "立直", "Ippatsu": "一発", "Chankan": "槍槓",
    "Rinshan Kaihou": "嶺上開花", "Haitei Raoyue": "海底摸月", "Houtei Raoyui": "河底撈魚", "Pinfu": "平和",
    "Tanyao": "断幺九", "Iipeiko": "一盃口", "Yakuhai (haku)": "役牌 白", "Yakuhai (hatsu)": "役牌 發",
    "Yakuhai (chun)": "役牌 中", "Yakuhai (seat wind east)": "自風 東", "Yakuhai (seat wind south)": "自風 南",
    "Yakuhai (seat wind west)": "自風 西", "Yakuhai (seat wind north)": "自風 北",
    "Yakuhai (round wind east)": "場風 東", "Yakuhai (round wind south)": "場風 南",
    "Yakuhai (round wind west)": "場風 西", "Yakuhai (round wind north)": "場風 北", "Double Riichi": "両立直",
    "Chiitoitsu": "七対子", "Chantai": "混全帯幺九", "Ittsu": "一気通貫", "Sanshoku Doujun": "三色同順",
    "Sanshoku Doukou": "三色同刻", "San Kantsu": "三槓子", "Toitoi": "対々和", "San Ankou": "三暗刻",
    "Shou Sangen": "小三元", "Honroutou": "混老頭", "Ryanpeikou": "二盃口", "Junchan": "純全帯幺九",
    "Honitsu": "混一色", "Chinitsu": "清一色", "Tenhou": "天和", "Chiihou": "地和", "Daisangen": "大三元",
    "Suu Ankou": "四暗刻", "Tsuu Iisou": "字一色", "Ryuuiisou": "緑一色", "Chinroutou": "清老頭",
    "Chuuren Poutou": "九蓮宝燈", "Kokushi Musou": "国士無双", "Dai Suushii": "大四喜", "Shousuushii": "小四喜",
    "Suu Kantsu": "四槓子", "Dora": "ドラ", "Ura Dora": "裏ドラ", "Aka Dora": "赤ドラ",
}
YAKUMAN = frozenset({"Tenhou", "Chiihou", "Daisangen", "Suu Ankou", "Tsuu Iisou", "Ryuuiisou", "Chinroutou",
                     "Chuuren Poutou", "Kokushi Musou", "Dai Suushii", "Shousuushii", "Suu Kantsu"})


def yaku_text(name: str, han: int) -> str:
    """``立直(1飜)``, ``ドラ(2飜)``, ``大三元(役満)``: one entry of tenhou's yaku list."""
    ja = YAKU_JA.get(name, name)
    return f"{ja}(役満)" if name in YAKUMAN else f"{ja}({han}飜)"


def limit_name(*, han: int, value: int, dealer: bool, yakuman: int) -> str | None:
    """tenhou's limit name for a win worth ``value`` points before honba and deposits, or None below a limit.
    A 4 han 30 fu / 3 han 60 fu hand that a kiriage rule rounds up (``value`` = 8000 / 12000) is 満貫."""
    if yakuman:
        return "役満"
    if han >= 11:
        return "三倍満"
    if han >= 8:
        return "倍満"
    if han >= 6:
        return "跳満"
    if han >= 5 or value >= (12000 if dealer else 8000):
        return "満貫"
    return None


def point_text(*, fu: int, han: int, value: int, dealer: bool, self_drawn: bool, main: int, additional: int,
               yakuman: int) -> str:
    """tenhou's score text of one win (honba and deposits excluded): ``30符1飜1000点`` (ron), ``30符1飜300-500点``
    (non-dealer tsumo: each non-dealer's - the dealer's payment), ``30符1飜500点∀`` (dealer tsumo), and for a
    limit hand its name instead of fu and han (``満貫8000点``, ``満貫2000-4000点``, ``役満16000点∀``).

    ``main``/``additional`` are the base payments of :class:`controller.riichi.scoring.RiichiScore` (non-dealer
    tsumo: ``main`` from the dealer, ``additional`` from each non-dealer; dealer tsumo: ``main`` from each)."""
    name = limit_name(han=han, value=value, dealer=dealer, yakuman=yakuman)
    head = name if name is not None else f"{fu}符{han}飜"
    if not self_drawn:
        return f"{head}{value}点"
    if dealer:
        return f"{head}{main}点∀"
    return f"{head}{additional}-{main}点"


def draw_tag(tenpai: Sequence[bool]) -> str:
    """tenhou's tag of an exhaustive draw: 全員聴牌 (all four tenpai), 全員不聴 (none), else 流局.  HKMA has no
    abortive draws (no 九種九牌/四風連打/四家立直/四開槓/三家和了, digest L25) and no nagashi mangan (L27)."""
    if tenpai and all(tenpai):
        return "全員聴牌"
    if not any(tenpai):
        return "全員不聴"
    return "流局"


# --- the ruleset's options in the records ----------------------------------------------------------------------


def rules_block(profile: str, options: Any, start_points: int) -> dict[str, Any]:
    """What the records say about the rules (tenhou ``rule``, mjai ``start_game``): the profile name, the
    ruleset's options (``RiichiOptions`` fields: ``kiriage_mangan``, ``composite_yakuman``, ``uma_mode``,
    ``division``, ...) and the same rules as flat option flags in the vocabulary mjai readers use for a
    ``start_game.rules`` object (the fields of jansou's ``Rules``).  tenhou's own ``rule`` object has no field
    for kiriage mangan or for these flags: a tenhou reader that ignores them scores a 4 han 30 fu or 3 han 60 fu
    hand at 7700 (dealer 11600) where HKMA with kiriage pays mangan, 8000 (dealer 12000)."""
    opts = {name: getattr(options, name) for name in getattr(options, "__dataclass_fields__", {})}
    flags: dict[str, Any] = {
        "player_count": 4, "starting_points": start_points, "game_length": "S", "honba_value": 100,
        "double_wind_fu": 2,  # a double-wind pair is 2 fu (L758-L762)
        "kiriage_mangan": bool(opts.get("kiriage_mangan", True)),  # Appendix B 1
        "kazoe_yakuman": False,  # the top is sanbaiman (L60)
        "multiple_yakuman": bool(opts.get("composite_yakuman", False)),  # Appendix B 2
        "double_yakuman": False,  # L59, L729
        "aka_dora": True, "ura_dora": True, "kan_dora": True,  # L15, L38, L37
        "closed_kan_indicator_immediate": True, "open_kan_indicator_immediate": True,  # kan dora at once (L37)
        "riichi_without_draw": True,  # one live tile left is enough (L363)
        "riichi_without_tenpai": False, "closed_kan_after_riichi": True,  # L363, L368
        "kuitan": True, "kuikae_ban": False,  # open tanyao (L15); kuikae undefined (App. B 8)
        "multiple_ron": False,  # head bump (L58, L415)
        "abort_kyuushu_kyuuhai": False, "abort_suufon_renda": False, "abort_suucha_riichi": False,
        "abort_suukaikan": False, "abort_sanchahou": False,  # no abortive draws (L25)
        "noten_penalty_pool": 3000, "formal_tenpai": False, "tenpai_declaration": False,  # L428-L433
        "nagashi_mangan": False,  # L27
        "ippatsu": True, "dealer_repeat_on_tenpai": True,  # L769, L435-L442
        "pao_daisangen": True, "pao_daisuushi": True, "pao_suukantsu": True, "pao_daiminkan": False,  # L730-L738
        "pao_honba_to_liable": False,
        "allow_negative_scores": True, "agari_yame": False, "sudden_death": False,  # no bust end, no west round
        "rank_ties_shared": True, "leftover_deposits_to_first": True,  # L448, L47
    }
    return {"profile": profile, "options": opts, "rules": flags}
