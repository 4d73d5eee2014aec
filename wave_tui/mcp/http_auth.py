"""Which OAuth an HTTP/SSE MCP server connects with: none, ask-first, stored tokens, or consent.

- The user set an `Authorization` header: that header, no OAuth.
- No tokens stored: `AskFirst` — a server that answers 401 is "needs authorization", nothing
  is registered nor asked (a session start, `wave -p`).
- Tokens stored for this URL: the SDK's provider with them (refreshed before expiry); when they
  cannot be refreshed the server is "needs authorization" again — asked once, not in a loop.
- `Consent` (`/mcp auth NAME`, `wave mcp auth NAME`): a fresh authorization with a loopback
  redirect on 127.0.0.1; `show` gets the URL the user must open.
- A client with `"grantType": "client_credentials"` gets its tokens itself, asking nobody.
- A step-up (403 `insufficient_scope`) outside a consent is "needs authorization" too, and the
  scope the server asked for is kept: the next consent asks for it along with the usual scope.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from wave_tui.mcp.config import RemoteServer
from wave_tui.mcp.oauth_store import ServerTokens
from wave_tui.net.mcp_oauth import (
    AskFirst,
    AuthorizationNeeded,
    ConfiguredClient,
    LoopbackRedirect,
    RefreshingProvider,
    auth_failure,
)

# How long an authorization waits for the browser to come back.
CONSENT_WAIT_S = 300.0
# A stored client without a redirect URI never reaches the grant (it raises first); any loopback
# URI does for the SDK's check.
_NO_REDIRECT = "http://127.0.0.1/callback"

Auth = AskFirst | RefreshingProvider


@dataclass(frozen=True)
class Consent:
    """The user asked to authorize: `show` gets the authorization URL (print, notify, open)."""

    show: Callable[[str], Awaitable[None]]
    wait_s: float = CONSENT_WAIT_S


def _has_own_authorization(config: RemoteServer) -> bool:
    return any(k.lower() == "authorization" for k in config.headers)


def configured_client(config: RemoteServer) -> ConfiguredClient | None:  # req: MA13
    """The entry's `oauth` client (pre-registered and/or CIMD), None to register dynamically."""
    found = config.oauth
    if found is None or not (found.client_id or found.client_metadata_url):
        return None
    return ConfiguredClient(
        found.client_id, found.client_secret, found.client_metadata_url, found.grant
    )


# req: MO1
@asynccontextmanager
async def server_auth(
    config: RemoteServer, auth_file: Path | None, consent: Consent | None
) -> AsyncIterator[Auth | None]:
    if auth_file is None or _has_own_authorization(config):
        yield None
        return
    if consent is None:
        stored = await asyncio.to_thread(ServerTokens, auth_file, config.name, config.url)
        acts_alone = config.oauth is not None and config.oauth.grant == "client_credentials"
        if not stored.has_tokens() and not acts_alone:
            yield AskFirst()
            return
        provider: RefreshingProvider | None = None

        async def refuse(url: str) -> None:
            failed = provider is not None and provider.context.current_tokens is None
            more = _more_scope(url, provider)
            if more is not None:
                await stored.remember_wanted_scope(more)
                raise AuthorizationNeeded(f"the server asks for more access: {more}")
            raise AuthorizationNeeded("the token could not be refreshed" if failed else "")

        async def never() -> tuple[str, str | None]:
            raise AuthorizationNeeded("")

        provider = RefreshingProvider(
            config.url,
            _loopback_only(stored.redirect_uri()),
            stored,
            refuse,
            never,
            configured_client(config),
        )
        yield provider
        return
    loopback = LoopbackRedirect()
    redirect_uri = await loopback.start()
    before = await asyncio.to_thread(ServerTokens, auth_file, config.name, config.url)
    fresh = ServerTokens(auth_file, config.name, config.url, fresh=True)

    async def wait() -> tuple[str, str | None]:
        return await asyncio.wait_for(loopback.wait(), consent.wait_s)

    try:
        yield RefreshingProvider(
            config.url,
            redirect_uri,
            fresh,
            consent.show,
            wait,
            configured_client(config),
            extra_scope=before.wanted_scope(),
        )
    finally:
        await loopback.aclose()


def _loopback_only(uri: str | None) -> str:
    """The stored client's redirect URI when it is wave's own loopback one. The stored client is
    what the authorization server's registration answer said, and a hostile one may name any
    redirect there: wave never registers nor sends one that leaves the machine."""
    from urllib.parse import urlsplit

    if uri is None:
        return _NO_REDIRECT
    parts = urlsplit(uri)
    loopback = parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost")
    return uri if loopback else _NO_REDIRECT


def _more_scope(url: str, provider: RefreshingProvider | None) -> str | None:  # req: MA13
    """The scope an authorization URL asks for when it goes beyond the held token's (a server's
    step-up, 403 `insufficient_scope`), else None."""
    from urllib.parse import parse_qs, urlsplit

    if provider is None or not provider.stepping_up:
        return None
    asked = (parse_qs(urlsplit(url).query).get("scope") or [""])[0]
    tokens = provider.context.current_tokens
    held = set((tokens.scope or "").split()) if tokens is not None else set()
    return asked if asked and not set(asked.split()) <= held else None


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaves(sub)]
    return [exc]


def auth_problem(  # req: MO1
    exc: BaseException, consent: Consent | None
) -> tuple[str | None, str | None]:
    """(why authorization is needed, None), (None, the one-line OAuth failure), or (None, None)
    when `exc` is not about authorization. During a consent every failure is the flow's."""
    from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

    from wave_tui.net.mcp_oauth import AuthorizationRefused
    from wave_tui.net.oauth_reach import UnreachableEndpoint

    leaves = [e for e in _leaves(exc) if not isinstance(e, asyncio.CancelledError)]
    for leaf in leaves:
        if isinstance(leaf, AuthorizationNeeded):
            return str(leaf), None
    oauth = (
        OAuthFlowError,
        OAuthTokenError,
        OAuthRegistrationError,
        AuthorizationRefused,
        UnreachableEndpoint,
    )
    for leaf in leaves:
        if isinstance(leaf, oauth):
            return None, auth_failure(leaf)
    if consent is not None and leaves:
        return None, auth_failure(leaves[0])
    return None, None
