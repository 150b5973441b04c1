"""A `pi` installation with a throwaway config and a loopback PEP 503 index, and the packages the tests build."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.app.packages.git_server import git
from tests.app.packages.index_server import SimpleIndex, build_wheel, serve
from tests.e2e.conftest import PI, Installed
from tests.support.openai_chunks import text_reply

MODEL = ["--provider", "fake-openai", "--model", "fake-model"]

EXTENSION = """\
{imports}

def setup(pi):
    def execute(tool_call_id, params, signal=None, on_update=None, ctx=None):
        return {{"content": [{{"type": "text", "text": "ok"}}]}}

    pi.register_tool({{
        "name": "{tool}",
        "label": "{tool}",
        "description": {description},
        "parameters": {{"type": "object", "properties": {{}}}},
        "execute": execute,
    }})
"""


def extension_source(tool: str, imports: str = "", description: str = "'A tool from a package'") -> str:
    return EXTENSION.format(imports=imports, tool=tool, description=description)


@dataclass
class World:
    """The installed `pi` with a throwaway config, online (loopback only) unless a run says otherwise."""

    installed: Installed
    index: SimpleIndex
    extra_env: dict[str, str] = field(default_factory=dict)
    """Set for every run (e.g. a test-only git configuration)."""

    @property
    def agent_dir(self) -> Path:
        return self.installed.agent_dir

    @property
    def cwd(self) -> Path:
        return self.installed.cwd

    def env(self, offline: bool = False) -> dict[str, str]:
        """The environment of a `pi` run: the temp home and agent dir, pip pointed at the loopback index."""
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith(("PI_", "PIP_"))}
        env.update(PI_CODING_AGENT_DIR=str(self.agent_dir), HOME=str(self.installed.home))
        env.update(PIP_INDEX_URL=self.index.url, PIP_NO_CACHE_DIR="1", PIP_CONFIG_FILE="/dev/null", PIP_NO_INPUT="1")
        env.update(self.extra_env)
        if offline:
            env["PI_OFFLINE"] = "1"
        return env

    def run(self, *args: str, stdin: str = "", offline: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PI), *args],
            cwd=self.cwd,
            env=self.env(offline),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=240,
        )

    def prompt(self, text: str) -> dict[str, Any]:
        """Run `pi -p <text>` offline against the scripted model; returns the provider request body."""
        return self.prompt_with(text=text)

    def prompt_with(self, *options: str, text: str = "hi") -> dict[str, Any]:
        """`prompt` with extra command-line options before `-p`."""
        before = len(self.installed.server.requests)
        self.installed.server.queue(text_reply("done"))
        done = self.run(*options, "-p", *MODEL, text, offline=True)
        assert done.returncode == 0, done.stderr
        body: dict[str, Any] = self.installed.server.requests[before].json()
        return body

    def settings(self, scope_dir: Path | None = None) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(((scope_dir or self.agent_dir) / "settings.json").read_text())
        return data


@pytest.fixture
def world(installed: Installed) -> Iterator[World]:
    with serve(SimpleIndex()) as index:
        yield World(installed, index)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def user_text(body: dict[str, Any]) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
    return text.strip()


def system_text(body: dict[str, Any]) -> str:
    return "".join(m["content"] for m in body["messages"] if m["role"] in ("system", "developer"))


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def demo_wheel(version: str, *, module: str = "pi_demo", shared: str | None = None) -> tuple[str, bytes]:
    """`pi-demo`: a prompt template, a skill and an entry-point extension importing its own helper dependency."""
    files = {
        f"{module}/__init__.py": f'VERSION = "{version}"\n',
        f"{module}/ext.py": extension_source("demo_tool", "from pi_demo_helper import GREETING", "GREETING"),
        f"{module}/pi.toml": 'prompts = ["prompts/*.md"]\nskills = ["skills/*"]\n',
        f"{module}/prompts/demo-hello.md": f"---\ndescription: Demo hello\n---\nHello $1 from pi-demo {version}\n",
        f"{module}/skills/demo-skill/SKILL.md": "---\nname: demo-skill\ndescription: Demonstrates skills\n---\nBody\n",
        f"{module}/CHANGELOG.md": f"# Changelog\n\n## [{version}]\n\n- Release {version} of pi-demo\n",
    }
    if shared:
        files[f"{shared}/__init__.py"] = ""
    entry_points = f"[pi.packages]\n{module} = {module}\n[pi.extensions]\nmain = {module}.ext:setup\n"
    return build_wheel("pi-demo", version, files, entry_points, requires=("pi-demo-helper",))


def add_demo(index: SimpleIndex, *versions: str) -> None:
    helper = build_wheel("pi-demo-helper", "1.0", {"pi_demo_helper/__init__.py": 'GREETING = "Greets from a helper"\n'})
    index.add("pi-demo-helper", *helper)
    for version in versions:
        index.add("pi-demo", *demo_wheel(version))


def local_package(root: Path) -> Path:
    write(root / "pi.toml", 'prompts = ["prompts/*.md"]\nextensions = ["extensions/*.py"]\n')
    write(root / "prompts" / "review.md", "---\ndescription: Review a file\n---\nReview $1 carefully.\n")
    write(root / "skills" / "local-skill" / "SKILL.md", "---\nname: local-skill\ndescription: A local skill\n---\n")
    write(root / "extensions" / "a.py", extension_source("tool_a"))
    write(root / "extensions" / "b.py", extension_source("tool_b"))
    return root


@pytest.fixture
def repos(tmp_path: Path) -> Path:
    """`acme/demo.git` (bare): tag v1 with one template text, then a second commit on main."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    write(work / "pi.toml", 'prompts = ["prompts/*.md"]\nextensions = ["extensions/*.py"]\n')
    write(work / "prompts" / "git-hello.md", "Hello from tag v1\n")
    write(work / "extensions" / "gitext.py", extension_source("git_tool"))
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "one")
    git(work, "tag", "v1")
    write(work / "prompts" / "git-hello.md", "Hello from main\n")
    git(work, "commit", "-q", "-am", "two")
    base = tmp_path / "repos"
    (base / "acme").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(work), str(base / "acme" / "demo.git"))
    return base
