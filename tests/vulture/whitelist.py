"""Names vulture cannot see used: entry points that a library or the interpreter calls by name.

`vulture wave_tui tests/vulture/whitelist.py --min-confidence 80` (in `.ci/run`) reports every
other unreferenced symbol; only entry points belong here, each with what calls it.
`tests/test_codebase.py` scans the package with this file but WITHOUT the rest of `tests/` (CB3):
a symbol only a test uses is reported there, and moves into `tests/`.
"""

# acp.Agent.authenticate(method_id=…): the ACP library calls it with the client's choice; wave
# offers no authentication method, so it is never chosen.
method_id  # noqa: B018, F821  (a name vulture sees used, not code that runs)
