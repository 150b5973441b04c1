"""Cache warming in the terminal UI of a real `pi`: `/session` shows the warmer's real state, and
`showCacheMissNotices` decides whether refreshes and cache misses appear in the transcript."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support.http_server import ScriptedResponse, ScriptedServer, sse
from tests.support.openai_chunks import text_reply
from tests.tui_e2e.harness import TmuxPi

PRICES = {"input": 1, "output": 1, "cacheRead": 0.1, "cacheWrite": 100000}


def _started(make_pi: Any, server: ScriptedServer, model: dict[str, Any], *replies: Any, **settings: Any) -> TmuxPi:
    pi: TmuxPi = make_pi(settings)
    models = json.loads((pi.agent_dir / "models.json").read_text())
    models["providers"]["fake"]["models"] = [{"id": "fake-model", "contextWindow": 200000, "maxTokens": 4096, **model}]
    (pi.agent_dir / "models.json").write_text(json.dumps(models))
    server.queue(*replies)
    pi.start("--use-theme", "dark", "--provider", "fake", "--model", "fake-model")
    pi.wait_for("fake-model")
    return pi


def _cached_reply(text: str, prompt: int, cached: int) -> ScriptedResponse:
    """A Chat Completions reply whose usage reports `cached` of its `prompt` tokens read from the cache."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "fake-model", "choices": [choice]}

    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": 5,
        "total_tokens": prompt + 5,
        "prompt_tokens_details": {"cached_tokens": cached},
    }
    frames = [chunk({"role": "assistant", "content": ""}), chunk({"content": text}), chunk({}, "stop")]
    frames.append({**chunk({}), "choices": [], "usage": usage})
    return ScriptedResponse(chunks=sse(*frames, "[DONE]"))


def _resumed(pi: TmuxPi) -> None:
    """End this pi (its session file is complete: entries are appended as they happen) and continue
    the session in a new one."""
    pi.close()
    pi.start("--use-theme", "dark", "--provider", "fake", "--model", "fake-model", "-c")
    pi.wait_for("fake-model")


def _usage_entries(pi: TmuxPi) -> int:
    files = list((pi.agent_dir / "sessions").rglob("*.jsonl"))
    lines = [line for f in files for line in Path(f).read_text(encoding="utf-8").splitlines()]
    return sum(1 for line in lines if json.loads(line).get("type") == "usage")


def test_session_shows_the_planned_refresh_with_its_odds_and_prices(make_pi: Any, server: ScriptedServer) -> None:
    model = {"promptCache": {"short": 300}, "cost": PRICES}
    pi = _started(make_pi, server, model, text_reply("Hello there."))
    pi.chat("hi", "Hello there.")
    pi.type("/session")
    pi.keys("Enter")
    status = re.compile(
        r"Status: Decision in 4m \d+s \(15% continuation probability, expected savings \$1\.500 >= \$0\.050 -> warm\)"
    )
    text = pi.wait_for(
        lambda s: bool(status.search(s)) and "Cache miss penalty: $10.000" in s and "Refresh cost: $0.000" in s
    )
    assert "Mode: idle" in text


def test_without_the_setting_a_refresh_leaves_no_notice(make_pi: Any, server: ScriptedServer) -> None:
    model = {"promptCache": {"short": 11}, "cost": PRICES}
    pi = _started(make_pi, server, model, text_reply("Hello there."), text_reply("x", completion_tokens=1))
    pi.chat("hi", "Hello there.")
    pi.wait_for(lambda s: _usage_entries(pi) == 1, timeout=60)
    pi.type("/session")
    pi.keys("Enter")
    text = pi.wait_for(lambda s: "Session Info" in s and "Cache Warming" in s)
    assert "Cache warmed" not in text


def test_with_the_setting_refreshes_share_one_line_and_a_miss_is_named(make_pi: Any, server: ScriptedServer) -> None:
    model = {"promptCache": {"short": 11}, "cost": PRICES}
    refresh = text_reply("x", completion_tokens=1)  # 100 input + 1 output tokens: $0.000101
    pi = _started(make_pi, server, model, text_reply("Hello there."), refresh, showCacheMissNotices=True)
    server.queue(text_reply("x", completion_tokens=1))
    pi.chat("hi", "Hello there.")
    text = pi.wait_for(lambda s: "Cache warmed: $0.000202" in s, timeout=60)
    assert text.count("Cache warmed") == 1
    _resumed(pi)
    text = pi.wait_for(lambda s: "Hello there." in s and "Cache warmed: $0.000202" in s)
    assert text.count("Cache warmed") == 1
    assert text.index("Hello there.") < text.index("Cache warmed")


def test_with_the_setting_a_reply_that_lost_the_cache_shows_a_miss(make_pi: Any, server: ScriptedServer) -> None:
    model = {"cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}
    first, second = _cached_reply("First answer.", 60_000, 50_000), _cached_reply("Second answer.", 60_000, 0)
    pi = _started(make_pi, server, model, first, second, showCacheMissNotices=True)
    pi.chat("one", "First answer.")
    pi.chat("two", "Second answer.")
    text = pi.wait_for("Cache miss: 60k tokens re-billed (~$0.16)")
    assert text.count("Cache miss") == 1
    _resumed(pi)
    text = pi.wait_for(lambda s: "Second answer." in s and "Cache miss: 60k tokens re-billed (~$0.16)" in s)
    assert text.count("Cache miss") == 1
    assert text.index("First answer.") < text.index("Second answer.") < text.index("Cache miss")
