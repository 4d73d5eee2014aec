"""Exec: the session's MCP tools folded into one `Exec(code)` tool that runs a JavaScript script
calling them (004 §5), with the tool catalog as a tail isMeta message."""
