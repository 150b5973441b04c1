"""bash tool: conformance cases 121-150 (tools.md §8.10, §8.11) plus process-control and memory checks."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from pi.agent.tool import AgentToolResult, OnToolUpdate
from pi.ai.abort import AbortController, AbortSignal
from pi.tools.bash import (
    BashError,
    BashExecution,
    BashParams,
    BashToolDetails,
    BashToolOptions,
    create_bash_tool,
)
from pi.tools.output_capture import OutputCapture
from pi.tools.shell import ExecResult, ExitWatcher, ShellError, kill_tracked_process_groups


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
    on_update: OnToolUpdate | None = None,
) -> AgentToolResult:
    tool = create_bash_tool(str(cwd), options or BashToolOptions(temp_dir=str(cwd)))
    listener = updates.append if updates is not None else on_update
    return await tool.execute("call-1", BashParams(command=command, timeout=timeout), signal, listener)


async def run_failure(cwd: Path | str, command: str, **kwargs: Any) -> AgentToolResult:
    """A command that failed: returned as an error result (1.6.0), not raised."""
    result = await run(cwd, command, **kwargs)
    assert result.is_error, text_of(result)
    return result


async def run_aborted(cwd: Path | str, command: str, **kwargs: Any) -> BashError:
    with pytest.raises(BashError) as caught:
        await run(cwd, command, **kwargs)
    return caught.value


def abort_on_output(controller: AbortController, marker: str) -> OnToolUpdate:
    """An update listener that aborts as soon as `marker` shows up in the streamed output."""

    def listener(result: AgentToolResult) -> None:
        if result.content and marker in text_of(result):
            controller.abort()

    return listener


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


async def wait_gone(marker: str, within: float = 10.0) -> list[int]:
    """Processes with `marker` still alive once they are gone or `within` seconds passed (generous: busy cores)."""
    deadline = time.monotonic() + within
    while processes_with(marker) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return processes_with(marker)


# --- 8.10 results and errors ---------------------------------------------------------------------------------


async def test_case_121_echo(tmp_path: Path) -> None:
    result = await run(tmp_path, "echo 'test output'")
    assert text_of(result) == "test output\n"
    assert result.details is None
    assert not result.is_error


async def test_case_122_exit_1_is_returned_as_an_error_result(tmp_path: Path) -> None:
    result = await run_failure(tmp_path, "exit 1")
    assert text_of(result) == "(no output)\n\nCommand exited with code 1"


async def test_case_123_exit_code_keeps_output_untrimmed(tmp_path: Path) -> None:
    result = await run_failure(tmp_path, "echo hi; exit 3")
    assert text_of(result) == "hi\n\n\nCommand exited with code 3"


async def test_case_124_no_output(tmp_path: Path) -> None:
    assert text_of(await run(tmp_path, "true")) == "(no output)"


async def test_case_125_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await run_failure(tmp_path, "sleep 30", timeout=1)
    assert text_of(result) == "Command timed out after 1 seconds"
    assert time.monotonic() - started < 15


async def test_case_125_timeout_after_the_shell_exited(tmp_path: Path) -> None:
    command = "(while :; do echo 63.727; sleep 0.03; done) & exit 4"
    result = await run_failure(tmp_path, command, timeout=0.5)
    text = text_of(result)
    match = re.search(
        r"\n\nCommand timed out after 0\.5 seconds\. The shell exited with code 4 after (\d+\.\d) seconds, "
        r"but background processes it started kept writing output until the timeout\.$",
        text,
    )
    assert match is not None, text[-300:]
    assert float(match.group(1)) <= 0.5
    assert await wait_gone("63.727") == []


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf")])
async def test_case_126_invalid_timeouts(tmp_path: Path, value: float) -> None:
    error = await run_aborted(tmp_path, "true", timeout=value)
    assert str(error) == (
        "Invalid timeout: must be a finite number of seconds\n"
        "Pass a number of seconds above 0, or leave timeout out for none."
    )


async def test_case_126_timeout_maximum_and_fraction(tmp_path: Path) -> None:
    error = await run_aborted(tmp_path, "true", timeout=3000000)
    assert str(error) == (
        "Invalid timeout: maximum is 2147483.647 seconds\n"
        "Pass a smaller number of seconds, or leave timeout out for none."
    )
    result = await run_failure(tmp_path, "sleep 30", timeout=0.5)
    assert text_of(result) == "Command timed out after 0.5 seconds"


async def test_default_timeout_option(tmp_path: Path) -> None:
    options = BashToolOptions(default_timeout=0.3, temp_dir=str(tmp_path))
    result = await run_failure(tmp_path, "sleep 30", options=options)
    assert text_of(result) == "Command timed out after 0.3 seconds"
    # A timeout the model gives wins over the default.
    assert text_of(await run(tmp_path, "sleep 0.4; echo ok", timeout=30, options=options)) == "ok\n"


async def test_case_127_missing_cwd(tmp_path: Path) -> None:
    with pytest.raises(ShellError) as caught:
        await run("/does/not/exist", "true", options=BashToolOptions(temp_dir=str(tmp_path)))
    assert str(caught.value) == (
        "Working directory does not exist: /does/not/exist\nCannot execute bash commands. "
        "Recreate the directory (write creates missing directories) or ask the user to restart pi elsewhere."
    )


async def test_case_128_custom_shell_path(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-shell")
    with pytest.raises(ShellError) as caught:
        await run(tmp_path, "true", options=BashToolOptions(shell_path=missing))
    assert str(caught.value) == f"Custom shell path not found: {missing}\nFix or remove shellPath in settings.json."

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


async def test_env_option_is_read_per_command_and_merged_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_MODEL", "stale")
    monkeypatch.setenv("PI_SESSION_FILE", "stale")
    monkeypatch.setenv("PI_TEST_INHERITED", "kept")
    current = {"PI_MODEL": "m1", "PI_SESSION_ID": "s-1"}
    options = BashToolOptions(env=lambda: current, temp_dir=str(tmp_path))
    command = 'echo "$PI_MODEL:$PI_SESSION_ID:${PI_SESSION_FILE-unset}:$PI_TEST_INHERITED"'
    assert text_of(await run(tmp_path, command, options=options)) == "m1:s-1:unset:kept\n"
    current["PI_MODEL"] = "m2"  # e.g. the user switched models between two commands
    assert text_of(await run(tmp_path, command, options=options)) == "m2:s-1:unset:kept\n"


async def test_prepare_sees_and_can_override_the_extra_variables(tmp_path: Path) -> None:
    async def prepare(execution: BashExecution, signal: AbortSignal | None) -> None:
        execution.env["PI_PROVIDER"] = execution.env["PI_PROVIDER"].upper()

    options = BashToolOptions(env=lambda: {"PI_PROVIDER": "faux"}, prepare=prepare, temp_dir=str(tmp_path))
    assert text_of(await run(tmp_path, "echo $PI_PROVIDER", options=options)) == "FAUX\n"


async def test_pi_variables_guideline(tmp_path: Path) -> None:
    assert create_bash_tool(str(tmp_path)).prompt_guidelines == [
        "You can inspect PI_* environment variables for current model and session details."
    ]


async def test_rg_is_reachable_from_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    text = text_of(await run(tmp_path, "command -v rg"))
    assert text.strip().endswith("/rg")


async def test_case_133_stdout_and_stderr_combined(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "echo out; echo err 1>&2"))
    assert "out\n" in text
    assert "err\n" in text


async def test_case_134_stdin_is_closed(tmp_path: Path) -> None:
    assert text_of(await asyncio.wait_for(run(tmp_path, "cat"), 30)) == "(no output)"
    assert text_of(await asyncio.wait_for(run(tmp_path, "read x; echo got:$x"), 30)) == "got:\n"


async def test_case_135_invalid_utf8(tmp_path: Path) -> None:
    assert "\ufffd" in text_of(await run(tmp_path, "printf '\\xff'"))


async def test_case_136_split_multibyte_character(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "printf '\\xf0\\x9f'; sleep 0.2; printf '\\x98\\x80'"))
    assert text == "😀"


async def test_case_137_control_characters_removed(tmp_path: Path) -> None:
    assert text_of(await run(tmp_path, "printf 'a\\x00b\\x07c\\r\\n'")) == "abc\n"


async def test_case_138_killed_by_signal_is_an_error(tmp_path: Path) -> None:
    # Decision D6: reported as an error, worded by signal name instead of upstream's exit code 137.
    result = await run_failure(tmp_path, "kill -9 $$")
    assert text_of(result) == "Command terminated by signal SIGKILL"
    assert result.structured_content["exit_code"] == 137
    result = await run_failure(tmp_path, "echo before; kill -TERM $$")
    assert text_of(result) == "before\n\n\nCommand terminated by signal SIGTERM"


async def test_backend_without_exit_code_is_an_error(tmp_path: Path) -> None:
    class Silent:
        async def exec(self, command: str, cwd: str, **kwargs: Any) -> ExecResult:
            kwargs["on_data"](b"partial\n")
            return ExecResult(exit_code=None)

    result = await run_failure(tmp_path, "anything", options=BashToolOptions(operations=Silent()))
    assert text_of(result) == "partial\n\n\nCommand terminated without an exit code"


async def test_structured_content(tmp_path: Path) -> None:
    result = await run(tmp_path, "echo hello")
    structured = result.structured_content
    assert structured["output"] == "hello\n"
    assert structured["exit_code"] == 0
    assert structured["truncated"] is False
    assert "full_output_path" not in structured
    assert 0 <= structured["wall_time_seconds"] < 60

    result = await run_failure(tmp_path, "seq 1 3000; exit 5")
    structured = result.structured_content
    assert structured["exit_code"] == 5
    assert structured["truncated"] is True
    assert structured["full_output_path"] == result.details.full_output_path
    assert structured["output"] == "".join(f"{i}\n" for i in range(1, 3001))


async def test_structured_output_keeps_first_and_last_512_kib(tmp_path: Path) -> None:
    result = await run(tmp_path, "head -c 3000000 /dev/zero | tr '\\0' a; printf END")
    output = result.structured_content["output"]
    head, rest = output.split("\n\n[... ", 1)
    omitted, tail = rest.split(" bytes omitted ...]\n\n", 1)
    assert head == "a" * 524288
    assert tail == "a" * (524288 - 3) + "END"
    assert int(omitted) == 3000003 - 2 * 524288


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
    result = await run_failure(tmp_path, "seq 1 3000; exit 2")
    message = text_of(result)
    path = full_output_path(message.rsplit("\n\n", 1)[0])
    assert message.endswith(
        f"3000\n\n[Showing lines 1001-3000 of 3000. Full output: {path}]\n\nCommand exited with code 2"
    )
    assert message.startswith("1001\n")
    assert isinstance(result.details, BashToolDetails)
    assert result.details.full_output_path == path


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
    release = asyncio.Event()

    async def slow_listener(result: AgentToolResult) -> None:
        await release.wait()
        delivered.append(text_of(result) if result.content else "")

    tool = create_bash_tool(str(tmp_path), BashToolOptions(temp_dir=str(tmp_path)))
    task = asyncio.ensure_future(tool.execute("c", BashParams(command="echo done"), None, slow_listener))
    done, _ = await asyncio.wait([task], timeout=0.5)
    assert not done  # the call waits for its listener
    release.set()
    await task
    assert delivered[-1] == "done\n"


def _says_cut(result: AgentToolResult) -> bool:
    """Output updates always carry details (empty ones, as pi's do); cut output fills them in."""
    return isinstance(result.details, BashToolDetails) and result.details.truncation is not None


async def test_case_146_partial_updates_carry_truncation(tmp_path: Path) -> None:
    updates: list[AgentToolResult] = []
    await run(tmp_path, "seq 1 100000", updates=updates)
    partial = [u for u in updates if _says_cut(u)]
    assert partial, "no partial update carried details"
    assert partial[0].details.truncation is not None
    assert partial[0].details.full_output_path is not None
    # While it runs too, not only in the final update: the command waits for a file the listener creates
    # once it has seen an update with details.
    gate = tmp_path / "gate"
    updates.clear()

    def listener(result: AgentToolResult) -> None:
        updates.append(result)
        if _says_cut(result):
            gate.touch()

    await run(tmp_path, f"seq 1 100000; while [ ! -e {gate} ]; do sleep 0.01; done; echo end", on_update=listener)
    assert any(_says_cut(u) for u in updates[:-1])


async def test_partial_updates_carry_the_kept_tail_without_the_models_note(tmp_path: Path) -> None:
    """As in pi, a cut update's text is the tail alone; only the result says where the full output is."""
    updates: list[AgentToolResult] = []
    result = await run(tmp_path, "seq 1 3000", updates=updates)
    last = updates[-1]
    assert _says_cut(last)
    assert text_of(last) == "\n".join(str(n) for n in range(1001, 3001))
    assert "[Showing lines" not in text_of(last)
    assert text_of(result).startswith(text_of(last) + "\n\n[Showing lines 1001-3000 of 3000. Full output: ")


async def test_case_147_timeout_kills_the_process_tree(tmp_path: Path) -> None:
    result = await run_failure(tmp_path, "sh -c 'sleep 97.531' & sleep 97.531", timeout=1)
    assert text_of(result) == "Command timed out after 1 seconds"
    assert await wait_gone("97.531") == []


async def test_case_148_abort_while_running(tmp_path: Path) -> None:
    controller = AbortController()
    listener = abort_on_output(controller, "start")
    started = time.monotonic()
    error = await run_aborted(tmp_path, "echo start; sleep 30", signal=controller.signal, on_update=listener)
    assert str(error) == "start\n\n\nCommand aborted"
    assert time.monotonic() - started < 15


async def test_case_148_abort_before_start(tmp_path: Path) -> None:
    controller = AbortController()
    controller.abort()
    marker = tmp_path / "ran"
    error = await run_aborted(tmp_path, f"touch {marker}", signal=controller.signal)
    assert str(error) == "Command aborted"
    assert not marker.exists()


async def test_abort_kills_every_child(tmp_path: Path) -> None:
    controller = AbortController()
    listener = abort_on_output(controller, "spawned")
    command = "sleep 91.713 & (sleep 91.713 & sleep 91.713) & bash -c 'sleep 91.713' & echo spawned; wait"
    await run_aborted(tmp_path, command, signal=controller.signal, on_update=listener)
    assert await wait_gone("91.713") == []


async def test_loop_keeps_running_while_a_command_is_stopped(tmp_path: Path) -> None:
    # The shell ignores SIGTERM, so stopping it takes the whole grace period before SIGKILL: other
    # coroutines must keep running meanwhile.
    controller = AbortController()
    ticks: list[float] = []
    aborted_at: list[float] = []

    def listener(result: AgentToolResult) -> None:
        if result.content and "armed" in text_of(result) and not aborted_at:
            aborted_at.append(time.monotonic())
            controller.abort()

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    ticking = asyncio.ensure_future(ticker())
    try:
        command = "trap '' TERM; echo armed; while :; do sleep 0.05; done"
        await run_aborted(tmp_path, command, signal=controller.signal, on_update=listener)
        finished = time.monotonic()
    finally:
        ticking.cancel()
    during = [tick for tick in ticks if aborted_at[0] < tick < finished]
    assert finished - aborted_at[0] >= 0.4  # the grace period was waited out
    assert len(during) >= 5, (len(during), finished - aborted_at[0])


async def test_reaping_a_killed_shell_does_not_block_the_loop() -> None:
    loop = asyncio.get_running_loop()
    proc = subprocess.Popen(["sleep", "0.5"], start_new_session=True)
    watcher = ExitWatcher(proc, loop)
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    ticking = asyncio.ensure_future(ticker())
    try:
        started = time.monotonic()
        assert await watcher.reap(within=30)
        finished = time.monotonic()
    finally:
        ticking.cancel()
        watcher.close()
    assert proc.returncode == 0
    assert len([tick for tick in ticks if started < tick < finished]) >= 5


async def test_case_149_background_child_does_not_block(tmp_path: Path) -> None:
    try:
        result = await asyncio.wait_for(run(tmp_path, "sleep 30.0817 & echo started"), 20)
        assert text_of(result) == "started\n"
    finally:
        for pid in processes_with("30.0817"):
            os.kill(pid, 9)


async def test_case_150_late_output_within_grace_is_kept(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "(for i in 1 2 3; do sleep 0.02; echo late$i; done) & echo early"))
    for word in ("early", "late1", "late2", "late3"):
        assert word in text


