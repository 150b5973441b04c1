"""The default output budget: the model's limit, lowered to leave the estimated input and a margin free."""

from __future__ import annotations

from pi.ai.estimate import estimate_context_tokens, fit_max_tokens_to_context
from pi.ai.options import StreamOptions, simple_max_tokens
from pi.ai.types import AssistantMessage, Context, Model, TextContent, Usage, UserMessage


def model(window: int, max_tokens: int) -> Model:
    return Model(id="m", name="m", api="x", provider="p", base_url="u", context_window=window, max_tokens=max_tokens)


def with_input(tokens: int) -> Context:
    """A context whose last reply reports `tokens` tokens of usage (and nothing after it)."""
    question = UserMessage(content="q", timestamp=1)
    usage = Usage(input=tokens, total_tokens=tokens)
    reply = AssistantMessage(api="x", provider="p", model="m", usage=usage, timestamp=2)  # answers the question
    return Context(messages=[question, reply])


def test_the_estimate_trusts_reported_usage_and_counts_what_follows() -> None:
    context = with_input(10_000)
    assert estimate_context_tokens(context) == 10_000
    context.messages.append(UserMessage(content="x" * 350))
    assert estimate_context_tokens(context) == 10_100
    failed = AssistantMessage(api="x", provider="p", model="m", stop_reason="error", usage=Usage(total_tokens=9))
    only_text = Context(messages=[UserMessage(content=[TextContent(text="y" * 35)]), failed])
    assert estimate_context_tokens(only_text) == 10  # an errored reply's usage is not trusted


def test_the_models_limit_when_it_fits() -> None:
    assert fit_max_tokens_to_context(model(1_000_000, 128_000), with_input(100_000), 128_000) == 128_000


def test_fifteen_percent_of_the_input_is_left_spare() -> None:
    # 200k window, 100k input: margin 15k, room 85k.
    assert fit_max_tokens_to_context(model(200_000, 128_000), with_input(100_000), 128_000) == 85_000


def test_near_a_full_window_output_is_capped_at_32768() -> None:
    # 1M window, 900k input: the 15 % margin (135k) leaves no room, so only the fixed 4,096 margin is kept
    # and output is capped at 32,768; a small window gets its room minus the fixed margin, never below 1.
    assert fit_max_tokens_to_context(model(1_000_000, 128_000), with_input(900_000), 128_000) == 32_768
    assert fit_max_tokens_to_context(model(32_000, 8_000), with_input(20_000), 8_000) == 7_904
    assert fit_max_tokens_to_context(model(32_000, 8_000), with_input(40_000), 8_000) == 1


def test_stream_simple_budget_uses_it() -> None:
    options = StreamOptions()
    assert simple_max_tokens(model(200_000, 128_000), options, with_input(100_000)) == 85_000
    assert simple_max_tokens(model(200_000, 128_000), StreamOptions(max_tokens=1_000), with_input(100_000)) == 1_000
