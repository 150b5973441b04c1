"""The README's SDK example, run as written against a loopback model configured in models.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.app.sdk import CreateSessionOptions, create_agent_session
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply


async def test_readme_sdk_example(server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "local": {
                        "baseUrl": f"{server.url}/v1",
                        "api": "openai-completions",
                        "apiKey": "x",
                        "models": [{"id": "m"}],
                    }
                }
            }
        )
    )
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    server.queue(text_reply("two files: a.py and b.py"))

    seen: list[str] = []
    session = create_agent_session(CreateSessionOptions())
    session.subscribe(lambda event: seen.append(event.to_json_dict()["type"]))
    await session.prompt("List the Python files here and summarise them")

    assert session.last_assistant_text() == "two files: a.py and b.py"
    assert seen[0] == "agent_start" and seen[-2:] == ["agent_end", "agent_settled"]
    assert session.session_file is not None and Path(session.session_file).is_file()
