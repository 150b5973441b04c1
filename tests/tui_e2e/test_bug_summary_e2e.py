"""/bug with `Summarize it with the model` in the real `pi` in tmux: the redacted conversation goes to
the model in one request without tools, and its answer replaces the conversation in the report."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedServer, json_response
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

SECRET = "supersecret-value-123"


def _chatted(pi: TmuxPi, server: ScriptedServer) -> None:
    server.queue(anthropic_reply("I listed the folder."))
    pi.start("--tui-mode", "regular", env={"MY_SERVICE_TOKEN": SECRET})
    pi.wait_for("fake-claude • medium")
    pi.type(f"list the folder, my token is {SECRET}")
    pi.keys("Enter")
    pi.wait_for("I listed the folder.")
    pi.wait_idle()


def _choose_summary(pi: TmuxPi) -> None:
    pi.type("/bug the listing was empty")
    pi.keys("Enter")
    pi.wait_for("→ Include the conversation")
    pi.keys("Down", "Down")
    pi.wait_for("→ Summarize it with the model")
    pi.keys("Enter")


def test_the_models_summary_replaces_the_conversation(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()
    _chatted(pi, server)
    server.queue(anthropic_reply("The user asked for a listing; pi answered without calling a tool."))
    _choose_summary(pi)
    text = pi.wait_for("Bug report written to ", history=True)
    request = server.requests[-1].json()
    assert "tools" not in request or not request["tools"]
    assert "bug" in str(request["system"]).lower()
    (question,) = request["messages"]
    asked = str(question["content"])
    assert "the listing was empty" in asked and "list the folder, my token is [redacted]" in asked
    assert "I listed the folder." in asked and SECRET not in asked
    (report,) = (pi.agent_dir / "bug-reports").glob("pi-bug-*.md")
    body = report.read_text()
    assert "## Summary of the conversation (written by fakea/fake-claude)" in body
    assert "pi answered without calling a tool." in body
    assert "## Conversation" not in body and "I listed the folder." not in body
    assert SECRET not in body
    assert report.name in text.replace("\n", "")


def test_a_failed_summary_writes_nothing_and_says_why(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()
    _chatted(pi, server)
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": "summary refused"}}
    server.queue(json_response(400, error))
    _choose_summary(pi)
    pi.wait_for("Failed to summarize the conversation: ", history=True)
    assert "summary refused" in pi.text(history=True).replace("\n", " ")
    assert not list((pi.agent_dir / "bug-reports").glob("pi-bug-*.md"))
