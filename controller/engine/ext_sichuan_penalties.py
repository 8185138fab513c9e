"""Sichuan SBR 2025 wrong and empty calls on the live engine (issue 16 point 8; seed 001 第十二条).

* 错碰/错杠 (八 (四), L728-L746): the shown tiles do not make the pung/kong, or break the 定缺 rule ("不符合定缺规则",
  L736).  The engine refuses the act before the seat's own discard or draw, which is case (1): "应复原并按第四类判罚
  尺度判罚" [001:L740].  A claim event names no tiles for a pung/kong, so the table sees case (2) of L736 (a pung
  or kong of the missing suit with the tiles held).
* 空碰/空杠 (九 (四), L762): "选手报出碰/杠后未进行所报行为": a pung/kong the seat cannot make (the tiles are not
  held) is void, category 4.  The special case (the empty call misled another player: category 3) is the
  referee's (human only).
* Category 4 is 警告 or 严重警告 [001:L614]: a warning for a slight, non-malicious act [L636]; a serious warning for
  another one after a warning [L638]; after a serious warning another such act is category 3, 1-8 副分 at the
  referee's measure [L632]: recorded as proposed with an alert carrying the evidence (the table cannot choose the
  amount).  Warnings do not carry over to the next 盘 [L652]: the count runs over the engine's session.

Pure; the engine's thread.
"""

from __future__ import annotations

from controller.engine import camera, penalties
from controller.engine.effects import Effect
from controller.engine.query import player_index
from controller.engine.state import GameState

#: infractions judged on the category-4 scale (their repeats escalate together, L638)
CATEGORY_4 = frozenset({"wrong_call", "empty_call"})


def category_4(state: GameState, seat: int, kind: str, message: str, fx: list[Effect]) -> GameState:
    """Record ``kind`` for ``seat`` at category 4, escalated by the player's earlier category-4 acts this session."""
    p = player_index(state, seat)
    before = sum(1 for i in state.infractions if i.kind in CATEGORY_4 and i.player_index == p
                 and i.status != "waived")
    if before == 0:
        return penalties.record(state, seat, kind, f"{message}: category 4, warning (警告) [001:L614, L636]", fx,
                                points=0, status="applied")
    if before == 1:
        return penalties.record(state, seat, kind, f"{message}: category 4, serious warning (严重警告) after a "
                                "warning [001:L614, L638]", fx, points=0, status="applied")
    state = penalties.record(state, seat, kind, f"{message}: after a serious warning, category 3: 1-8 副分 at the "
                             "referee's measure [001:L632]", fx, points=0, status="proposed")
    inf = state.infractions[-1]
    return camera.raise_alert(state, "penalty_measure", f"{inf.player} repeated a category-4 act after a serious "
                              "warning: set 1-8 副分 (apply_penalty) [001:L632]",
                              {"journal_seq": state.seq + 1, "at_s": state.now_s, "seat": seat, "player": inf.player,
                               "infraction_id": inf.id, "earlier": before}, fx)


__all__ = ["CATEGORY_4", "category_4"]
