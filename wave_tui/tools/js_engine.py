"""An embedded JavaScript engine for model-written scripts: QuickJS (quickjs-ng), no file system,
network, modules or code generation from strings; host functions the script awaits; budgets.

`run_js(code, functions, limits)` runs `code` as the body of an async function. Each entry of
`functions` (a path such as `("tools", "mcp__demo__echo")`) becomes a JS function returning a
promise; the Python coroutine behind it is awaited on the event loop, one call at a time, and its
JSON-able value resolves the promise (a `HostRefusal` rejects it; a `JsAbort` ends the run).
`console.log` is captured up to `limits.log_chars`. The engine itself runs on a thread of its own
(QuickJS wants every call of a runtime on one thread), so a busy script never blocks the loop;
its CPU time is cut by QuickJS's interrupt, and the whole run by the wall-time budget.

Why QuickJS over V8 (`mini-racer`): a 7.8 MB wheel against 82 MB, ~10 ms to import and create a
context against ~0.65 s, and the interpreter has no host APIs at all unless given — V8 through
mini-racer needs an explicit `close()` or the process hangs at exit.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from wave_tui.config.records import record
from wave_tui.tools.js_outbox import Call, OutboxTampered, read_outbox

HostFunction = Callable[[Any], Awaitable[Any]]
JS_MEMORY_BYTES = 64 * 1024 * 1024  # the script's heap
LOG_CUT_NOTE = "\n… (console output cut at {limit:,} characters)"
STUCK = "the script awaits a promise that nothing will settle"
CODE_GENERATION_OFF = "code generation from strings is disabled"


class HostRefusal(Exception):
    """A host function's failure the script sees as a rejected promise (it may catch it)."""


class JsAbort(Exception):
    """A host function ends the whole run (a budget spent): the run fails with this text."""


@record
class JsLimits:
    wall_s: float
    log_chars: int
    memory_bytes: int = JS_MEMORY_BYTES


@record
class JsRun:
    """How a run ended: the returned value as JSON text (`null` for none), or why it failed."""

    value_json: str | None
    error: str | None
    logs: str


# The sandbox's own set-up, before the script: code generation removed, the host paths and
# `console` built over an outbox the driver empties after each step (`__wave_take`), and
# `__wave_settle`/`__wave_start` for the driver. The engine's CPU interrupt cannot be combined
# with calls into Python, so the script never calls the host directly: it leaves requests.
_PRELUDE = r"""
(function (paths, logBudget) {
  "use strict";
  const refuse = function () { throw new EvalError(%(off)s); };
  for (const sample of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(sample), "constructor",
      { value: refuse, writable: false, configurable: false });
  }
  refuse.prototype = Function.prototype;
  Object.defineProperty(globalThis, "Function", { value: refuse, writable: false, configurable: false });
  delete globalThis.eval;
  let calls = [], logs = [], logged = 0, cut = false, outcome = null, next = 0;
  const waiting = new Map();
  const invoke = (index, args) => new Promise((resolve, reject) => {
    next += 1;
    calls.push([next, index, JSON.stringify(args === undefined ? null : args)]);
    waiting.set(next, { resolve, reject });
  });
  paths.forEach((path, index) => {
    let node = globalThis;
    for (const key of path.slice(0, -1)) {
      if (!Object.prototype.hasOwnProperty.call(node, key)) node[key] = {};
      node = node[key];
    }
    node[path[path.length - 1]] = (args) => invoke(index, args);
  });
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return value.name + ": " + value.message;
    try { const text = JSON.stringify(value); return text === undefined ? String(value) : text; }
    catch (e) { return String(value); }
  };
  const write = (...values) => {
    const room = logBudget - logged;
    if (room <= 0) { cut = true; return; }
    let line = values.map(show).join(" ");
    if (line.length + 1 > room) { line = line.slice(0, Math.max(room - 1, 0)); cut = true; }
    logs.push(line);
    logged += line.length + 1;
  };
  globalThis.console = { log: write, info: write, warn: write, error: write, debug: write };
  const hidden = (name, value) => Object.defineProperty(globalThis, name,
    { value, writable: false, configurable: false, enumerable: false });
  hidden("__wave_take", () => {
    const out = JSON.stringify({ calls, logs, cut, outcome });
    calls = []; logs = [];
    return out;
  });
  hidden("__wave_settle", (id, ok, text) => {
    const waiter = waiting.get(id);
    if (waiter === undefined) return;
    waiting.delete(id);
    if (ok) waiter.resolve(JSON.parse(text)); else waiter.reject(new Error(text));
  });
  hidden("__wave_start", (body) => {
    body().then((value) => {
      let text;
      try { text = JSON.stringify(value); }
      catch (e) { outcome = [false, "the returned value is not JSON: " + show(e)]; return; }
      outcome = [true, text === undefined ? "null" : text];
    }, (error) => { outcome = [false, "uncaught " + show(error)]; });
  });
})
"""


