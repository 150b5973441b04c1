"""How often a `pi -p` start-up reads the settings files for their `packages` lists: once each.

Installing missing packages (before anything is drawn) and collecting the packages' resources share
what was read. Reads are counted with Python's `open` audit events in the real `pi` process; a read
belongs to the package code when `pi/app/packages/` is on the stack of the `open` call.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply

COUNTING_PI = """
import json, os, runpy, sys, traceback

package_code = os.sep + os.path.join("pi", "app", "packages") + os.sep
reads = {}

def count(event, args):
    if event != "open" or not isinstance(args[0], str) or not args[0].endswith("settings.json"):
        return
    if any(ch in (args[1] or "r") for ch in "wax+"):
        return
    if any(package_code in frame.filename for frame in traceback.extract_stack()):
        reads[args[0]] = reads.get(args[0], 0) + 1

sys.addaudithook(count)
sys.argv = ["pi", *sys.argv[2:]]
try:
    runpy.run_module("pi", run_name="__main__")
finally:
    with open(os.environ["READS_OUT"], "w") as out:
        json.dump(reads, out)
"""


def _local_package(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1.0.0"\n')
    return root


def test_a_print_run_reads_each_settings_files_packages_once(env: Env, tmp_path: Path) -> None:
    user_settings = env.agent_dir / "settings.json"
    user_settings.write_text(json.dumps({"packages": [str(_local_package(tmp_path / "user-pkg"))]}))
    project_settings = env.cwd / ".pi" / "settings.json"
    project_settings.parent.mkdir()
    project_settings.write_text(json.dumps({"packages": [str(_local_package(tmp_path / "project-pkg"))]}))
    script = tmp_path / "counting_pi.py"
    script.write_text(COUNTING_PI)
    out = tmp_path / "reads.json"
    env.server.queue(text_reply("hello there"))
    result = subprocess.run(
        [sys.executable, str(script), "--", "-p", "--approve", *MODEL, "hi"],
        cwd=env.cwd,
        env={**env.vars, "READS_OUT": str(out)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "hello there" in result.stdout
    assert json.loads(out.read_text()) == {str(user_settings): 1, str(project_settings): 1}
