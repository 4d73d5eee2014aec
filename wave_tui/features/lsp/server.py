"""One language server for one workspace: its life (start, initialize, restart after a crash,
shutdown), the documents it has open, typed requests and the diagnostics it publishes.

Types are `lsprotocol`'s (importing it costs ~0.3 s, so the manager loads this module in a
thread); the wire is `rpc.py`'s. Positions inside are LSP's (0-based, UTF-16); `positions.py`
converts at the tool's edge. A server that dies after a good start is restarted once per crash
on its next use (at most `MAX_CRASH_RESTARTS` in a session); one that dies at start is tried at
most twice, then stays failed with its last error.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from lsprotocol import converters
from lsprotocol import types as lsp

from wave_tui.features.lsp.config import LspServerConfig
from wave_tui.features.lsp.errors import LspError, ServerGone, with_start_hint
from wave_tui.features.lsp.process import ServerProcess
from wave_tui.features.lsp.rpc import ConnectionClosed, JsonRpc, RpcError

ServerState = Literal["not started", "starting", "running", "crashed", "failed", "stopped"]
START_ATTEMPTS = 2
MAX_CRASH_RESTARTS = 3
SHUTDOWN_TIMEOUT_S = 2.0
EXIT_WAIT_S = 0.5  # a server whose output ended is gone within this, or still running
CONVERTER = converters.get_converter()


class LanguageServer:
    # req: LS2
    def __init__(self, config: LspServerConfig, root: Path) -> None:
        self.config = config
        self.root = root
        self.state: ServerState = "not started"
        self.last_error: str | None = None
        self.capabilities: dict[str, Any] = {}  # the initialize result's, as sent
        self.restarts = 0
        self._process: ServerProcess | None = None
        self._rpc: JsonRpc | None = None
        self._monitor: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._versions: dict[str, int] = {}  # uri -> version of the open document
        self._texts: dict[str, str] = {}
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self._published: dict[str, int] = {}  # uri -> how many publishes so far
        self._waiters: list[tuple[str, int, asyncio.Future[None]]] = []

    # -- life ----------------------------------------------------------------------------------
    # req: LS3
    async def ensure_running(self) -> None:
        async with self._lock:
            if self.state == "running":
                return
            if self.state == "failed":
                raise LspError(f"LSP server {self.config.name} is not available: {self.last_error}")
            if self.state == "stopped":
                raise LspError(f"LSP server {self.config.name} was shut down")
            if self.state == "crashed":
                if self.restarts >= MAX_CRASH_RESTARTS:
                    self.state = "failed"
                    raise LspError(
                        f"LSP server {self.config.name} crashed {self.restarts + 1} times: "
                        f"{self.last_error}"
                    )
                self.restarts += 1
                await self._note_exit()
            for attempt in range(START_ATTEMPTS):
                try:
                    await self._start()
                    return
                except _StartTimedOut as exc:
                    self._fail(str(exc))
                    break  # a hang is not retried: the wait would double
                except _StartFailed as exc:
                    self._fail(str(exc))
                    if attempt + 1 == START_ATTEMPTS:
                        break
            raise LspError(f"LSP server {self.config.name} failed to start: {self.last_error}")

    def _fail(self, reason: str) -> None:
        self.state = "failed"
        self.last_error = reason

    async def _start(self) -> None:
        self.state = "starting"
        await self._discard()
        config = self.config
        env = {**os.environ, **config.env}
        try:
            process = await ServerProcess.spawn(config.command, config.args, env, self.root)
        except OSError as exc:
            raise _StartFailed(str(exc.strerror or exc) if not str(exc) else str(exc)) from None
        self._process = process
        self._rpc = rpc = JsonRpc(
            process.reader, process.writer, self._on_notification, self._on_request
        )
        rpc.start()
        params = lsp.InitializeParams(
            capabilities=_client_capabilities(),
            process_id=os.getpid(),
            root_uri=self.root.as_uri(),
            root_path=str(self.root),
            workspace_folders=[lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
            initialization_options=config.initialization_options,
            client_info=lsp.ClientInfo(name="wave"),
        )
        try:
            result = await rpc.request(
                lsp.INITIALIZE, CONVERTER.unstructure(params), config.startup_timeout_s
            )
        except ConnectionClosed as exc:
            code = await _exit_code(process)
            tail = process.stderr_tail()
            raise _StartFailed(
                f"it exited during initialize (code {code}){': ' + tail if tail else ''}"
                if code is not None
                else str(exc)
            ) from None
        except RpcError as exc:
            if "no answer" in str(exc):
                raise _StartTimedOut(
                    f"no answer to initialize within {config.startup_timeout_s:g} s"
                ) from None
            raise _StartFailed(with_start_hint(f"initialize failed: {exc}")) from None
        # Only what the tool asks about is read: real servers' capabilities often stray from
        # the schema in parts wave never uses (pylsp's notebook filters).
        capabilities = result.get("capabilities") if isinstance(result, dict) else None
        if not isinstance(capabilities, dict):
            raise _StartFailed("its initialize result has no capabilities")
        self.capabilities = capabilities
        await rpc.notify(lsp.INITIALIZED, {})
        if config.settings:
            await rpc.notify(
                lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": dict(config.settings)}
            )
        self._versions.clear()
        self._texts.clear()
        self.state = "running"
        self._monitor = asyncio.create_task(self._watch(process))

    def _crashed(self, reason: str) -> None:
        """The connection broke under a request: the next use restarts the server."""
        if self.state == "running":
            self.state = "crashed"
            self.last_error = reason

    async def _note_exit(self) -> None:
        """The last error of a crashed server as its exit code and last words, when it exited."""
        process = self._process
        if process is not None:
            code = await _exit_code(process)
            if code is not None:
                tail = process.stderr_tail()
                self.last_error = f"exited with code {code}{': ' + tail if tail else ''}"

    async def _watch(self, process: ServerProcess) -> None:
        code = await process.wait()
        if self._process is process and self.state == "running":
            tail = process.stderr_tail()
            self.state = "crashed"
            self.last_error = f"exited with code {code}{': ' + tail if tail else ''}"

    async def _discard(self) -> None:
        rpc, process, monitor = self._rpc, self._process, self._monitor
        self._rpc = self._process = self._monitor = None
        if rpc is not None:
            await rpc.close()
        if process is not None:
            await process.stop()
        if monitor is not None:
            monitor.cancel()
            await asyncio.gather(monitor, return_exceptions=True)

    async def stop(self) -> None:
        """Shutdown and exit, politely and bounded; the process is ended either way."""
        async with self._lock:
            rpc = self._rpc
            if rpc is not None and self.state == "running":
                with contextlib.suppress(RpcError, OSError):
                    await rpc.request(lsp.SHUTDOWN, None, SHUTDOWN_TIMEOUT_S)
                    await rpc.notify(lsp.EXIT, None)
            self.state = "stopped"
            await self._discard()

    @property
    def pid(self) -> int | None:
        return self._process.server_pid() if self._process is not None else None

    # -- what the server asks and says -------------------------------------------------------
    async def _on_request(self, method: str, params: Any) -> Any:
        if method == lsp.WORKSPACE_CONFIGURATION:
            items = params.get("items", []) if isinstance(params, dict) else []
            return [self._setting(item.get("section")) for item in items]
        if method in (
            lsp.CLIENT_REGISTER_CAPABILITY,
            lsp.CLIENT_UNREGISTER_CAPABILITY,
            lsp.WINDOW_WORK_DONE_PROGRESS_CREATE,
        ):
            return None
        if method == lsp.WORKSPACE_WORKSPACE_FOLDERS:
            return [{"uri": self.root.as_uri(), "name": self.root.name}]
        raise LookupError(method)

    def _setting(self, section: object) -> Any:
        value: Any = self.config.settings
        for part in str(section).split(".") if isinstance(section, str) and section else ():
            value = value.get(part) if isinstance(value, Mapping) else None
        return value

    def _on_notification(self, method: str, params: Any) -> None:
        if method != lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS or not isinstance(params, dict):
            return
        try:
            published = CONVERTER.structure(params, lsp.PublishDiagnosticsParams)
        except Exception:  # one bad notification is dropped, the connection goes on
            return
        self.diagnostics[published.uri] = list(published.diagnostics)
        count = self._published[published.uri] = self._published.get(published.uri, 0) + 1
        for uri, after, future in self._waiters:
            if uri == published.uri and count > after and not future.done():
                future.set_result(None)

    def publish_count(self, uri: str) -> int:
        return self._published.get(uri, 0)

    async def wait_for_publish(self, uri: str, after: int, wait_s: float) -> bool:
        """Until the server published diagnostics for `uri` more than `after` times."""
        if self.publish_count(uri) > after:
            return True
        waiter = (uri, after, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter[2], wait_s)
        except TimeoutError:
            return False
        finally:
            self._waiters.remove(waiter)
        return True

    # -- documents -----------------------------------------------------------------------------
    async def sync(self, path: Path, text: str, language: str) -> None:
        """didOpen the first time, didChange (full text) when it changed since."""
        try:
            await self._sync(self._running(), path, text, language)
        except ConnectionClosed as exc:
            self._crashed(str(exc))
            raise ServerGone(str(exc)) from None

    async def _sync(self, rpc: JsonRpc, path: Path, text: str, language: str) -> None:
        uri = path.as_uri()
        version = self._versions.get(uri)
        if version is None:
            self._versions[uri] = 1
            self._texts[uri] = text
            doc = lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
            await rpc.notify(
                lsp.TEXT_DOCUMENT_DID_OPEN,
                CONVERTER.unstructure(lsp.DidOpenTextDocumentParams(text_document=doc)),
            )
        elif self._texts.get(uri) != text:
            self._versions[uri] = version + 1
            self._texts[uri] = text
            change = lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(version=version + 1, uri=uri),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
            await rpc.notify(lsp.TEXT_DOCUMENT_DID_CHANGE, CONVERTER.unstructure(change))

    def open_texts(self) -> dict[str, str]:
        """uri -> the text the server has for each open document (a copy)."""
        return dict(self._texts)

    def is_open(self, path: Path) -> bool:
        return path.as_uri() in self._versions

    def _running(self) -> JsonRpc:
        if self.state == "crashed":
            raise ServerGone(f"LSP server {self.config.name} {self.last_error}")
        if self.state != "running" or self._rpc is None:
            raise LspError(f"LSP server {self.config.name} is {self.state}")
        return self._rpc

    async def request(self, method: str, params: Any) -> Any:
        """A typed request (an lsprotocol params object); the typed result."""
        rpc = self._running()
        response_type: Any = lsp.METHOD_TO_TYPES[method][1]
        try:
            raw = await rpc.request(
                method, CONVERTER.unstructure(params), self.config.request_timeout_s
            )
        except ConnectionClosed as exc:
            self._crashed(str(exc))
            raise ServerGone(str(exc)) from None
        except RpcError as exc:
            raise LspError(f"{self.config.name}: {exc}") from None
        try:
            return CONVERTER.structure({"id": 0, "result": raw}, response_type).result
        except Exception as exc:
            raise LspError(
                f"{self.config.name} answered {method} with something unreadable "
                f"({type(exc).__name__})"
            ) from None


class _StartFailed(Exception):
    pass


class _StartTimedOut(Exception):
    pass


async def _exit_code(process: ServerProcess) -> int | None:
    try:
        return await asyncio.wait_for(process.wait(), EXIT_WAIT_S)
    except TimeoutError:
        return None


def _client_capabilities() -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16]),
        text_document=lsp.TextDocumentClientCapabilities(
            synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=False),
            hover=lsp.HoverClientCapabilities(
                content_format=[lsp.MarkupKind.PlainText, lsp.MarkupKind.Markdown]
            ),
            definition=lsp.DefinitionClientCapabilities(link_support=True),
            implementation=lsp.ImplementationClientCapabilities(link_support=True),
            references=lsp.ReferenceClientCapabilities(),
            document_symbol=lsp.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=True
            ),
            call_hierarchy=lsp.CallHierarchyClientCapabilities(),
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
        workspace=lsp.WorkspaceClientCapabilities(
            configuration=True,
            workspace_folders=True,
            symbol=lsp.WorkspaceSymbolClientCapabilities(),
        ),
    )
