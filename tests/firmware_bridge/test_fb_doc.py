"""docs/serial-protocol.md and the code cannot drift: vectors parsed from the doc, tables regenerated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_bridge import codec, docgen
from firmware_bridge.codec import Frame, FrameKind
from firmware_bridge.commands import (
    COMMANDS,
    COMMANDS_BY_ID,
    EVENTS,
    EVENTS_BY_ID,
    OTHER_PAYLOADS,
    pack,
    payload_size,
    unpack,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "serial-protocol.md"


def _vector_rows() -> list[tuple[str, Frame, bytes]]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- BEGIN VECTORS -->\n(.*?)<!-- END VECTORS -->", text, re.S)
    assert block is not None, "vectors block missing from the doc"
    rows = []
    for line in block.group(1).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name, kind, seq, ident, payload, wire = cells
        frame = Frame(FrameKind[kind], int(seq), int(ident, 16), b"" if payload == "-" else bytes.fromhex(payload))
        rows.append((name, frame, bytes.fromhex(wire)))
    return rows


VECTORS = _vector_rows()


def test_the_doc_has_vectors_for_every_frame_kind() -> None:
    assert len(VECTORS) >= 8
    assert {f.kind for _, f, _ in VECTORS} == set(FrameKind)


@pytest.mark.parametrize(("name", "frame", "wire"), VECTORS, ids=[v[0] for v in VECTORS])
def test_codec_matches_the_doc_vectors(name: str, frame: Frame, wire: bytes) -> None:
    assert codec.encode(frame) == wire
    assert codec.decode(wire) == frame
    assert codec.FrameDecoder().feed(wire) == [frame]


@pytest.mark.parametrize(("name", "frame", "wire"), VECTORS, ids=[v[0] for v in VECTORS])
def test_doc_vector_payloads_decode_with_the_command_table(name: str, frame: Frame, wire: bytes) -> None:
    if frame.kind == FrameKind.EVENT:
        fields = EVENTS_BY_ID[frame.ident].fields
    elif frame.kind == FrameKind.REQUEST:
        fields = COMMANDS_BY_ID[frame.ident].request
    elif frame.kind == FrameKind.ACK:
        fields = COMMANDS_BY_ID[frame.ident].response
    else:
        fields = OTHER_PAYLOADS["NACK"]
    assert pack(fields, unpack(fields, frame.payload)) == frame.payload


def test_doc_states_the_crc_check_value() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "CRC-16/CCITT-FALSE" in text and "0x29B1" in text
    assert f"0x{codec.crc16_ccitt_false(b'123456789'):04X}" == "0x29B1"


@pytest.mark.parametrize("section", list(docgen.SECTIONS))
def test_generated_tables_are_current(section: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    assert docgen.section_text(text, section) == docgen.SECTIONS[section](), (
        "run: .venv/bin/python -m firmware_bridge.docgen --write docs/serial-protocol.md")


def test_command_and_event_tables_are_consistent() -> None:
    ids = [c.ident for c in COMMANDS] + [e.ident for e in EVENTS]
    assert len(ids) == len(set(ids))
    assert all(0x01 <= c.ident <= 0x7F for c in COMMANDS)
    assert all(0x80 <= e.ident <= 0xFF for e in EVENTS)
    for c in COMMANDS:
        assert c.timeout_s > 0 and c.doc
        assert payload_size(c.request) <= codec.MAX_PAYLOAD and payload_size(c.response) <= codec.MAX_PAYLOAD
        assert all(f.unit and f.doc for f in c.request + c.response)
    for e in EVENTS:
        assert e.fields[0].name == "boot", f"{e.name} must start with the boot counter"
    non_idempotent = {c.name for c in COMMANDS if not c.idempotent}
    assert non_idempotent == {"SHUFFLE_AND_BUILD", "ROLL_DICE", "RESET"}
