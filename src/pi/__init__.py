"""pi: a minimal terminal coding agent.

Sub-packages, from the bottom up: `pi.ai` (LLM layer), `pi.agent` (the loop), `pi.tools`,
`pi.session`, `pi.tui` and `pi.app` (the `pi` program). This module stays empty so that importing
any one layer does not drag in the others.
"""

from pi.version import __version__

__all__ = ["__version__"]
