"""wave-tui: a terminal coding agent whose heart is memory."""

__version__ = "0.1.0"
