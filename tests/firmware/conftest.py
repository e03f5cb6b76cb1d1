"""Shared fixtures of the firmware tests."""

from __future__ import annotations

from typing import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    """gpiozero's mock pins for one test, reset and closed afterwards (only the hardware is mocked)."""
    factory = MockFactory()
    previous = Device.pin_factory
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        factory.close()
        Device.pin_factory = previous
