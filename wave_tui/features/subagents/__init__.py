"""Subagents: their definitions, the `Agent` tool and the runner interface (AG1, AG2)."""
