"""The command-line parser: pi's flags, `--flag=value`, and errors that list the valid choices."""

from __future__ import annotations

import pytest

from pi.app.args import ArgsError, parse_args


def test_messages_files_and_flags_in_any_order() -> None:
    args = parse_args(["-p", "@a.txt", "first", "--model", "sonnet", "second", "@b.png"])
    assert args.print
    assert args.file_args == ["a.txt", "b.png"]
    assert args.messages == ["first", "second"]
    assert args.model == "sonnet"


def test_flag_equals_value_form() -> None:
    args = parse_args(["--model=openai/gpt-5", "--thinking=high", "--tools=read,bash"])
    assert args.model == "openai/gpt-5"
    assert args.thinking == "high"
    assert args.tools == ["read", "bash"]


def test_short_aliases() -> None:
    args = parse_args(["-c", "-ne", "-ns", "-np", "-e", "ext.py", "-v"])
    assert args.continue_session and args.no_extensions and args.no_skills and args.no_prompt_templates
    assert args.extensions == ["ext.py"]
    assert args.version


def test_unknown_flag_is_an_error_with_a_suggestion() -> None:
    with pytest.raises(ArgsError, match=r"Unknown option: --modle\. Did you mean --mode\?"):
        parse_args(["--modle", "x"])


def test_invalid_mode_names_valid_values() -> None:
    with pytest.raises(ArgsError, match=r'Invalid mode "yaml"\. Valid values: text, json, rpc'):
        parse_args(["--mode", "yaml"])


def test_invalid_thinking_names_valid_values() -> None:
    with pytest.raises(ArgsError, match=r"Valid values: off, minimal, low, medium, high, xhigh"):
        parse_args(["--thinking=extreme"])


def test_value_flag_without_value_is_an_error() -> None:
    with pytest.raises(ArgsError, match="--model needs a value"):
        parse_args(["--model"])


def test_unknown_tool_warns_and_is_dropped() -> None:
    args = parse_args(["--tools", "read,nope"])
    assert args.tools == ["read"]
    assert args.warnings == ['Warning: Unknown tool "nope". Valid tools: read, bash, edit, write, grep, find, ls']


def test_list_models_takes_an_optional_search_term() -> None:
    assert parse_args(["--list-models", "sonnet"]).list_models_search == "sonnet"
    args = parse_args(["--list-models", "--verbose"])
    assert args.list_models and args.list_models_search is None and args.verbose


def test_double_dash_ends_options() -> None:
    assert parse_args(["--", "--not-a-flag", "@x"]).messages == ["--not-a-flag", "@x"]


def test_repeatable_and_csv_flags_accumulate() -> None:
    args = parse_args(["--skill", "a", "--skill", "b", "--exclude-tools", "bash", "--models", "a/*,b:high"])
    assert args.skills == ["a", "b"]
    assert args.exclude_tools == ["bash"]
    assert args.models == ["a/*", "b:high"]
