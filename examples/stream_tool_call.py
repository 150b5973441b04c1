"""Stream a reply that calls a tool, using `pi.ai` alone, and print every event.

Point it at any OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp) or Anthropic-compatible
server:

    python examples/stream_tool_call.py --api openai-completions --base-url http://localhost:11434/v1 \\
        --model qwen3-coder
    python examples/stream_tool_call.py --api anthropic-messages --base-url http://localhost:8080 \\
        --model claude-sonnet-4-5

The key comes from --api-key or the PI_EXAMPLE_API_KEY environment variable (local servers usually
accept any value).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os

from pi.ai import Context, Model, Tool, UserMessage, event_to_json_dict, stream

WEATHER_TOOL = Tool(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"],
    },
)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--api", choices=["openai-completions", "anthropic-messages"], required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", default="local-model")
    parser.add_argument("--api-key", default=os.environ.get("PI_EXAMPLE_API_KEY", "local"))
    parser.add_argument("--prompt", default="What is the weather in Paris? Use the tool.")
    args = parser.parse_args()

    model = Model(id=args.model, name=args.model, api=args.api, provider="local", base_url=args.base_url)
    context = Context(
        system_prompt="You are a helpful assistant.",
        messages=[UserMessage(content=args.prompt)],
        tools=[WEATHER_TOOL],
    )
    events = stream(model, context, api_key=args.api_key)
    async for event in events:
        data = event_to_json_dict(event)
        data.pop("partial", None)  # the growing message; the final one is printed below
        print(json.dumps(data, ensure_ascii=False))
    final = await events.result()
    print(json.dumps({"final": final.to_json_dict()}, ensure_ascii=False))
    return 0 if final.stop_reason not in ("error", "aborted") else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
