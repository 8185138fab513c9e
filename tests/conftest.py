"""Shared fixtures: a real mosquitto on 127.0.0.1 and a free port; a real PostgreSQL cluster per test session."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from mjtable.broker import LocalMosquitto
from mjtable.recorder.pgserver import LocalPostgres


@pytest.fixture
def mosquitto() -> Iterator[LocalMosquitto]:
    """A fresh anonymous mosquitto (TCP + websockets) for one test, stopped afterwards."""
    with LocalMosquitto() as broker:
        yield broker


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[LocalPostgres]:
    """One throwaway PostgreSQL cluster (Debian's server binaries, loopback, a free port) for the test session."""
    with LocalPostgres() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: LocalPostgres) -> str:
    """A fresh empty database on the session's cluster, for one test."""
    return postgres_server.create_database(f"t_{uuid.uuid4().hex[:16]}")
