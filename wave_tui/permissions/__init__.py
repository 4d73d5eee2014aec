"""Who may run which tool call: modes, rules, read-only shell classification, the fork gate.

Layer: above `tools`, below `memory`. One table of tools (`tool_table`), one path resolution
(`paths`), one read-only shell classifier (`shell`).
"""
