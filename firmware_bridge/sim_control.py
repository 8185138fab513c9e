"""The simulator's control channel: one JSON object in, one JSON reply out.

Used by ``mjtable table-sim`` (a JSON line per command on stdin, a JSON line per reply on stdout) and by tests
in-process.  Ops (``direction`` is ``"tx"`` MCU->host, ``"rx"`` host->MCU or ``"both"``; default ``"tx"``):

* ``{"op": "drop"|"duplicate"|"corrupt"|"delay", "count": 1, "direction": "tx", "delay_s": 0.3}``
* ``{"op": "rates", "drop": 0.0, "duplicate": 0.0, "corrupt": 0.1, "direction": "both"}``
* ``{"op": "silent", "for_s": 2.0}`` (0 ends it), ``{"op": "reset"}`` (watchdog reset now),
  ``{"op": "reset_during_build"}``, ``{"op": "reset_on_command", "command": "ROLL_DICE"}``,
  ``{"op": "drop_reply", "command": "SHUFFLE_AND_BUILD"}`` (run it, lose its reply)
* ``{"op": "jam"}``, ``{"op": "fail_next_build", "code": "wrong_tile_count"}``, ``{"op": "lift_timeout"}``
* ``{"op": "fault", "code": "over_temperature", "severity": "warning", "detail": 0}``
* ``{"op": "button", "seat": 0, "button": "dice"}``, ``{"op": "lid", "part": "lid", "open": true}``
* ``{"op": "bug", "name": "no_reply_cache"}``: a firmware bug (``simulator.BUGS``) for ``mjtable table-check``
* ``{"op": "clear"}`` (perfect link, no pending faults, no bugs), ``{"op": "status"}``

Replies: ``{"ok": true, "op": ...}`` (``status`` adds the table state), or ``{"ok": false, "error": "..."}``.
Called on the simulator's loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware_bridge.commands import COMMANDS_BY_NAME, Button, FaultCode, LidPart, McuState, Severity
from firmware_bridge.faults import LinkFaults

if TYPE_CHECKING:
    from firmware_bridge.simulator import SimulatedMcu


def _directions(sim: SimulatedMcu, cmd: dict[str, Any]) -> list[LinkFaults]:
    d = str(cmd.get("direction", "tx"))
    if d not in ("tx", "rx", "both"):
        raise ValueError(f"direction must be tx, rx or both, not {d!r}")
    return [sim.tx, sim.rx] if d == "both" else [sim.tx] if d == "tx" else [sim.rx]


def _enum_arg(cls: type[Any], value: object) -> Any:
    if isinstance(value, int):
        return cls(value)
    try:
        return cls[str(value).upper()]
    except KeyError:
        raise ValueError(f"unknown {cls.__name__} {value!r}; one of {[m.name.lower() for m in cls]}") from None


def _rate(value: object) -> float:
    r = float(value)  # type: ignore[arg-type]
    if not 0.0 <= r <= 1.0:
        raise ValueError(f"rate {r} outside 0..1")
    return r


def apply_control(sim: SimulatedMcu, cmd: dict[str, Any]) -> dict[str, Any]:
    """Apply one control command to ``sim``; raises ValueError/KeyError/TypeError on a bad command."""
    op = str(cmd["op"])
    count = int(cmd.get("count", 1))
    if op in ("drop", "duplicate", "corrupt", "delay"):
        for faults in _directions(sim, cmd):
            setattr(faults, f"{op}_next", getattr(faults, f"{op}_next") + count)
            if op == "delay":
                faults.delay_s = float(cmd.get("delay_s", faults.delay_s))
    elif op == "rates":
        for faults in _directions(sim, cmd):
            faults.drop_rate = _rate(cmd.get("drop", 0.0))
            faults.duplicate_rate = _rate(cmd.get("duplicate", 0.0))
            faults.corrupt_rate = _rate(cmd.get("corrupt", 0.0))
    elif op == "silent":
        sim.faults.silent_until_s = sim.clock() + float(cmd.get("for_s", 3600.0))
    elif op == "reset":
        sim.reset()
    elif op == "reset_during_build":
        sim.faults.reset_during_build = True
    elif op in ("reset_on_command", "drop_reply"):
        name = str(cmd["command"]).upper()
        if name not in COMMANDS_BY_NAME:
            raise ValueError(f"unknown command {name!r}")
        if op == "drop_reply":
            sim.faults.drop_reply_to = name
        else:
            sim.faults.reset_on_command = name
    elif op == "jam":
        sim.faults.fail_next_build = FaultCode.JAM
    elif op == "fail_next_build":
        sim.faults.fail_next_build = _enum_arg(FaultCode, cmd["code"])
    elif op == "lift_timeout":
        sim.faults.lift_timeout = True
    elif op == "fault":
        sim.inject_fault(_enum_arg(FaultCode, cmd["code"]), _enum_arg(Severity, cmd.get("severity", "error")),
                         int(cmd.get("detail", 0)))
    elif op == "button":
        seat = int(cmd["seat"])
        if not 0 <= seat <= 3:
            raise ValueError(f"seat {seat} outside 0..3")
        sim.press_button(seat, _enum_arg(Button, cmd.get("button", "dice")))
    elif op == "lid":
        sim.set_lid(_enum_arg(LidPart, cmd.get("part", "lid")), bool(cmd["open"]))
    elif op == "bug":
        from firmware_bridge.simulator import BUGS

        name = str(cmd["name"])
        if name not in BUGS:
            raise ValueError(f"unknown bug {name!r}; one of {', '.join(BUGS)}")
        sim.bugs.add(name)
    elif op == "clear":
        sim.tx.clear()
        sim.rx.clear()
        sim.bugs.clear()
        from firmware_bridge.simulator import TableFaults

        sim.faults = TableFaults()
    elif op == "status":
        t = sim.table
        return {"ok": True, "op": op, "boot": sim.boot_counter, "state": McuState(t.state).name.lower(),
                "tile_set": t.tile_set, "lights": t.lights, "silent": sim.silent, "stats": dict(sim.stats),
                "executed": dict(sim.executed)}
    else:
        raise ValueError(f"unknown op {op!r}")
    return {"ok": True, "op": op}
