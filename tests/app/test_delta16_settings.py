"""Settings of delta-1.6 §5.4.1 and §6.3/§6.5: retry keys and the maxDelayMs migration; the global-only httpProxy."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.app.settings import SettingsManager
from tests.support.cli_env import MODEL, PI, Env
from tests.support.http_server import ScriptedServer
from tests.support.openai_chunks import text_reply


def _manager(tmp_path: Path, global_settings: dict[str, object]) -> tuple[SettingsManager, Path]:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps(global_settings))
    cwd = tmp_path / "project"
    cwd.mkdir()
    return SettingsManager.create(cwd, agent), agent / "settings.json"


def test_retry_defaults_of_pi_1_6(tmp_path: Path) -> None:
    retry = _manager(tmp_path, {})[0].retry
    assert (retry.enabled, retry.max_retries, retry.base_delay_ms, retry.max_agent_delay_ms) == (True, 3, 2000, 60000)
    assert (retry.provider.max_retry_delay_ms, retry.provider.max_retries, retry.provider.timeout_ms) == (
        60000,
        0,
        None,
    )
    assert retry.max_delay_ms == 60000


def test_max_delay_ms_moves_to_the_provider_setting_and_leaves_the_file_on_the_next_write(tmp_path: Path) -> None:
    settings, path = _manager(tmp_path, {"retry": {"maxDelayMs": 5000, "maxRetries": 2}})
    assert settings.retry.provider.max_retry_delay_ms == 5000
    assert settings.retry.max_delay_ms == 5000 and settings.retry.max_retries == 2
    settings.set("theme", "dark")
    written = json.loads(path.read_text())
    assert written["retry"] == {"maxRetries": 2, "provider": {"maxRetryDelayMs": 5000}}


def test_an_explicit_provider_value_wins_over_the_old_key(tmp_path: Path) -> None:
    settings, _ = _manager(tmp_path, {"retry": {"maxDelayMs": 5000, "provider": {"maxRetryDelayMs": 7000}}})
    assert settings.retry.provider.max_retry_delay_ms == 7000
    assert "maxDelayMs" not in settings.get("retry")


def test_max_agent_delay_caps_the_backoff_not_the_server_delay(tmp_path: Path) -> None:
    settings, _ = _manager(tmp_path, {"retry": {"maxAgentDelayMs": 3000, "provider": {"maxRetryDelayMs": 0}}})
    assert settings.retry.max_agent_delay_ms == 3000
    assert settings.retry.max_delay_ms == 0  # no cap on what a server may ask for


# --- httpProxy: global only, exported for the HTTP client ----------------------------------------------


@pytest.fixture
def proxy() -> Iterator[ScriptedServer]:
    """A second loopback server standing in for an HTTP proxy (it sees the absolute request URL)."""
    srv = ScriptedServer().start()
    try:
        yield srv
    finally:
        srv.stop()


def _clean_env(env: Env) -> dict[str, str]:
    return {
        k: v for k, v in env.vars.items() if k.upper() not in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
    }


def _prompt(env: Env) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PI, "-p", *MODEL, "hi"],
        cwd=env.cwd,
        env=_clean_env(env),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_global_http_proxy_carries_the_model_requests(env: Env, proxy: ScriptedServer) -> None:
    settings = json.loads((env.agent_dir / "settings.json").read_text())
    (env.agent_dir / "settings.json").write_text(json.dumps({**settings, "httpProxy": f" {proxy.url} "}))
    proxy.queue(text_reply("through the proxy"))
    done = _prompt(env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "through the proxy\n"
    assert env.server.requests == []
    assert proxy.requests[0].path == f"{env.server.url}/v1/chat/completions"


def test_a_projects_http_proxy_is_ignored(env: Env, proxy: ScriptedServer) -> None:
    (env.cwd / ".pi").mkdir()
    (env.cwd / ".pi" / "settings.json").write_text(json.dumps({"httpProxy": proxy.url}))
    (env.agent_dir / "trust.json").write_text(json.dumps({os.path.realpath(env.cwd): True}))
    env.server.queue(text_reply("direct"))
    done = _prompt(env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "direct\n"
    assert proxy.requests == []
