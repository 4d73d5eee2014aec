"""A server's log message as the line `/mcp` shows (MA4)."""

from __future__ import annotations

import pytest

from wave_tui.mcp.client_host import log_text


@pytest.mark.req("MA4")
def test_ma4_log_data_is_one_readable_line() -> None:
    assert log_text("plain") == "plain"
    assert log_text({"msg": "called", "extra": None}) == "called"  # FastMCP 2.x
    assert log_text({"message": "disk low", "free": 3}) == 'disk low {"free": 3}'
    assert log_text({"free": 3}) == '{"free": 3}'
    assert log_text([1, "é"]) == '[1, "é"]'
