"""Widgets of the wave TUI."""
