"""Code intelligence: language servers behind the `LSP` tool, and their diagnostics after edits.

Nothing here is imported unless `lspServers` names a server (`session/factory.py` checks the
settings first), and `lsprotocol` only once a server is started.
"""
