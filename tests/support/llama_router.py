"""A loopback llama.cpp router server: the model-management API and streamed chat replies.

It keeps a model list with states as the router does (``GET /models``), loads and unloads models
(``POST /models/load`` / ``/models/unload``: a load reports ``loading`` once, then ``loaded``),
accepts Hugging Face downloads (``POST /models``: ``downloading`` with byte progress once, then
listed ``unloaded``), answers ``GET /props``, the classification endpoints (``/tokenize``, ``/apply-template``,
``/completion`` with label log-probabilities) and streams Chat Completions replies naming the model
(``POST /v1/chat/completions``). Every request is recorded. Runs in a thread, so `pi` subprocesses
can use it too.
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.loopback_http import LoopbackHTTP, QuietHandler
from tests.support.openai_chunks import text_reply


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class LlamaRouter:
    models: list[dict[str, Any]] = field(default_factory=list)
    autoload: bool = False
    templates: dict[str, str] = field(default_factory=dict)
    fail_loading: set[str] = field(default_factory=set)
    label_logprobs: dict[str, float] = field(default_factory=dict)
    """Next-token log-probabilities of answer labels at ``/completion`` (classification)."""
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        router = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                headers = {k.lower(): v for k, v in self.headers.items()}
                with router._lock:
                    router.requests.append(Request(self.command, self.path, headers, body))
                    status, reply = router.answer(self.command, self.path, body)
                if isinstance(reply, list):  # SSE frames
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("content-length", str(sum(len(c) for c in reply)))
                    self.end_headers()
                    for chunk in reply:
                        self.wfile.write(chunk)
                    return
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = _serve
            do_POST = _serve

        self.server = LoopbackHTTP(Handler)

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> LlamaRouter:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def paths(self, method: str | None = None) -> list[str]:
        with self._lock:
            return [r.path for r in self.requests if method is None or r.method == method]

    # -- the router's behaviour (called under the lock) -------------------------------------------

    def _model(self, model_id: Any) -> dict[str, Any] | None:
        return next((m for m in self.models if m["id"] == model_id), None)

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        parts = urlsplit(path)
        route = (method, parts.path)
        if route == ("GET", "/models"):
            return 200, {"object": "list", "data": self._list()}
        if route == ("GET", "/props"):
            model = parse_qs(parts.query).get("model", [None])[0]
            if model is None:
                return 200, {"models_autoload": self.autoload, "role": "router"}
            return 200, {"chat_template": self.templates.get(model, "{{ messages }}")}
        if route in (("POST", "/models/load"), ("POST", "/models/unload")):
            entry = self._model((body or {}).get("model"))
            if entry is None:
                return 400, {"error": {"code": 400, "message": "model not found", "type": "invalid_request_error"}}
            loading = parts.path.endswith("load") and not parts.path.endswith("unload")
            entry["status"] = {"value": "loading" if loading else "unloaded"}
            return 200, {"success": True}
        if route == ("POST", "/models"):
            model_id = (body or {}).get("model")
            progress = {"model.gguf": {"done": 512 * 1024, "total": 1024 * 1024}}
            self.models.append(
                {"id": model_id, "source": "cache", "status": {"value": "downloading", "progress": progress}}
            )
            return 200, {"success": True}
        if route == ("POST", "/tokenize"):  # a newline is one token, and so is each run of other text
            return 200, {"tokens": [token_id(t) for t in re.findall(r"\n|[^\n]+", (body or {}).get("content", ""))]}
        if route == ("POST", "/apply-template"):
            return 200, {"prompt": f"<chat>{json.dumps((body or {}).get('messages'))}</chat>"}
        if route == ("POST", "/completion"):
            top = [{"id": token_id(label), "logprob": value} for label, value in self.label_logprobs.items()]
            return 200, {"completion_probabilities": [{"id": 0, "logprob": 0, "top_logprobs": top}]}
        if route == ("POST", "/v1/chat/completions"):
            return 200, text_reply(f"router reply from {(body or {}).get('model')}").chunks
        return 404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}}

    def _list(self) -> list[dict[str, Any]]:
        """The list as it is now; pending loads and downloads move one step on each read."""
        snapshot: list[dict[str, Any]] = json.loads(json.dumps(self.models))
        for model in self.models:
            value = model["status"]["value"]
            if value == "loading":
                failed = model["id"] in self.fail_loading
                model["status"] = (
                    {"value": "unloaded", "failed": True, "exit_code": 1} if failed else {"value": "loaded"}
                )
            elif value == "downloading":
                model["status"] = {"value": "unloaded"}
        return snapshot


def token_id(text: str) -> int:
    """The fake tokenizer's id of one token."""
    return 10 if text == "\n" else 1000 + zlib.crc32(text.encode()) % 1_000_000


def router_model(model_id: str, status: str = "unloaded", **extra: Any) -> dict[str, Any]:
    """One entry of the router's list, as ``GET /models`` shows it."""
    return {
        "id": model_id,
        "object": "model",
        "owned_by": "llamacpp",
        "source": "models_dir",
        "status": {"value": status},
        **extra,
    }


__all__ = ["LlamaRouter", "Request", "router_model"]
