"""Extensions deciding project trust (extension spec §6, AC 58/59 at this layer)."""

from __future__ import annotations

import json
from pathlib import Path

from pi.app.extensions.context import ProjectTrustContext
from pi.app.extensions.project_trust import resolve_trust_with_extensions
from pi.app.extensions.ui import NoOpUI

from .conftest import load_files, write


def project(root: Path) -> Path:
    cwd = root / "proj"
    write(cwd / ".pi" / "settings.json", "{}\n")
    return cwd


async def test_raising_handler_warns_and_falls_through(tmp_path: Path) -> None:
    """AC 59: the warning text, then the next handler decides."""
    cwd = project(tmp_path)
    bad = write(tmp_path / "bad.py", "def setup(pi):\n    pi.on('project_trust', lambda e, c: 1 / 0)\n")
    good = write(tmp_path / "good.py", "def setup(pi):\n    pi.on('project_trust', lambda e, c: {'trusted': 'yes'})\n")
    loaded = await load_files(bad, good, cwd=tmp_path)
    ctx = ProjectTrustContext(str(cwd), "print", NoOpUI())
    decision, diagnostics = await resolve_trust_with_extensions(
        loaded.loader.registry, ctx, cwd, tmp_path / "agent", home=tmp_path / "home"
    )
    assert [d.render() for d in diagnostics] == [f'Warning: Extension "{bad}" project_trust error: division by zero']
    assert (decision.trusted, decision.source) == (True, "handler")


async def test_undecided_falls_to_saved_and_remember_writes(tmp_path: Path) -> None:
    """AC 58 at this layer: a remembered yes overrides the saved parent's no and saves the cwd key."""
    cwd = project(tmp_path)
    agent = tmp_path / "agent"
    write(agent / "trust.json", json.dumps({str(tmp_path.resolve()): False}))
    undecided = write(
        tmp_path / "u.py", "def setup(pi):\n    pi.on('project_trust', lambda e, c: {'trusted': 'undecided'})\n"
    )
    loaded = await load_files(undecided, cwd=tmp_path)
    ctx = ProjectTrustContext(str(cwd), "print", NoOpUI())
    decision, _ = await resolve_trust_with_extensions(loaded.loader.registry, ctx, cwd, agent, home=tmp_path / "h")
    assert (decision.trusted, decision.source) == (False, "saved")

    yes = write(
        tmp_path / "y.py",
        "async def setup(pi):\n    async def h(e, c):\n"
        "        return {'trusted': 'yes', 'remember': True}\n    pi.on('project_trust', h)\n",
    )
    loaded = await load_files(yes, cwd=tmp_path)
    decision, _ = await resolve_trust_with_extensions(loaded.loader.registry, ctx, cwd, agent, home=tmp_path / "h")
    assert decision.trusted is True
    assert json.loads((agent / "trust.json").read_text())[str(cwd.resolve())] is True


async def test_flag_and_projects_without_resources_skip_handlers(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    asked = write(tmp_path / "a.py", "def setup(pi):\n    pi.on('project_trust', lambda e, c: c.record('asked'))\n")
    loaded = await load_files(asked, cwd=tmp_path)
    ctx = ProjectTrustContext(str(cwd), "print", NoOpUI())
    decision, diagnostics = await resolve_trust_with_extensions(
        loaded.loader.registry, ctx, cwd, tmp_path / "agent", approve=False, home=tmp_path / "h"
    )
    assert (decision.trusted, decision.source, diagnostics) == (False, "flag", [])
    plain = tmp_path / "plain"
    plain.mkdir()
    decision, _ = await resolve_trust_with_extensions(
        loaded.loader.registry, ctx, plain, tmp_path / "agent", home=tmp_path / "h"
    )
    assert (decision.trusted, decision.source) == (True, "no_resources")
