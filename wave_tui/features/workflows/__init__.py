"""Workflows: scripts of phases that start subagents in parallel (the Workflow tool, /workflows)."""
