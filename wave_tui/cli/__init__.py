"""The command line: `wave`, `wave -p` (headless), `wave memory …`, `wave context`."""
