"""The codemode worker: one child process runs one script in QuickJS (`python -m pi.app.codemode.worker`).

It reads the start message, evaluates the prelude and the wrapped script, then alternates between
running the VM's pending jobs and waiting on its stdin for settled tool calls, until the script's
promise settles. A script that waits for a promise nothing can settle fails at once. QuickJS's own
time limit cannot be combined with host calls, so pi enforces the deadline: it kills this process
at the deadline, on abort, and when the script ends, so nothing here outlives its script.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from pi.app.codemode import protocol
from pi.app.codemode.prelude import PRELUDE, settle_call, wrap_script

MEMORY_LIMIT = 256 * 1024 * 1024
STACK_LIMIT = 4 * 1024 * 1024
UNSETTLEABLE = (
    "Error: The script awaits a promise that nothing can settle (no tool call is running), so it can never finish."
)


class Worker:
    """The VM of one script and the pipes to pi."""

    def __init__(self, start: dict[str, Any], reader: IO[bytes], writer: IO[bytes]) -> None:
        quickjs = _quickjs()
        self.start = start
        self.reader = reader
        self.writer = writer
        self.calls = 0
        self.pending = 0
        self.early: list[dict[str, Any]] = []
        self.context = quickjs.Context()
        self.context.set_memory_limit(MEMORY_LIMIT)
        self.context.set_max_stack_size(STACK_LIMIT)
        self.context.add_callable("__pi_host", self.host)

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(protocol.encode(message))
        self.writer.flush()

    def host(self, op: str, payload: str) -> str:
        """The prelude's single hook; never raises (an exception cannot cross into the VM)."""
        try:
            return json.dumps({"value": self._host(op, json.loads(payload))})
        except Exception as error:
            kind = getattr(error, "js_type", "Error")
            return json.dumps({"error": str(error) or type(error).__name__, "errorType": kind})

    def _host(self, op: str, payload: Any) -> Any:
        if op == "config":
            return {k: self.start.get(k) for k in ("tools", "namespaces", "store", "models")}
        if op == "output":
            self.send({"op": "output", "item": payload})
            return None
        if op in ("call", "model"):
            self.calls += 1
            self.pending += 1
            call_id = str(self.calls)
            message = {"op": "call", "id": call_id, "name": payload["name"], "args": payload["args"]}
            if op == "model":
                message["kind"] = "model"
            self.send(message)
            return call_id
        if op == "image":
            from pi.app.codemode.images import image_item

            return image_item(payload)
        if op == "search":
            from pi.app.codemode.catalog import search

            return search(self.start.get("tools") or [], payload)
        raise ValueError(f"unknown host operation {op}")

    def state(self) -> dict[str, Any]:
        result = self.context.eval("JSON.stringify(__pi_state)")
        state: dict[str, Any] = json.loads(str(result))
        return state

    def run_jobs(self) -> None:
        while self.context.execute_pending_job():
            pass

    def wait_for_settle(self) -> bool:
        """Block until pi settles a call and deliver it; False when pi closed the pipe."""
        line = self.reader.readline()
        if not line:
            return False
        message = protocol.decode(line)
        if message.get("op") == "settle":
            self.pending -= 1
            ok = bool(message.get("ok"))
            self.context.eval(settle_call(str(message["id"]), ok, message.get("value" if ok else "error")))
        return True

    def run(self) -> dict[str, Any]:
        """Run the script to its end and return the `done` message."""
        quickjs = _quickjs()
        try:
            self.context.eval(PRELUDE)
            self.context.eval(wrap_script(str(self.start.get("code") or "")))
            while True:
                self.run_jobs()
                state = self.state()
                if state.get("done"):
                    return _done(state)
                if self.pending <= 0:
                    return {"op": "done", "ok": False, "error": UNSETTLEABLE, "storeWrites": None}
                if not self.wait_for_settle():
                    return {
                        "op": "done",
                        "ok": False,
                        "error": "Script aborted: pi closed the pipe",
                        "storeWrites": None,
                    }
        except quickjs.JSException as error:
            return {"op": "done", "ok": False, "error": str(error).rstrip(), "storeWrites": None}


def _quickjs() -> Any:
    """The QuickJS binding (the `quickjs-ng` distribution), imported only in the worker process."""
    import importlib

    return importlib.import_module("quickjs")


def _done(state: dict[str, Any]) -> dict[str, Any]:
    ok = bool(state.get("ok"))
    return {"op": "done", "ok": ok, "error": None if ok else state.get("error"), "storeWrites": state.get("store")}


def main() -> int:
    """Entry point of the worker process: stdout carries only protocol lines."""
    reader = sys.stdin.buffer
    writer = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed by accident must not corrupt the protocol
    line = reader.readline()
    if not line:
        return 1
    start = protocol.decode(line)
    try:
        worker = Worker(start, reader, writer)
    except ImportError as error:
        writer.write(protocol.encode({"op": "done", "ok": False, "error": f"Script sandbox failed: {error}"}))
        writer.flush()
        return 1
    writer.write(protocol.encode(worker.run()))
    writer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
