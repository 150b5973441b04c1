"""Command-line mistakes through the real `pi`: `Error:` lines on stderr, exit 1, and no request sent."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Installed
from tests.support.openai_chunks import text_reply

MODEL = ["--provider", "fake-openai", "--model", "fake-model"]


@pytest.mark.parametrize(
    ("argv", "stderr"),
    [
        (["--mode"], "Error: --mode requires text, json, or rpc\n"),
        (["--mode", "yaml", "hi"], 'Error: Invalid mode "yaml". Valid values: text, json, rpc\n'),
        (["--a", "--b", "hi"], "Error: Unknown options: --a, --b\n"),
        (["-x", "hi"], "Error: Unknown option: -x\n"),
        (
            ["--provider", "fake-openai", "hi"],
            "Error: --provider requires --model (for example: --provider fake-openai --model <pattern>)\n",
        ),
        (["-t", "read,+grep", "hi"], "Error: --tools: tool names cannot be mixed with +name or -name entries\n"),
        (["--name", " ", "hi"], "Error: --name requires a non-empty value\n"),
    ],
)
def test_usage_errors(installed: Installed, argv: list[str], stderr: str) -> None:
    done = installed.run("-p", *argv)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", stderr)
    assert installed.server.requests == []


def test_a_mistyped_option_gets_a_suggestion(installed: Installed) -> None:
    done = installed.run("-p", *MODEL, "--thinkin", "high", "hi")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "Error: Unknown option: --thinkin",
        "Did you mean --thinking? Run 'pi --help' to see every option.",
    ]


def test_an_invalid_thinking_level_only_warns(installed: Installed) -> None:
    installed.server.queue(text_reply("still answered"))
    done = installed.run("-p", *MODEL, "--thinking", "extreme", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "still answered\n"
    assert (
        'Warning: Invalid thinking level "extreme". Valid values: off, minimal, low, medium, high, xhigh, max'
        in done.stderr
    )


def test_front_matter_after_p_is_the_prompt(installed: Installed) -> None:
    installed.server.queue(text_reply("ok"))
    done = installed.run(*MODEL, "-p", "---\ntitle: notes\n---\nsummarise")
    assert done.returncode == 0, done.stderr
    (user,) = [m for m in installed.server.requests[0].json()["messages"] if m["role"] == "user"]
    content = user["content"]
    text = content if isinstance(content, str) else "".join(part["text"] for part in content)
    assert text == "---\ntitle: notes\n---\nsummarise"
