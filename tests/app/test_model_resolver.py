"""Model resolution from --model / --provider, and the default model."""

from __future__ import annotations

import pytest

from pi.ai.types import Model
from pi.app.model_resolver import ModelResolutionError, clamp_thinking_level, default_model, resolve_cli_model


def _m(
    provider: str,
    model_id: str,
    name: str | None = None,
    reasoning: bool = True,
    levels: dict[str, str | None] | None = None,
) -> Model:
    return Model(
        id=model_id,
        name=name or model_id,
        api="x",
        provider=provider,
        base_url="http://x",
        reasoning=reasoning,
        thinking_level_map=levels,
    )


MODELS = [
    _m("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5"),
    _m("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5"),
    _m("anthropic", "claude-opus-4-6", "Claude Opus 4.6", levels={"xhigh": "xhigh"}),
    _m("openai", "gpt-5.4"),
    _m("openrouter", "anthropic/claude-sonnet-4.5"),
    _m("local", "qwen3-coder", reasoning=False),
]


def test_exact_id_and_provider_slash_id() -> None:
    assert resolve_cli_model("gpt-5.4", MODELS).model.provider == "openai"
    resolved = resolve_cli_model("openrouter/anthropic/claude-sonnet-4.5", MODELS)
    assert (resolved.model.provider, resolved.model.id) == ("openrouter", "anthropic/claude-sonnet-4.5")


def test_fuzzy_prefers_alias_ids_over_dated() -> None:
    assert resolve_cli_model("sonnet", MODELS, provider="anthropic").model.id == "claude-sonnet-4-5"


def test_thinking_suffix() -> None:
    resolved = resolve_cli_model("opus:high", MODELS)
    assert (resolved.model.id, resolved.thinking_level) == ("claude-opus-4-6", "high")
    with pytest.raises(ModelResolutionError, match='Model "opus:bogus" not found'):
        resolve_cli_model("opus:bogus", MODELS)


def test_unknown_model_and_provider_messages() -> None:
    with pytest.raises(ModelResolutionError) as info:
        resolve_cli_model("nope-model", MODELS)
    assert str(info.value) == 'Model "nope-model" not found. Use --list-models to see available models.'
    with pytest.raises(ModelResolutionError, match=r'Unknown provider "acme"\. Use --list-models'):
        resolve_cli_model("x", MODELS, provider="acme")


def test_known_provider_unknown_id_is_a_custom_model_with_a_warning() -> None:
    resolved = resolve_cli_model("claude-next", MODELS, provider="anthropic")
    assert resolved.model.id == "claude-next" and resolved.model.provider == "anthropic"
    assert resolved.warning == 'Model "claude-next" not found for provider "anthropic". Using custom model id.'


def test_default_model_order() -> None:
    assert default_model(MODELS).id == "claude-opus-4-6"  # type: ignore[union-attr]
    assert default_model(MODELS, "openai", "gpt-5.4").id == "gpt-5.4"  # type: ignore[union-attr]
    assert default_model([MODELS[-1]]).id == "qwen3-coder"  # type: ignore[union-attr]
    assert default_model([]) is None


def test_clamp_thinking() -> None:
    assert clamp_thinking_level("high", MODELS[-1]) == "off"
    assert clamp_thinking_level("xhigh", MODELS[1]) == "high"
    assert clamp_thinking_level("xhigh", MODELS[2]) == "xhigh"
    assert clamp_thinking_level("max", MODELS[2]) == "xhigh"


def test_levels_follow_the_thinking_level_map() -> None:
    from pi.app.model_resolver import supported_thinking_levels

    sol = _m("openai", "gpt-6.2-sol", levels={"off": None, "minimal": None, "xhigh": "xhigh", "max": "max"})
    assert supported_thinking_levels(sol) == ["low", "medium", "high", "xhigh", "max"]
    assert clamp_thinking_level("off", sol) == "low"  # upward first
    assert supported_thinking_levels(MODELS[-1]) == ["off"]


def test_model_scope_globs_levels_and_warnings() -> None:
    from pi.app.model_resolver import resolve_model_scope

    scoped, warnings = resolve_model_scope(["anthropic/*sonnet*", "gpt-5.4:high", "opus:bogus", "zzz"], MODELS)
    assert [(m.provider, m.id, level) for m, level in scoped] == [
        ("anthropic", "claude-sonnet-4-5-20250929", None),
        ("anthropic", "claude-sonnet-4-5", None),
        ("openrouter", "anthropic/claude-sonnet-4.5", None),  # ids that look like provider/id match too
        ("openai", "gpt-5.4", "high"),
        ("anthropic", "claude-opus-4-6", None),
    ]
    assert warnings == [
        'Invalid thinking level "bogus" in pattern "opus:bogus". Using default instead.',
        'No models match pattern "zzz"',
    ]
