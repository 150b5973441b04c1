"""Completion in the editor: slash commands, arguments, @ files and Tab paths."""

from __future__ import annotations

from pathlib import Path

from pi.tui.autocomplete import AutocompleteProvider, Completion, SlashCommand
from pi.tui.component import CURSOR_MARKER
from pi.tui.editor import Editor
from pi.tui.text_width import strip_ansi
from pi.tui.theme import Theme, builtin_theme

DARK = builtin_theme("dark")
COMMANDS = [
    SlashCommand("settings", "Open settings menu"),
    SlashCommand("model", "Select model (opens selector UI)", "<provider/model>"),
    SlashCommand("tree", "Navigate session tree (switch branches)"),
    SlashCommand("thinking", "Set thinking level", "<level>"),
    SlashCommand("scoped-models", "Enable/disable models for Ctrl+P cycling"),
    SlashCommand("import", "Import a JSONL session, preserving its ID and working directory"),
    SlashCommand("review", "Review the diff", source="p"),
]
FILES = ["AGENTS.md", "README.md", "src/calc.py", "src/config.json", "docs/guide.md", "my notes/todo list.md"]


def models(name: str, text: str) -> list[Completion] | None:
    if name != "model":
        return None
    options = [("fake/fake-model", "fake-model", "fake"), ("fakea/fake-claude", "fake-claude", "fakea")]
    return [Completion(value=v, label=label, description=d, insert=v) for v, label, d in options if text in v]


def make(tmp_path: Path | None = None, theme: Theme | None = None) -> tuple[Editor, list[str]]:
    submitted: list[str] = []
    provider = AutocompleteProvider(
        COMMANDS,
        cwd=str(tmp_path or "/nonexistent"),
        argument_completer=models,
        list_files=lambda cwd: FILES,
        home=str(tmp_path or "/nonexistent"),
    )
    editor = Editor(theme or Theme.plain(), autocomplete=provider, on_submit=submitted.append, terminal_rows=35)
    return editor, submitted


def type_text(editor: Editor, text: str) -> None:
    for ch in text:
        editor.handle_input(ch)


def below_editor(editor: Editor, width: int = 110) -> list[str]:
    lines = [strip_ansi(line.replace(CURSOR_MARKER, "")).rstrip() for line in editor.render(width)]
    rules = [i for i, line in enumerate(lines) if line and set(line) == {"─"}]
    return lines[rules[1] + 1 :]


def test_slash_menu_rows_and_counter() -> None:
    editor, _ = make()
    type_text(editor, "/")
    assert below_editor(editor) == [
        "→ settings       Open settings menu",
        "  model          <provider/model> — Select model (opens selector UI)",
        "  tree           Navigate session tree (switch branches)",
        "  thinking       <level> — Set thinking level",
        "  scoped-models  Enable/disable models for Ctrl+P cycling",
        "  (1/7)",
    ]
    editor.handle_input("\x1b[A")
    assert below_editor(editor)[-1] == "  (7/7)"
    assert "→ review         [p] Review the diff" in below_editor(editor)


def test_slash_menu_colours() -> None:
    editor, _ = make(theme=DARK)
    type_text(editor, "/mo")
    rows = editor.render(110)[3:]
    assert rows[0] == DARK.fg("accent", "→ model          <provider/model> — Select model (opens selector UI)")
    assert rows[1] == "  scoped-models" + DARK.fg("muted", "  Enable/disable models for Ctrl+P cycling")


def test_filter_then_tab_accepts_and_enter_submits_a_command_name() -> None:
    editor, submitted = make()
    type_text(editor, "/mo")
    assert [row[2:].split()[0] for row in below_editor(editor)] == ["model", "scoped-models", "import"]
    editor.handle_input("\t")
    assert editor.get_text() == "/model " and not editor.is_autocomplete_open()
    editor.clear()
    type_text(editor, "/mo")
    editor.handle_input("\r")
    assert submitted == ["/model"]


def test_escape_closes_the_list_without_leaving_the_editor() -> None:
    editor, _ = make()
    type_text(editor, "/model f")
    assert below_editor(editor) == ["→ fake-model                      fake", "  fake-claude                     fakea"]
    assert editor.handle_input("\x1b")
    assert below_editor(editor) == []
    assert editor.get_text() == "/model f"


def test_argument_enter_accepts_without_submitting() -> None:
    editor, submitted = make()
    type_text(editor, "/model fake")
    editor.handle_input("\x1b[B")
    editor.handle_input("\r")
    assert editor.get_text() == "/model fakea/fake-claude"
    assert submitted == []


def test_at_file_completion_lists_directories_first() -> None:
    editor, _ = make()
    type_text(editor, "look at @")
    assert below_editor(editor) == [
        "→ src/                            src",
        "  docs/                           docs",
        "  my notes/                       my notes",
        "  AGENTS.md                       AGENTS.md",
        "  README.md                       README.md",
        "  (1/9)",
    ]
    type_text(editor, "calc")
    assert below_editor(editor) == ["→ calc.py                         src/calc.py"]
    editor.handle_input("\r")
    assert editor.get_text() == "look at @src/calc.py "
    assert not editor.is_autocomplete_open()


def test_at_directory_keeps_searching_and_spaces_are_quoted() -> None:
    editor, _ = make()
    type_text(editor, "(@src")
    editor.handle_input("\t")
    assert editor.get_text() == "(@src/"
    assert editor.is_autocomplete_open()
    editor.clear()
    type_text(editor, "@todo")
    editor.handle_input("\t")
    assert editor.get_text() == '@"my notes/todo list.md" '


def test_at_in_the_middle_of_a_word_does_not_complete() -> None:
    editor, _ = make()
    type_text(editor, "mail me@ex")
    assert not editor.is_autocomplete_open()


def test_tab_path_completion(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text("")
    (tmp_path / "src" / "config.json").write_text("")
    (tmp_path / ".hidden").write_text("")
    editor, _ = make(tmp_path)
    type_text(editor, "see ./s")
    editor.handle_input("\t")
    assert editor.get_text() == "see ./src/"
    assert not editor.is_autocomplete_open()
    editor.handle_input("\t")
    assert below_editor(editor) == ["→ calc.py", "  config.json"]
    type_text(editor, "co")
    assert below_editor(editor) == ["→ config.json"]
    editor.handle_input("\t")
    assert editor.get_text() == "see ./src/config.json"
    editor.clear()
    type_text(editor, "~/.h")
    editor.handle_input("\t")
    assert editor.get_text() == "~/.hidden"


def test_tab_with_quoted_path(tmp_path: Path) -> None:
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "a file.txt").write_text("")
    editor, _ = make(tmp_path)
    type_text(editor, 'open "my')
    editor.handle_input("\t")
    assert editor.get_text() == 'open "my dir/'
    editor.handle_input("\t")
    assert editor.get_text() == 'open "my dir/a file.txt"'


def test_max_visible_rows_setting() -> None:
    editor, _ = make()
    editor.autocomplete_max_visible = 3
    type_text(editor, "/")
    assert len(below_editor(editor)) == 4


def test_file_list_is_read_once_per_open_list() -> None:
    calls: list[str] = []

    def lister(cwd: str) -> list[str]:
        calls.append(cwd)
        return FILES

    editor = Editor(Theme.plain(), autocomplete=AutocompleteProvider(cwd="/w", list_files=lister))
    type_text(editor, "@do")
    assert calls == ["/w"]
    editor.handle_input("\x1b")
    type_text(editor, " @")
    assert calls == ["/w", "/w"]
    assert editor.is_autocomplete_open()
