"""`@file` images on the command line go out sized by the model's `inputLimits.images.resize` profile.

The loopback provider records each request, so the pixel size and the size note that reached the
model are read back from what it received: one encoding, with the model's limits, not the defaults.
"""

from __future__ import annotations

import json

from tests.app.test_image_limits_session import limit_fake_model, png, sent_sizes
from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply


def _user_text(env: Env) -> str:
    body = env.server.requests[0].json()
    (user,) = [m for m in body["messages"] if m["role"] == "user"]
    return "\n".join(part["text"] for part in user["content"] if part.get("type") == "text")


def test_a_small_profile_shrinks_the_attachment_once_from_its_original_size(env: Env) -> None:
    limit_fake_model(env, {"maxWidth": 320, "maxHeight": 320})
    (env.cwd / "wide.png").write_bytes(png(2400, 1200))
    env.server.queue(text_reply("seen"))
    done = env.run("-p", *MODEL, "@wide.png", "what is this")
    assert done.returncode == 0, done.stderr
    assert sent_sizes(env.server.requests[0]) == [(320, 160)]
    text = _user_text(env)
    assert "[Image: original 2400x1200, displayed at 320x160." in text
    assert "2000x1000" not in text  # never first shrunk to the default limits
    assert text.startswith(f'<file name="{env.cwd / "wide.png"}">')


def test_a_profile_larger_than_the_defaults_keeps_the_detail(env: Env) -> None:
    limit_fake_model(env, {"maxWidth": 3000, "maxHeight": 3000})
    (env.cwd / "wide.png").write_bytes(png(2800, 1400))
    env.server.queue(text_reply("seen"))
    done = env.run("-p", *MODEL, "@wide.png", "what is this")
    assert done.returncode == 0, done.stderr
    assert sent_sizes(env.server.requests[0]) == [(2800, 1400)]


def test_auto_resize_off_sends_the_attachment_as_it_is(env: Env) -> None:
    limit_fake_model(env, {"maxWidth": 320, "maxHeight": 320})
    settings = json.loads((env.agent_dir / "settings.json").read_text())
    (env.agent_dir / "settings.json").write_text(json.dumps({**settings, "images": {"autoResize": False}}))
    (env.cwd / "wide.png").write_bytes(png(2400, 1200))
    env.server.queue(text_reply("seen"))
    done = env.run("-p", *MODEL, "@wide.png", "what is this")
    assert done.returncode == 0, done.stderr
    assert sent_sizes(env.server.requests[0]) == [(2400, 1200)]
