"""The UI-free agent: the conversation loop's parts and its typed extension seams (the front ends' facade is `session/facade.py`)."""
