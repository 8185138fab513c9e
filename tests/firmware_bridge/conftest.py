"""Fixtures of the firmware_bridge tests (helpers live in ``fb_helpers``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from fb_helpers import Rig, make_rig


@pytest.fixture
async def rig() -> AsyncIterator[Rig]:
    """The simulated MCU on a real pty and a READY ``TableLink`` on pyserial, with an ``EventLog``."""
    async with make_rig() as r:
        yield r
