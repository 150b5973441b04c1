"""Two pi processes that find the same stale token refresh it once: the second waits on the lock and re-reads."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.http_server import ScriptedServer, json_response

SCRIPT = """
import asyncio, sys
import msgspec.structs
from pathlib import Path
from pi.app.oauth.flows.anthropic import AnthropicFlow
from pi.app.oauth.flows.base import OAuthContext
from pi.app.oauth.providers import ProviderTable
from pi.app.oauth.refresh import fresh_credential
from pi.app.oauth.store import OAuthStore
table = ProviderTable()
ctx = OAuthContext(msgspec.structs.replace(table, anthropic=table.anthropic.with_base(sys.argv[2])))
entry = asyncio.run(fresh_credential(OAuthStore(Path(sys.argv[1])), AnthropicFlow(), ctx))
print(entry["access"])
"""


def _waiters(inode: int) -> int:
    with open("/proc/locks") as locks:
        return sum(1 for line in locks if "->" in line and f":{inode} " in line)


def test_concurrent_processes_refresh_once(tmp_path: Path, stub: ScriptedServer) -> None:
    auth = tmp_path / "auth.json"
    expires = int(time.time() * 1000) + 4 * 60_000
    auth.write_text(json.dumps({"anthropic": {"type": "oauth", "access": "old", "refresh": "r0", "expires": expires}}))
    os.chmod(auth, 0o600)
    stub.queue(json_response(200, {"access_token": "new", "refresh_token": "r1", "expires_in": 3600}))
    lock_path = tmp_path / "auth.json.lock"
    with open(lock_path, "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        procs = [
            subprocess.Popen([sys.executable, "-c", SCRIPT, str(auth), stub.url], stdout=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        deadline = time.monotonic() + 30
        while _waiters(os.stat(lock_path).st_ino) < 2:
            assert time.monotonic() < deadline, "the processes never reached the lock"
            assert all(p.poll() is None for p in procs)
            time.sleep(0.01)
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    outputs = [p.communicate(timeout=30)[0].strip() for p in procs]
    assert outputs == ["new", "new"]
    assert len(stub.requests) == 1
