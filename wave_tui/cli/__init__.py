"""The command line: `wave`, `wave -p` (headless), `wave memory|sessions|mcp|plugin …`, `wave context`, `wave --acp`."""
