"""The network below the model protocol: one HTTP client module (httpx, imported once, without its CLI), MCP over HTTP, web pages and their Markdown."""
