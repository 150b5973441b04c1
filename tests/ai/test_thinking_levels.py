"""One list of thinking levels, which of them a model has, and the nearest one it has."""

from __future__ import annotations

import pytest

import pi.ai
from pi.ai.models import get_model
from pi.ai.options import adjust_max_tokens_for_thinking, clamp_reasoning, effort_level, reasoning_level
from pi.ai.thinking import clamp_thinking_level, provider_thinking_value, supported_thinking_levels
from pi.ai.types import Model

SOL_MAP: dict[str, str | None] = {
    "off": None, "minimal": None, "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"
}  # fmt: skip


def model(reasoning: bool = True, mapping: dict[str, str | None] | None = None) -> Model:
    return Model(
        id="m", name="M", api="openai-responses", provider="p", base_url="http://x.invalid",
        reasoning=reasoning, thinking_level_map=mapping,
    )  # fmt: skip


def test_the_levels_are_ordered_from_off_to_max() -> None:
    assert pi.ai.THINKING_LEVELS == ("off", "minimal", "low", "medium", "high", "xhigh", "max")
    assert pi.ai.THINKING_LEVELS[1:] == pi.ai.REASONING_LEVELS


def test_off_and_no_level_both_mean_no_reasoning() -> None:
    assert reasoning_level("off") is None
    assert reasoning_level(None) is None
    assert [reasoning_level(level) for level in pi.ai.REASONING_LEVELS] == list(pi.ai.REASONING_LEVELS)


def test_acceptance_gpt_6_2_sol_levels_from_the_catalog() -> None:
    sol = get_model("openai", "gpt-6.2-sol")
    assert sol is not None
    assert pi.ai.supported_thinking_levels(sol) == ["low", "medium", "high", "xhigh", "max"]
    assert pi.ai.clamp_thinking_level(sol, "off") == "low"
    assert pi.ai.clamp_thinking_level(sol, "minimal") == "low"
    assert pi.ai.clamp_thinking_level(sol, "max") == "max"


def test_supported_levels_rules() -> None:
    assert supported_thinking_levels(model(reasoning=False)) == ["off"]
    assert supported_thinking_levels(model(reasoning=False, mapping=SOL_MAP)) == ["off"]
    assert supported_thinking_levels(model()) == ["off", "minimal", "low", "medium", "high"]
    assert supported_thinking_levels(model(mapping={"xhigh": "xhigh"})) == [
        "off", "minimal", "low", "medium", "high", "xhigh",
    ]  # fmt: skip
    assert supported_thinking_levels(model(mapping={"medium": None, "max": "max", "xhigh": None})) == [
        "off", "minimal", "low", "high", "max",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("mapping", "level", "expected"),
    [
        (None, "xhigh", "high"),  # only up to high: searched downwards
        (None, "max", "high"),
        (SOL_MAP, "off", "low"),  # upwards first
        ({"medium": None}, "medium", "high"),
        ({"medium": None, "high": None}, "medium", "low"),  # nothing stronger: downwards
        (None, "nonsense", "off"),  # unknown level: the weakest
    ],
)
def test_clamping_searches_upwards_first_then_downwards(
    mapping: dict[str, str | None] | None, level: str, expected: str
) -> None:
    assert clamp_thinking_level(model(mapping=mapping), level) == expected


def test_non_reasoning_models_clamp_everything_to_off() -> None:
    assert clamp_thinking_level(model(reasoning=False), "high") == "off"


def test_provider_value_comes_from_the_map() -> None:
    mapped = model(mapping={"minimal": "low", "high": "HIGH", "low": None})
    assert provider_thinking_value(mapped, "minimal") == "low"
    assert provider_thinking_value(mapped, "high") == "HIGH"
    assert provider_thinking_value(mapped, "medium") == "medium"
    assert provider_thinking_value(mapped, "low") is None


def test_effort_level_is_clamped_then_mapped() -> None:
    assert effort_level(model(), None) is None
    assert effort_level(model(), "off") is None
    assert effort_level(model(), "max") == "high"
    assert effort_level(model(mapping=SOL_MAP), "off") == "low"
    assert effort_level(model(mapping={"high": "HIGH"}), "xhigh") == "HIGH"
    assert effort_level(model(reasoning=False), "high") is None


def test_budget_levels_and_the_largest_budget() -> None:
    assert clamp_reasoning("max") == "high" and clamp_reasoning("off") is None
    assert adjust_max_tokens_for_thinking(32_000, 64_000, "max") == adjust_max_tokens_for_thinking(
        32_000, 64_000, "high"
    )
    assert adjust_max_tokens_for_thinking(32_000, 64_000, "max") == (48_384, 16_384)
