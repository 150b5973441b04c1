"""Context files, prompt templates, skills and the assembled system prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.app.context_files import load_context_files
from pi.app.prompt_templates import expand_prompt_template, load_prompt_templates, split_args, substitute_args
from pi.app.resources import ResourceOptions, load_resources
from pi.app.skills import expand_skill_command, format_skills_for_prompt, load_skills, skill_roots


def test_context_files_global_first_then_root_to_cwd(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "AGENTS.md").write_text("global")
    parent = tmp_path / "repo"
    cwd = parent / "pkg"
    cwd.mkdir(parents=True)
    (parent / "CLAUDE.md").write_text("parent")
    (cwd / "AGENTS.md").write_text("cwd agents")
    (cwd / "CLAUDE.md").write_text("ignored: AGENTS.md wins in the same directory")
    files = load_context_files(cwd, agent)
    assert [f.content for f in files] == ["global", "parent", "cwd agents"]


def test_template_arguments() -> None:
    assert split_args("""one "two words" 'three x' four""") == ["one", "two words", "three x", "four"]
    assert substitute_args("$1|$2|$@|$ARGUMENTS|${@:2}|${@:2:1}|$9", ["a", "b", "c"]) == ("a|b|a b c|a b c|b c|b|")
    assert substitute_args("$1 and $2", ["$2", "x"]) == "$2 and x"


def test_templates_load_and_expand(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: Review code\n---\nReview $1 focusing on ${@:2}\n")
    (prompts / "plain.md").write_text("\n" + "x" * 80 + "\n")
    templates = load_prompt_templates([(prompts, "user")])
    by_name = {t.name: t for t in templates}
    assert by_name["review"].description == "Review code"
    assert by_name["plain"].description == "x" * 60 + "..."
    assert expand_prompt_template('/review src/a.py "error handling" tests', templates).strip() == (
        "Review src/a.py focusing on error handling tests"
    )
    assert expand_prompt_template("/unknown thing", templates) == "/unknown thing"


def _skill(root: Path, name: str, description: str | None, body: str = "Do the thing.") -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    head = f"name: {name}\n" + (f"description: {description}\n" if description is not None else "")
    path = directory / "SKILL.md"
    path.write_text(f"---\n{head}---\n{body}\n")
    return path


def test_skills_discovery_rules_and_prompt_block(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    good = _skill(root, "pdf-tools", "Work with <PDF> files & forms")
    _skill(root, "no-desc", None)
    result = load_skills([(root, "user")])
    assert [s.name for s in result.skills] == ["pdf-tools"]
    assert any("no description" in w for w in result.warnings)
    block = format_skills_for_prompt(result.skills)
    assert "<name>pdf-tools</name>" in block
    assert "<description>Work with &lt;PDF&gt; files &amp; forms</description>" in block
    assert f"<location>{good}</location>" in block
    expanded = expand_skill_command("/skill:pdf-tools fill the form", result.skills)
    assert expanded.startswith(f'<skill name="pdf-tools" location="{good}">\nReferences are relative to {good.parent}.')
    assert expanded.endswith("</skill>\n\nfill the form")


def test_skill_roots_walk_up_to_git_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    cwd = repo / "a" / "b"
    cwd.mkdir(parents=True)
    roots = [p for p, _ in skill_roots(cwd, tmp_path / "agent", tmp_path / "home", repo)]
    assert roots[-1] == repo / ".agents" / "skills"
    assert cwd / ".agents" / "skills" in roots
    assert tmp_path / ".agents" / "skills" not in roots


def test_override_replaces_agents_md_in_its_directory_only(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    repo = tmp_path / "repo"
    cwd = repo / "pkg"
    cwd.mkdir(parents=True)
    (repo / "AGENTS.md").write_text("repo agents")
    (cwd / "AGENTS.md").write_text("pkg agents")
    (cwd / "AGENTS.override.md").write_text("\ufeffpkg override")
    (repo / "sub").mkdir()
    files = load_context_files(cwd, agent)
    assert [f.content for f in files] == ["repo agents", "pkg override"]


def test_uppercase_names_and_directories_named_like_context_files(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").mkdir()  # a directory is skipped, the next name is used
    (tmp_path / "CLAUDE.MD").write_text("claude upper")
    assert [f.content for f in load_context_files(tmp_path, tmp_path / "agent")] == ["claude upper"]


def test_nested_linked_worktree_does_not_load_the_main_checkouts_copy(tmp_path: Path) -> None:
    main = tmp_path / "main"
    (main / ".git" / "worktrees" / "feature").mkdir(parents=True)
    (main / "AGENTS.md").write_text("main branch copy")
    worktree = main / ".worktrees" / "feature"
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'feature'}\n")
    (worktree / "AGENTS.md").write_text("feature branch copy")
    assert [f.content for f in load_context_files(worktree, tmp_path / "agent")] == ["feature branch copy"]
    (worktree / "AGENTS.md").unlink()
    assert [f.content for f in load_context_files(worktree, tmp_path / "agent")] == ["main branch copy"]


def test_template_placeholders_with_defaults() -> None:
    content = "${1:-one}|${2:-two}|${@:-none}|${ARGUMENTS:-none}|$3"
    assert substitute_args(content, ["a", "", "c"]) == "a|two|a  c|a  c|c"
    assert substitute_args(content, []) == "one|two|none|none|"


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ('a "" c', ["a", "", "c"]),
        ("don't stop", ["don't", "stop"]),
        ("'it\\'s'", ["it's"]),
        ('"say \\"hi\\"" x', ['say "hi"', "x"]),
        ('"a\\b"', ["a\\b"]),
        ('one "unclosed two', ["one", '"unclosed', "two"]),
        ("line1\nline2\tthree", ["line1", "line2", "three"]),
        ('mid"dle quote"', ['mid"dle', 'quote"']),
    ],
)
def test_template_argument_splitting(text: str, args: list[str]) -> None:
    assert split_args(text) == args


def test_template_argument_positions_are_kept_for_empty_arguments(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text("1=[$1] 2=[$2] 3=[$3]")
    templates = load_prompt_templates([(tmp_path, "user")])
    assert expand_prompt_template('/t a "" c', templates) == "1=[a] 2=[] 3=[c]"
    assert expand_prompt_template("/t don't", templates) == "1=[don't] 2=[] 3=[]"


def test_skill_loading_rules(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    root.mkdir()
    (root / "README.md").write_text("# About these skills\n")  # no description: silently not a skill
    (root / "quick.md").write_text("---\ndescription: A root-level skill\n---\nbody\n")
    other = _skill(root, "group", None)  # a grouping directory without description...
    other.unlink()
    _skill(root / "group", "inner", "Nested skill")  # ...holding a skill
    named = root / "dir-name" / "SKILL.md"
    named.parent.mkdir()
    named.write_text("---\nname: other-name\ndescription: Name differs from its directory\n---\n")
    stop = _skill(root, "outer", "Outer skill")
    _skill(stop.parent, "hidden-below", "Never found: outer is a skill, so its directory is not searched")
    _skill(root / ".hidden", "dot", "In a dot directory")
    _skill(root / "node_modules", "nm", "In node_modules")
    _skill(root / "ignored", "ig", "Ignored by .gitignore")
    (root / ".gitignore").write_text("ignored/\n")
    result = load_skills([(root, "user")])
    assert sorted(s.name for s in result.skills) == ["inner", "other-name", "outer", "quick"]
    assert result.warnings == []


def test_skill_conflicts_are_reported_apart_from_warnings(tmp_path: Path) -> None:
    _skill(tmp_path / "a", "same", "First")
    _skill(tmp_path / "b", "same", "Second")
    result = load_skills([(tmp_path / "a", "user"), (tmp_path / "b", "project")])
    assert [s.description for s in result.skills] == ["First"]
    assert result.warnings == []
    assert len(result.conflicts) == 1 and "already loaded from" in result.conflicts[0]


def test_untrusted_project_resources_are_not_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    agent = tmp_path / "agent"
    cwd = tmp_path / "proj"
    (cwd / ".pi" / "prompts").mkdir(parents=True)
    (cwd / ".pi" / "prompts" / "deploy.md").write_text("deploy it")
    (cwd / ".pi" / "SYSTEM.md").write_text("project system prompt")
    (cwd / ".pi" / "APPEND_SYSTEM.md").write_text("project addendum")
    (cwd / "AGENTS.md").write_text("context files always load")
    _skill(cwd / ".agents" / "skills", "proj-skill", "Project skill")
    trusted = load_resources(cwd, agent, ResourceOptions(project_trusted=True))
    assert [t.name for t in trusted.templates] == ["deploy"]
    assert [s.name for s in trusted.skills] == ["proj-skill"]
    assert (trusted.custom_system_prompt, trusted.append_system_prompt) == ("project system prompt", "project addendum")
    untrusted = load_resources(cwd, agent, ResourceOptions(project_trusted=False))
    assert untrusted.templates == [] and untrusted.skills == []
    assert untrusted.custom_system_prompt is None and untrusted.append_system_prompt is None
    assert [f.content for f in untrusted.context_files] == ["context files always load"]


def test_append_system_prompt_values_are_joined(tmp_path: Path) -> None:
    (tmp_path / "extra.md").write_text("from a file")
    options = ResourceOptions(append_system_prompt=["first", "extra.md"], no_context_files=True)
    assert load_resources(tmp_path, tmp_path / "agent", options).append_system_prompt == "first\n\nfrom a file"


def test_problems_are_grouped_under_their_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    agent = tmp_path / "agent"
    _skill(agent / "skills", "no-desc", None)
    _skill(agent / "skills", "dup", "First")
    _skill(tmp_path / "more", "dup", "Second")
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "bad.md").write_text("---\nx: [\n---\n")
    (tmp_path / "unreadable.md").write_bytes(b"\xff\xfe")
    options = ResourceOptions(extra_skill_paths=["more"], system_prompt="unreadable.md", no_context_files=True)
    groups = dict(load_resources(tmp_path, agent, options).diagnostic_groups())
    assert list(groups) == [
        "[Skill warnings]",
        "[Skill conflicts]",
        "[Prompt template warnings]",
        "[Resource warnings]",
    ]
    assert "no description" in groups["[Skill warnings]"][0]
    assert 'Skill "dup"' in groups["[Skill conflicts]"][0]
    assert groups["[Prompt template warnings]"][0].startswith(
        f"Skipping prompt template {agent / 'prompts' / 'bad.md'}"
    )
    assert groups["[Resource warnings]"][0].startswith("Could not read system prompt file")
