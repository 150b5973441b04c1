"""Project trust: what needs a decision, the order decisions come from, and trust.json."""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from pi.app.tool_patterns import ToolSelection, select_tool_names
from pi.app.trust import (
    AskTrust,
    TrustChoice,
    TrustStoreError,
    canonical_dir,
    read_trust_store,
    resolve_project_trust,
    save_trust_decision,
    trust_prompt_options,
    trust_prompt_title,
    trust_requiring_resources,
    update_trust_store,
)

BUILTINS = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULTS = ("read", "bash", "edit", "write")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "proj"
    (path / ".pi").mkdir(parents=True)
    (path / ".pi" / "settings.json").write_text('{"defaultTools":["read"]}')
    return path


def started_tools(cwd: Path, agent: Path, home: Path, approve: bool | None = None) -> list[str]:
    """The tools a print-mode run would start with: the project's defaultTools count only when trusted."""
    decision = resolve_project_trust(cwd, agent, approve=approve, default_trust="ask", ask=None, home=home)
    project_default = None
    if decision.trusted:
        project_default = json.loads((cwd / ".pi" / "settings.json").read_text())["defaultTools"]
    selection = ToolSelection(project_default=project_default)
    return select_tool_names(BUILTINS, BUILTINS, DEFAULTS, selection)


def test_acceptance_project_default_tools_follow_the_trust_decision(project: Path, tmp_path: Path, home: Path) -> None:
    agent = tmp_path / "agent"
    assert started_tools(project, agent, home) == ["read", "bash", "edit", "write"]
    assert started_tools(project, agent, home, approve=True) == ["read"]
    (agent).mkdir()
    (agent / "trust.json").write_text(json.dumps({canonical_dir(project): True}))
    assert started_tools(project, agent, home) == ["read"]
    assert started_tools(project, agent, home, approve=False) == ["read", "bash", "edit", "write"]


def test_what_needs_a_decision(tmp_path: Path, home: Path) -> None:
    cwd = tmp_path / "repo" / "pkg"
    (cwd / ".pi").mkdir(parents=True)
    assert trust_requiring_resources(cwd, home) == []  # a bare .pi directory does not
    (cwd / ".pi" / "prompts").mkdir()
    (cwd / ".pi" / "SYSTEM.md").write_text("x")
    (tmp_path / "repo" / ".agents" / "skills").mkdir(parents=True)
    (home / ".agents" / "skills").mkdir(parents=True)
    found = trust_requiring_resources(cwd, home)
    assert found == [cwd / ".pi" / "prompts", cwd / ".pi" / "SYSTEM.md", tmp_path / "repo" / ".agents" / "skills"]


def test_nothing_to_gate_is_trusted_unless_saved_as_distrusted(tmp_path: Path, home: Path) -> None:
    cwd = tmp_path / "plain"
    cwd.mkdir()
    agent = tmp_path / "agent"
    decision = resolve_project_trust(cwd, agent, home=home)
    assert (decision.trusted, decision.source) == (True, "no_resources")
    save_trust_decision(agent, cwd, TrustChoice.DISTRUST)
    assert resolve_project_trust(cwd, agent, home=home).trusted is False


def test_default_project_trust_values(project: Path, tmp_path: Path, home: Path) -> None:
    agent = tmp_path / "agent"
    assert resolve_project_trust(project, agent, default_trust="always", home=home).trusted is True
    assert resolve_project_trust(project, agent, default_trust="never", home=home).trusted is False
    never_asked: list[Path] = []

    def ask(cwd: Path, resources: Sequence[Path]) -> TrustChoice:
        never_asked.append(cwd)
        return TrustChoice.TRUST

    assert resolve_project_trust(project, agent, default_trust="never", ask=ask, home=home).trusted is False
    assert never_asked == []


