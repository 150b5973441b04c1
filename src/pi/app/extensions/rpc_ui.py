"""`ctx.ui` in RPC mode: dialogs and notices as `extension_ui_request` lines, answers matched by id.

Wire shapes are pi's exactly (extension spec §1.9): keys whose value is absent are left out (no
`timeout` without one, no `notifyType` when the extension gave no type, no `statusText` /
`widgetLines` to clear), and the method names keep pi's mixed spelling (`setStatus`, but
`set_editor_text`). pi enforces dialog timeouts itself: the default answer is returned and a late
reply is ignored. An already-aborted signal answers the default without sending anything.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pi.app.extensions.ui import HeadlessUI, NotifyType, WidgetPlacement

if TYPE_CHECKING:
    from pi.ai.abort import AbortSignal

Writer = Callable[[dict[str, Any]], None]
"""Writes one JSON object as a line to the client (stdout)."""
PromptListener = Callable[[str, str, str | None], None]
"""Told `("start" | "end", kind, title)` around dialogs (for `ui_prompt_start` / `ui_prompt_end`)."""
THEME_SWITCHING_UNSUPPORTED = "Theme switching not supported in RPC mode"


class RpcUI(HeadlessUI):
    """Sends requests through `writer`; the RPC reader passes every `extension_ui_response` frame
    to `handle_response`."""

    def __init__(self, writer: Writer, theme: Any = None, on_prompt: PromptListener | None = None) -> None:
        super().__init__(theme)
        self._write = writer
        self._pending: dict[str, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._on_prompt = on_prompt
        self._prompt_depth = 0

    @property
    def pending_ids(self) -> list[str]:
        return list(self._pending)

    def _request(self, method: str, request_id: str | None = None, **fields: Any) -> str:
        request_id = request_id or str(uuid.uuid4())
        frame: dict[str, Any] = {"type": "extension_ui_request", "id": request_id, "method": method}
        frame.update({key: value for key, value in fields.items() if value is not None})
        self._write(frame)
        return request_id

    def handle_response(self, frame: dict[str, Any]) -> bool:
        """Resolve the dialog `frame["id"]` answers; False (and nothing happens) for unknown ids."""
        entry = self._pending.pop(str(frame.get("id")), None)
        if entry is None:
            return False
        _, future = entry
        if not future.done():
            future.set_result(frame)
        return True

    def _prompt(self, phase: str, kind: str, title: str | None) -> None:
        self._prompt_depth += 1 if phase == "start" else -1
        coalesced = (phase == "start" and self._prompt_depth == 1) or (phase == "end" and self._prompt_depth == 0)
        if self._on_prompt is not None and coalesced:
            self._on_prompt(phase, kind, title)

    async def _dialog(
        self, method: str, signal: AbortSignal | None, timeout_ms: int | None, title: str, **fields: Any
    ) -> dict[str, Any] | None:
        """Send a dialog request and wait for its answer; None on timeout, abort or cancellation."""
        if signal is not None and signal.aborted:
            return None
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        request_id = str(uuid.uuid4())
        self._pending[request_id] = (method, future)  # before writing: a reply may arrive at once
        self._request(method, request_id, title=title, **fields, timeout=timeout_ms)
        self._prompt("start", method, title)
        waiters: list[asyncio.Future[Any]] = [future]
        if signal is not None:
            waiters.append(asyncio.ensure_future(signal.wait()))
        try:
            timeout = timeout_ms / 1000 if timeout_ms is not None and timeout_ms > 0 else None
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters[1:]:
                waiter.cancel()
            self._pending.pop(request_id, None)
            self._prompt("end", method, title)
        if not future.done():
            future.cancel()
            return None
        response = future.result()
        return None if response.get("cancelled") is True else response

    async def select(
        self, title: str, options: Sequence[str], *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> str | None:
        response = await self._dialog("select", signal, timeout_ms, title, options=list(options))
        value = response.get("value") if response else None
        return value if isinstance(value, str) else None

    async def confirm(
        self, title: str, message: str, *, signal: AbortSignal | None = None, timeout_ms: int | None = None
    ) -> bool:
        response = await self._dialog("confirm", signal, timeout_ms, title, message=message)
        return bool(response and response.get("confirmed") is True)

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        signal: AbortSignal | None = None,
        timeout_ms: int | None = None,
    ) -> str | None:
        response = await self._dialog("input", signal, timeout_ms, title, placeholder=placeholder)
        value = response.get("value") if response else None
        return value if isinstance(value, str) else None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        response = await self._dialog("editor", None, None, title, prefill=prefill)
        value = response.get("value") if response else None
        return value if isinstance(value, str) else None

    def notify(self, message: str, type: NotifyType | None = None) -> None:
        self._request("notify", message=message, notifyType=type)

    def set_status(self, key: str, text: str | None) -> None:
        self._request("setStatus", statusKey=key, statusText=text)

    def set_widget(self, key: str, content: Any, *, placement: WidgetPlacement | None = None) -> None:
        """String lists only: a component factory cannot cross the wire and is ignored."""
        if content is not None and not isinstance(content, list | tuple):
            return
        lines = [str(line) for line in content] if content is not None else None
        self._request("setWidget", widgetKey=key, widgetLines=lines, widgetPlacement=placement)

    def set_title(self, title: str) -> None:
        self._request("setTitle", title=title)

    def set_editor_text(self, text: str) -> None:
        self._request("set_editor_text", text=text)

    def paste_to_editor(self, text: str) -> None:
        self.set_editor_text(text)

    def set_theme(self, theme: Any) -> dict[str, Any]:
        return {"success": False, "error": THEME_SWITCHING_UNSUPPORTED}


__all__ = ["THEME_SWITCHING_UNSUPPORTED", "PromptListener", "RpcUI", "Writer"]
