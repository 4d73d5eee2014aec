"""Fixtures of the third adversarial round: the agent tests' service factory."""

from tests.agent.conftest import make_service  # noqa: F401
