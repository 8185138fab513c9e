"""The physical table the simulated camera films: ``vision.scene.TableScene`` built from the engine's referee view,
plus the change a player is making right now (a vision event dict: discard, meld, concealed kong, shown hand).

Pure functions.  Conventions follow :mod:`vision.scene`: ponds in discard order, melds in exposure order with
the claimed tile lying sideways at the end that points at the giver, concealed kongs with their real faces
(the renderer turns them face down).  A claimed discard stays drawn in the pond as well as in the meld: the
engine numbers pond positions including called tiles, so the camera's positions must too.
"""

from __future__ import annotations

from typing import Any

from vision.scene import SceneMeld, SeatScene, TableScene, sideways_index


def _sort_key(code: str) -> tuple[str, str]:
    return (code[1], "5" if code[0] == "0" else code[0])


def _ordered(owner: int, claimed_from: int, tiles: list[str], claimed: str | None) -> tuple[str, ...]:
    """Meld faces in display order with the claimed tile at its sideways index."""
    rest = sorted(tiles, key=_sort_key)
    if claimed is None or claimed not in rest:
        claimed = rest[len(rest) // 2]
    rest.remove(claimed)
    rest.insert(sideways_index(owner, claimed_from, len(tiles)), claimed)
    return tuple(rest)


def scene_from_view(referee: dict[str, Any]) -> TableScene:
    """The table as the referee view describes it (``mjtable.referee_state/1``)."""
    seats: list[SeatScene] = []
    views = referee["seats"]
    for seat, s in enumerate(views):
        melds: list[SceneMeld] = []
        for m in s["melds"]:
            tiles = list(m["tiles"] or [])
            if m["type"] == "concealed_kong":
                faces = tiles if len(tiles) == 4 else ["back"] * 4
                melds.append(SceneMeld("concealed_kong", tuple(faces)))
                continue
            giver = m["claimed_from"]
            if giver is None or giver == seat:
                giver = (seat + 3) % 4
            called = [p["tile"] for p in views[giver]["pond"] if p["called"]]
            claimed = next((c for c in reversed(called) if c in tiles), None)
            melds.append(SceneMeld(m["type"], _ordered(seat, giver, tiles, claimed), giver))
        shown = None
        result = referee.get("result")
        if result is not None and str(seat) in (result.get("hands") or {}) and seat in result.get("winners", []):
            shown = tuple(c for c in _codes(result["hands"][str(seat)]))
        seats.append(SeatScene(pond=tuple(p["tile"] for p in s["pond"]), melds=tuple(melds),
                               hand_size=max(0, min(18, int(s["hand_size"]))) if shown is None else 0,
                               shown_hand=shown))
    return TableScene(seats=(seats[0], seats[1], seats[2], seats[3]))


def with_change(scene: TableScene, obs: dict[str, Any]) -> TableScene:
    """``scene`` plus the act ``obs`` shows (the player's hand has just put the tiles down)."""
    seat = int(obs["seat"])
    s = scene.seats[seat]
    tiles = [str(t) for t in obs.get("tiles", [])]
    kind = obs["type"]
    if kind == "discard":
        s = SeatScene(pond=(*s.pond, tiles[0]), melds=s.melds, hand_size=max(0, s.hand_size - 1))
    elif kind == "meld":
        giver = int(obs["claimed_from"])
        claimed = scene.seats[giver].pond[-1] if scene.seats[giver].pond else None
        meld_type = "chow" if len(set(tiles)) > 1 else ("kong" if len(tiles) == 4 else "pung")
        meld = SceneMeld(meld_type, _ordered(seat, giver, tiles, claimed), giver)  # type: ignore[arg-type]
        s = SeatScene(pond=s.pond, melds=(*s.melds, meld), hand_size=max(0, s.hand_size - (len(tiles) - 1)))
    elif kind == "concealed_kong":
        faces = [t for t in tiles if t != "back"]
        face = faces[0] if faces else "back"
        s = SeatScene(pond=s.pond, melds=(*s.melds, SceneMeld("concealed_kong", (face,) * 4)),
                      hand_size=max(0, s.hand_size - 4))
    elif kind == "win_shown":
        s = SeatScene(pond=s.pond, melds=s.melds, hand_size=0, shown_hand=tuple(tiles))
    else:
        raise ValueError(f"no physical change for a {kind!r} observation")
    return scene.with_seat(seat, s)


def _codes(compact: str) -> list[str]:
    """Concealed tiles of a compact hand text like ``34m23455p 2m`` (melds in brackets are skipped)."""
    from mjtable.tiles import parse_tiles

    out: list[str] = []
    depth = 0
    buf = ""
    for ch in compact:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif depth == 0:
            buf += ch
    for part in buf.split():
        out += [t.code for t in parse_tiles(part)]
    return out
