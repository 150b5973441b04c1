"""The redaction /bug applies before a report is written."""

from __future__ import annotations

from pi.app.modes.interactive.commands.bug_command import redact


def test_known_token_shapes_are_redacted() -> None:
    text = 'key sk-ant-abcdefghijklmnop, gh ghp_ABCDEFGHIJ123456, "apiKey": "plain-value", Bearer abc.def.ghijkl'
    out = redact(text, environ={}, home="/nonexistent-home")
    for secret in ("sk-ant-abcdefghijklmnop", "ghp_ABCDEFGHIJ123456", "plain-value", "abc.def.ghijkl"):
        assert secret not in out
    assert out.count("[redacted]") == 4
    assert '"apiKey": "[redacted]' in out and "Bearer [redacted]" in out


def test_secret_environment_values_and_home_are_hidden() -> None:
    env = {"MY_API_KEY": "value-from-env-123", "PATH": "/usr/bin", "SHORT_TOKEN": "abc"}
    out = redact("uses value-from-env-123 in /home/me/project on /usr/bin, abc", environ=env, home="/home/me")
    assert out == "uses [redacted] in ~/project on /usr/bin, abc"
