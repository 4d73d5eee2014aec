"""WebSearch in a session: offered while settings `webSearch` names a backend (WS1)."""
