"""The throwaway PostgreSQL cluster of the tests picks its TCP port again when another process took the port it
picked before the server bound it (two test workers, or any client's source port, in between)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from mjtable.broker import free_port as real_free_port
from mjtable.recorder import pgserver
from mjtable.recorder.pgserver import LocalPostgres, PostgresError
from tests.ports import a_taken_port, first_pick_is


def test_a_picked_port_taken_before_the_server_binds_is_picked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    picks: list[int] = []
    made: list[str] = []
    real_mkdtemp = tempfile.mkdtemp

    def recorded_mkdtemp(*args: Any, **kwargs: Any) -> str:
        made.append(real_mkdtemp(*args, **kwargs))
        return made[-1]

    with a_taken_port() as busy:
        monkeypatch.setattr(pgserver, "free_port", first_pick_is(busy, real_free_port, picks))
        with LocalPostgres() as server:
            assert server.port != busy and picks[0] == busy
            url = server.create_database("picked_again")
            assert url.endswith(f":{server.port}/picked_again")
        monkeypatch.setattr(tempfile, "mkdtemp", recorded_mkdtemp)  # the module pgserver calls it through
        with pytest.raises(PostgresError, match="Address already in use"), LocalPostgres(port=busy):
            pass  # a port given by the caller is not changed
    for _ in range(100):  # stop() removes the directory in the background
        if not Path(made[0]).exists():
            break
        time.sleep(0.05)
    assert not Path(made[0]).exists(), "a cluster that did not come up was left behind"
