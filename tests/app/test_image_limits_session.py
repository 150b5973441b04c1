"""Images a session sends are sized by the current model's `inputLimits.images.resize` (delta-1.6 §1.6, §7.1, §8.1).

Attachments (`@file`, prompt images), `read` results and other tools' images are fitted as they
enter the session; the loopback server shows the sizes that actually went out.
"""

from __future__ import annotations

import base64
import io
import json
import random
import re
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import BaseModel

from pi.agent.tool import AgentTool, AgentToolResult
from pi.ai.types import ImageContent, TextContent, UserMessage
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry
from pi.app.resources import Resources
from pi.app.sdk import CreateSessionOptions, create_agent_session
from pi.app.settings import SettingsManager
from pi.session.manager import SessionManager
from tests.support.cli_env import MODEL, Env
from tests.support.http_server import RecordedRequest, ScriptedResponse, ScriptedServer, named_sse
from tests.support.openai_chunks import text_reply, tool_reply

_DATA_URL = re.compile(r"data:(image/[a-z]+);base64,([A-Za-z0-9+/=]+)")


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (40, 90, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def _anthropic_images(node: Any) -> list[str]:
    if isinstance(node, dict):
        source = node.get("source")
        if node.get("type") == "image" and isinstance(source, dict) and source.get("type") == "base64":
            return [str(source["data"])]
        return [data for value in node.values() for data in _anthropic_images(value)]
    if isinstance(node, list):
        return [data for value in node for data in _anthropic_images(value)]
    return []


def sent_sizes(request: RecordedRequest) -> list[tuple[int, int]]:
    """Pixel sizes of every image in a request body (chat-completions data URLs or Anthropic sources)."""
    body = request.json()
    found = [data for _, data in _DATA_URL.findall(json.dumps(body))] + _anthropic_images(body)
    sizes = []
    for data in found:
        with Image.open(io.BytesIO(base64.b64decode(data))) as image:
            sizes.append(image.size)
    return sizes


def limit_fake_model(env: Env, resize: dict[str, Any] | None) -> None:
    """Give the loopback model image input and, when given, an `inputLimits.images.resize` profile."""
    models = json.loads((env.agent_dir / "models.json").read_text())
    entry = models["providers"]["fake"]["models"][0]
    entry["input"] = ["text", "image"]
    if resize is not None:
        entry["inputLimits"] = {"images": {"resize": resize}}
    (env.agent_dir / "models.json").write_text(json.dumps(models))


def test_a_model_override_of_a_built_in_model_sets_its_profile_over_anthropic_messages(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    override = {"inputLimits": {"images": {"resize": {"maxWidth": 256}}}}
    models["providers"]["anthropic"] = {
        "baseUrl": env.server.url,
        "apiKey": "ant-key",
        "modelOverrides": {"claude-sonnet-5": override},
    }
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    (env.cwd / "wide.png").write_bytes(png(1024, 512))
    env.server.queue(_anthropic_text("seen"))
    done = env.run("-p", "--provider", "anthropic", "--model", "claude-sonnet-5", "@wide.png", "what is this")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "seen\n"
    assert env.server.requests[0].path.endswith("/v1/messages")
    assert sent_sizes(env.server.requests[0]) == [(256, 128)]


def test_a_request_over_max_request_bytes_leaves_out_the_oldest_image(env: Env) -> None:
    models = json.loads((env.agent_dir / "models.json").read_text())
    entry = models["providers"]["fake"]["models"][0]
    entry |= {"input": ["text", "image"], "inputLimits": {"maxRequestBytes": 20_000}}
    (env.agent_dir / "models.json").write_text(json.dumps(models))
    rng = random.Random(3)
    for name in ("one.png", "two.png"):
        noisy = Image.frombytes("RGB", (60, 60), bytes(rng.randrange(256) for _ in range(60 * 60 * 3)))
        buffer = io.BytesIO()
        noisy.save(buffer, format="PNG")
        assert 12_000 < len(base64.b64encode(buffer.getvalue())) < 18_000
        (env.cwd / name).write_bytes(buffer.getvalue())
    env.server.queue(text_reply("seen"))
    done = env.run("-p", *MODEL, "@one.png", "@two.png", "compare")
    assert done.returncode == 0, done.stderr
    body = json.dumps(env.server.requests[0].json())
    sent = [data for _, data in _DATA_URL.findall(body)]
    assert sent == [base64.b64encode((env.cwd / "two.png").read_bytes()).decode()]
    assert "only the latest images are sent" in body


def test_a_read_image_is_sized_by_the_models_profile_and_encoded_once(env: Env) -> None:
    limit_fake_model(env, {"maxWidth": 400, "maxHeight": 400})
    (env.cwd / "wide.png").write_bytes(png(2400, 1200))  # beyond the defaults too
    env.server.queue(tool_reply([("read", {"path": "wide.png"})]), text_reply("done"))
    done = env.run("-p", *MODEL, "look at wide.png")
    assert done.returncode == 0, done.stderr
    second = env.server.requests[1]
    assert sent_sizes(second) == [(400, 200)]
    body = json.dumps(second.json())
    assert "original 2400x1200, displayed at 400x200" in body
    assert "displayed at 2000x1000" not in body and "original 2000x1000" not in body  # one encoding, not two


def test_without_a_profile_the_defaults_apply(env: Env) -> None:
    limit_fake_model(env, None)
    (env.cwd / "wide.png").write_bytes(png(1600, 800))
    env.server.queue(tool_reply([("read", {"path": "wide.png"})]), text_reply("done"))
    done = env.run("-p", *MODEL, "look at wide.png")
    assert done.returncode == 0, done.stderr
    assert sent_sizes(env.server.requests[1]) == [(1600, 800)]


def _anthropic_text(text: str) -> ScriptedResponse:
    message: dict[str, Any] = {"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-5"}
    message |= {"content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}
    block = {"type": "text", "text": ""}
    frames: list[tuple[str, Any]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return ScriptedResponse(chunks=named_sse(*frames))


class SnapshotParams(BaseModel):
    pass


def snapshot_tool() -> AgentTool[SnapshotParams]:
    """A tool returning one big picture, as an extension's or an MCP server's tool might."""

    async def execute(tool_call_id: str, params: SnapshotParams, signal: Any, on_update: Any) -> AgentToolResult:
        data = base64.b64encode(png(900, 900)).decode()
        return AgentToolResult(content=[TextContent(text="snapshot"), ImageContent(data=data, mime_type="image/png")])

    return AgentTool(
        name="snapshot", label="snapshot", description="Take a snapshot.", parameters=SnapshotParams, execute=execute
    )


def _session(tmp_path: Path, server: ScriptedServer, tools: list[AgentTool[Any]]) -> Any:
    providers = {
        "small": {
            "baseUrl": f"{server.url}/v1",
            "api": "openai-completions",
            "apiKey": "k",
            "models": [
                {
                    "id": "small-eyes",
                    "input": ["text", "image"],
                    "inputLimits": {"images": {"resize": {"maxWidth": 300, "maxHeight": 300}}},
                },
                {"id": "big-eyes", "input": ["text", "image"]},
            ],
        }
    }
    (tmp_path / "models.json").write_text(json.dumps({"providers": providers}))
    registry = ModelRegistry(AuthStorage.in_memory(), tmp_path / "models.json")
    return create_agent_session(
        CreateSessionOptions(
            cwd=tmp_path,
            agent_dir=tmp_path / "agent",
            model=registry.find("small", "small-eyes"),
            tools=tools,
            settings=SettingsManager.in_memory(),
            model_registry=registry,
            resources=Resources(),
            session_manager=SessionManager.in_memory(str(tmp_path)),
        )
    )


async def test_another_tools_image_is_fitted_with_a_note_for_the_model(tmp_path: Path, server: ScriptedServer) -> None:
    session = _session(tmp_path, server, [snapshot_tool()])
    server.queue(tool_reply([("snapshot", {})]), text_reply("done"))
    await session.prompt("take one")
    assert sent_sizes(server.requests[1]) == [(300, 300)]
    assert "original 900x900, displayed at 300x300" in json.dumps(server.requests[1].json())


async def test_prompt_images_follow_the_model_chosen_at_the_time(tmp_path: Path, server: ScriptedServer) -> None:
    session = _session(tmp_path, server, [])
    picture = ImageContent(data=base64.b64encode(png(1200, 600)).decode(), mime_type="image/png")
    server.queue(text_reply("one"), text_reply("two"))
    await session.prompt("small", images=[picture])
    assert sent_sizes(server.requests[0]) == [(300, 150)]
    big = session.model_registry.find("small", "big-eyes")
    assert big is not None
    session.set_model(big)
    await session.prompt("big", images=[picture])
    assert sent_sizes(server.requests[1])[-1] == (1200, 600)
    first = next(m for m in session.messages if isinstance(m, UserMessage))
    stored = first.content[1]
    assert isinstance(stored, ImageContent) and stored.data != picture.data  # kept as sent: encoded once


async def test_auto_resize_off_sends_images_as_they_are(tmp_path: Path, server: ScriptedServer) -> None:
    session = _session(tmp_path, server, [])
    session.settings.set("images", {"autoResize": False})
    picture = ImageContent(data=base64.b64encode(png(1200, 600)).decode(), mime_type="image/png")
    server.queue(text_reply("one"))
    await session.prompt("as is", images=[picture])
    assert sent_sizes(server.requests[0]) == [(1200, 600)]
