"""Plugins and marketplaces: a folder of commands, agents, skills, hooks, MCP and LSP servers,
installed from a market and enabled per settings scope (Claude Code's plugins, unchanged).

`manifest.py` reads one plugin folder (`.wave-plugin/` or `.claude-plugin/`); `active.py` turns
the enabled ones into sources for the project's own loaders (no second loader); `markets.py`,
`install.py` and `state.py` are what `wave plugin …` and `/plugin` do with the files under
`~/.wave/plugins/`. Nothing here runs git or touches the network unless asked.
"""
