"""Usage reported by tools, in a real `pi --mode rpc` run: codemode's `models.*` usage and a patched one.

The script's classifier calls (served by the `studio` extension provider) report usage; the codemode
result carries their sum as `usage`, the toolResult message and its session entry keep it, and
`get_session_stats` adds it to the replies' own. A `tool_result` handler may replace a result's usage.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.app.extensions.cli_support import Rpc, write_extension
from tests.e2e.test_codemode import codemode_call
from tests.e2e.test_codemode_checks import CODEMODE
from tests.e2e.test_codemode_models import QUESTIONS, STUDIO
from tests.support.cli_env import Env, env
from tests.support.openai_chunks import text_reply, tool_reply

__all__ = ["env"]

# The STUDIO judge answers once four calls have arrived, so the script runs four.
FOUR_RUNS = (
    'const [judge] = await models.getAvailableOfType("classifier", "studio");\n'
    "const runs = [1, 2, 3, 4].map((i) => models.classify(judge, " + QUESTIONS + "));\n"
    "await Promise.all(runs);\nreturn 'classified'"
)

PATCHER = """
def patch(event, ctx):
    if event.tool_name == "bash":
        return {"usage": {"input": 7, "output": 5, "cacheRead": 2, "cacheWrite": 1, "totalTokens": 15,
                          "cost": {"total": 0.25}}}


def setup(pi):
    pi.on("tool_result", patch)
"""


def _stats_and_results(env: Env, *extensions: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any]]:
    """Prompt once over RPC; the session stats, the toolResult messages and the replies' usages."""
    args = [item for path in extensions for item in ("-e", path)]
    rpc = Rpc(env, *CODEMODE, *args)
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "go"})
        rpc.read_until(lambda o: o.get("type") == "agent_end")
        rpc.send({"id": "s", "type": "get_session_stats"})
        stats = rpc.response("s")["data"]
    finally:
        assert rpc.close() == 0
    ends = [o["message"] for o in rpc.seen if o.get("type") == "message_end"]
    results = [m for m in ends if m["role"] == "toolResult"]
    replies = [m["usage"] for m in ends if m["role"] == "assistant"]
    return stats, results, replies


def _reply_totals(replies: list[dict[str, Any]]) -> tuple[dict[str, int], float]:
    keys = ("input", "output", "cacheRead", "cacheWrite")
    return {k: sum(u[k] for u in replies) for k in keys}, sum(u["cost"]["total"] for u in replies)


def test_codemode_model_usage_is_on_the_result_and_in_the_session_totals(env: Env) -> None:
    studio = write_extension(env.agent_dir.parent, "studio.py", STUDIO)
    env.server.queue(codemode_call(FOUR_RUNS), text_reply("ok"))
    stats, results, replies = _stats_and_results(env, str(studio))
    (result,) = results
    usage = result["usage"]
    # Four runs of the judge, each {input 3, output 1, totalTokens 4, cost 0.5}.
    assert (usage["input"], usage["output"], usage["totalTokens"], usage["cost"]["total"]) == (12, 4, 16, 2.0)
    tokens, cost = _reply_totals(replies)
    assert stats["tokens"]["input"] == tokens["input"] + 12
    assert stats["tokens"]["output"] == tokens["output"] + 4
    assert stats["tokens"]["total"] == sum(tokens.values()) + 16
    assert stats["cost"] == cost + 2.0
    stored = [json.loads(line) for line in Path(stats["sessionFile"]).read_text(encoding="utf-8").splitlines()]
    entry = next(e for e in stored if e.get("type") == "message" and e["message"]["role"] == "toolResult")
    assert entry["message"]["usage"]["cost"]["total"] == 2.0


def test_a_script_without_model_calls_reports_no_usage(env: Env) -> None:
    env.server.queue(codemode_call("return 1 + 1"), text_reply("ok"))
    stats, results, replies = _stats_and_results(env)
    assert "usage" not in results[0]
    tokens, cost = _reply_totals(replies)
    assert stats["tokens"]["total"] == sum(tokens.values()) and stats["cost"] == cost


def test_a_tool_result_handler_sets_the_usage_that_is_counted(env: Env) -> None:
    patcher = write_extension(env.agent_dir.parent, "patcher.py", PATCHER)
    env.server.queue(tool_reply([("bash", {"command": "echo hi"})]), text_reply("ok"))
    stats, results, replies = _stats_and_results(env, str(patcher))
    assert results[0]["usage"]["cost"]["total"] == 0.25
    tokens, cost = _reply_totals(replies)
    assert stats["tokens"]["cacheRead"] == tokens["cacheRead"] + 2
    assert stats["tokens"]["total"] == sum(tokens.values()) + 15
    assert stats["cost"] == cost + 0.25


SUMMARIZER = """
def summarize(tool_call_id, params, signal, on_update, ctx=None):
    usage = {"input": 10, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 14, "cost": {"total": 0.125}}
    return {"content": [{"type": "text", "text": "short"}], "details": None, "usage": usage}


def setup(pi):
    pi.register_tool({"name": "summarize", "description": "Summarise with a model", "exposure": "codemode",
                      "parameters": {"type": "object", "properties": {}}, "execute": summarize})
"""


def test_usage_of_tools_a_script_calls_is_added_to_the_script_result(env: Env) -> None:
    summarizer = write_extension(env.agent_dir.parent, "summarizer.py", SUMMARIZER)
    env.server.queue(codemode_call("await tools.summarize({});\nreturn await tools.summarize({})"), text_reply("ok"))
    stats, results, replies = _stats_and_results(env, str(summarizer))
    (result,) = results
    assert result["toolName"] == "codemode" and "Script completed" in result["content"][0]["text"]
    assert (result["usage"]["input"], result["usage"]["output"], result["usage"]["cost"]["total"]) == (20, 8, 0.25)
    tokens, cost = _reply_totals(replies)
    assert stats["tokens"]["total"] == sum(tokens.values()) + 28
    assert stats["cost"] == cost + 0.25
