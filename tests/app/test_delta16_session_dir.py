"""The `pi` process end to end: where sessions go (delta-1.6 §1.2 `--session-dir`, §6 `sessionDir`, §7.6)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.cli_env import MODEL, PI, Env
from tests.support.openai_chunks import text_reply


def _run(env: Env, *args: str, extra_env: dict[str, str] | None = None) -> None:
    env.server.queue(text_reply("ok"))
    done = subprocess.run(
        [*PI, "-p", *MODEL, *args, "hi"],
        cwd=env.cwd,
        env={**env.vars, **(extra_env or {})},
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def _files(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*.jsonl")) if directory.exists() else []


def _set(path: Path, **values: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**data, **values}))


def test_the_environment_variable_chooses_the_directory(env: Env, tmp_path: Path) -> None:
    chosen = tmp_path / "from-env"
    _run(env, extra_env={"PI_CODING_AGENT_SESSION_DIR": str(chosen)})
    assert len(_files(chosen)) == 1
    assert _files(env.agent_dir / "sessions") == []


def test_the_flag_wins_over_the_environment_variable(env: Env, tmp_path: Path) -> None:
    flag, variable = tmp_path / "from-flag", tmp_path / "from-env"
    _run(env, "--session-dir", str(flag), extra_env={"PI_CODING_AGENT_SESSION_DIR": str(variable)})
    assert len(_files(flag)) == 1 and _files(variable) == []


def test_the_setting_is_used_last_relative_to_the_project_even_when_untrusted(env: Env, tmp_path: Path) -> None:
    _set(env.agent_dir / "settings.json", sessionDir=str(tmp_path / "global-setting"))
    _set(env.cwd / ".pi" / "settings.json", sessionDir="kept-sessions")
    _run(env)
    assert len(_files(env.cwd / "kept-sessions")) == 1
    assert _files(tmp_path / "global-setting") == []
    variable = tmp_path / "from-env"
    _run(env, extra_env={"PI_CODING_AGENT_SESSION_DIR": str(variable)})
    assert len(_files(variable)) == 1 and len(_files(env.cwd / "kept-sessions")) == 1


def test_continue_looks_in_the_chosen_directory(env: Env, tmp_path: Path) -> None:
    chosen = {"PI_CODING_AGENT_SESSION_DIR": str(tmp_path / "sessions-here")}
    _run(env, extra_env=chosen)
    _run(env, "-c", extra_env=chosen)
    (session,) = _files(tmp_path / "sessions-here")
    users = [line for line in session.read_text().splitlines() if '"role":"user"' in line]
    assert len(users) == 2
