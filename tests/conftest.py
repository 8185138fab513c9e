"""Shared fixtures: a real mosquitto on 127.0.0.1 and a free port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mjtable.broker import LocalMosquitto


@pytest.fixture
def mosquitto() -> Iterator[LocalMosquitto]:
    """A fresh anonymous mosquitto (TCP + websockets) for one test, stopped afterwards."""
    with LocalMosquitto() as broker:
        yield broker
