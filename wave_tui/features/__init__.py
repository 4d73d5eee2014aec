"""The features that plug into the loop's typed seams: one package each (memory, subagents, user hooks, MCP, tasks, commands)."""
