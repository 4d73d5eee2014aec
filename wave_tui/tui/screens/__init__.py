"""Screens of the wave TUI: chat, memory browser, settings and the modal dialogs."""
