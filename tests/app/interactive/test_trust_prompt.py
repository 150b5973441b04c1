"""When the startup trust question is asked, and the notice for an untrusted project."""

from __future__ import annotations

import json
from pathlib import Path

from pi.app.modes.interactive.trust_prompt import UNTRUSTED_NOTICE, trust_question_needed, untrusted_notice


def _project(tmp_path: Path, with_settings: bool = True) -> tuple[Path, Path]:
    cwd = tmp_path / "proj"
    (cwd / ".pi").mkdir(parents=True)
    if with_settings:
        (cwd / ".pi" / "settings.json").write_text("{}")
    agent = tmp_path / "agent"
    agent.mkdir()
    return cwd, agent


def test_asked_only_when_nothing_decides(tmp_path: Path) -> None:
    cwd, agent = _project(tmp_path)
    assert trust_question_needed(cwd, agent)
    (agent / "trust.json").write_text(json.dumps({str(cwd.resolve()): True}))
    assert not trust_question_needed(cwd, agent)
    (agent / "trust.json").unlink()
    (agent / "settings.json").write_text(json.dumps({"defaultProjectTrust": "never"}))
    assert not trust_question_needed(cwd, agent)
    assert not (agent / "trust.json").exists()


def test_no_question_without_project_resources(tmp_path: Path) -> None:
    cwd, agent = _project(tmp_path, with_settings=False)
    assert not trust_question_needed(cwd, agent)
    assert untrusted_notice(cwd, agent, None) is None


def test_untrusted_notice(tmp_path: Path) -> None:
    cwd, agent = _project(tmp_path)
    assert untrusted_notice(cwd, agent, None) == UNTRUSTED_NOTICE
    assert untrusted_notice(cwd, agent, False) == UNTRUSTED_NOTICE
    assert untrusted_notice(cwd, agent, True) is None
