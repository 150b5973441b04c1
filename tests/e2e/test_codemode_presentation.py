"""How codemode is declared to the model, and the `models` global, through real `pi` runs.

Checked on the requests the loopback model receives: `codemode.mode` (`on` / `only`),
`codemode.inlineBudget`, the grammar the tool declares for its `code`, and what scripts get from
`models.*` with the session's own model catalog.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi.app.codemode.options import SOURCE_GRAMMAR
from tests.e2e.test_codemode import codemode_call, result_text
from tests.e2e.test_codemode_checks import CODEMODE
from tests.support.cli_env import MODEL, Env, env
from tests.support.http_server import RecordedRequest
from tests.support.openai_chunks import text_reply

__all__ = ["env"]


def _tools(request: RecordedRequest) -> dict[str, str]:
    """name -> description of each tool the request declares."""
    return {t["function"]["name"]: t["function"]["description"] for t in request.json().get("tools", [])}


def _settings(env: Env, **codemode: Any) -> None:
    path = env.agent_dir / "settings.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "codemode": codemode}))


def _run(env: Env, code: str, *args: str) -> None:
    env.server.queue(codemode_call(code), text_reply("ok"))
    done = env.run("-p", *MODEL, *CODEMODE, *args, "go")
    assert done.returncode == 0, done.stderr


def _session_tools(agent_dir: Path) -> dict[str, dict[str, Any]]:
    """The tool definitions the session's stored system messages declare, by name."""
    (session,) = sorted((agent_dir / "sessions").rglob("*.jsonl"))
    declared: dict[str, dict[str, Any]] = {}
    for line in session.read_text().splitlines():
        message = json.loads(line).get("message") or {}
        if message.get("role") == "system":
            declared.update({t["name"]: t for t in message.get("toolsAdded") or []})
    return declared


def test_mode_on_keeps_declarations_and_says_how_scripts_call_them(env: Env) -> None:
    _run(env, 'return (await tools.read({path: "a.txt"})).trim()')
    first = env.server.requests[0]
    tools = _tools(first)
    assert {"read", "bash", "codemode"} <= set(tools)
    assert tools["read"].endswith(
        "\n\nCodemode: `tools.read(args)` resolves to a string, or `{ type, data, mimeType, note }` for an image file."
    )
    assert tools["bash"].endswith(
        "resolves to `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`."
    )
    assert "### `read`" not in tools["codemode"]
    assert "Codemode:" not in tools["codemode"]


def test_mode_only_hides_the_direct_declarations_and_lists_them_for_scripts(env: Env) -> None:
    (env.cwd / "a.txt").write_text("alpha\n")
    _settings(env, mode="only")
    _run(env, 'return (await tools.read({path: "a.txt"})).trim()')
    first, second = env.server.requests
    tools = _tools(first)
    assert set(tools) == {"codemode"}
    assert "### `read`" in tools["codemode"] and "### `bash`" in tools["codemode"]
    assert "declare function read(" in tools["codemode"]
    assert result_text(second).endswith("Output:\nalpha")
    assert set(_tools(second)) == {"codemode"}


def test_an_inline_budget_of_zero_lists_no_tool_sections(env: Env) -> None:
    _settings(env, mode="only", inlineBudget=0)
    _run(env, "return 1")
    described = _tools(env.server.requests[0])["codemode"]
    assert "### `read`" not in described and "### `bash`" not in described
    assert "tools.<name>(args)" in described  # the globals are still explained


def test_a_small_inline_budget_lists_the_cheaper_tool_only(env: Env) -> None:
    _settings(env, mode="only", inlineBudget=10000)
    _run(env, "return 1")
    listed = _tools(env.server.requests[0])["codemode"]
    read_cost, bash_cost = (len(listed.split(f"### `{n}`")[1].split("### `")[0]) for n in ("read", "bash"))
    env.server.requests.clear()
    _settings(env, mode="only", inlineBudget=(min(read_cost, bash_cost) + 40) // 4)
    _run(env, "return 1")
    described = _tools(env.server.requests[0])["codemode"]
    cheaper, dearer = ("read", "bash") if read_cost < bash_cost else ("bash", "read")
    assert f"### `{cheaper}`" in described and f"### `{dearer}`" not in described


def test_the_tool_declares_the_source_grammar_for_constrained_sampling(env: Env) -> None:
    _run(env, "return 1")
    codemode = _session_tools(env.agent_dir)["codemode"]
    assert codemode["constrainedSampling"] == {"type": "grammar", "variants": {"openai_lark": SOURCE_GRAMMAR}}
    assert "start:" in SOURCE_GRAMMAR and "@options:" in SOURCE_GRAMMAR


def test_scripts_list_the_sessions_models_and_cannot_run_chat_models(env: Env) -> None:
    code = (
        'const chat = await models.getModelsOfType("chat");\n'
        'const fake = chat.find(m => m.provider === "fake" && m.id === "fake-model");\n'
        'const same = await models.getModelOfType("chat", "fake", "fake-model");\n'
        'const none = await models.getModelOfType("classifier", "fake", "fake-model");\n'
        "let refused;\n"
        "try { await models.classify(same, {state: {}, questions: {q: {type: 'bool', instructions: 'x',\n"
        "  criteria: {true: 'a', false: 'b'}}}}) } catch (e) { refused = e.message }\n"
        "return {found: !!fake, headers: 'headers' in fake, same: same.id, none: none === undefined, refused}"
    )
    _run(env, code)
    first, second = env.server.requests
    assert "`models`:" in _tools(first)["codemode"]
    out = json.loads(result_text(second).split("Output:\n", 1)[1])
    assert out["found"] is True and out["headers"] is False
    assert out["same"] == "fake-model" and out["none"] is True
    assert out["refused"].startswith('models.classify() needs a classifier model; "fake/fake-model" is a chat model.')


def test_the_models_line_points_at_a_manual_page_that_exists(env: Env) -> None:
    _run(env, "return 1")
    described = _tools(env.server.requests[0])["codemode"]
    line = next(x for x in described.splitlines() if x.startswith("- `models`:"))
    path = Path(line.rsplit("see ", 1)[1].removesuffix(" first."))
    assert path.name == "codemode.md" and path.is_file()
    assert "generateImages" in path.read_text()
