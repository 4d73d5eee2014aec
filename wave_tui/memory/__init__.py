"""Memory: AGENTS.md and rules, the auto-memory folder and its index, freshness, imports, extraction records."""
