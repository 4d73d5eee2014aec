"""MCP client: tools from Model Context Protocol servers over stdio and streamable HTTP.

Nothing here imports the `mcp` SDK at module level except `connection` (loaded by the manager
only once a server is to be started), so a session without servers never pays for it.
"""
