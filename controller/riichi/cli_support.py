"""JSON-lines contract of ``mjtable score|waits --rules riichi-hkma-2025``.

``score_line`` input: ``{"hand": "123456789m234p5z", "win": "5z", "self_drawn": true, "seat_wind": "S",
"round_wind": "E", "dealer": false, "riichi": true, "double_riichi": false, "ippatsu": false,
"dora_indicators": ["1p"], "ura_indicators": [], "honba": 0, "riichi_sticks": 0, "rinshan": false,
"chankan": false, "haitei": false, "houtei": false, "kiriage_mangan": true, "composite_yakuman": false}``
(``hand`` EXCLUDES the win tile; ``dealer`` true means seat wind East unless ``seat_wind`` says otherwise,
which is an error).  Output adds ``han``, ``fu``, ``yaku`` [{name, han}], ``points`` (hand value without
honba/deposits), ``limit`` and ``payments``: ron ``{"discarder": n}``, non-dealer tsumo
``{"dealer": n, "non_dealer": m}``, dealer tsumo ``{"non_dealer": n}`` (honba included), plus
``deposits`` (riichi sticks x 1000 to the winner) and ``total`` gained.  ``waits_line`` lists each tile that
completes a 13-tile hand with its ron value (``han`` 0 and ``yaku`` false when the shape has no yaku).
Pure; called from the CLI's thread.
"""

from __future__ import annotations

from typing import Any

from mjtable.tiles import (
    WIND_CODES,
    Hand,
    NotationError,
    Tile,
    parse_hand,
    parse_tiles,
    tile,
)

from .scoring import (
    HONBA_RON,
    HONBA_TSUMO_EACH,
    RULES_NAME,
    STICK,
    NotWinningHand,
    RiichiOptions,
    RiichiSituation,
    score_hand,
)
from .tenpai import completing_tiles
from .tiles_check import check_riichi_hand, check_riichi_tiles

_FLAGS = ("self_drawn", "riichi", "double_riichi", "ippatsu", "rinshan", "chankan", "haitei", "houtei",
          "tenhou", "chiihou")
_SCORE_KEYS = {"hand", "win", "seat_wind", "round_wind", "dealer", "dora_indicators", "ura_indicators", "honba",
               "riichi_sticks", "kiriage_mangan", "composite_yakuman", "rules", "id",
               "kong_replacement", "robbing_kong", "last_tile", *_FLAGS}
_WAITS_KEYS = {"hand", "seat_wind", "round_wind", "dealer", "dora_indicators", "riichi", "kiriage_mangan",
               "composite_yakuman", "rules", "id"}


class InputError(ValueError):
    """A JSON line with a missing, unknown or ill-typed field."""