def test_asking_saves_persistent_answers_only(project: Path, tmp_path: Path, home: Path) -> None:
    agent = tmp_path / "agent"
    asked: list[tuple[Path, list[Path]]] = []

    def answer(choice: TrustChoice) -> AskTrust:
        def ask(cwd: Path, resources: Sequence[Path]) -> TrustChoice:
            asked.append((cwd, list(resources)))
            return choice

        return ask

    once = resolve_project_trust(project, agent, ask=answer(TrustChoice.TRUST_SESSION), home=home)
    assert (once.trusted, once.source) == (True, "prompt")
    assert asked == [(project, [project / ".pi" / "settings.json"])]
    assert read_trust_store(agent) == {}
    resolve_project_trust(project, agent, ask=answer(TrustChoice.TRUST), home=home)
    assert read_trust_store(agent) == {canonical_dir(project): True}
    saved = resolve_project_trust(project, agent, ask=answer(TrustChoice.DISTRUST), home=home)
    assert (saved.trusted, saved.source) == (True, "saved")  # not asked again
    assert len(asked) == 2


def test_trust_parent_saves_the_parent_and_removes_the_folder(project: Path, tmp_path: Path, home: Path) -> None:
    agent = tmp_path / "agent"
    save_trust_decision(agent, project, TrustChoice.DISTRUST)
    save_trust_decision(agent, project, TrustChoice.TRUST_PARENT)
    assert read_trust_store(agent) == {canonical_dir(project.parent): True}
    sibling = project.parent / "other"
    (sibling / ".pi").mkdir(parents=True)
    (sibling / ".pi" / "skills").mkdir()
    assert resolve_project_trust(sibling, agent, home=home).source == "saved"  # nearest ancestor decides


def test_extension_handlers_come_before_saved_decisions(project: Path, tmp_path: Path, home: Path) -> None:
    agent = tmp_path / "agent"
    save_trust_decision(agent, project, TrustChoice.TRUST)
    decision = resolve_project_trust(project, agent, handlers=[lambda cwd: None, lambda cwd: False], home=home)
    assert (decision.trusted, decision.source) == (False, "handler")


def test_running_from_home_ignores_the_store(tmp_path: Path, home: Path) -> None:
    agent = home / ".pi" / "agent"
    (home / ".pi" / "settings.json").parent.mkdir(parents=True, exist_ok=True)
    (home / ".pi" / "settings.json").write_text("{}")
    agent.mkdir(parents=True)
    (agent / "trust.json").write_text("not json")
    assert resolve_project_trust(home, agent, home=home).trusted is True


def test_store_format_is_sorted_two_space_json(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    update_trust_store(agent, {"/b": True, "/a": False})
    update_trust_store(agent, {"/c": True, "/b": None})
    assert (agent / "trust.json").read_text() == '{\n  "/a": false,\n  "/c": true\n}\n'
    assert (agent / "trust.json.lock").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1]", "Invalid trust store {p}: expected an object"),
        ('{"/x": "yes"}', 'Invalid trust store {p}: value for "/x" must be true, false, or null'),
        ("{oops", "Failed to read trust store {p}: "),
    ],
)
def test_store_errors_name_the_file(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "trust.json").write_text(content)
    with pytest.raises(TrustStoreError) as caught:
        read_trust_store(tmp_path)
    assert str(caught.value).startswith(message.format(p=tmp_path / "trust.json"))


def test_null_values_are_read_as_absent(tmp_path: Path) -> None:
    (tmp_path / "trust.json").write_text('{"/a": null, "/b": true}')
    assert read_trust_store(tmp_path) == {"/b": True}


def _save_many(agent: str, prefix: str) -> None:
    for i in range(20):
        update_trust_store(Path(agent), {f"/{prefix}/{i}": True})


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_save_many, args=(str(agent), name)) for name in ("a", "b", "c")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    assert len(read_trust_store(agent)) == 60


def test_prompt_texts(tmp_path: Path) -> None:
    assert trust_prompt_title(tmp_path) == (
        f"Trust project folder?\n{tmp_path}\n\nThis allows pi to load .pi settings and resources, install missing "
        "project packages, and execute project extensions."
    )
    labels = [label for _, label in trust_prompt_options(tmp_path)]
    assert labels == [
        "Trust",
        f"Trust parent folder ({Path(os.path.realpath(tmp_path)).parent})",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
    ]
