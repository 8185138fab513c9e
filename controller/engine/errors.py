"""The core's rejection: raised inside a step, turned into a ``Rejected`` effect with the state untouched."""

from __future__ import annotations

#: Stable rejection codes (docs/engine.md lists what each means).
REASONS = (
    "duplicate_id", "bad_event", "unknown_tile", "bad_seat", "out_of_turn", "wrong_phase", "not_held",
    "impossible_tile", "illegal_claim", "no_window", "already_acted", "paused", "session_over", "wall_empty",
    "unknown_alert", "unknown_infraction", "bad_hand", "ambiguous",
    "must_replace_flower", "penalty_tile",  # issue 16: MCR 1998 flowers [000:L348], 罚张 [000:L808; 004:L462]
)


class Reject(Exception):  # noqa: N818 - a control-flow signal inside step, not an error for callers
    """Reject the current event with a stable ``reason`` code and a message for the referee."""

    def __init__(self, reason: str, message: str) -> None:
        assert reason in REASONS, reason
        self.reason = reason
        self.message = message
        super().__init__(f"{reason}: {message}")
