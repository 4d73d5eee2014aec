"""Language servers named while the session runs, in a session that started without any: the
first settings change that brings `lspServers` plugs the LSP feature in (the `LSP` tool and
`/lsp` from the next turn; project servers once trusted), as if they had been there at start.
No LSP module loads before."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wave_tui.agent.extensions import SessionObserverBase
from wave_tui.agent.service import AgentService

if TYPE_CHECKING:
    from wave_tui.config.settings import EffectiveSettings


# req: FH6
class LspWhenConfigured(SessionObserverBase):
    def __init__(self, service: AgentService) -> None:
        self._service = service
        self._installed = False

    def on_settings(self, settings: EffectiveSettings) -> None:
        if self._installed:
            return  # the installed wiring follows later changes itself
        # The key as `features/lsp/config.py` names it: importing it would load the feature.
        if not any(layer.data.get("lspServers") for layer in self._service.store.layers()):
            return
        from wave_tui.features.lsp.wiring import install_lsp

        self._installed = True
        install_lsp(self._service)
