"""A TCP port that something already listens on, and a port picker whose first pick is that port: how the tests
make a test server meet a port taken between its pick and its bind."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable, Collection, Iterator


@contextlib.contextmanager
def a_taken_port() -> Iterator[int]:
    """A port on 127.0.0.1 held by a listening socket until the block ends."""
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield int(taken.getsockname()[1])
    finally:
        taken.close()


def first_pick_is(busy: int, real: Callable[..., int], picks: list[int]) -> Callable[..., int]:
    """A ``free_port`` stand-in: ``busy`` the first time, then ``real``'s picks; every pick is appended to
    ``picks``."""

    def pick(exclude: Collection[int] = ()) -> int:
        port = busy if not picks else real(exclude)
        picks.append(port)
        return port

    return pick
