"""What the chat says at startup, before the first prompt: terminal warnings and how to get a model."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

TMUX_EXTENDED_KEYS_OFF = (
    "tmux extended-keys is off. Modified Enter keys may not work. "
    "Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux."
)
TMUX_FORMAT_XTERM = (
    "tmux extended-keys-format is xterm. Pi works best with csi-u. "
    "Add `set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux."
)


def _tmux_option(name: str) -> str | None:
    tmux = shutil.which("tmux")
    if tmux is None:
        return None
    try:
        done = subprocess.run([tmux, "show", "-gv", name], capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def tmux_warnings(environ: Mapping[str, str]) -> list[str]:
    """Inside tmux: warn when modified keys (Shift+Enter, Alt+Enter) would not reach pi."""
    if not environ.get("TMUX"):
        return []
    keys = _tmux_option("extended-keys")
    if keys is None:
        return []
    if keys not in ("on", "always"):
        return [TMUX_EXTENDED_KEYS_OFF]
    if _tmux_option("extended-keys-format") == "xterm":
        return [TMUX_FORMAT_XTERM]
    return []


def no_model_help(agent_dir: Path) -> str:
    """How to connect a model when none is available (the UI still opens)."""
    return (
        "No model available. To connect one, set an API key in the environment (for example "
        "ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY) and restart pi, use /login, or add a "
        f"local OpenAI-compatible server (Ollama, LM Studio, vLLM) as a provider in {agent_dir / 'models.json'}."
    )


__all__ = ["TMUX_EXTENDED_KEYS_OFF", "TMUX_FORMAT_XTERM", "no_model_help", "tmux_warnings"]
