"""Fixtures for the device tests.

``mock_factory``: gpiozero's own MockFactory with PWM-capable pins, installed as the
default pin factory for one test and reset in a ``finally`` (as gpiozero's own conftest
does), so no pin stays reserved between tests.
"""
from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin


@pytest.fixture
def mock_factory():
    previous = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous
