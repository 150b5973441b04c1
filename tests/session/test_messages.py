"""App transcript roles: parsing stored JSON and what the model sees of them."""

from __future__ import annotations

from pi.ai.types import ImageContent, TextContent, UserMessage
from pi.session.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    UnknownRoleMessage,
    convert_to_llm,
    parse_agent_message,
)


def _text(message: object) -> str:
    assert isinstance(message, UserMessage) and not isinstance(message.content, str)
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_bash_execution_reaches_the_model_as_a_user_message() -> None:
    msg = BashExecutionMessage(command="ls", output="a.py", exit_code=2, truncated=True, full_output_path="/tmp/o")
    (converted,) = convert_to_llm([msg])
    assert _text(converted) == (
        "Ran `ls`\n```\na.py\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/o]"
    )
    assert convert_to_llm([msg.model_copy(update={"exclude_from_context": True})]) == []
    (empty,) = convert_to_llm([BashExecutionMessage(command="true", output="", exit_code=0)])
    assert _text(empty) == "Ran `true`\n(no output)"


def test_summaries_and_custom_messages() -> None:
    summary, custom = convert_to_llm(
        [CompactionSummaryMessage(summary="## Goal\nx", tokens_before=10), CustomMessage(custom_type="n", content="hi")]
    )
    assert _text(summary).startswith("The conversation history before this point was compacted")
    assert _text(summary).endswith("<summary>\n## Goal\nx\n</summary>")
    assert _text(custom) == "hi"


def test_branch_summary_text_has_no_blank_line_before_the_closing_tag() -> None:
    # pi closes a branch summary right after its text; only the compaction summary adds a newline.
    (converted,) = convert_to_llm([BranchSummaryMessage(summary="tried X\n", from_id="abc")])
    assert _text(converted) == (
        "The following is a summary of a branch that this conversation came back from:\n\n"
        "<summary>\ntried X\n</summary>"
    )


def test_stored_json_round_trips_with_camel_case_and_unknown_roles_are_kept() -> None:
    data = {
        "role": "bashExecution",
        "command": "ls",
        "output": "",
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "timestamp": 1,
    }
    parsed = parse_agent_message(data)
    assert isinstance(parsed, BashExecutionMessage)
    assert parsed.to_json_dict() == data
    future = parse_agent_message({"role": "hologram", "payload": 1})
    assert isinstance(future, UnknownRoleMessage)
    assert convert_to_llm([future]) == []


def test_block_images() -> None:
    msg = UserMessage(content=[ImageContent(data="AA==", mime_type="image/png"), TextContent(text="look")])
    (converted,) = convert_to_llm([msg], block_images=True)
    assert isinstance(converted, UserMessage) and not isinstance(converted.content, str)
    assert [b.text for b in converted.content if isinstance(b, TextContent)] == ["Image reading is disabled.", "look"]
