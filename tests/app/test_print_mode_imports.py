"""What a `pi -p` run loads: only what its session uses, so that start-up stays short.

Each module below costs milliseconds to import (more when no bytecode is cached), and none of them is
needed by a print-mode run that calls bash against a plain-http model: tools that are not active,
the edit engine before any edit, the credential models without an auth.json, the HTML exporter,
the compaction machinery before a compaction, the xml package when there are no skills.
(httpx loads its command-line client whenever click is installed; that is httpx's choice, not ours.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli_env import MODEL, Env
from tests.support.openai_chunks import text_reply, tool_reply

# Runs `pi` in-process (its `main`, which returns instead of ending the process) and then writes the
# names of every module that really got loaded.
_RUN_AND_LIST_MODULES = """
import json, os, sys
from pi.app.cli import main

code = main(json.loads(os.environ["PI_ARGS"]))
loaded = sorted(name for name, module in sys.modules.items() if module is not None)
with open(os.environ["MODULES_OUT"], "w") as out:
    json.dump(loaded, out)
sys.exit(code)
"""

NOT_NEEDED = (
    "pi.tools.grep",
    "pi.tools.find",
    "pi.tools.ls",
    "pi.tools.edit_engine",
    "pi.tools.diff",
    "pi.session.export_html",
    # compaction: its control is loaded, the summarizer and the cut-point search only when it runs
    "pi.session.compaction.",
    "pi.session.summarize",
    "pi.session.cut_point",
    "pi.session.file_ops",
    "xml.sax",
    # the models of auth.json entries: this run has no auth.json (its key is in models.json)
    "pi.app.auth_credentials",
    # provider requests speak h11 over asyncio: no httpx (which would also load its command-line
    # client), no httpcore and no anyio
    "httpx",
    "httpcore",
    "anyio",
    "sniffio",
    "click",
    "pygments",
)


def loaded_modules(env: Env, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    out_file = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST_MODULES],
        cwd=env.cwd,
        env={**env.vars, "MODULES_OUT": str(out_file), "PI_ARGS": json.dumps(list(args))},
        capture_output=True,
        text=True,
        timeout=60,
    )
    modules: list[str] = json.loads(out_file.read_text()) if out_file.exists() else []
    return done, modules


def test_print_mode_run_loads_only_what_it_uses(env: Env, tmp_path: Path) -> None:
    env.server.queue(tool_reply([("bash", {"command": "echo hi"})]), text_reply("Done."))
    done, modules = loaded_modules(env, tmp_path, "-p", *MODEL, "say hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done.\n"
    # The run really went through the tools, the session and the HTTP client.
    for used in ("pi.tools.bash", "pi.tools.edit", "pi.session.manager", "h11"):
        assert used in modules
    assert [name for name in modules if name.startswith(NOT_NEEDED) or f"{name}." in NOT_NEEDED] == []


def test_an_edit_loads_the_edit_engine_when_it_runs(env: Env, tmp_path: Path) -> None:
    (env.cwd / "notes.txt").write_text("alpha\n")
    env.server.queue(
        tool_reply([("edit", {"path": "notes.txt", "edits": [{"oldText": "alpha", "newText": "beta"}]})]),
        text_reply("Edited."),
    )
    done, modules = loaded_modules(env, tmp_path, "-p", *MODEL, "edit it")
    assert done.returncode == 0, done.stderr
    assert (env.cwd / "notes.txt").read_text() == "beta\n"
    assert "pi.tools.edit_engine" in modules and "pi.tools.diff" in modules
