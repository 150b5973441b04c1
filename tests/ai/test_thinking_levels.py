"""One list of thinking levels, and how each maps onto what a model can do."""

from __future__ import annotations

import pytest

import pi.ai
from pi.ai.options import adjust_max_tokens_for_thinking, clamp_reasoning, effort_level, reasoning_level
from pi.ai.types import Model

GPT_52 = Model(id="gpt-5.2", name="GPT-5.2", api="openai-responses", provider="openai", base_url="http://x.invalid")
GPT_5 = Model(
    id="gpt-5-mini", name="GPT-5 mini", api="openai-responses", provider="openai", base_url="http://x.invalid"
)


def test_the_levels_are_ordered_from_off_to_max() -> None:
    assert pi.ai.THINKING_LEVELS == ("off", "minimal", "low", "medium", "high", "xhigh", "max")
    assert pi.ai.THINKING_LEVELS[1:] == pi.ai.REASONING_LEVELS


def test_off_and_no_level_both_mean_no_reasoning() -> None:
    assert reasoning_level("off") is None
    assert reasoning_level(None) is None
    assert [reasoning_level(level) for level in pi.ai.REASONING_LEVELS] == list(pi.ai.REASONING_LEVELS)


@pytest.mark.parametrize(
    ("level", "clamped", "on_gpt5", "on_gpt52"),
    [
        ("off", None, None, None),
        ("minimal", "minimal", "minimal", "minimal"),
        ("high", "high", "high", "high"),
        ("xhigh", "high", "high", "xhigh"),
        ("max", "high", "high", "xhigh"),
    ],
)
def test_strong_levels_fall_back_to_what_the_model_has(
    level: pi.ai.ThinkingLevel, clamped: str | None, on_gpt5: str | None, on_gpt52: str | None
) -> None:
    assert clamp_reasoning(level) == clamped
    assert effort_level(GPT_5, level) == on_gpt5
    assert effort_level(GPT_52, level) == on_gpt52


def test_budget_apis_give_max_the_largest_budget() -> None:
    assert adjust_max_tokens_for_thinking(32_000, 64_000, "max") == adjust_max_tokens_for_thinking(
        32_000, 64_000, "high"
    )
    assert adjust_max_tokens_for_thinking(32_000, 64_000, "max") == (48_384, 16_384)
