"""Generate the command/event/enum tables and the test-vector table of ``docs/serial-protocol.md``.

``python -m firmware_bridge.docgen`` prints the generated sections; ``python -m firmware_bridge.docgen --write PATH``
rewrites them in place between ``<!-- BEGIN GENERATED: name -->`` and ``<!-- END GENERATED: name -->``.
The test suite fails when the doc and ``firmware_bridge.commands`` disagree.  Pure apart from ``main``.
"""

from __future__ import annotations

import argparse
import enum
import re
import sys
from pathlib import Path

from firmware_bridge import codec
from firmware_bridge.codec import Frame, FrameKind
from firmware_bridge.commands import (
    COMMANDS,
    COMMANDS_BY_NAME,
    EVENTS,
    EVENTS_BY_NAME,
    NACK_FIELDS,
    BootReason,
    BuildStage,
    Button,
    FaultCode,
    Field,
    LidPart,
    McuState,
    NackReason,
    Severity,
    TileSet,
    WallLayout,
    pack,
)

_SIZES = {"B": 1, "H": 2, "I": 4, "h": 2}
_TYPES = {"B": "u8", "H": "u16", "I": "u32", "h": "i16"}


def _fields(fields: tuple[Field, ...]) -> str:
    if not fields:
        return "-"
    return "<br>".join(f"`{f.name}` {_TYPES[f.fmt]} ({f.unit})" for f in fields)


def commands_table() -> str:
    """Markdown table of every command."""
    rows = ["| id | command | idempotent | timeout_s | request | ACK payload | what it does |",
            "|---|---|---|---|---|---|---|"]
    for c in COMMANDS:
        rows.append(f"| 0x{c.ident:02X} | {c.name} | {'yes' if c.idempotent else 'no'} | {c.timeout_s:g} | "
                    f"{_fields(c.request)} | {_fields(c.response)} | {c.doc} |")
    rows.append(f"| (any) | NACK payload | | | | {_fields(NACK_FIELDS)} | reason codes below |")
    return "\n".join(rows)


def events_table() -> str:
    """Markdown table of every event."""
    rows = ["| id | event | payload | meaning |", "|---|---|---|---|"]
    for e in EVENTS:
        rows.append(f"| 0x{e.ident:02X} | {e.name} | {_fields(e.fields)} | {e.doc} |")
    return "\n".join(rows)


def enums_table() -> str:
    """Markdown table of every value set."""
    rows = ["| value set | values |", "|---|---|"]
    sets: tuple[type[enum.IntEnum], ...] = (NackReason, FaultCode, Severity, McuState, TileSet, WallLayout, Button,
                                            LidPart, BootReason, BuildStage)
    for cls in sets:
        rows.append(f"| {cls.__name__} | " + ", ".join(f"{m.value} {m.name}" for m in cls) + " |")
    return "\n".join(rows)


def example_vectors() -> list[tuple[str, Frame]]:
    """The frames whose bytes the doc fixes (used once to write the doc; the test reads the doc itself)."""
    hello = COMMANDS_BY_NAME["HELLO"]
    boot = EVENTS_BY_NAME["BOOT"]
    fault = EVENTS_BY_NAME["FAULT"]
    build = COMMANDS_BY_NAME["SHUFFLE_AND_BUILD"]
    dice = COMMANDS_BY_NAME["ROLL_DICE"]
    return [
        ("PING request", Frame(FrameKind.REQUEST, 1, COMMANDS_BY_NAME["PING"].ident)),
        ("HELLO request", Frame(FrameKind.REQUEST, 2, hello.ident, pack(hello.request, {"host_version": 1}))),
        ("HELLO ack", Frame(FrameKind.ACK, 2, hello.ident, pack(hello.response, {
            "protocol_version": 1, "fw_major": 1, "fw_minor": 0, "boot": 7, "capabilities": 0x3F,
            "last_event_seq": 0, "uptime_ms": 1500}))),
        ("SHUFFLE_AND_BUILD 144",
         Frame(FrameKind.REQUEST, 0x0100, build.ident, pack(build.request, {"tile_set": 144}))),
        ("ROLL_DICE ack 3+5",
         Frame(FrameKind.ACK, 0x1234, dice.ident, pack(dice.response, {"dice1": 3, "dice2": 5}))),
        ("NACK BUSY",
         Frame(FrameKind.NACK, 9, build.ident, pack(NACK_FIELDS, {"reason": NackReason.BUSY, "detail": 0}))),
        ("BOOT event", Frame(FrameKind.EVENT, 1, boot.ident, pack(boot.fields, {"boot": 8, "reason": 1}))),
        ("FAULT JAM event", Frame(FrameKind.EVENT, 42, fault.ident, pack(fault.fields, {
            "boot": 8, "code": FaultCode.JAM, "severity": Severity.ERROR, "detail": 0, "build_id": 0x0100}))),
    ]


def vectors_table() -> str:
    """Markdown table of the fixed test vectors."""
    rows = ["| name | kind | seq | id | payload (hex) | wire bytes (hex, COBS + 00) |", "|---|---|---|---|---|---|"]
    for name, f in example_vectors():
        rows.append(f"| {name} | {f.kind.name} | {f.seq} | 0x{f.ident:02X} | {f.payload.hex(' ') or '-'} | "
                    f"{codec.encode(f).hex(' ')} |")
    return "\n".join(rows)


#: Sections rewritten from ``firmware_bridge.commands``.  The vectors are NOT rewritten: they are fixed bytes that
#: firmware authors copy, and the test checks the codec against the doc's copy.
SECTIONS = {"commands": commands_table, "events": events_table, "enums": enums_table}


def section_text(doc: str, name: str) -> str:
    """The text between the markers of generated section ``name`` in ``doc`` (stripped)."""
    m = re.search(rf"<!-- BEGIN GENERATED: {name} -->\n(.*?)<!-- END GENERATED: {name} -->", doc, re.S)
    if m is None:
        raise KeyError(f"section {name} not found")
    return m.group(1).strip()


def rewrite(doc: str) -> str:
    """``doc`` with every generated section replaced by fresh output."""
    for name, fn in SECTIONS.items():
        text = fn()

        def fill(m: re.Match[str], text: str = text) -> str:
            return m.group(1) + text + "\n" + m.group(2)

        doc = re.sub(rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)", fill, doc,
                     flags=re.S)
    return doc


def main(argv: list[str] | None = None) -> int:
    """CLI: print the sections, or ``--write PATH`` to update a doc in place."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.write is not None:
        args.write.write_text(rewrite(args.write.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    for name, fn in [*SECTIONS.items(), ("vectors", vectors_table)]:
        sys.stdout.write(f"<!-- BEGIN GENERATED: {name} -->\n{fn()}\n<!-- END GENERATED: {name} -->\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