def _flag(obj: dict[str, Any], key: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise InputError(f"{key!r} must be true or false, got {v!r}")
    return v


def _count(obj: dict[str, Any], key: str) -> int:
    v = obj.get(key, 0)
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise InputError(f"{key!r} must be a non-negative integer, got {v!r}")
    return v


def _wind(obj: dict[str, Any], key: str, default: str) -> Tile:
    v = obj.get(key, default)
    if isinstance(v, str) and v in WIND_CODES:
        return WIND_CODES[v]
    if isinstance(v, str) and v in ("1z", "2z", "3z", "4z"):
        return tile(v)
    raise InputError(f"{key!r} must be E/S/W/N or 1z-4z, got {v!r}")


def _tiles(obj: dict[str, Any], key: str) -> tuple[Tile, ...]:
    v = obj.get(key, [])
    if isinstance(v, str):
        return tuple(parse_tiles(v))
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return tuple(tile(x) for x in v)
    raise InputError(f"{key!r} must be a list of tile codes or a compact string, got {v!r}")


def _options(obj: dict[str, Any]) -> RiichiOptions:
    return RiichiOptions(kiriage_mangan=obj.get("kiriage_mangan", True) is True,
                         composite_yakuman=obj.get("composite_yakuman", False) is True)


def _seat_wind(obj: dict[str, Any]) -> Tile:
    dealer = _flag(obj, "dealer")
    seat = _wind(obj, "seat_wind", "E" if dealer else "S")
    if dealer and seat.kind != 27:
        raise InputError("the dealer's seat wind is East (L222)")
    if "dealer" in obj and not dealer and seat.kind == 27:
        raise InputError("seat wind East is the dealer (L222); set dealer true")
    return seat


def _check_keys(obj: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise InputError(f"unknown field(s) {unknown} for {RULES_NAME}")
    for key in ("kiriage_mangan", "composite_yakuman"):
        if key in obj:
            _flag(obj, key)


def _echo(obj: dict[str, Any]) -> dict[str, Any]:
    return {"id": obj["id"]} if "id" in obj else {}


def score_line(obj: dict[str, Any]) -> dict[str, Any]:
    """Score one riichi win; never raises on bad input (returns ``ok: false`` with the reason)."""
    try:
        _check_keys(obj, _SCORE_KEYS)
        if not isinstance(obj.get("hand"), str) or not isinstance(obj.get("win"), str):
            raise InputError("'hand' and 'win' are required strings")
        hand = parse_hand(obj["hand"], expect_size=13)
        win = tile(obj["win"])
        dora, ura = _tiles(obj, "dora_indicators"), _tiles(obj, "ura_indicators")
        check_riichi_hand(hand, extra=[win])
        check_riichi_tiles([*dora, *ura])
        seat = _seat_wind(obj)
        self_drawn = _flag(obj, "self_drawn")
        sit = RiichiSituation(
            self_drawn=self_drawn, seat_wind=seat, round_wind=_wind(obj, "round_wind", "E"),
            riichi=_flag(obj, "riichi"), double_riichi=_flag(obj, "double_riichi"), ippatsu=_flag(obj, "ippatsu"),
            rinshan=_flag(obj, "rinshan") or _flag(obj, "kong_replacement"),
            chankan=_flag(obj, "chankan") or _flag(obj, "robbing_kong"),
            haitei=_flag(obj, "haitei") or (_flag(obj, "last_tile") and self_drawn),
            houtei=_flag(obj, "houtei") or (_flag(obj, "last_tile") and not self_drawn),
            tenhou=_flag(obj, "tenhou"), chiihou=_flag(obj, "chiihou"),
            dora_indicators=dora, ura_indicators=ura,
        )
        if sit.self_drawn and (sit.chankan or sit.houtei):
            raise InputError("chankan/houtei are ron wins, not self-draws")
        if not sit.self_drawn and (sit.rinshan or sit.haitei):
            raise InputError("rinshan/haitei are tsumo wins")
        honba, sticks = _count(obj, "honba"), _count(obj, "riichi_sticks")
        result = score_hand(hand, win, sit, _options(obj))
    except (InputError, NotationError, NotWinningHand, ValueError) as exc:
        return {**_echo(obj), "ok": False, "rules": RULES_NAME, "error": str(exc)}
    payments: dict[str, int]
    if not sit.self_drawn:
        payments = {"discarder": result.main + HONBA_RON * honba}
    elif sit.dealer:
        payments = {"non_dealer": result.main + HONBA_TSUMO_EACH * honba}
    else:
        payments = {"dealer": result.main + HONBA_TSUMO_EACH * honba,
                    "non_dealer": result.additional + HONBA_TSUMO_EACH * honba}
    gained = (payments.get("discarder", 0) + payments.get("dealer", 0)
              + payments.get("non_dealer", 0) * (3 if sit.dealer else 2 if sit.self_drawn else 0))
    return {**_echo(obj), "ok": True, "rules": RULES_NAME, "hand": hand.code, "win": win.code,
            **result.to_json(), "fans": [{"name": n, "fan": h} for n, h in result.yaku], "fan": result.han,
            "payments": payments, "honba": honba, "deposits": STICK * sticks, "total": gained + STICK * sticks}


def waits_line(obj: dict[str, Any]) -> dict[str, Any]:
    """Tiles completing a 13-tile riichi hand with their ron value (0 when the shape has no yaku)."""
    try:
        _check_keys(obj, _WAITS_KEYS)
        if not isinstance(obj.get("hand"), str):
            raise InputError("'hand' is a required string of 13 tiles (kongs count 3)")
        hand = parse_hand(obj["hand"], expect_size=13)
        check_riichi_hand(hand)
        seat = _seat_wind(obj)
        sit = RiichiSituation(self_drawn=False, seat_wind=seat, round_wind=_wind(obj, "round_wind", "E"),
                              riichi=_flag(obj, "riichi"), dora_indicators=_tiles(obj, "dora_indicators"))
        waits = riichi_waits(hand, sit, _options(obj))
    except (InputError, NotationError, NotWinningHand, ValueError) as exc:
        return {**_echo(obj), "ok": False, "rules": RULES_NAME, "error": str(exc)}
    return {**_echo(obj), "ok": True, "rules": RULES_NAME, "hand": hand.code, "tenpai": bool(waits),
            "waits": waits}


def riichi_waits(hand: Hand, sit: RiichiSituation, options: RiichiOptions) -> list[dict[str, Any]]:
    """Each tile completing ``hand`` (shape), with han/fu/points on a ron; yakuless shapes give 0."""
    out: list[dict[str, Any]] = []
    for t in completing_tiles(hand):
        try:
            s = score_hand(hand, t, sit, options)
            out.append({"tile": t.code, "han": s.han, "fu": s.fu, "points": s.value, "yaku": True})
        except NotWinningHand:
            out.append({"tile": t.code, "han": 0, "fu": 0, "points": 0, "yaku": False})
    return out
