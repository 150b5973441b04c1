"""bash tool: conformance cases 121-150 (tools.md §8.10, §8.11) plus process-control and memory checks."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import stat
import time
from pathlib import Path

import pytest

from pi.agent.tool import AgentToolResult
from pi.ai.abort import AbortController, AbortSignal
from pi.tools.bash import (
    BashError,
    BashExecution,
    BashParams,
    BashToolDetails,
    BashToolOptions,
    create_bash_tool,
)
from pi.tools.shell import OutputCapture, ShellError, kill_tracked_process_groups


def text_of(result: AgentToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert block.type == "text"
    return block.text


async def run(
    cwd: Path | str,
    command: str,
    *,
    timeout: float | None = None,
    options: BashToolOptions | None = None,
    signal: AbortSignal | None = None,
    updates: list[AgentToolResult] | None = None,
) -> AgentToolResult:
    tool = create_bash_tool(str(cwd), options or BashToolOptions(temp_dir=str(cwd)))
    on_update = updates.append if updates is not None else None
    return await tool.execute("call-1", BashParams(command=command, timeout=timeout), signal, on_update)


async def run_error(cwd: Path | str, command: str, **kwargs: object) -> BashError:
    with pytest.raises(BashError) as caught:
        await run(cwd, command, **kwargs)  # type: ignore[arg-type]
    return caught.value


def processes_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and int(entry) != os.getpid():
            found.append(int(entry))
    return found


async def wait_gone(marker: str, within: float = 2.0) -> list[int]:
    deadline = time.monotonic() + within
    while processes_with(marker) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return processes_with(marker)


# --- 8.10 results and errors ---------------------------------------------------------------------------------


async def test_case_121_echo(tmp_path: Path) -> None:
    result = await run(tmp_path, "echo 'test output'")
    assert text_of(result) == "test output\n"
    assert result.details is None


async def test_case_122_exit_1_without_output(tmp_path: Path) -> None:
    error = await run_error(tmp_path, "exit 1")
    assert str(error) == "(no output)\n\nCommand exited with code 1"


async def test_case_123_exit_code_keeps_output_untrimmed(tmp_path: Path) -> None:
    error = await run_error(tmp_path, "echo hi; exit 3")
    assert str(error) == "hi\n\n\nCommand exited with code 3"


async def test_case_124_no_output(tmp_path: Path) -> None:
    assert text_of(await run(tmp_path, "true")) == "(no output)"


async def test_case_125_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    error = await run_error(tmp_path, "sleep 5", timeout=1)
    assert str(error) == "Command timed out after 1 seconds"
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf")])
async def test_case_126_invalid_timeouts(tmp_path: Path, value: float) -> None:
    error = await run_error(tmp_path, "true", timeout=value)
    assert str(error) == "Invalid timeout: must be a finite number of seconds"


async def test_case_126_timeout_maximum_and_fraction(tmp_path: Path) -> None:
    error = await run_error(tmp_path, "true", timeout=3000000)
    assert str(error) == "Invalid timeout: maximum is 2147483.647 seconds"
    error = await run_error(tmp_path, "sleep 2", timeout=0.5)
    assert str(error) == "Command timed out after 0.5 seconds"


async def test_default_timeout_option(tmp_path: Path) -> None:
    options = BashToolOptions(default_timeout=0.3, temp_dir=str(tmp_path))
    error = await run_error(tmp_path, "sleep 2", options=options)
    assert str(error) == "Command timed out after 0.3 seconds"
    # A timeout the model gives wins over the default.
    assert text_of(await run(tmp_path, "sleep 0.4; echo ok", timeout=2, options=options)) == "ok\n"


async def test_case_127_missing_cwd(tmp_path: Path) -> None:
    with pytest.raises(ShellError) as caught:
        await run("/does/not/exist", "true", options=BashToolOptions(temp_dir=str(tmp_path)))
    assert str(caught.value) == "Working directory does not exist: /does/not/exist\nCannot execute bash commands."


async def test_case_128_custom_shell_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-shell")
    with pytest.raises(ShellError) as caught:
        await run(tmp_path, "true", options=BashToolOptions(shell_path=missing))
    assert str(caught.value) == f"Custom shell path not found: {missing}"

    broken = tmp_path / "broken-shell"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    with pytest.raises(ShellError) as caught:
        await run(tmp_path, "true", options=BashToolOptions(shell_path=str(broken)))
    assert "ENOENT" in str(caught.value)


async def test_custom_shell_path_is_used(tmp_path: Path) -> None:
    options = BashToolOptions(shell_path="/bin/sh", temp_dir=str(tmp_path))
    assert text_of(await run(tmp_path, "echo via-sh", options=options)) == "via-sh\n"


async def test_case_129_command_prefix_sets_variables(tmp_path: Path) -> None:
    options = BashToolOptions(command_prefix="export TEST_VAR=hello", temp_dir=str(tmp_path))
    assert text_of(await run(tmp_path, "echo $TEST_VAR", options=options)) == "hello\n"


async def test_case_130_command_prefix_output_is_kept(tmp_path: Path) -> None:
    options = BashToolOptions(command_prefix="echo prefix-output", temp_dir=str(tmp_path))
    assert text_of(await run(tmp_path, "echo command-output", options=options)) == "prefix-output\ncommand-output\n"


async def test_case_131_prepare_rewrites_command_and_env(tmp_path: Path) -> None:
    async def prepare(execution: BashExecution, signal: AbortSignal | None) -> None:
        execution.command += "; echo injected"
        execution.env["FOO"] = "bar"

    options = BashToolOptions(prepare=prepare, temp_dir=str(tmp_path))
    assert text_of(await run(tmp_path, "echo $FOO", options=options)) == "bar\ninjected\n"


async def test_case_132_spawn_hook_changes_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()

    def hook(execution: BashExecution) -> BashExecution:
        return BashExecution(execution.command, str(tmp_path / "sub"), execution.env, execution.inherit_env)

    options = BashToolOptions(spawn_hook=hook, temp_dir=str(tmp_path))
    assert text_of(await run(tmp_path, "pwd", options=options)) == f"{tmp_path}/sub\n"


async def test_inherit_env_false_starts_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TEST_SECRET", "visible")

    def hook(execution: BashExecution) -> BashExecution:
        execution.inherit_env = False
        execution.env["ONLY"] = "me"
        return execution

    options = BashToolOptions(spawn_hook=hook, temp_dir=str(tmp_path))
    assert text_of(await run(tmp_path, 'echo "$ONLY:$PI_TEST_SECRET"', options=options)) == "me:\n"


async def test_session_environment_replaces_inherited_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_MODEL", "stale")
    monkeypatch.setenv("PI_SESSION_FILE", "stale")
    options = BashToolOptions(session_environment=lambda: {"PI_MODEL": "m1"}, temp_dir=str(tmp_path))
    text = text_of(await run(tmp_path, 'echo "$PI_MODEL:${PI_SESSION_FILE-unset}"', options=options))
    assert text == "m1:unset\n"
    assert create_bash_tool(str(tmp_path), options).prompt_guidelines == [
        "You can inspect PI_* environment variables for current model and session details."
    ]
    assert create_bash_tool(str(tmp_path), BashToolOptions(expose_session_environment=False)).prompt_guidelines == []


async def test_rg_is_reachable_from_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    text = text_of(await run(tmp_path, "command -v rg"))
    assert text.strip().endswith("/rg")


async def test_case_133_stdout_and_stderr_combined(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "echo out; echo err 1>&2"))
    assert "out\n" in text
    assert "err\n" in text


async def test_case_134_stdin_is_closed(tmp_path: Path) -> None:
    started = time.monotonic()
    assert text_of(await run(tmp_path, "cat")) == "(no output)"
    assert text_of(await run(tmp_path, "read x; echo got:$x")) == "got:\n"
    assert time.monotonic() - started < 2


async def test_case_135_invalid_utf8(tmp_path: Path) -> None:
    assert "\ufffd" in text_of(await run(tmp_path, "printf '\\xff'"))


async def test_case_136_split_multibyte_character(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "printf '\\xf0\\x9f'; sleep 0.2; printf '\\x98\\x80'"))
    assert text == "😀"


async def test_case_137_control_characters_removed(tmp_path: Path) -> None:
    assert text_of(await run(tmp_path, "printf 'a\\x00b\\x07c\\r\\n'")) == "abc\n"


async def test_case_138_killed_by_signal_is_an_error(tmp_path: Path) -> None:
    # Decision D6: reported as an error instead of upstream's "(no output)" success.
    error = await run_error(tmp_path, "kill -9 $$")
    assert str(error) == "Command terminated by signal SIGKILL"
    error = await run_error(tmp_path, "echo before; kill -TERM $$")
    assert str(error) == "before\n\n\nCommand terminated by signal SIGTERM"


# --- 8.11 truncation, temp file, streaming, process control -------------------------------------------------

FULL_NOTICE = re.compile(r"Full output: (?P<path>\S+)\]$")


def full_output_path(text: str) -> str:
    match = FULL_NOTICE.search(text)
    assert match is not None, text[-300:]
    return match.group("path")


async def test_case_139_tail_by_lines_with_full_output_file(tmp_path: Path) -> None:
    result = await run(tmp_path, "seq 1 3000")
    text = text_of(result)
    path = full_output_path(text)
    assert text.startswith("1001\n")
    assert text.endswith(f"3000\n\n[Showing lines 1001-3000 of 3000. Full output: {path}]")
    assert isinstance(result.details, BashToolDetails)
    assert result.details.full_output_path == path
    assert result.details.truncation is not None
    assert result.details.truncation.truncated_by == "lines"
    data = Path(path).read_bytes()
    assert len(data) == 13893
    assert data == "".join(f"{i}\n" for i in range(1, 3001)).encode()


async def test_case_140_tail_by_bytes(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "yes $(printf 'y%.0s' $(seq 1 100)) | head -n 1000"))
    path = full_output_path(text)
    assert text.endswith(f"\n\n[Showing lines 495-1000 of 1000 (50.0KB limit). Full output: {path}]")


async def test_case_141_single_huge_line(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "head -c 60000 /dev/zero | tr '\\0' a"))
    path = full_output_path(text)
    body, notice = text.split("\n\n", 1)
    assert body == "a" * 51200
    assert notice == f"[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: {path}]"


async def test_case_142_no_truncation_no_file(tmp_path: Path) -> None:
    result = await run(tmp_path, "seq 1 2000")
    assert text_of(result) == "".join(f"{i}\n" for i in range(1, 2001))
    assert result.details is None
    assert not list(tmp_path.glob("pi-bash-*.log"))


async def test_case_143_truncated_output_in_exit_error(tmp_path: Path) -> None:
    error = await run_error(tmp_path, "seq 1 3000; exit 2")
    message = str(error)
    path = full_output_path(message.rsplit("\n\n", 1)[0])
    assert message.endswith(
        f"3000\n\n[Showing lines 1001-3000 of 3000. Full output: {path}]\n\nCommand exited with code 2"
    )
    assert message.startswith("1001\n")
    assert isinstance(error.details, BashToolDetails)


async def test_case_144_temp_file_name_mode_and_lifetime(tmp_path: Path) -> None:
    result = await run(tmp_path, "seq 1 3000", options=BashToolOptions())
    path = full_output_path(text_of(result))
    try:
        assert os.path.dirname(path) == __import__("tempfile").gettempdir()
        assert re.fullmatch(r"pi-bash-[0-9a-f]{16}\.log", os.path.basename(path))
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert os.path.exists(path)
    finally:
        os.unlink(path)


async def test_full_output_file_keeps_raw_bytes(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "for i in $(seq 1 2100); do printf 'l%d\\r\\n' $i; done"))
    path = full_output_path(text)
    assert "\r" not in text
    assert Path(path).read_bytes().startswith(b"l1\r\nl2\r\n")


async def test_case_145_streaming_is_throttled(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    times: list[float] = []

    def spy(result: AgentToolResult) -> None:
        updates.append(result)
        times.append(time.monotonic())

    tool = create_bash_tool(str(tmp_path), BashToolOptions(temp_dir=str(tmp_path)))
    await tool.execute("c", BashParams(command="for i in $(seq 1 20); do echo $i; sleep 0.05; done"), None, spy)
    assert updates[0].content == []
    assert updates[0].details is None
    assert len(updates) <= 15
    gaps = [later - earlier for earlier, later in itertools.pairwise(times[1:-1])]
    assert all(gap >= 0.08 for gap in gaps), gaps
    assert "20" in text_of(updates[-1])


async def test_async_update_listener_is_awaited(tmp_path: Path) -> None:
    delivered: list[str] = []

    async def slow_listener(result: AgentToolResult) -> None:
        await asyncio.sleep(0.05)
        delivered.append(text_of(result) if result.content else "")

    tool = create_bash_tool(str(tmp_path), BashToolOptions(temp_dir=str(tmp_path)))
    await tool.execute("c", BashParams(command="echo done"), None, slow_listener)
    assert delivered[-1] == "done\n"


async def test_case_146_partial_updates_carry_truncation(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    await run(tmp_path, "seq 1 100000", updates=updates)
    partial = [u for u in updates if isinstance(u.details, BashToolDetails)]
    assert partial, "no partial update carried details"
    assert partial[0].details.truncation is not None
    assert partial[0].details.full_output_path is not None
    # While it runs too, not only in the final update:
    updates.clear()
    await run(tmp_path, "seq 1 100000; sleep 0.3; echo end", updates=updates)
    assert any(isinstance(u.details, BashToolDetails) for u in updates[:-1])


async def test_case_147_timeout_kills_the_process_tree(tmp_path: Path) -> None:
    error = await run_error(tmp_path, "sh -c 'sleep 97.531' & sleep 97.531", timeout=1)
    assert str(error) == "Command timed out after 1 seconds"
    assert await wait_gone("97.531") == []


async def test_case_148_abort_while_running(tmp_path: Path) -> None:
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.3, controller.abort)
    started = time.monotonic()
    error = await run_error(tmp_path, "echo start; sleep 30", signal=controller.signal)
    assert str(error) == "start\n\n\nCommand aborted"
    assert time.monotonic() - started < 1


async def test_case_148_abort_before_start(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    marker = tmp_path / "ran"
    error = await run_error(tmp_path, f"touch {marker}", signal=controller.signal)
    assert str(error) == "Command aborted"
    assert not marker.exists()


async def test_abort_kills_every_child(tmp_path: Path) -> None:
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.3, controller.abort)
    command = "sleep 91.713 & (sleep 91.713 & sleep 91.713) & bash -c 'sleep 91.713' & wait"
    await run_error(tmp_path, command, signal=controller.signal)
    assert processes_with("91.713") == []


async def test_case_149_background_child_does_not_block(tmp_path: Path) -> None:
    started = time.monotonic()
    try:
        assert text_of(await run(tmp_path, "sleep 30.0817 & echo started")) == "started\n"
        assert time.monotonic() - started < 2
    finally:
        for pid in processes_with("30.0817"):
            os.kill(pid, 9)


async def test_case_150_late_output_within_grace_is_kept(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "(for i in 1 2 3; do sleep 0.05; echo late$i; done) & echo early"))
    for word in ("early", "late1", "late2", "late3"):
        assert word in text


async def test_case_150_output_after_grace_is_dropped(tmp_path: Path) -> None:
    started = time.monotonic()
    text = text_of(await run(tmp_path, "(sleep 1; echo late) & echo early"))
    assert text == "early\n"
    assert time.monotonic() - started < 0.8


async def test_abort_stops_a_background_writer_after_the_shell_exited(tmp_path: Path) -> None:
    # The shell is gone, but a child it left behind keeps writing, so the pipe never goes quiet:
    # Esc must still end the call and the child.
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.4, controller.abort)
    started = time.monotonic()
    command = "(sleep 0.05; while :; do echo 63.719; sleep 0.03; done) & echo early"
    error = await asyncio.wait_for(run_error(tmp_path, command, signal=controller.signal), 5)
    assert str(error).startswith("early\n")
    assert str(error).endswith("\n\nCommand aborted")
    assert time.monotonic() - started < 2
    assert await wait_gone("63.719") == []


async def test_timeout_stops_a_background_writer_after_the_shell_exited(tmp_path: Path) -> None:
    started = time.monotonic()
    command = "(while :; do echo 63.721; sleep 0.03; done) & echo early"
    error = await asyncio.wait_for(run_error(tmp_path, command, timeout=0.4), 5)
    assert str(error).endswith("\n\nCommand timed out after 0.4 seconds")
    assert time.monotonic() - started < 2
    assert await wait_gone("63.721") == []


async def test_tracked_groups_can_be_killed(tmp_path: Path) -> None:
    task = asyncio.ensure_future(run(tmp_path, "sleep 92.417"))
    await asyncio.sleep(0.3)
    kill_tracked_process_groups()
    with pytest.raises(BashError):
        await task
    assert await wait_gone("92.417") == []


# --- memory: only the tail stays in memory ---------------------------------------------------------------------


def test_capture_memory_is_bounded_and_file_complete(tmp_path: Path) -> None:
    capture = OutputCapture(temp_dir=str(tmp_path))
    chunk = b"".join(b"line %06d\n" % i for i in range(6000))  # ~66 KB
    for _ in range(200):  # ~13 MB in total
        capture.feed(chunk)
        assert capture._tail_bytes <= 4 * 51200 + len(chunk)
    capture.finish()
    snapshot = capture.snapshot()
    assert snapshot.truncation.total_lines == 1_200_000
    assert snapshot.truncation.output_lines == 2000
    assert snapshot.text.endswith("line 005999")
    assert snapshot.full_output_path is not None
    assert os.path.getsize(snapshot.full_output_path) == 200 * len(chunk)


def test_capture_long_line_after_trim_reports_its_length(tmp_path: Path) -> None:
    capture = OutputCapture(temp_dir=str(tmp_path))
    capture.feed(b"short\n")
    for _ in range(20):
        capture.feed(b"x" * 50_000)
    capture.finish()
    snapshot = capture.snapshot()
    assert snapshot.truncation.last_line_partial
    assert snapshot.text == "x" * 51200
    assert snapshot.last_line_bytes == 1_000_000
    assert snapshot.truncation.total_lines == 2