async def test_case_150_output_after_grace_is_dropped(tmp_path: Path) -> None:
    # Returning without "late" shows that the call did not wait for the background child.
    text = text_of(await asyncio.wait_for(run(tmp_path, "(sleep 10; echo late) & echo early"), 9))
    assert text == "early\n"


async def test_abort_stops_a_background_writer_after_the_shell_exited(tmp_path: Path) -> None:
    # The shell is gone, but a child it left behind keeps writing, so the pipe never goes quiet:
    # Esc must still end the call and the child.
    controller = AbortController()
    listener = abort_on_output(controller, "63.719")
    command = "(sleep 0.05; while :; do echo 63.719; sleep 0.03; done) & echo early"
    error = await asyncio.wait_for(run_aborted(tmp_path, command, signal=controller.signal, on_update=listener), 20)
    assert str(error).startswith("early\n")
    assert str(error).endswith("\n\nCommand aborted")
    assert await wait_gone("63.719") == []


async def test_timeout_stops_a_background_writer_after_the_shell_exited(tmp_path: Path) -> None:
    command = "(while :; do echo 63.721; sleep 0.03; done) & echo early"
    result = await asyncio.wait_for(run_failure(tmp_path, command, timeout=0.4), 20)
    assert "\n\nCommand timed out after 0.4 seconds. The shell exited with code 0 after " in text_of(result)
    assert await wait_gone("63.721") == []


