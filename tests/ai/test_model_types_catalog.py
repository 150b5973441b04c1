"""The built-in image and classifier catalog: which models there are, the facts that their wire code
depends on, and that the chat catalog and its lookups stay free of them."""

from __future__ import annotations

from pathlib import Path

from pi.ai.model_types import ClassifierModel, ImageModel, model_type_of
from pi.ai.model_types_catalog import catalog_typed_models, typed_providers
from pi.ai.models import get_model, get_providers
from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry


def by_id(provider: str) -> dict[str, ClassifierModel | ImageModel]:
    return {model.id: model for model in catalog_typed_models(provider)}


def test_the_catalog_has_the_providers_and_counts_of_pi_1_6() -> None:
    assert typed_providers() == [
        "cloudflare-workers-ai",
        "github-copilot",
        "openai",
        "opencode",
        "openrouter",
        "typesafe",
        "vercel-ai-gateway",
    ]
    models = [m for p in typed_providers() for m in catalog_typed_models(p)]
    assert sum(m.type == "image" for m in models) == 74
    assert sum(m.type == "classifier" for m in models) == 81
    assert {m.api for m in models if m.type == "image"} == {"openrouter-images"}
    assert {m.api for m in models if m.type == "classifier"} == {
        "typesafe-system-one",
        "cloudflare-workers-ai-system-one",
        "openai-decisions",
    }
    assert "typesafe" not in get_providers()  # classifiers only: no chat models at all


def test_entries_carry_what_the_wire_code_needs() -> None:
    luna = by_id("openai")["gpt-6-luna"]
    assert isinstance(luna, ClassifierModel) and luna.base_url == "https://api.openai.com/v1"
    assert luna.context_window == 922000 and luna.cost.tiers and luna.cost.tiers[0].input_tokens_above == 272000
    jev = by_id("typesafe")["jev-latest"]
    assert isinstance(jev, ClassifierModel) and jev.base_url == "https://api.typesafe.ai/v1/"
    assert jev.compat_value("imageInput") == "assets" and jev.compat_value("sendImageOptInHeader") is True
    decision = by_id("github-copilot")["microsoft-decision-1"]
    assert decision.name == "Microsoft-Decision-1" and decision.input == ["text"]
    assert decision.headers is not None and decision.headers["Copilot-Integration-Id"] == "vscode-chat"
    clef = by_id("cloudflare-workers-ai")["@cf/cloudflare/clef"]
    assert clef.base_url == "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai"
    openrouter = by_id("openrouter")
    image = openrouter["google/gemini-3-pro-image"]
    assert isinstance(image, ImageModel) and image.output == ["image", "text"]
    assert image.input_limits is not None and image.input_limits.images is not None
    router_jev = openrouter["~typesafe/jev-latest"]
    assert isinstance(router_jev, ClassifierModel) and router_jev.input_limits is None
    assert router_jev.compat_value("imageInput") == "state-image-urls"
    assert model_type_of(router_jev) == "classifier" and model_type_of(get_model("openai", "gpt-6.2-sol")) == "chat"  # type: ignore[arg-type]


def test_chat_lookups_never_see_typed_models(tmp_path: Path) -> None:
    registry = ModelRegistry(AuthStorage(tmp_path / "auth.json"), None)
    chat = registry.find("openai", "gpt-6-luna")  # the same id is a chat model and a classifier
    assert chat is not None and chat.api == "openai-responses" and model_type_of(chat) == "chat"
    assert get_model("openrouter", "black-forest-labs/flux.2-pro") is None  # image only
    assert all(model_type_of(m) == "chat" for m in registry.all_models())
