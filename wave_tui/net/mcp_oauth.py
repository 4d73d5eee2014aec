"""OAuth 2.1 for HTTP MCP servers, on the `mcp` SDK's client auth (`mcp.client.auth`).

The SDK's `OAuthClientProvider` (an `httpx.Auth`) does the protocol: on a 401 it discovers the
protected-resource metadata (RFC 9728) and the authorization server's metadata (RFC 8414),
registers a client dynamically (RFC 7591), runs the authorization code grant with PKCE (S256)
and checks `state`, exchanges the code, and refreshes with the refresh token. What wave adds:
- `RefreshingProvider`: a token counts as expired a margin *before* its end (so a request never
  races the expiry), and tokens loaded from the store keep the expiry they were saved with;
- `AskFirst`: for a server with no tokens, a 401 raises `AuthorizationNeeded` instead of starting
  a flow nobody is there to finish (a session start, `wave -p`);
- `LoopbackRedirect`: the redirect URI `http://127.0.0.1:PORT/callback` and the one request the
  browser makes to it.
Imported only when an HTTP server connects.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import parse_qs, urlsplit

from wave_tui.net.http import httpx
from wave_tui.net.oauth_reach import UnreachableEndpoint, check_reach

# isort: split
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    ProtectedResourceMetadata,
)

# A token is refreshed this long before it expires (or at half its life, if that is shorter).
REFRESH_MARGIN_S = 60.0
CALLBACK_PATH = "/callback"
# Where a server without protected-resource metadata serves its authorization server's (2025-03-26).
LEGACY_METADATA_PATH = "/.well-known/oauth-authorization-server"
CLIENT_NAME = "wave"
_REQUEST_MAX_BYTES = 16_384

# The SDK logs a failed flow with its traceback; wave reports it as one line (`auth_failure`).
_sdk_log = logging.getLogger("mcp.client.auth")
_sdk_log.addHandler(logging.NullHandler())
_sdk_log.propagate = False


class AuthorizationNeeded(Exception):
    """The server wants the user's consent (`wave mcp auth NAME`); nothing was asked here."""


class AuthorizationRefused(Exception):
    """The authorization server redirected back with an `error` (the user or it said no)."""


class ExpiringStorage(TokenStorage, Protocol):
    """The SDK's `TokenStorage` plus when the stored access token was saved to expire."""

    def expiry(self) -> tuple[float, float] | None:
        """(expires_at, lifetime) in seconds of the stored token, None when it has no end."""
        ...

    def server_metadata(self) -> dict[str, Any]:
        """What discovery found when the tokens were obtained (`remember_metadata`)."""
        ...

    def remember_metadata(self, metadata: dict[str, Any]) -> None:
        """Kept with the next tokens: a later run refreshes at the discovered token endpoint."""
        ...


Grant = Literal["authorization_code", "client_credentials"]


# req: MA13
@dataclass(frozen=True)
class ConfiguredClient:
    """The client a server's settings name instead of dynamic registration: pre-registered
    credentials, and/or a client ID metadata document URL (used where the server supports it)."""

    client_id: str | None = None
    client_secret: str | None = None
    metadata_url: str | None = None
    # `client_credentials`: the client acts for itself (no user, no browser), with its secret.
    grant: Grant = "authorization_code"

    def registered(self, metadata: OAuthClientMetadata) -> OAuthClientInformationFull | None:
        if not self.client_id:
            return None
        method = "client_secret_basic" if self.client_secret else "none"
        return OAuthClientInformationFull.model_validate(
            {
                **metadata.model_dump(mode="json", exclude_none=True),
                "client_id": self.client_id,
                "client_secret": self.client_secret,
                "token_endpoint_auth_method": method,
            }
        )


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _margin(lifetime: float) -> float:
    return min(REFRESH_MARGIN_S, lifetime / 2)


def client_metadata(redirect_uri: str) -> OAuthClientMetadata:
    """What wave registers as (RFC 7591): a public client with a loopback redirect."""
    return OAuthClientMetadata.model_validate(
        {
            "redirect_uris": [redirect_uri],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "client_name": CLIENT_NAME,
        }
    )


