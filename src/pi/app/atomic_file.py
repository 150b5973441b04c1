"""The app's config writers use the package-wide atomic write (see `pi.atomic_file`)."""

from __future__ import annotations

from pi.atomic_file import write_atomic

__all__ = ["write_atomic"]
