"""The no-key error of a real `pi -p` run names the provider's login, its environment variable, or both."""

from __future__ import annotations

import pytest

from tests.support.cli_env import Env


def _missing(env: Env, *args: str) -> str:
    done = env.run("-p", *args, "hi", extra_env={"PI_RADIUS_GATEWAY": env.server.url})
    assert done.returncode == 1
    assert env.server.requests == []
    return done.stderr


def test_radius_says_to_sign_in_or_set_its_key(env: Env) -> None:
    stderr = _missing(env, "--provider", "radius", "--model", "balanced")
    assert "No API key found for radius (model balanced).\n\n" in stderr
    assert (
        "To fix it, run /login radius (or `pi auth login radius` in a shell), set RADIUS_API_KEY, or pass --api-key."
    ) in stderr


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (
            ("--provider", "openai-codex", "--model", "gpt-5.6-sol"),
            "To fix it, run /login openai-codex (or `pi auth login openai-codex` in a shell), or pass --api-key.",
        ),
        (
            ("--provider", "groq", "--model", "llama-3.3-70b-versatile"),
            "To fix it, set GROQ_API_KEY, or pass --api-key.",
        ),
    ],
)
def test_a_login_only_provider_and_a_key_only_provider(env: Env, args: tuple[str, ...], hint: str) -> None:
    assert hint in _missing(env, *args)
