"""Tools are loaded when used: importing `pi.tools` or listing the tools builds nothing it need not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import pi.tools
from pi.tools import ALL_TOOL_NAMES, create_tool
from pi.tools.edit import create_edit_tool


def _run(code: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def test_package_names_load_their_module_on_first_access() -> None:
    code = (
        "import sys, pi.tools\n"
        "print(sorted(m for m in sys.modules if m.startswith('pi.tools.')) == [])\n"
        "from pi.tools import create_grep_tool, kill_tracked_process_groups\n"
        "print('pi.tools.grep' in sys.modules, 'pi.tools.shell' in sys.modules, 'pi.tools.ls' in sys.modules)\n"
    )
    assert _run(code) == ["True", "True", "True", "False"]


def test_unknown_package_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'create_teleport_tool'"):
        _ = pi.tools.create_teleport_tool
    assert "create_read_tool" in dir(pi.tools)


def test_building_one_tool_loads_only_its_modules() -> None:
    code = (
        "import sys, tempfile\n"
        "from pi.tools import create_tool\n"
        "tool = create_tool('bash', tempfile.gettempdir())\n"
        "print(tool.name, 'pi.tools.grep' in sys.modules, 'pi.tools.find' in sys.modules)\n"
    )
    assert _run(code) == ["bash", "False", "False"]


def test_create_tool_builds_every_name(tmp_path: Path) -> None:
    assert [create_tool(name, str(tmp_path)).name for name in ALL_TOOL_NAMES] == list(ALL_TOOL_NAMES)


def test_edit_tool_repairs_arguments_without_loading_the_engine_up_front(tmp_path: Path) -> None:
    code = (
        "import sys, tempfile\n"
        "from pi.tools.edit import create_edit_tool\n"
        "tool = create_edit_tool(tempfile.gettempdir())\n"
        "print('pi.tools.edit_engine' in sys.modules, 'pi.tools.diff' in sys.modules)\n"
    )
    assert _run(code) == ["False", "False"]
    tool = create_edit_tool(str(tmp_path))
    assert tool.prepare_arguments is not None
    repaired = tool.prepare_arguments({"path": "f", "edits": '[{"oldText": "a", "newText": "b"}]'})
    assert repaired == {"path": "f", "edits": [{"oldText": "a", "newText": "b"}]}