class _Session:
    """One QuickJS context and the thread it lives on; what the script asked of the host."""

    def __init__(self, paths: Sequence[tuple[str, ...]], limits: JsLimits) -> None:
        self.limits = limits
        self.calls: list[Call] = []
        self.outcome: tuple[bool, str] | None = None
        self.logs: list[str] = []
        self.cut = False
        self._logged = 0
        self._paths = [list(p) for p in paths]
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wave-js")
        self._context: Any = None

    # -- on the engine's thread --------------------------------------------------------------
    # A bare context (no std, os, modules or fetch), code generation off, memory and time capped.
    # req: EX2
    def _open(self, code: str, remaining: float) -> None:
        import _quickjs  # only when a script runs: a session that never runs one never loads it

        context = _quickjs.Context()
        context.set_memory_limit(self.limits.memory_bytes)
        self._context = context
        context.set_time_limit(max(remaining, 0.01))
        prelude = _PRELUDE % {"off": json.dumps(CODE_GENERATION_OFF)}
        context.eval(f"{prelude}({json.dumps(self._paths)}, {int(self.limits.log_chars)})")
        context.eval(f"__wave_start(async () => {{\n{code}\n}})")
        self._run_jobs()

    def _run_jobs(self) -> None:
        while self._context.execute_pending_job():
            pass

    def _take(self) -> None:
        taken = read_outbox(self._context.eval("__wave_take()"), len(self._paths))
        self.calls.extend(taken.calls)
        # The budget holds here too: the script's side of it is the script's to break.
        for line in taken.logs:
            room = self.limits.log_chars - self._logged
            if len(line) + 1 > room:
                self.logs.append(line[: max(room - 1, 0)])
                self._logged = self.limits.log_chars
                self.cut = True
                break
            self.logs.append(line)
            self._logged += len(line) + 1
        self.cut = self.cut or taken.cut
        if taken.outcome is not None:
            self.outcome = taken.outcome

    def _settle(self, call_id: int, ok: bool, text: str) -> None:
        flag = "true" if ok else "false"
        self._context.eval(f"__wave_settle({call_id}, {flag}, {json.dumps(text)})")
        self._run_jobs()

    # -- from the event loop -----------------------------------------------------------------
    async def step(self, work: Callable[[], None], remaining: float) -> None:
        """`work` on the engine's thread, its CPU time cut at `remaining` seconds."""

        def run() -> None:
            if self._context is not None:
                self._context.set_time_limit(max(remaining, 0.01))
            try:
                work()
            finally:
                if self._context is not None:
                    # Reading the outbox runs the script's code too when it replaced what the
                    # reading uses (`JSON.stringify`, a `toJSON` getter): cut it the same way,
                    # or a loop there outlives the run and the process never exits.
                    self._context.set_time_limit(max(remaining, 0.01))
                    self._take()

        await asyncio.get_running_loop().run_in_executor(self._thread, run)

    def log_text(self) -> str:
        text = "\n".join(self.logs)
        return text + LOG_CUT_NOTE.format(limit=self.limits.log_chars) if self.cut else text

    def close(self) -> None:
        # A step still running (a busy loop past the wall time) ends at its CPU limit; nobody
        # waits for it.
        self._thread.shutdown(wait=False, cancel_futures=True)


async def run_js(
    code: str, functions: Mapping[tuple[str, ...], HostFunction], limits: JsLimits
) -> JsRun:
    """Run `code` (an async function's body) with `functions` as awaitable host functions."""
    paths = list(functions)
    session = _Session(paths, limits)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limits.wall_s
    try:
        async with asyncio.timeout(limits.wall_s):
            error = await _drive(session, code, [functions[p] for p in paths], deadline)
    except TimeoutError:
        error = f"the script ran past its wall-time budget of {limits.wall_s:g} s"
    finally:
        session.close()
    if error is not None:
        return JsRun(None, error, session.log_text())
    assert session.outcome is not None
    ok, text = session.outcome
    return JsRun(text if ok else None, None if ok else text, session.log_text())


async def _drive(
    session: _Session, code: str, functions: Sequence[HostFunction], deadline: float
) -> str | None:
    """Steps until the script settles; the error that ended it early, or None."""
    loop = asyncio.get_running_loop()
    try:
        remaining = deadline - loop.time()
        await session.step(lambda: session._open(code, remaining), remaining)
        answered = 0
        while session.outcome is None:
            if answered == len(session.calls):
                return STUCK
            call = session.calls[answered]
            answered += 1
            ok, text = await _answer(functions[call.index], call.args)
            await session.step(
                functools.partial(session._settle, call.id, ok, text), deadline - loop.time()
            )
    except (JsAbort, OutboxTampered) as exc:
        return str(exc)
    # The engine's own error types (a syntax error, an interrupt, out of memory).
    except Exception as exc:
        if type(exc).__module__ != "_quickjs":
            raise
        return _engine_error(exc)
    return None


async def _answer(function: HostFunction, args: Any) -> tuple[bool, str]:
    """(resolved?, JSON of the value or the rejection's message)."""
    try:
        value = await function(args)
    except HostRefusal as exc:
        return False, str(exc)
    return True, json.dumps(value, ensure_ascii=False)


def _engine_error(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if "interrupted" in text:
        return "the script was stopped: it ran past its time budget"
    if "out of memory" in text:
        return "the script ran out of memory"
    return text
