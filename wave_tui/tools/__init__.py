"""The built-in tools the model calls, each with one typed argument definition, and their shared helpers."""
