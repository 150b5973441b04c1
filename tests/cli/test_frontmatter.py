"""Skill and template headers are YAML: nesting, lists and block scalars mean what YAML says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from pi.app.frontmatter import FrontmatterError, parse_yaml_header, split_frontmatter
from pi.app.prompt_templates import load_prompt_templates
from pi.app.skills import load_skills


def test_nested_maps_and_lists_keep_their_structure() -> None:
    text = (
        "---\nname: pdf\ndescription: Work with PDFs\nmetadata:\n  author: ada\n  tags:\n    - docs\n    - pdf\n"
        "allowed-tools: [read, bash]\n---\nbody\n"
    )
    fields, body = split_frontmatter(text)
    assert fields["metadata"] == {"author": "ada", "tags": ["docs", "pdf"]}
    assert fields["allowed-tools"] == ["read", "bash"]
    assert body == "body\n"


def test_literal_block_keeps_line_breaks_and_indentation() -> None:
    text = "---\ndescription: |\n  First line\n    indented line\n  last\n---\n"
    fields, _ = split_frontmatter(text)
    assert fields["description"] == "First line\n  indented line\nlast\n"


def test_folded_block_joins_lines() -> None:
    fields, _ = split_frontmatter("---\ndescription: >-\n  one\n  two\n\n  three\n---\n")
    assert fields["description"] == "one two\nthree"


def test_quoted_values_and_escapes() -> None:
    text = "---\na: \"say \\\"hi\\\"\\nthen: go\"\nb: 'it''s # not a comment'\nc: plain # a comment\n---\n"
    fields, _ = split_frontmatter(text)
    assert fields == {"a": 'say "hi"\nthen: go', "b": "it's # not a comment", "c": "plain"}


def test_typed_scalars_are_yaml_types() -> None:
    fields, _ = split_frontmatter("---\ndisable-model-invocation: true\nversion: 2\nempty:\n---\n")
    assert fields == {"disable-model-invocation": True, "version": 2, "empty": None}


def test_crlf_and_bom_are_accepted() -> None:
    fields, body = split_frontmatter("\ufeff---\r\ndescription: x\r\n---\r\nbody")
    assert fields == {"description": "x"}
    assert body == "body"


def test_no_closing_fence_means_no_frontmatter() -> None:
    assert split_frontmatter("---\ndescription: x\nno end") == ({}, "---\ndescription: x\nno end")
    assert split_frontmatter("plain text") == ({}, "plain text")


@pytest.mark.parametrize(
    "header",
    ["description: [unclosed", "a: b: c", "- just\n- a list", "key: value\n  bad: indent"],
)
def test_malformed_yaml_raises_a_clear_error(header: str) -> None:
    with pytest.raises(FrontmatterError, match="frontmatter"):
        split_frontmatter(f"---\n{header}\n---\nbody")


def test_malformed_template_is_skipped_with_a_warning_naming_it(tmp_path: Path) -> None:
    (tmp_path / "bad.md").write_text("---\ndescription: [oops\n---\nbody\n")
    (tmp_path / "good.md").write_text("---\ndescription: fine\nargument-hint: <file>\n---\nbody\n")
    warnings: list[str] = []
    templates = load_prompt_templates([(tmp_path, "user")], warnings)
    assert [(t.name, t.argument_hint) for t in templates] == [("good", "<file>")]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"Skipping prompt template {tmp_path / 'bad.md'}: invalid YAML frontmatter")


def test_malformed_skill_is_skipped_with_a_warning_naming_it(tmp_path: Path) -> None:
    skill = tmp_path / "broken" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text("---\nname: broken\ndescription: 'unterminated\n---\n")
    result = load_skills([(tmp_path, "user")])
    assert result.skills == []
    assert result.warnings and result.warnings[0].startswith(f"Skipping skill {skill}: invalid YAML frontmatter")


def test_multiline_description_of_a_skill_is_loaded_whole(tmp_path: Path) -> None:
    skill = tmp_path / "multi" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text("---\ndescription: >\n  Fill PDF forms\n  and merge files.\nmetadata:\n  v: 1\n---\nbody\n")
    (loaded,) = load_skills([(tmp_path, "user")]).skills
    assert loaded.description == "Fill PDF forms and merge files."


def test_simple_headers_do_not_import_the_yaml_parser(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from pi.app.frontmatter import split_frontmatter\n"
        "text = '---\\nname: lint\\ndescription: Run the linters, then fix (all) issues.\\n---\\n'\n"
        "fields, _ = split_frontmatter(text)\n"
        "assert fields == {'name': 'lint', 'description': 'Run the linters, then fix (all) issues.'}, fields\n"
        "print('yaml' in sys.modules)\n"
        "split_frontmatter('---\\nmetadata:\\n  a: 1\\n---\\n')\n"
        "print('yaml' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["False", "True"]


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,;()/_'\"+=!?$%^&~<>-:#|>{}[]*@`", max_size=20)


@given(
    st.lists(
        st.tuples(st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,8}", fullmatch=True), _WORD),
        min_size=1,
        max_size=5,
    )
)
def test_the_fast_path_reads_exactly_what_yaml_reads(pairs: list[tuple[str, str]]) -> None:
    lines = [f"{key}: {value}" for key, value in pairs]
    try:
        expected = yaml.safe_load("\n".join(lines))
    except yaml.YAMLError:
        with pytest.raises(FrontmatterError):
            parse_yaml_header(lines)
        return
    if not isinstance(expected, dict):
        return  # not a mapping: covered by the malformed-header tests
    assert parse_yaml_header(lines) == {str(k): v for k, v in expected.items()}
