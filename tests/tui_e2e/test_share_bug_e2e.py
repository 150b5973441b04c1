"""/share and /bug in the real `pi` in tmux.

/share goes through the GitHub CLI; the test puts a stand-in `gh` on PATH that records its
arguments and answers as gh does (a gist URL on stdout), so the whole flow runs without a network.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from tests.support.http_server import ScriptedServer
from tests.tui_e2e.anthropic_chunks import anthropic_reply
from tests.tui_e2e.harness import TmuxPi

FAKE_GH = """#!/bin/sh
echo "$@" >> "{log}"
if [ "$1" = auth ]; then exit {auth_code}; fi
if [ "$1" = gist ]; then
  for last in "$@"; do :; done
  grep -q "share this please" "$last" && echo "uploaded $(basename "$last")" >> "{log}"
  echo "https://gist.github.com/tester/0123abcd"
fi
"""


def _gh(root: Path, auth_code: int = 0) -> tuple[Path, Path]:
    bin_dir = root / "fakebin"
    bin_dir.mkdir()
    log = root / "gh.log"
    script = bin_dir / "gh"
    script.write_text(FAKE_GH.format(log=log, auth_code=auth_code))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir, log


def _chatted(pi: TmuxPi, server: ScriptedServer, env: dict[str, str] | None = None) -> None:
    server.queue(anthropic_reply("Shared reply."))
    pi.start("--use-theme", "dark", "--tui-mode", "regular", env=env)
    pi.wait_for("fake-claude • medium")
    pi.chat("share this please", "Shared reply.")


def test_share_creates_a_secret_gist(make_pi: Any, server: ScriptedServer) -> None:
    """/share exports the session to session.html, runs `gh gist create --public=false`, and shows the
    viewer URL with the gist id and the gist URL."""
    pi: TmuxPi = make_pi()
    bin_dir, log = _gh(pi.root)
    _chatted(pi, server, {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    pi.submit("/share")
    text = pi.wait_for("Gist: https://gist.github.com/tester/0123abcd")
    assert "Share URL: https://pi.dev/session/#0123abcd" in text
    calls = log.read_text().splitlines()
    assert calls[0] == "auth status"
    assert calls[1].startswith("gist create --public=false ") and calls[1].endswith("session.html")
    assert calls[2] == "uploaded session.html"


def test_share_without_gh_or_login(make_pi: Any, server: ScriptedServer) -> None:
    """Without gh on PATH the message says how to get it; with gh logged out, how to log in."""
    pi: TmuxPi = make_pi()
    empty = pi.root / "nobin"
    empty.mkdir()
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "gh").exists())
    _chatted(pi, server, {"PATH": f"{empty}{os.pathsep}{path}"})
    pi.submit("/share")
    pi.wait_for("GitHub CLI (gh) is not installed.")
    logged_out: TmuxPi = make_pi()
    bin_dir, _log = _gh(logged_out.root, auth_code=1)
    _chatted(logged_out, server, {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    logged_out.type("/share")
    logged_out.keys("Enter")
    logged_out.wait_for("GitHub CLI is not logged in. Run 'gh auth login' first.")


def test_bug_writes_a_redacted_report(make_pi: Any, server: ScriptedServer) -> None:
    """/bug asks whether to include the conversation and writes a redacted report file."""
    pi: TmuxPi = make_pi()
    _chatted(pi, server, {"MY_SERVICE_TOKEN": "supersecret-value-123"})
    pi.type("/bug the reply was odd, token supersecret-value-123 sk-abcdefghijklmnop")
    pi.keys("Enter")
    pi.wait_for("Include the conversation")
    pi.keys("Enter")
    text = pi.wait_for("Bug report written to ", history=True)
    reports = list((pi.agent_dir / "bug-reports").glob("pi-bug-*.md"))
    assert len(reports) == 1
    body = reports[0].read_text()
    assert "the reply was odd" in body and "share this please" in body and "Shared reply." in body
    assert "supersecret-value-123" not in body and "sk-abcdefghijklmnop" not in body
    assert "[redacted]" in body
    assert str(pi.home) not in body
    assert reports[0].name in text.replace("\n", "")
