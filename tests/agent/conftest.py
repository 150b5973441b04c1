from __future__ import annotations

from collections.abc import Iterator

import pytest

from pi.ai.faux import FauxProvider, register_faux_provider


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider()
    try:
        yield provider
    finally:
        provider.unregister()
