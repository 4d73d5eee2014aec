"""Paths, the settings schema and its sources, file I/O, trust: the layer everything else stands on."""
