"""Fixtures for the MQTT tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mqtt.mqtt_helpers import Collector


@pytest.fixture
def collectors() -> Iterator[list[Collector]]:
    made: list[Collector] = []
    yield made
    for c in made:
        c.close()