async def test_tracked_groups_can_be_killed(tmp_path: Path) -> None:
    started = asyncio.Event()

    def listener(result: AgentToolResult) -> None:
        if result.content and "ready" in text_of(result):
            started.set()

    task = asyncio.ensure_future(run(tmp_path, "echo ready; sleep 92.417", on_update=listener))
    await asyncio.wait_for(started.wait(), 20)
    kill_tracked_process_groups()
    result = await task
    assert text_of(result) == "ready\n\n\nCommand terminated by signal SIGKILL"
    assert await wait_gone("92.417") == []


# --- memory: only the tail stays in memory ---------------------------------------------------------------------


def test_capture_memory_is_bounded_and_file_complete(tmp_path: Path) -> None:
    capture = OutputCapture(temp_dir=str(tmp_path))
    chunk = b"".join(b"line %06d\n" % i for i in range(6000))  # ~66 KB
    for _ in range(200):  # ~13 MB in total
        capture.feed(chunk)
        assert capture.retained_bytes <= 2 * 1024 * 1024
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


async def test_output_ending_in_a_very_long_line_shows_its_end(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "seq 1 3; head -c 300000 /dev/zero | tr '\\0' b; printf END"))
    path = full_output_path(text)
    body, notice = text.split("\n\n", 1)
    assert body == "b" * (51200 - 3) + "END"
    assert notice == f"[Showing last 50.0KB of line 4 (line is 293.0KB). Full output: {path}]"


async def test_trailing_newline_is_not_an_extra_line(tmp_path: Path) -> None:
    text = text_of(await run(tmp_path, "seq 1 2001"))
    assert text.endswith("2001\n\n[Showing lines 2-2001 of 2001. Full output: " + full_output_path(text) + "]")


def test_capture_sanitises_mixed_ascii_and_utf8_chunks(tmp_path: Path) -> None:
    capture = OutputCapture(temp_dir=str(tmp_path))
    for chunk in (b"a\x1b[1mb\r\n", "é".encode()[:1], "é".encode()[1:] + b"\x07x\n", b"\xff\n"):
        capture.feed(chunk)
    capture.finish()
    assert capture.snapshot().text == "a[1mb\néx\n\ufffd\n"
    assert capture.total_bytes == len("a[1mb\néx\n\ufffd\n".encode())
