"""An OAuth 2.1 authorization server and an MCP server that demands its tokens, on 127.0.0.1.

    python oauth_server.py        prints `PORT <n>` once listening

One port serves both: the MCP server at `/mcp` (FastMCP, streamable HTTP) answers 401 with
`WWW-Authenticate: Bearer resource_metadata=…` until a valid token comes; the protected-resource
metadata (RFC 9728) names the authorization server at `/as` (RFC 8414 metadata, RFC 7591
registration, authorization code + PKCE S256, refresh). The browser step is the test fetching
the authorization URL: `/as/authorize` redirects at once to the client's loopback redirect.

`POST /_control` with JSON sets the behaviour (`mode`, `expires_in`, and the MA13 settings
below); `GET /_stats` counts what happened. Modes: ok, deny (redirect with error=access_denied), wrong_state, garbage_token (the
token endpoint answers 200 with HTML), token_error (400 invalid_grant), refresh_fails,
as_down (the metadata names an authorization server on a closed port).
MA13 settings: `preregistered` ({"id", "secret"}: no registration endpoint, the token request must
authenticate with HTTP Basic as that client, which may also use the client_credentials grant), `legacy` (no protected-resource metadata; the
authorization server's metadata at the root, 2025-03-26), `cimd` (client ID metadata documents
supported: an `https://` client_id is accepted as is), `step_up` (a scope: a token without it gets
403 `insufficient_scope`; the 401 asks for `basic`). A token carries the scope it was asked for.
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
    "preregistered": None,
    "legacy": False,
    "cimd": False,
    "step_up": None,
    "scopes": {},  # token -> the scope it was issued for
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
    found: dict[str, Any] = {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "registration_endpoint": f"{issuer}/register",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    }
    if STATE["preregistered"]:
        del found["registration_endpoint"]
        found["token_endpoint_auth_methods_supported"] = ["client_secret_basic"]
    if STATE["cimd"]:
        found["client_id_metadata_document_supported"] = True
    return JSONResponse(found)


async def not_found(request: Request) -> Response:
    return PlainTextResponse("not found", status_code=404)


async def prm_or_legacy(request: Request) -> Response:
    return await (not_found if STATE["legacy"] else prm)(request)


async def legacy_metadata(request: Request) -> Response:
    return await (as_metadata if STATE["legacy"] else not_found)(request)


def _client(client_id: str) -> dict[str, Any] | None:
    """A registered client, the pre-registered one, or (CIMD) a URL: any loopback redirect."""
    pre = STATE["preregistered"]
    if (pre and client_id == pre["id"]) or (STATE["cimd"] and client_id.startswith("https://")):
        return {"loopback": True}
    found: dict[str, Any] | None = STATE["clients"].get(client_id)
    return found


def _redirect_ok(client: dict[str, Any], redirect: str) -> bool:
    if client.get("loopback"):
        return redirect.startswith("http://127.0.0.1:") and redirect.endswith("/callback")
    return redirect in client.get("redirect_uris", [])


async def register(request: Request) -> Response:
    if STATE["preregistered"]:
        return PlainTextResponse("no dynamic registration here", status_code=404)
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
    client = _client(q.get("client_id", ""))
    redirect = q.get("redirect_uri", "")
    if client is None or not _redirect_ok(client, redirect):
        return PlainTextResponse("unknown client or redirect_uri", status_code=400)
    if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
        return PlainTextResponse("PKCE S256 required", status_code=400)
    mode = STATE["mode"]
    if mode == "deny":
        params = {"error": "access_denied", "error_description": "the user said no"}
        return RedirectResponse(f"{redirect}?{urlencode(params)}", status_code=302)
    code = secrets.token_urlsafe(16)
    STATE["codes"][code] = (q["client_id"], redirect, q["code_challenge"], q.get("scope", ""))
    state = "not-the-state-you-sent" if mode == "wrong_state" else q.get("state", "")
    return RedirectResponse(f"{redirect}?{urlencode({'code': code, 'state': state})}", 302)


def _issue(scope: str = "") -> dict[str, Any]:
    access, refresh = "at-" + secrets.token_hex(8), "rt-" + secrets.token_hex(8)
    STATE["access"][access] = time.time() + STATE["expires_in"]
    STATE["scopes"][access] = scope
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
    basic = request.headers.get("authorization", "")
    pre = STATE["preregistered"]
    if pre:
        expected = base64.b64encode(f"{pre['id']}:{pre['secret']}".encode()).decode()
        if basic != f"Basic {expected}":
            return JSONResponse({"error": "invalid_client"}, status_code=401)
    if f.get("grant_type") == "client_credentials":
        STATE["stats"]["token"] += 1
        if not pre:  # only the pre-registered client (checked above) may act for itself
            return JSONResponse({"error": "unauthorized_client"}, status_code=400)
        return JSONResponse(_issue(f.get("scope", "")))
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
    client_id, redirect, challenge, scope = found
    verifier = f.get("code_verifier", "")
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    if digest.decode() != challenge or f.get("redirect_uri") != redirect:
        return JSONResponse({"error": "invalid_grant", "error_description": "PKCE"}, 400)
    if f.get("client_id") != client_id:
        return JSONResponse({"error": "invalid_client"}, status_code=400)
    issued = _issue(scope)
    return JSONResponse({**issued, "scope": scope} if scope else issued)


async def control(request: Request) -> Response:
    STATE.update(await request.json())
    return JSONResponse({"ok": True})


async def stats(request: Request) -> Response:
    return JSONResponse(STATE["stats"])


async def clients(request: Request) -> Response:
    """What each dynamic registration asked for."""
    return JSONResponse(list(STATE["clients"].values()))


routes = Starlette(
    routes=[
        Route("/.well-known/oauth-protected-resource/mcp", prm_or_legacy),
        Route("/.well-known/oauth-protected-resource", prm_or_legacy),
        Route("/.well-known/oauth-authorization-server", legacy_metadata),
        Route("/.well-known/oauth-authorization-server/as", as_metadata),
        Route("/as/register", register, methods=["POST"]),
        Route("/as/authorize", authorize),
        Route("/as/token", token, methods=["POST"]),
        Route("/_control", control, methods=["POST"]),
        Route("/_stats", stats),
        Route("/_clients", clients),
    ]
)
mcp_app = mcp.streamable_http_app()


def _bearer(headers: list[tuple[bytes, bytes]]) -> str | None:
    for key, value in headers:
        if key.lower() == b"authorization" and value.startswith(b"Bearer "):
            return value[7:].decode()
    return None


def _valid(headers: list[tuple[bytes, bytes]]) -> bool:
    expiry = STATE["access"].get(_bearer(headers) or "")
    return expiry is not None and expiry > time.time()


def _challenge(status: int, fields: str) -> Response:
    meta = f"{BASE}/.well-known/oauth-protected-resource/mcp"
    resource = "" if STATE["legacy"] else f' resource_metadata="{meta}"'
    return Response(
        json.dumps({"error": "invalid_token" if status == 401 else "insufficient_scope"}),
        status_code=status,
        headers={"WWW-Authenticate": f"Bearer {fields}{resource}".strip()},
        media_type="application/json",
    )


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await mcp_app(scope, receive, send)
        return
    if scope["type"] == "http" and scope["path"].startswith("/mcp"):
        step_up = STATE["step_up"]
        if not _valid(scope["headers"]):
            STATE["stats"]["mcp_401"] += 1
            await _challenge(401, 'scope="basic",' if step_up else "")(scope, receive, send)
            return
        held = STATE["scopes"].get(_bearer(scope["headers"]) or "", "").split()
        if step_up and step_up not in held:
            fields = f'error="insufficient_scope", scope="basic {step_up}",'
            await _challenge(403, fields)(scope, receive, send)
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