# req: MO1
class RefreshingProvider(OAuthClientProvider):
    """The SDK's provider, refreshing a margin before expiry, expiry kept across runs."""

    def __init__(
        self,
        server_url: str,
        redirect_uri: str,
        storage: ExpiringStorage,
        redirect_handler: Callable[[str], Awaitable[None]],
        callback_handler: Callable[[], Awaitable[tuple[str, str | None]]],
        client: ConfiguredClient | None = None,
        *,
        extra_scope: str | None = None,
    ) -> None:
        super().__init__(
            server_url,
            client_metadata(redirect_uri),
            storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
            client_metadata_url=client.metadata_url if client else None,
        )
        self._store = storage
        self._configured = client
        self._extra_scope = extra_scope
        self.stepping_up = False

    def _shorten(self, lifetime: float | None) -> None:
        if self.context.token_expiry_time is not None and lifetime:
            self.context.token_expiry_time -= _margin(lifetime)

    async def _initialize(self) -> None:
        await super()._initialize()
        # The SDK discovers the endpoints on a 401 only; a refresh in a new run needs them.
        found = self._store.server_metadata()
        with contextlib.suppress(ValueError):
            if "oauth" in found:
                self.context.oauth_metadata = OAuthMetadata.model_validate(found["oauth"])
            if "resource" in found:
                resource = ProtectedResourceMetadata.model_validate(found["resource"])
                self.context.protected_resource_metadata = resource
            if isinstance(found.get("issuer"), str):
                self.context.auth_server_url = found["issuer"]
        preregistered = (
            self._configured.registered(self.context.client_metadata) if self._configured else None
        )
        if preregistered is not None:
            # The configured client wins over one registered dynamically earlier.
            self.context.client_info = preregistered
        expiry = self._store.expiry()
        if self.context.current_tokens is not None and expiry is not None:
            expires_at, lifetime = expiry
            self.context.token_expiry_time = expires_at - _margin(lifetime)

    def _remember(self) -> None:
        context, found = self.context, dict[str, Any]()
        if context.oauth_metadata is not None:
            found["oauth"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
        if context.protected_resource_metadata is not None:
            resource = context.protected_resource_metadata
            found["resource"] = resource.model_dump(mode="json", exclude_none=True)
        if context.auth_server_url:
            found["issuer"] = context.auth_server_url
        self._store.remember_metadata(found)

    # req: MA13
    async def _auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            if outgoing is not request:  # a refresh before the request
                await check_reach(self.context.server_url, str(outgoing.url))
            while True:
                response = yield outgoing
                if outgoing is request:
                    # The SDK re-authorizes on a 403 only for `insufficient_scope` (a step-up).
                    self.stepping_up = response.status_code == 403
                response = await self._legacy_metadata(outgoing, response)
                outgoing = await flow.asend(response)
                if outgoing is not request:
                    await check_reach(self.context.server_url, str(outgoing.url))
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    async def _legacy_metadata(
        self, sent: httpx.Request, response: httpx.Response
    ) -> httpx.Response:
        """A server without protected-resource metadata (the 2025-03-26 spec) serves its
        authorization server's metadata at its own origin, often for an issuer under a path of
        that origin (`https://host/oauth`); the SDK compares the issuer to the bare origin and
        refuses it. The same origin is the same party: its metadata is taken as found."""
        origin = _origin(self.context.server_url)
        if (
            self.context.auth_server_url is not None
            or response.status_code != 200
            or sent.url.path != LEGACY_METADATA_PATH
            or _origin(str(sent.url)) != origin
        ):
            return response
        try:
            found = OAuthMetadata.model_validate_json(await response.aread())
        except ValueError:
            return response
        issuer = str(found.issuer)
        if _origin(issuer) != origin or urlsplit(issuer).path in ("", "/"):
            return response
        self.context.oauth_metadata = found
        # "Not here" to the SDK, which then goes on with the metadata set above.
        return httpx.Response(404, request=sent)

    # req: MA13
    async def _perform_authorization(self) -> httpx.Request:
        # A step-up refused earlier (nobody there to consent) is asked for now, with the rest.
        if self._extra_scope:
            current = (self.context.client_metadata.scope or "").split()
            extra = [s for s in self._extra_scope.split() if s not in current]
            self.context.client_metadata.scope = " ".join(current + extra)
        if self._configured is not None and self._configured.grant == "client_credentials":
            return self._client_credentials_request()
        return await super()._perform_authorization()

    def _client_credentials_request(self) -> httpx.Request:  # req: MA13
        """The token request of a client acting for itself (RFC 6749 §4.4): no browser."""
        self._authenticate_as_advertised()
        data: dict[str, str] = {"grant_type": "client_credentials"}
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        data, headers = self.context.prepare_token_auth(data, headers)
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = self.context.get_resource_url()
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        return httpx.Request("POST", self._get_token_endpoint(), data=data, headers=headers)

    # req: MA13
    def _authenticate_as_advertised(self) -> None:
        """A client with a secret authenticates the way the authorization server lists
        (`client_secret_basic` unless it offers only `client_secret_post`)."""
        info, metadata = self.context.client_info, self.context.oauth_metadata
        if info is None or not info.client_secret or metadata is None:
            return
        offered = metadata.token_endpoint_auth_methods_supported or []
        if offered and "client_secret_basic" not in offered and "client_secret_post" in offered:
            info.token_endpoint_auth_method = "client_secret_post"
        elif info.token_endpoint_auth_method in (None, "none"):
            info.token_endpoint_auth_method = "client_secret_basic"

    async def _exchange_token_authorization_code(
        self, auth_code: str, code_verifier: str, *, token_data: dict[str, Any] | None = None
    ) -> httpx.Request:
        self._authenticate_as_advertised()
        return await super()._exchange_token_authorization_code(
            auth_code, code_verifier, token_data=token_data or {}
        )

    async def _refresh_token(self) -> httpx.Request:
        self._authenticate_as_advertised()
        return await super()._refresh_token()

    async def _handle_token_response(self, response: httpx.Response) -> None:
        self._remember()
        await super()._handle_token_response(response)
        tokens = self.context.current_tokens
        self._shorten(float(tokens.expires_in) if tokens and tokens.expires_in else None)

    async def _handle_refresh_response(self, response: httpx.Response) -> bool:
        ok = await super()._handle_refresh_response(response)
        tokens = self.context.current_tokens
        if ok:
            self._shorten(float(tokens.expires_in) if tokens and tokens.expires_in else None)
        return ok


class AskFirst(httpx.Auth):
    """No tokens stored: pass requests through; a 401 means the user must authorize first."""

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        response = yield request
        if response.status_code == 401:
            raise AuthorizationNeeded("")


def auth_failure(exc: BaseException) -> str:  # req: MO1
    """One line for an OAuth failure (server down, an error answer, a bad token response)."""
    from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        host = exc.request.url.netloc.decode() if exc.request is not None else "?"
        return f"cannot connect to the authorization server ({host})"
    if isinstance(exc, httpx.HTTPError):
        return f"HTTP error during authorization: {type(exc).__name__}: {exc}"
    if isinstance(exc, UnreachableEndpoint):
        return str(exc)
    if isinstance(exc, AuthorizationRefused):
        return f"the authorization server refused: {exc}"
    if isinstance(exc, OAuthFlowError) and "State parameter mismatch" in str(exc):
        return "the redirect came back with a wrong state (not the request wave made)"
    if isinstance(exc, OAuthTokenError | OAuthRegistrationError | OAuthFlowError):
        text = " ".join(str(exc).split())
        return text[:200] if text else type(exc).__name__
    if isinstance(exc, TimeoutError):
        return "no answer from the browser in time"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


# req: MO1
class LoopbackRedirect:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization server's redirect."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[tuple[str, str | None]] | None = None
        self.redirect_uri = ""

    async def start(self) -> str:
        loop = asyncio.get_running_loop()
        self._result = loop.create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
        return self.redirect_uri

    async def wait(self) -> tuple[str, str | None]:
        """The (code, state) the browser brought back; raises when it brought an error."""
        assert self._result is not None, "start() first"
        return await asyncio.shield(self._result)

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self._result is not None and not self._result.done():
            self._result.cancel()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            writer.close()
            return
        line = head[:_REQUEST_MAX_BYTES].split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split()
        target = urlsplit(parts[1]) if len(parts) >= 2 else urlsplit("/")
        if target.path != CALLBACK_PATH or self._result is None or self._result.done():
            await _answer(writer, 404, "Not the authorization callback.")
            return
        query = {k: v[0] for k, v in parse_qs(target.query).items()}
        if "error" in query:
            detail = query.get("error_description", "")
            reason = query["error"] + (f" ({detail})" if detail else "")
            self._result.set_exception(AuthorizationRefused(reason))
            await _answer(writer, 400, f"Authorization refused: {reason}. Back to wave.")
            return
        code = query.get("code", "")
        self._result.set_result((code, query.get("state")))
        await _answer(writer, 200, "wave is authorized. You can close this tab.")


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = f"<!doctype html><title>wave</title><p>{html.escape(text)}</p>".encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    writer.close()
