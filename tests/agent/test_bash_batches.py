"""tools.md cases 119 and 120: batches of real bash calls, in parallel by default, never overlapping when a
tool of the batch asks to run alone."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from pi.ai.faux import FauxProvider, faux_assistant_message, faux_tool_call
from pi.ai.types import ToolResultMessage
from pi.tools import create_bash_tool
from tests.agent.helpers import make_agent, result_texts


def _results(agent_messages: Sequence[object]) -> list[ToolResultMessage]:
    return [m for m in agent_messages if isinstance(m, ToolResultMessage)]


async def test_case_119_parallel_bash_results_in_call_order(faux: FauxProvider, tmp_path: Path) -> None:
    faux.set_responses(
        [
            faux_assistant_message(
                [
                    faux_tool_call("bash", {"command": "sleep 0.5; echo A"}),
                    faux_tool_call("bash", {"command": "sleep 0.5; echo B"}),
                ]
            ),
            faux_assistant_message("done"),
        ]
    )
    agent, _ = make_agent(faux, tools=[create_bash_tool(str(tmp_path))])
    started = time.monotonic()
    await agent.prompt("run both")
    elapsed = time.monotonic() - started
    assert [t.strip() for t in result_texts(_results(agent.state.messages))] == ["A", "B"]
    assert elapsed < 0.95  # two 0.5 s commands overlapped


async def test_case_120_a_sequential_tool_makes_the_batch_run_one_at_a_time(faux: FauxProvider, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    bash = create_bash_tool(str(tmp_path))
    exclusive = create_bash_tool(str(tmp_path))
    exclusive.name = "exclusive_bash"
    exclusive.execution_mode = "sequential"
    command = f"echo start >> {log}; sleep 0.3; echo end >> {log}"
    faux.set_responses(
        [
            faux_assistant_message(
                [
                    faux_tool_call("exclusive_bash", {"command": "true"}),
                    faux_tool_call("bash", {"command": command}),
                    faux_tool_call("bash", {"command": command}),
                ]
            ),
            faux_assistant_message("done"),
        ]
    )
    agent, _ = make_agent(faux, tools=[exclusive, bash])
    await agent.prompt("run them")
    assert log.read_text().split() == ["start", "end", "start", "end"]  # never overlapping
    assert len(_results(agent.state.messages)) == 3
