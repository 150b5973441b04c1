"""The command-line parser: pi's flags, `--flag=value`, and errors that list the valid choices."""

from __future__ import annotations

import pytest

from pi.app.args import ArgsError, parse_args, unknown_option_errors, unknown_option_hint


def test_messages_files_and_flags_in_any_order() -> None:
    args = parse_args(["-p", "@a.txt", "first", "--model", "sonnet", "second", "@b.png"])
    assert args.print
    assert args.file_args == ["a.txt", "b.png"]
    assert args.messages == ["first", "second"]
    assert args.model == "sonnet"


def test_flag_equals_value_form() -> None:
    args = parse_args(["--provider=openai", "--model=openai/gpt-5", "--thinking=high", "--tools=read,bash"])
    assert args.model == "openai/gpt-5"
    assert args.thinking == "high"
    assert args.tools == ["read", "bash"]


def test_short_aliases() -> None:
    args = parse_args(["-c", "-ne", "-ns", "-np", "-e", "ext.py", "-v"])
    assert args.continue_session and args.no_extensions and args.no_skills and args.no_prompt_templates
    assert args.extensions == ["ext.py"]
    assert args.version


def _errors(argv: list[str]) -> list[str]:
    with pytest.raises(ArgsError) as caught:
        parse_args(argv)
    return caught.value.errors


def test_unknown_long_option_is_an_error_and_consumes_its_value() -> None:
    with pytest.raises(ArgsError) as caught:
        parse_args(["-p", "--foo", "hi"])
    assert str(caught.value) == "Error: Unknown option: --foo"
    assert caught.value.parsed is not None
    assert caught.value.parsed.unknown_options == {"--foo": "hi"}
    assert caught.value.parsed.messages == []


def test_several_unknown_options_give_one_plural_error() -> None:
    assert _errors(["--a", "--b=1", "-x", "msg"]) == ["Unknown options: --a, --b, -x"]


def test_unknown_options_can_be_left_for_extensions() -> None:
    args = parse_args(["--plan", "--depth", "3", "@f.txt"], allow_unknown=True)
    assert args.unknown_options == {"--plan": True, "--depth": "3"}
    assert args.file_args == ["f.txt"]
    assert unknown_option_errors(args, ["--plan"]) == ["Unknown option: --depth"]


def test_unknown_option_hint_suggests_a_close_name() -> None:
    args = parse_args(["--modle", "x"], allow_unknown=True)
    assert unknown_option_hint(args) == "Did you mean --mode? Run 'pi --help' to see every option."
    assert unknown_option_hint(parse_args(["--a"], allow_unknown=True)) is None  # too short to guess from


def test_mode_errors() -> None:
    assert _errors(["--mode"]) == ["--mode requires text, json, or rpc"]
    assert _errors(["--mode", "yaml"]) == ['Invalid mode "yaml". Valid values: text, json, rpc']


def test_invalid_thinking_is_a_warning_and_the_run_goes_on() -> None:
    args = parse_args(["--thinking=extreme", "hi"])
    assert args.thinking is None
    assert args.warnings == [
        'Warning: Invalid thinking level "extreme". Valid values: off, minimal, low, medium, high, xhigh, max'
    ]
    assert parse_args(["--thinking", "max"]).thinking == "max"


def test_value_flag_without_value_is_an_error() -> None:
    assert _errors(["--model"]) == ["--model requires a value"]


def test_unknown_tool_names_are_kept_for_later_and_not_warned_about() -> None:
    args = parse_args(["--tools", "read,nope,mcp__x__*"])
    assert args.tools == ["read", "nope", "mcp__x__*"]
    assert args.warnings == []
    assert parse_args(["--tools", ""]).tools == []


def test_tools_modifier_errors() -> None:
    assert _errors(["-t", "read,+grep"]) == ["--tools: tool names cannot be mixed with +name or -name entries"]
    assert _errors(["-t", "+gr*"]) == ["--tools: +name and -name entries take exact tool names, not patterns: +gr*"]
    assert parse_args(["-t", "+grep,-write"]).tools == ["+grep", "-write"]


def test_new_flags_and_short_forms() -> None:
    args = parse_args(
        [
            *("--session-id", "abc-123", "-n", "my run", "-nc", "-xt", "bash", "-nt", "-nbt", "-a"),
            *("--tui-mode", "regular", "--use-theme", "dark", "--no-mcp", "--offline"),
        ]
    )
    assert (args.session_id, args.name, args.no_context_files) == ("abc-123", "my run", True)
    assert (args.exclude_tools, args.no_tools, args.no_builtin_tools, args.approve) == (["bash"], True, True, True)
    assert (args.tui_mode, args.use_theme, args.no_mcp, args.offline) == ("regular", "dark", True, True)
    assert parse_args(["-na"]).approve is False
    assert parse_args(["--no-approve"]).approve is False
    assert parse_args([]).approve is None


def test_new_flag_errors() -> None:
    assert _errors(["--name"]) == ["--name requires a value"]
    assert _errors(["--name", "  "]) == ["--name requires a non-empty value"]
    assert _errors(["--tui-mode"]) == ["--tui-mode requires regular or fullscreen"]
    assert _errors(["--tui-mode", "big"]) == ['Invalid TUI mode "big". Valid values: regular, fullscreen']
    assert _errors(["--use-theme"]) == ["--use-theme requires a theme name"]
    assert _errors(["--provider", "openai"]) == [
        "--provider requires --model (for example: --provider openai --model <pattern>)"
    ]
    assert _errors(["--fork", "x", "-c", "--no-session"]) == ["--fork cannot be combined with --continue, --no-session"]
    assert _errors(["--session-id", "a", "--session", "b"]) == ["--session-id cannot be combined with --session"]
    assert _errors(["--session-id", "../etc"]) == [
        "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', "
        "and start and end with an alphanumeric character"
    ]


def test_all_errors_are_reported_together() -> None:
    assert _errors(["--mode", "x", "--bogus"]) == [
        'Invalid mode "x". Valid values: text, json, rpc',
        "Unknown option: --bogus",
    ]


def test_print_takes_the_next_word_as_the_prompt() -> None:
    assert parse_args(["-p", "---\ntitle: x\n---"]).messages == ["---\ntitle: x\n---"]
    args = parse_args(["-p", "@a.txt", "go"])
    assert (args.file_args, args.messages) == (["a.txt"], ["go"])
    assert parse_args(["-p", "--model", "m", "hi"]).messages == ["hi"]


def test_append_system_prompt_repeats() -> None:
    assert parse_args(["--append-system-prompt", "a", "--append-system-prompt=b"]).append_system_prompt == ["a", "b"]


def test_list_models_takes_an_optional_search_term() -> None:
    assert parse_args(["--list-models", "sonnet"]).list_models_search == "sonnet"
    args = parse_args(["--list-models", "--verbose"])
    assert args.list_models and args.list_models_search is None and args.verbose


def test_double_dash_ends_options_but_keeps_file_arguments() -> None:
    args = parse_args(["-p", "--", "- item", "--not-a-flag", "@x"])
    assert args.messages == ["- item", "--not-a-flag"]
    assert args.file_args == ["x"]


def test_repeatable_and_csv_flags_accumulate() -> None:
    args = parse_args(["--skill", "a", "--skill", "b", "--exclude-tools", "bash", "--models", "a/*,b:high"])
    assert args.skills == ["a", "b"]
    assert args.exclude_tools == ["bash"]
    assert args.models == ["a/*", "b:high"]
