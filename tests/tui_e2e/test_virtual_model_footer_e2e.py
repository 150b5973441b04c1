"""tui.md §7 footer: a virtual model (an extension's `register_virtual_model`) shows where its last
request was routed, ` → <routed id> • <level>`, next to its own id (tmux)."""

from __future__ import annotations

from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

ROUTER = """
def setup(pi):
    def route(request, ctx):
        return {"model": "fakea/fake-claude", "thinkingLevel": "high"}

    pi.register_virtual_model({"provider": "router", "id": "auto", "name": "Auto", "route": route})
"""


def test_the_footer_names_the_model_a_virtual_model_routed_to(make_pi: Any, server: ScriptedServer) -> None:
    pi: TmuxPi = make_pi()
    extension = pi.root / "router.py"
    extension.write_text(ROUTER)
    server.queue(anthropic_reply("Routed answer."))
    pi.start("-e", str(extension), "--model", "router/auto")
    footer_line = pi.wait_for(lambda s: any(line.rstrip().endswith(" auto") for line in s.split("\n")))
    assert " → " not in footer_line
    pi.type("hello")
    pi.keys("Enter")
    text = pi.wait_for(lambda s: "Routed answer." in s and "auto → fake-claude • high" in s)
    assert len(server.requests) == 1 and server.requests[0].json()["model"] == "fake-claude"
    assert any(line.rstrip().endswith("auto → fake-claude • high") for line in text.split("\n"))
    pi.keys("C-d")
    assert pi.wait_exit() == 0
