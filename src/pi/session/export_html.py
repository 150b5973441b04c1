"""A session as one self-contained HTML page: readable anywhere, shareable as a single file.

Everything a session holds was written by a model, a tool or a user, so every piece of it is escaped
before it reaches the page; the little data the script needs (the tree's parent links) is embedded as
JSON with ``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no stored text can close the script
element. All entries are rendered once; the script only shows or hides them, which keeps every branch
of the tree readable, and the active branch readable even with scripts disabled.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi.agent.messages import AgentMessage
from pi.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi.session.context import entry_to_message
from pi.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
    UsageEntry,
)
from pi.session.manager import SessionManager, SessionTreeNode
from pi.session.markdown_html import render_markdown
from pi.session.messages import BashExecutionMessage, CustomMessage, SystemMessage, UnknownRoleMessage
from pi.session.usage_totals import UsageTotals

_IMAGE_MIME = re.compile(r"image/[a-z0-9.+-]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_PREVIEW_CHARS = 60


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element (and as HTML text): no ``<``, ``>``, ``&`` or line separators."""
    return (
        json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _text_of(content: str | list[Any]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.text for b in content if isinstance(b, TextContent))


def _blocks(content: str | list[Any]) -> str:
    if isinstance(content, str):
        return f'<div class="text">{_e(content)}</div>'
    parts = []
    for block in content:
        if isinstance(block, TextContent):
            parts.append(f'<div class="text">{_e(block.text)}</div>')
        elif isinstance(block, ImageContent):
            if _IMAGE_MIME.fullmatch(block.mime_type) and _BASE64.fullmatch(block.data):
                parts.append(
                    f'<img class="image" alt="image" src="data:{_e(block.mime_type)};base64,{_e(block.data)}">'
                )
            else:
                parts.append('<div class="note">[image]</div>')
    return "".join(parts)


def _system_html(message: SystemMessage) -> str:
    """The prompt sections and tool changes a system message declares, folded away by default."""
    parts = []
    content = message.content if isinstance(message.content, str) else _text_of(list(message.content))
    if content:
        parts.append(f"<pre>{_e(content)}</pre>")
    for name, text in (message.sections or {}).items():
        body = "(removed)" if text is None else text
        parts.append(f'<div class="meta">{_e(name)}</div><pre>{_e(body)}</pre>')
    for tool in message.tools_added or []:
        parts.append(f'<div class="tool-call"><span class="tool-name">{_e(tool.get("name", "?"))}</span>')
        parts.append(f"<pre>{_e(json.dumps(tool, ensure_ascii=False, indent=2))}</pre></div>")
    removed = ", ".join(str(t.get("name", "?")) for t in message.tools_removed or [])
    if removed:
        parts.append(f'<div class="meta">Tools removed: {_e(removed)}</div>')
    return f"<details><summary>System prompt and tools</summary>{''.join(parts)}</details>"


def _message_html(message: AgentMessage) -> tuple[str, str]:
    """(css class, inner html) of one message."""
    if isinstance(message, UserMessage):
        return "user", f'<div class="role">User</div>{_blocks(message.content)}'
    if isinstance(message, AssistantMessage):
        parts = [
            f'<div class="role">Assistant <span class="meta">{_e(message.provider)}/{_e(message.model)}</span></div>'
        ]
        for block in message.content:
            if isinstance(block, ThinkingContent):
                parts.append(
                    '<details class="thinking"><summary>Thinking</summary>'
                    f'<div class="text">{_e(block.thinking)}</div></details>'
                )
            elif isinstance(block, TextContent):
                parts.append(f'<div class="md">{render_markdown(block.text)}</div>')
            elif isinstance(block, ToolCall):
                args = json.dumps(block.arguments, ensure_ascii=False, indent=2)
                parts.append(
                    f'<div class="tool-call"><span class="tool-name">{_e(block.name)}</span><pre>{_e(args)}</pre></div>'
                )
        if message.error_message:
            parts.append(f'<div class="error">{_e(message.error_message)}</div>')
        return "assistant", "".join(parts)
    if isinstance(message, ToolResultMessage):
        text = _text_of(list(message.content))
        lines = text.count("\n") + 1 if text else 0
        state = " error" if message.is_error else ""
        title = f"Result of {_e(message.tool_name)}{' (error)' if message.is_error else ''} · {lines} lines"
        images = "".join(_blocks([b]) for b in message.content if isinstance(b, ImageContent))
        return f"tool-result{state}", f"<details><summary>{title}</summary><pre>{_e(text)}</pre>{images}</details>"
    if isinstance(message, BashExecutionMessage):
        status = "cancelled" if message.cancelled else f"exit {message.exit_code}"
        return "bash", (
            f'<div class="role">$ {_e(message.command)} <span class="meta">{_e(status)}</span></div>'
            f"<details><summary>Output</summary><pre>{_e(message.output)}</pre></details>"
        )
    if isinstance(message, CustomMessage):
        return "custom", f'<div class="role">{_e(message.custom_type)}</div>{_blocks(message.content)}'
    if isinstance(message, SystemMessage):
        return "system", _system_html(message)
    if isinstance(message, UnknownRoleMessage):
        return "note", f'<div class="note">Message of unknown role {_e(message.role)}</div>'
    return "note", f'<div class="note">{_e(getattr(message, "role", "message"))}</div>'


def _entry_html(entry: SessionEntry) -> tuple[str, str]:
    if isinstance(entry, MessageEntry):
        return _message_html(entry.message)
    if isinstance(entry, CompactionEntry):
        return "summary", (
            f'<div class="role">Compaction <span class="meta">{_e(entry.tokens_before)} tokens before</span></div>'
            f'<div class="md">{render_markdown(entry.summary)}</div>'
        )
    if isinstance(entry, BranchSummaryEntry):
        summary = render_markdown(entry.summary)
        return "summary", f'<div class="role">Branch summary</div><div class="md">{summary}</div>'
    if isinstance(entry, CustomMessageEntry):
        message = entry_to_message(entry)
        if message is not None:
            return _message_html(message)
        return "note", f'<div class="note">{_e(entry.custom_type)}</div>'
    if isinstance(entry, ModelChangeEntry):
        return "note", f'<div class="note">Model: {_e(entry.provider)}/{_e(entry.model_id)}</div>'
    if isinstance(entry, ThinkingLevelChangeEntry):
        return "note", f'<div class="note">Thinking level: {_e(entry.thinking_level)}</div>'
    if isinstance(entry, SessionInfoEntry):
        return "note", f'<div class="note">Session name: {_e(entry.name or "")}</div>'
    if isinstance(entry, LabelEntry):
        return "note", f'<div class="note">Label {_e(entry.label or "(cleared)")} on {_e(entry.target_id)}</div>'
    if isinstance(entry, CustomEntry):
        return "note", f'<div class="note">Extension data: {_e(entry.custom_type)}</div>'
    if isinstance(entry, UsageEntry):
        tokens = entry.usage.get("totalTokens", 0) if isinstance(entry.usage, dict) else 0
        note = f" ({entry.note})" if entry.note else ""
        return "note", (
            f'<div class="note">Usage outside the conversation: {_e(entry.kind)}, '
            f"{_e(entry.provider)}/{_e(entry.model)}, {_e(tokens)} tokens{_e(note)}</div>"
        )
    if isinstance(entry, ContextEditEntry):
        action = "left out of the context" if entry.replacement is None else "content replaced in the context"
        return "note", f'<div class="note">Entry {_e(entry.target_id)} {action}</div>'
    return "note", f'<div class="note">Entry of type {_e(entry.type)}</div>'


def _preview(entry: SessionEntry) -> str:
    """The one-line text of an entry in the tree."""
    text: str
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            text = "user: " + _text_of(message.content)
        elif isinstance(message, AssistantMessage):
            body = _text_of([b for b in message.content if isinstance(b, TextContent)])
            calls = ", ".join(b.name for b in message.content if isinstance(b, ToolCall))
            text = "assistant: " + (body or (f"[{calls}]" if calls else ""))
        elif isinstance(message, ToolResultMessage):
            text = f"result: {message.tool_name}"
        elif isinstance(message, BashExecutionMessage):
            text = f"$ {message.command}"
        else:
            text = str(getattr(message, "role", "message"))
    elif isinstance(entry, CompactionEntry):
        text = "[compaction]"
    elif isinstance(entry, BranchSummaryEntry):
        text = "[branch summary]"
    elif isinstance(entry, UnknownEntry):
        text = f"[{entry.type}]"
    else:
        text = f"[{entry.type.replace('_', ' ')}]"
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW_CHARS else text[: _PREVIEW_CHARS - 1] + "…"


def _walk(roots: list[SessionTreeNode]) -> Iterator[tuple[SessionTreeNode, int]]:
    """Depth-first, iteratively (a long session is a very deep tree); indent only where the tree forks."""
    stack = [(node, 0) for node in reversed(roots)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        child_depth = depth + 1 if len(node.children) > 1 else depth
        stack.extend((child, child_depth) for child in reversed(node.children))


def _stats(manager: SessionManager) -> dict[str, Any]:
    totals = UsageTotals()
    models: list[str] = []
    counts = {"user": 0, "assistant": 0, "toolResult": 0}
    for entry in manager.get_entries():
        name: str | None = None
        if isinstance(entry, ModelChangeEntry):
            name = f"{entry.provider}/{entry.model_id}"
        elif isinstance(entry, MessageEntry):
            message = entry.message
            role = getattr(message, "role", "")
            if role in counts:
                counts[role] += 1
            if isinstance(message, AssistantMessage):
                name = f"{message.provider}/{message.model}"
                usage = message.usage
                totals.input += usage.input
                totals.output += usage.output
                totals.cache_read += usage.cache_read
                totals.cache_write += usage.cache_write
                totals.cost += usage.cost.total
        else:
            totals.add_json(getattr(entry, "usage", None))  # work beside the conversation
        if name is not None and name not in models:
            models.append(name)
    return {"tokens": totals.token_dict(), "cost": totals.cost, "models": models, "counts": counts}


def render_session_html(manager: SessionManager) -> str:
    header = manager.get_header()
    leaf_id = manager.get_leaf_id()
    on_path = {e.id for e in manager.get_branch()}
    stats = _stats(manager)
    title = manager.get_session_name() or f"Session {header.id}"

    tree_items = []
    for node, depth in _walk(manager.get_tree()):
        entry = node.entry
        classes = ["node"]
        if entry.id in on_path:
            classes.append("on-path")
        if entry.id == leaf_id:
            classes.append("selected")
        label = f'<span class="label">[{_e(node.label)}]</span> ' if node.label else ""
        marker = " ← active" if entry.id == leaf_id else ""
        tree_items.append(
            f'<li style="padding-left:{min(depth, 30) * 12}px"><a href="#{_e(entry.id)}" class="{" ".join(classes)}" '
            f'data-id="{_e(entry.id)}">{label}{_e(_preview(entry))}{_e(marker)}</a></li>'
        )

    entry_blocks = []
    for entry in manager.get_entries():
        if not entry.id:
            continue
        css, inner = _entry_html(entry)
        hidden = "" if entry.id in on_path else " hidden"
        entry_blocks.append(
            f'<section class="entry {css}" id="e-{_e(entry.id)}" data-id="{_e(entry.id)}"{hidden}>{inner}</section>'
        )

    tokens = stats["tokens"]
    counts = stats["counts"]
    info_rows = [
        ("Session", header.id),
        ("Directory", header.cwd),
        ("Created", header.timestamp),
        ("Models", ", ".join(stats["models"]) or "none"),
        ("Messages", f"{counts['user']} user, {counts['assistant']} assistant, {counts['toolResult']} tool results"),
        (
            "Tokens",
            f"{tokens['input']} input, {tokens['output']} output, "
            f"{tokens['cacheRead']} cache read, {tokens['cacheWrite']} cache write",
        ),
        ("Cost", f"${stats['cost']:.4f}"),
    ]
    if header.parent_session:
        info_rows.append(("Forked from", header.parent_session))
    info = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in info_rows)
    parents = {e.id: e.parent_id for e in manager.get_entries() if e.id}
    data = script_json({"leafId": leaf_id, "parents": parents})
    return _PAGE.format(
        title=_e(title),
        info=info,
        tree="".join(tree_items),
        entries="".join(entry_blocks) or '<p class="note">This session has no entries yet.</p>',
        data=data,
        css=_CSS,
        js=_JS,
    )


def export_session_html(source: SessionManager | str | Path, output_path: str | Path | None = None) -> Path:
    """Write the page; by default to ``pi-session-<session file name>.html`` in the current directory.

    Raises FileNotFoundError for a path that does not exist (opening it would start an empty session).
    """
    if not isinstance(source, SessionManager) and not Path(source).is_file():
        raise FileNotFoundError(f"Session file not found: {source}")
    manager = source if isinstance(source, SessionManager) else SessionManager.open(source)
    if output_path is None:
        file = manager.get_session_file()
        stem = file.name.removesuffix(".jsonl") if file is not None else manager.get_session_id()
        output = Path.cwd() / f"pi-session-{stem}.html"
    else:
        output = Path(output_path)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render_session_html(manager), encoding="utf-8")
    return output


