from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.llama_router import LlamaRouter


@pytest.fixture
def router() -> Iterator[LlamaRouter]:
    server = LlamaRouter().start()
    yield server
    server.stop()
