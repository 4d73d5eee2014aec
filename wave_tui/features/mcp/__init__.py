"""MCP servers in a session: the loop extension that offers their tools, and `/mcp`."""
