"""The Python SDK: a wave session for programs (`from wave_tui import Agent`).

A front end beside the app (`tui`) and the command line (`cli`): it drives the same session
facade. Programs import its names from `wave_tui` (the public surface is `wave_tui.__all__`);
the modules of this package may change.
"""
