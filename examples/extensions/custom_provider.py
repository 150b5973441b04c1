"""Add a model provider from code: any server speaking the OpenAI Chat Completions protocol.

Set `LOCAL_LLM_URL` (for example `http://127.0.0.1:8080/v1`) and optionally `LOCAL_LLM_KEY`,
then `pi -e custom_provider.py --provider local-llm --model local-model -p "hi"`. The key is
written as `$LOCAL_LLM_KEY`, so it is read from the environment at each request, never stored.
"""

from __future__ import annotations

import os

from pi.app.extensions import ExtensionAPI


def setup(pi: ExtensionAPI) -> None:
    base_url = os.environ.get("LOCAL_LLM_URL")
    if not base_url:
        return
    pi.register_provider(
        "local-llm",
        {
            "baseUrl": base_url,
            "api": "openai-completions",
            "apiKey": "$LOCAL_LLM_KEY" if os.environ.get("LOCAL_LLM_KEY") else "none",
            "models": [{"id": "local-model", "contextWindow": 32000, "maxTokens": 4096}],
        },
    )
