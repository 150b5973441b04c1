"""`pi` in a terminal draws its first frame before the session is built.

The frame (header with the version, the empty editor, the footer's location and model id) comes from
settings.json, the flags, the cwd and `.git/HEAD`; the session's imports (pydantic models, the agent,
providers, httpx) come after it. These tests run under a real pseudo-terminal.
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys
from pathlib import Path

import pexpect
import pytest

from pi.app.args import parse_args
from pi.app.modes.interactive.first_frame import FirstFrame, cheap_settings, model_label
from pi.tui.terminal import Terminal

REPO = Path(__file__).resolve().parents[2]

# Draws the first frame as `pi` does, lists the heavy modules loaded at that moment, gives the terminal back.
_FRAME_AND_MODULES = """
import json, sys
from pathlib import Path
import pi.app.main  # what the `pi` executable runs
from pi.app.args import parse_args
from pi.app.modes.interactive.cli_entry import first_frame_before_session
from pi.app.paths import agent_dir

args = parse_args(sys.argv[1:])
frame = first_frame_before_session(args, Path.cwd(), agent_dir())
heavy = ("pydantic", "pi.ai.types", "pi.agent", "pi.app.agent_session", "pi.app.settings", "pi.app.model_registry",
         "httpx", "wcwidth")
loaded = [name for name in heavy if name in sys.modules]
if frame is not None:
    frame.close()
print("MODULES " + json.dumps({"drawn": frame is not None, "loaded": loaded}))
"""


def _home(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_") and not k.endswith("_API_KEY")}
    env.update(PI_CODING_AGENT_DIR=str(agent_dir), HOME=str(tmp_path), TERM="xterm-256color", PI_OFFLINE="1")
    return agent_dir, project, env


def _spawn(argv: list[str], project: Path, env: dict[str, str]) -> pexpect.spawn:
    return pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, dimensions=(30, 100), encoding="utf-8")


def test_the_first_frame_is_drawn_before_the_session_modules_are_imported(tmp_path: Path) -> None:
    _, project, env = _home(tmp_path)
    env["PYTHONPATH"] = str(REPO / "src")
    script = tmp_path / "frame.py"
    script.write_text(_FRAME_AND_MODULES)
    child = _spawn([sys.executable, str(script), "--provider", "fake", "--model", "fake-model"], project, env)
    child.expect("MODULES (.*)\r\n", timeout=60)
    before = child.before
    result = json.loads(child.match.group(1))
    child.expect(pexpect.EOF, timeout=30)
    assert result["drawn"] is True
    from pi.version import __version__

    assert f"v{__version__}" in before and "fake-model" in before and "(feature-x)" in before
    assert "\x1b[?1049h" in before  # on the alternate screen
    assert "\x1b_pi:c" not in before  # the editor's cursor marker is for the app's renderer, not the terminal
    assert result["loaded"] == []


def test_an_error_after_the_first_frame_is_printed_on_the_normal_screen(tmp_path: Path) -> None:
    agent_dir, project, env = _home(tmp_path)
    (agent_dir / "settings.json").write_text(json.dumps({"theme": "dark"}))
    pi = str(Path(sys.executable).parent / "pi")
    child = _spawn([pi, "--no-extensions", "--provider", "nosuch", "--model", "gone-1"], project, env)
    child.expect(pexpect.EOF, timeout=90)
    out = child.before
    child.close()
    assert child.exitstatus == 1
    assert "gone-1" in out.split("\x1b[?1049h", 1)[1]  # the frame was drawn with the flags' model
    left = out.rindex("\x1b[?1049l")
    assert 'Unknown provider "nosuch"' in out[left:], out[left:]


@pytest.mark.parametrize(
    ("argv", "settings", "project_settings", "shown"),
    [
        (["--provider", "p", "--model", "m-1"], {}, False, "m-1"),
        (["--model", "sonnet"], {}, False, None),  # a pattern: the registry resolves it
        (["--provider", "p", "--model", "m*"], {}, False, None),
        ([], {"defaultProvider": "p", "defaultModel": "m-2"}, False, "m-2"),
        ([], {"defaultModel": "m-2"}, False, None),
        ([], {"defaultProvider": "p", "defaultModel": "m-2", "enabledModels": ["a"]}, False, None),
        (["--approve"], {"defaultProvider": "p", "defaultModel": "m-2"}, True, "m-3"),
    ],
)
def test_the_model_is_shown_only_when_named_exactly(
    tmp_path: Path, argv: list[str], settings: dict[str, object], project_settings: bool, shown: str | None
) -> None:
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    if project_settings:
        (tmp_path / ".pi").mkdir()
        (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"defaultModel": "m-3"}))
    args = parse_args(argv)
    merged = cheap_settings(args, tmp_path, tmp_path)
    assert merged is not None
    assert model_label(args, merged) == shown


def test_untrusted_project_settings_skip_the_early_frame(tmp_path: Path) -> None:
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text("{}")
    assert cheap_settings(parse_args([]), tmp_path, tmp_path) is None
    (tmp_path / "settings.json").write_text("{not json")
    assert cheap_settings(parse_args(["--approve"]), tmp_path, tmp_path) is None


def test_a_config_warning_printed_while_the_frame_is_up_lands_on_the_normal_screen(tmp_path: Path) -> None:
    agent_dir, project, env = _home(tmp_path)
    (agent_dir / "auth.json").write_text("{not json")
    models = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "k"}
    models["models"] = [{"id": "fake-model", "contextWindow": 100000, "maxTokens": 4096}]  # type: ignore[assignment]
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": models}}))
    pi = str(Path(sys.executable).parent / "pi")
    child = _spawn([pi, "--no-extensions", "--provider", "fake", "--model", "fake-model"], project, env)
    child.logfile_read = seen = io.StringIO()
    child.expect("100k", timeout=90)  # the session's footer: the context window of the model
    child.sendcontrol("d")
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 0
    out = seen.getvalue()
    frame, rest = out.split("\x1b[?1049l", 1)  # the first frame, then the normal screen
    assert "fake-model" in frame and "auth.json" not in frame
    warning, ui = rest.split("\x1b[?1049h", 1)  # the warning, then the UI on the alternate screen again
    assert "auth.json" in warning
    assert "100k" in ui


class _Recorder(Terminal):
    def __init__(self) -> None:
        super().__init__({})
        self.out: list[str] = []
        self.write(self.enter_fullscreen_sequence(mouse=False))

    def write(self, data: str) -> None:
        self.out.append(data)

    @property
    def columns(self) -> int:
        return 80

    @property
    def rows(self) -> int:
        return 24


def test_stderr_and_log_warnings_are_held_until_the_app_takes_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    logger = logging.getLogger("pi")
    handler = logging.StreamHandler(sys.stderr)
    logger.addHandler(handler)
    try:
        terminal = _Recorder()
        frame = FirstFrame(terminal)  # type: ignore[arg-type]
        sys.stderr.write("Warning: settings.json has a problem\n")
        logging.getLogger("pi.app.test").warning("a logged warning")
        assert capsys.readouterr().err == ""
        taken: object = frame.take_over()
        assert taken is terminal
        assert "\x1b[?1049l" in terminal.out[-1]  # back on the normal screen
        assert capsys.readouterr().err == "Warning: settings.json has a problem\na logged warning\n"
        sys.stderr.write("after\n")
        assert capsys.readouterr().err == "after\n"
        frame.close()  # after the hand-over: nothing more to print
        assert capsys.readouterr().err == ""
    finally:
        logger.removeHandler(handler)
