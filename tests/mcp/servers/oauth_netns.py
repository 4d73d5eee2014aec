"""`wave mcp auth remote` against a hostile OAuth server, inside a fresh network namespace.

    unshare -n sh -c '…addresses…; exec python oauth_netns.py SCENARIO_JSON'

Run by `tests/mcp/test_attacks_oauth.py` in a namespace where 8.8.8.8 (a "public" host),
10.1.2.3 (an intranet host) and 169.254.169.254 (the cloud metadata service) are all on `lo`,
so they exist only in there. One stdlib HTTP server listens on every address at `PORT`; the
scenario (JSON) names which host serves what:

    server    the MCP server's host (the user's `mcpServers` entry)
    prm_url   the `resource_metadata` of its 401 (default: at the server)
    as        the authorization server's host (the metadata's `authorization_servers`)
    token, register, jwks   the hosts of those endpoints (default: the AS's)
    redirect_to   once authorized, `/mcp` redirects (307) to this host's `/mcp`
    state     "drop" (the redirect carries no state) or "wrong"

Prints one JSON line: wave's exit status and output, and every request the server saw
(`[local address, method, path, authorization header]`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

PORT = 8000
TOKEN = "at-netns"
SCENARIO: dict[str, Any] = {}
HITS: list[list[str]] = []
ROOT = Path(__file__).resolve().parents[3]


def _at(role: str) -> str:
    host = SCENARIO.get(role) or SCENARIO.get("as") or SCENARIO["server"]
    return f"http://{host}:{PORT}"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, body: Any, **headers: str) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _empty(self, status: int, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

    def _hit(self) -> str:
        local = str(self.connection.getsockname()[0])
        HITS.append([local, self.command, self.path, self.headers.get("Authorization", "")])
        return local

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def do_GET(self) -> None:
        self._hit()
        path = urlsplit(self.path).path
        issuer = f"{_at('as')}/as"
        if path.startswith("/.well-known/oauth-protected-resource"):
            server = f"http://{SCENARIO['server']}:{PORT}"
            self._json(200, {"resource": f"{server}/mcp", "authorization_servers": [issuer]})
        elif path.startswith("/.well-known/") and path.endswith("/as"):
            self._json(
                200,
                {
                    "issuer": issuer,
                    "authorization_endpoint": f"{issuer}/authorize",
                    "token_endpoint": f"{_at('token')}/as/token",
                    "registration_endpoint": f"{_at('register')}/as/register",
                    "jwks_uri": f"{_at('jwks')}/jwks",
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"],
                },
            )
        elif path == "/as/authorize":
            query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            answer = {"code": "the-code", "state": query.get("state", "")}
            if SCENARIO.get("state") == "drop":
                del answer["state"]
            elif SCENARIO.get("state") == "wrong":
                answer["state"] = "not-the-state-wave-sent"
            self._empty(302, Location=f"{query.get('redirect_uri')}?{urlencode(answer)}")
        elif path == "/mcp":
            self._mcp_or_challenge(None)
        else:
            self._empty(404)

    def do_POST(self) -> None:
        self._hit()
        body = self._body()
        path = urlsplit(self.path).path
        if path == "/as/register":
            found = json.loads(body or b"{}")
            self._json(201, {**found, "client_id": "c-1", "token_endpoint_auth_method": "none"})
        elif path == "/as/token":
            self._json(200, {"access_token": TOKEN, "token_type": "Bearer", "expires_in": 3600})
        elif path == "/mcp":
            self._mcp_or_challenge(body)
        else:
            self._empty(404)

    def do_DELETE(self) -> None:
        self._hit()
        self._empty(200)

    def _mcp_or_challenge(self, body: bytes | None) -> None:
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            prm = SCENARIO.get("prm_url") or (
                f"http://{SCENARIO['server']}:{PORT}/.well-known/oauth-protected-resource/mcp"
            )
            self._json(401, {}, **{"WWW-Authenticate": f'Bearer resource_metadata="{prm}"'})
        elif SCENARIO.get("redirect_to"):
            self._empty(307, Location=f"http://{SCENARIO['redirect_to']}:{PORT}/mcp")
        elif body is None:
            self._empty(405)
        else:
            self._mcp(json.loads(body))

    def _mcp(self, message: dict[str, Any]) -> None:
        if "id" not in message:
            self._empty(202)
            return
        result: dict[str, Any] = {}
        if message.get("method") == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "netns", "version": "1"},
            }
        elif message.get("method") == "tools/list":
            result = {"tools": []}
        self._json(200, {"jsonrpc": "2.0", "id": message["id"], "result": result})


def browser(url: str) -> None:
    """The user's browser: open the authorization URL and follow it to wave's listener."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
    except (urllib.error.URLError, OSError):
        pass


def main() -> None:
    SCENARIO.update(json.loads(sys.argv[1]))
    server = ThreadingHTTPServer(("0.0.0.0", PORT), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = Path(os.environ["HOME"])
    (home / ".wave").mkdir(parents=True, exist_ok=True)
    url = f"http://{SCENARIO['server']}:{PORT}/mcp"
    entry = {"type": "http", "url": url}
    (home / ".wave" / "settings.json").write_text(json.dumps({"mcpServers": {"remote": entry}}))
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(PYTHONPATH=str(ROOT), NO_PROXY="*")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "wave_tui", "mcp", "auth", "remote"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    out: list[str] = []
    for line in proc.stdout:
        out.append(line)
        if "open this URL: " in line:
            target = line.split("open this URL: ", 1)[1].split()[0]
            threading.Thread(target=browser, args=(target,), daemon=True).start()
    err = proc.stderr.read()
    code = proc.wait(60)
    auth = home / ".wave" / "mcp-auth.json"
    stored = json.loads(auth.read_text()) if auth.exists() else None
    report = {"rc": code, "stdout": "".join(out), "stderr": err, "hits": HITS, "stored": stored}
    print(json.dumps(report), flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
