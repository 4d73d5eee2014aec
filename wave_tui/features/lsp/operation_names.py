"""The LSP tool's operations: one list, light enough for the tool's declaration to import
(the operations themselves load with the language-server client)."""

from __future__ import annotations

from typing import Literal

Operation = Literal[
    "goToDefinition",
    "findReferences",
    "hover",
    "documentSymbol",
    "workspaceSymbol",
    "goToImplementation",
    "prepareCallHierarchy",
    "incomingCalls",
    "outgoingCalls",
]
