"""The model protocol: the OpenAI-compatible client, provider quirks, usage, the local engine."""
