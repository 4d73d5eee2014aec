"""An OAuth 2.1 authorization server and an MCP server that demands its tokens, on 127.0.0.1.

    python oauth_server.py        prints `PORT <n>` once listening

One port serves both: the MCP server at `/mcp` (FastMCP, streamable HTTP) answers 401 with
`WWW-Authenticate: Bearer resource_metadata=…` until a valid token comes; the protected-resource
metadata (RFC 9728) names the authorization server at `/as` (RFC 8414 metadata, RFC 7591
registration, authorization code + PKCE S256, refresh). The browser step is the test fetching
the authorization URL: `/as/authorize` redirects at once to the client's loopback redirect.

`POST /_control` with JSON sets the behaviour (`mode`, `expires_in`); `GET /_stats` counts what
happened. Modes: ok, deny (redirect with error=access_denied), wrong_state, garbage_token (the
token endpoint answers 200 with HTML), token_error (400 invalid_grant), refresh_fails,
as_down (the metadata names an authorization server on a closed port).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import socket
import time
from typing import Any
from urllib.parse import parse_qs, urlencode

import uvicorn
from mcp.server.fastmcp import FastMCP
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

mcp = FastMCP("secure", instructions="The secure server.")


@mcp.tool()
def whoami() -> str:
    """Who the token belongs to."""
    return "you hold a valid token"


STATE: dict[str, Any] = {
    "mode": "ok",
    "expires_in": 3600,
    "clients": {},
    "codes": {},
    "access": {},  # token -> expiry
    "refresh": set(),
    "stats": {"register": 0, "authorize": 0, "token": 0, "refresh": 0, "mcp_401": 0},
}
BASE = ""  # http://127.0.0.1:PORT, set at start
CLOSED_PORT = 0


def _issuer() -> str:
    if STATE["mode"] == "as_down":
        return f"http://127.0.0.1:{CLOSED_PORT}/as"
    return f"{BASE}/as"


async def prm(request: Request) -> Response:
    return JSONResponse(
        {
            "resource": f"{BASE}/mcp",
            "authorization_servers": [_issuer()],
            "bearer_methods_supported": ["header"],
        }
    )


async def as_metadata(request: Request) -> Response:
    issuer = f"{BASE}/as"
    return JSONResponse(
        {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }
    )


async def register(request: Request) -> Response:
    body = await request.json()
    STATE["stats"]["register"] += 1
    client_id = "client-" + secrets.token_hex(4)
    STATE["clients"][client_id] = body
    return JSONResponse(
        {**body, "client_id": client_id, "token_endpoint_auth_method": "none"}, status_code=201
    )


async def authorize(request: Request) -> Response:
    q = request.query_params
    STATE["stats"]["authorize"] += 1
    client = STATE["clients"].get(q.get("client_id"))
    redirect = q.get("redirect_uri", "")
    if client is None or redirect not in client.get("redirect_uris", []):
        return PlainTextResponse("unknown client or redirect_uri", status_code=400)
    if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
        return PlainTextResponse("PKCE S256 required", status_code=400)
    mode = STATE["mode"]
    if mode == "deny":
        params = {"error": "access_denied", "error_description": "the user said no"}
        return RedirectResponse(f"{redirect}?{urlencode(params)}", status_code=302)
    code = secrets.token_urlsafe(16)
    STATE["codes"][code] = (q["client_id"], redirect, q["code_challenge"])
    state = "not-the-state-you-sent" if mode == "wrong_state" else q.get("state", "")
    return RedirectResponse(f"{redirect}?{urlencode({'code': code, 'state': state})}", 302)


def _issue() -> dict[str, Any]:
    access, refresh = "at-" + secrets.token_hex(8), "rt-" + secrets.token_hex(8)
    STATE["access"][access] = time.time() + STATE["expires_in"]
    STATE["refresh"].add(refresh)
    return {
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": STATE["expires_in"],
        "refresh_token": refresh,
    }


async def token(request: Request) -> Response:
    form = parse_qs((await request.body()).decode())
    f = {k: v[0] for k, v in form.items()}
    mode = STATE["mode"]
    if f.get("grant_type") == "refresh_token":
        STATE["stats"]["refresh"] += 1
        if mode == "refresh_fails" or f.get("refresh_token") not in STATE["refresh"]:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        STATE["refresh"].discard(f["refresh_token"])
        return JSONResponse(_issue())
    STATE["stats"]["token"] += 1
    if mode == "garbage_token":
        return Response("<html>not a token</html>", status_code=200, media_type="text/html")
    if mode == "token_error":
        return JSONResponse({"error": "invalid_grant", "error_description": "no"}, 400)
    found = STATE["codes"].pop(f.get("code", ""), None)
    if found is None:
        return JSONResponse({"error": "invalid_grant"}, status_code=400)
    client_id, redirect, challenge = found
    verifier = f.get("code_verifier", "")
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    if digest.decode() != challenge or f.get("redirect_uri") != redirect:
        return JSONResponse({"error": "invalid_grant", "error_description": "PKCE"}, 400)
    if f.get("client_id") != client_id:
        return JSONResponse({"error": "invalid_client"}, status_code=400)
    return JSONResponse(_issue())


async def control(request: Request) -> Response:
    STATE.update(await request.json())
    return JSONResponse({"ok": True})


async def stats(request: Request) -> Response:
    return JSONResponse(STATE["stats"])


routes = Starlette(
    routes=[
        Route("/.well-known/oauth-protected-resource/mcp", prm),
        Route("/.well-known/oauth-protected-resource", prm),
        Route("/.well-known/oauth-authorization-server/as", as_metadata),
        Route("/as/register", register, methods=["POST"]),
        Route("/as/authorize", authorize),
        Route("/as/token", token, methods=["POST"]),
        Route("/_control", control, methods=["POST"]),
        Route("/_stats", stats),
    ]
)
mcp_app = mcp.streamable_http_app()


def _valid(headers: list[tuple[bytes, bytes]]) -> bool:
    for key, value in headers:
        if key.lower() == b"authorization" and value.startswith(b"Bearer "):
            expiry = STATE["access"].get(value[7:].decode())
            return expiry is not None and expiry > time.time()
    return False


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await mcp_app(scope, receive, send)
        return
    if scope["type"] == "http" and scope["path"].startswith("/mcp"):
        if not _valid(scope["headers"]):
            STATE["stats"]["mcp_401"] += 1
            meta = f"{BASE}/.well-known/oauth-protected-resource/mcp"
            response = Response(
                json.dumps({"error": "invalid_token"}),
                status_code=401,
                headers={"WWW-Authenticate": f'Bearer resource_metadata="{meta}"'},
                media_type="application/json",
            )
            await response(scope, receive, send)
            return
        await mcp_app(scope, receive, send)
        return
    await routes(scope, receive, send)


def main() -> None:
    global BASE, CLOSED_PORT
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    CLOSED_PORT = closed.getsockname()[1]
    closed.close()  # nothing listens there: "the authorization server is down"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    BASE = f"http://127.0.0.1:{port}"
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    print(f"PORT {port}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
