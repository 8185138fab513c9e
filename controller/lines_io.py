"""Bounded JSON-lines input for ``mjtable score`` and ``mjtable waits``.

Every input line is read with a length cap (:data:`MAX_LINE_CHARS`, 64 KiB: a hand is well under 200
characters), so a huge or endless line costs at most that much memory and gets one short error line back --
nothing of it is echoed.  Blank lines are skipped (no output line); every other line gets exactly one output
line.  A UTF-8 byte-order mark at the start of the input is ignored, and the line terminator is not part of the
JSON text (so a truncated line reports the column where it ends, not "column 1" of a next line).
Single-threaded: runs on the caller's thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

MAX_LINE_CHARS = 64 * 1024
_CHUNK = 64 * 1024


def bounded_lines(stream: TextIO, max_chars: int = MAX_LINE_CHARS) -> Iterator[tuple[str | None, int]]:
    """Yield ``(text, length)`` per input line without its terminator; ``text`` is None when the line is longer
    than ``max_chars`` (the rest of it is read and dropped in chunks, ``length`` counts all of it)."""
    first = True
    while True:
        line = stream.readline(max_chars + 2)
        if not line:
            return
        if first:
            line = line.removeprefix("\ufeff")
            first = False
        if line.endswith("\n") or len(line) <= max_chars:
            text = line.rstrip("\r\n")
            if len(text) <= max_chars:
                yield text, len(text)
                continue
        length = len(line.rstrip("\r\n"))
        while not line.endswith("\n"):
            line = stream.readline(_CHUNK)
            if not line:
                break
            length += len(line.rstrip("\r\n"))
        yield None, length
