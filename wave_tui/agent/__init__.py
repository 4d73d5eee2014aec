"""The UI-free agent: the conversation loop's parts, its extensions, and the one facade (`session.py`) the front ends use."""
