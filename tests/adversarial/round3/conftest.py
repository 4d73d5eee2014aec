"""Fixtures of the third adversarial round: the agent tests' service factory, the app's."""

from tests.agent.conftest import make_service  # noqa: F401
from tests.tui.conftest import build_app  # noqa: F401
