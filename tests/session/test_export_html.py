"""HTML export: one self-contained page, every piece of session content escaped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi.session import SessionManager
from pi.session.export_html import export_session_html, script_json
from tests.session.builders import assistant, call, result, user

EVIL = "<script>alert(1)</script>"


def _session(tmp_path: Path) -> SessionManager:
    manager = SessionManager.create("/p", session_dir=tmp_path)
    manager.append_model_change("prov", "m1")
    first = manager.append_message(user(f"hello {EVIL}"))
    manager.append_message(assistant(f"answer {EVIL}", calls=[call("bash", command=f"echo '{EVIL}'")], total_tokens=10))
    manager.append_message(result(f"out {EVIL}</pre>"))
    manager.append_label_change(first, f"lbl {EVIL}")
    manager.branch(first)
    manager.append_message(assistant("other branch"))
    return manager


def test_export_escapes_everything_and_marks_the_active_branch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manager = _session(tmp_path)
    monkeypatch.chdir(tmp_path)
    output = export_session_html(manager)
    file = manager.get_session_file()
    assert file is not None
    assert output == tmp_path / f"pi-session-{file.stem}.html"
    page = output.read_text()
    assert "<script>alert(1)</script>" not in page
    assert page.count("<script") == 2
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "http://" not in page and "https://" not in page
    data = re.search(r'<script type="application/json" id="session-data">(.*?)</script>', page, re.S)
    assert data is not None
    parsed = json.loads(data.group(1))
    assert parsed["leafId"] == manager.get_leaf_id()
    assert set(parsed["parents"]) == {e.id for e in manager.get_entries()}
    assert manager.get_session_id() in page and "prov/m1" in page
    leaf = manager.get_leaf_id()
    assert f'class="node on-path selected" data-id="{leaf}"' in page
    hidden_tool_result = manager.get_entries()[3].id
    assert f'id="e-{hidden_tool_result}" data-id="{hidden_tool_result}" hidden' in page
    assert "<details>" in page


def test_script_json_cannot_close_the_script_element() -> None:
    text = script_json({"x": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"x": "</script><!-- & \u2028"}


def test_export_from_a_path_to_a_chosen_file(tmp_path: Path) -> None:
    manager = _session(tmp_path)
    output = export_session_html(manager.get_session_file() or "", tmp_path / "out" / "page.html")
    assert output.exists() and output.read_text().startswith("<!DOCTYPE html>")


def test_export_of_a_missing_file_is_an_error_not_an_empty_page(tmp_path: Path) -> None:
    missing = tmp_path / "nothere.jsonl"
    with pytest.raises(FileNotFoundError, match=r"nothere\.jsonl"):
        export_session_html(missing, tmp_path / "page.html")
    assert not (tmp_path / "page.html").exists() and not missing.exists()


def test_a_pi_1_6_session_exports_its_system_prompt_without_unknown_role_notes(tmp_path: Path) -> None:
    fixture = Path(__file__).parent / "fixtures" / "ts16" / "handmade_edits_usage.jsonl"
    target = tmp_path / fixture.name
    target.write_bytes(fixture.read_bytes())
    output = export_session_html(SessionManager.open(target), tmp_path / "out.html")
    page = output.read_text()
    assert "unknown role" not in page
    assert "System prompt and tools" in page and "Hand-written preamble for a fixture." in page
    assert "Tools removed: write" in page
    assert 'id="search"' in page and "Usage outside the conversation: cache_warm" in page
    assert "left out of the context" in page and "content replaced in the context" in page
    assert "1100 input" in page  # five replies of 120 and the cache-warming request of 500


def test_replies_and_summaries_render_as_markdown(tmp_path: Path) -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message(user("**not markdown** in a user message"))
    kept = manager.append_message(assistant("## Done\n\n- **one** thing"))
    manager.append_compaction("## Goal\nShip it", kept, 10)
    page = export_session_html(manager, tmp_path / "md.html").read_text()
    assert "<h2>Done</h2><ul><li><strong>one</strong> thing</li></ul>" in page
    assert "<h2>Goal</h2>" in page and "**not markdown** in a user message" in page