_CSS = """
:root { --bg:#16181d; --panel:#1e2128; --text:#d8dde6; --muted:#8a93a3; --accent:#7aa2f7; --user:#2a3142;
  --error:#f7768e; --ok:#9ece6a; --border:#2e3440; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--text); font:14px/1.5 ui-sans-serif, system-ui, sans-serif; }
.layout { display:flex; min-height:100vh; }
nav { width:320px; flex:none; background:var(--panel); border-right:1px solid var(--border); overflow:auto;
  max-height:100vh; position:sticky; top:0; padding:8px 0; }
nav h2 { font-size:13px; color:var(--muted); margin:4px 12px; text-transform:uppercase; }
.tree { list-style:none; margin:0; padding:0; font:12px/1.6 ui-monospace, monospace; }
.tree a { display:block; padding:0 12px; color:var(--muted); text-decoration:none; white-space:nowrap;
  overflow:hidden; text-overflow:ellipsis; }
.tree a.on-path { color:var(--text); }
.tree a.selected { background:var(--user); color:var(--accent); }
.label { color:var(--ok); }
main { flex:1; min-width:0; padding:16px 24px; max-width:980px; }
header h1 { font-size:18px; margin:0 0 8px; }
dl { display:grid; grid-template-columns:max-content 1fr; gap:2px 12px; margin:0 0 16px; color:var(--muted); }
dd { margin:0; color:var(--text); word-break:break-all; }
.entry { margin:10px 0; padding:8px 12px; border-radius:6px; border:1px solid var(--border); }
.entry.user { background:var(--user); }
.entry.note { border:none; padding:2px 12px; color:var(--muted); font-size:12px; }
.entry.summary { border-color:var(--accent); }
.role { font-weight:600; margin-bottom:4px; }
.meta { font-weight:400; color:var(--muted); font-size:12px; }
.text { white-space:pre-wrap; word-wrap:break-word; }
pre { white-space:pre-wrap; word-wrap:break-word; margin:4px 0; font:12px/1.45 ui-monospace, monospace; }
.thinking { color:var(--muted); font-style:italic; }
.tool-call { margin-top:6px; }
.tool-name { color:var(--accent); font-family:ui-monospace, monospace; }
.tool-result.error summary, .error { color:var(--error); }
summary { cursor:pointer; color:var(--muted); }
.image { max-width:100%; }
#search { display:block; width:calc(100% - 24px); margin:4px 12px 8px; padding:4px 6px; background:var(--bg);
  color:var(--text); border:1px solid var(--border); border-radius:4px; }
.md p, .md ul, .md ol, .md blockquote { margin:4px 0; }
.md pre { background:var(--bg); padding:6px 8px; border-radius:4px; }
.md code { font:12px ui-monospace, monospace; }
.md blockquote { border-left:3px solid var(--border); padding-left:8px; color:var(--muted); }
.md a { color:var(--accent); }
"""

