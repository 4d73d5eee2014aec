"""Fixtures of the fourth adversarial round: the daemon driver of `tests/daemon`, the session with
a hand-moved clock of `tests/features/cron`."""

from tests.daemon.conftest import daemon  # noqa: F401
from tests.features.cron.test_cron import clock, service  # noqa: F401
