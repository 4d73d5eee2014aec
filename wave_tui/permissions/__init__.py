"""Who may run which tool call: modes, rules, read-only shell classification, the fork gate.

Layer: above `tools`, below `memory`. One table of tools and their names (`tool_table`), one
read-only shell classifier (`shell`); paths resolve through `files.real_paths`.
"""