_JS = """
(function () {
  var data = JSON.parse(document.getElementById("session-data").textContent);
  var parents = data.parents;
  function show(id) {
    var onPath = {};
    var current = id;
    while (current && !onPath[current]) { onPath[current] = true; current = parents[current]; }
    document.querySelectorAll("section.entry").forEach(function (el) { el.hidden = !onPath[el.dataset.id]; });
    document.querySelectorAll(".tree a").forEach(function (a) {
      a.classList.toggle("on-path", !!onPath[a.dataset.id]);
      a.classList.toggle("selected", a.dataset.id === id);
    });
    var target = document.getElementById("e-" + id);
    if (target) { target.scrollIntoView({ block: "nearest" }); }
  }
  document.querySelectorAll(".tree a").forEach(function (a) {
    a.addEventListener("click", function (event) {
      event.preventDefault();
      show(a.dataset.id);
      history.replaceState(null, "", "#" + a.dataset.id);
    });
  });
  var search = document.getElementById("search");
  var texts = {};
  document.querySelectorAll("section.entry").forEach(function (el) {
    texts[el.dataset.id] = el.textContent.toLowerCase();
  });
  search.addEventListener("input", function () {
    var query = search.value.trim().toLowerCase();
    document.querySelectorAll(".tree a").forEach(function (a) {
      var hit = !query || (texts[a.dataset.id] || "").indexOf(query) >= 0;
      a.parentElement.hidden = !hit;
    });
  });
  var wanted = decodeURIComponent(location.hash.slice(1));
  var start = Object.prototype.hasOwnProperty.call(parents, wanted) ? wanted : data.leafId;
  if (start) { show(start); }
})();
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<div class="layout">
<nav><h2>Tree</h2><input type="search" id="search" placeholder="Search messages" aria-label="Search messages">
<ul class="tree">{tree}</ul></nav>
<main>
<header><h1>{title}</h1><dl>{info}</dl></header>
{entries}
</main>
</div>
<script type="application/json" id="session-data">{data}</script>
<script>{js}</script>
</body>
</html>
"""

__all__ = ["export_session_html", "render_session_html", "script_json"]
