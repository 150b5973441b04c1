"""Which environment variable supplies each provider's key, and what happens when none does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.ai.env_api_keys import AUTHENTICATED, ENV_KEYS, get_env_api_key
from pi.ai.event_stream import AssistantMessageEventStream
from pi.ai.models import get_model, get_providers
from pi.ai.options import StreamOptions
from pi.ai.registry import ApiProvider, register_api_provider, unregister_api_providers
from pi.ai.stream import MissingApiKeyError, stream_simple
from pi.ai.types import Context, Model, UserMessage

AMBIENT = (
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GCLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for names in ENV_KEYS.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)
    for name in AMBIENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no real gcloud ADC file


def test_anthropic_oauth_token_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    assert get_env_api_key("anthropic") == "sk-ant-api"
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat-token")
    assert get_env_api_key("anthropic") == "sk-ant-oat-token"


def test_empty_variable_falls_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    assert get_env_api_key("anthropic") == "sk-ant-api"


def test_copilot_reads_only_its_own_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "github")
    monkeypatch.setenv("GH_TOKEN", "gh")
    assert get_env_api_key("github-copilot") is None
    monkeypatch.setenv("COPILOT_GITHUB_TOKEN", "copilot")
    assert get_env_api_key("github-copilot") == "copilot"


@pytest.mark.parametrize(
    ("provider", "current", "legacy"),
    [
        ("qwen-token-plan", "QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
        ("qwen-token-plan-cn", "QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    ],
)
def test_legacy_qwen_variables_still_work(
    monkeypatch: pytest.MonkeyPatch, provider: str, current: str, legacy: str
) -> None:
    monkeypatch.setenv(legacy, "old")
    assert get_env_api_key(provider) == "old"
    monkeypatch.setenv(current, "new")
    assert get_env_api_key(provider) == "new"


@pytest.mark.parametrize(
    ("provider", "variable"),
    [
        ("openai", "OPENAI_API_KEY"),
        ("google", "GEMINI_API_KEY"),
        ("groq", "GROQ_API_KEY"),
        ("cerebras", "CEREBRAS_API_KEY"),
        ("xai", "XAI_API_KEY"),
        ("openrouter", "OPENROUTER_API_KEY"),
        ("zai", "ZAI_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
        ("deepseek", "DEEPSEEK_API_KEY"),
        ("vercel-ai-gateway", "AI_GATEWAY_API_KEY"),
        ("huggingface", "HF_TOKEN"),
        ("opencode", "OPENCODE_API_KEY"),
        ("kimi-coding", "KIMI_API_KEY"),
        ("google-vertex", "GOOGLE_CLOUD_API_KEY"),
        ("azure", "AZURE_OPENAI_API_KEY"),
        ("nvidia", "NVIDIA_API_KEY"),
        ("fireworks", "FIREWORKS_API_KEY"),
        ("together", "TOGETHER_API_KEY"),
        ("moonshotai", "MOONSHOT_API_KEY"),
        ("moonshotai-cn", "MOONSHOT_API_KEY"),
        ("zai-coding-cn", "ZAI_CODING_CN_API_KEY"),
        ("xiaomi-token-plan-sgp", "XIAOMI_TOKEN_PLAN_SGP_API_KEY"),
        ("cloudflare-workers-ai", "CLOUDFLARE_API_KEY"),
    ],
)
def test_provider_variables(monkeypatch: pytest.MonkeyPatch, provider: str, variable: str) -> None:
    assert get_env_api_key(provider) is None
    monkeypatch.setenv(variable, "key-123")
    assert get_env_api_key(provider) == "key-123"


def test_every_catalog_provider_has_a_variable() -> None:
    oauth_only = {"openai-codex"}  # a ChatGPT login is its only credential
    assert [p for p in get_providers() if not ENV_KEYS.get(p) and p not in oauth_only] == []


def test_oauth_only_and_unknown_providers_have_no_key() -> None:
    for provider in ("openai-codex", "google-gemini-cli", "google-antigravity", "made-up"):
        assert get_env_api_key(provider) is None


@pytest.mark.parametrize(
    "setting",
    [
        {"AWS_PROFILE": "dev"},
        {"AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "secret"},
        {"AWS_BEARER_TOKEN_BEDROCK": "bearer"},
        {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/creds"},
        {"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.2/creds"},
        {"AWS_WEB_IDENTITY_TOKEN_FILE": "/var/token"},
    ],
)
def test_bedrock_ambient_credentials(monkeypatch: pytest.MonkeyPatch, setting: dict[str, str]) -> None:
    assert get_env_api_key("amazon-bedrock") is None
    for name, value in setting.items():
        monkeypatch.setenv(name, value)
    assert get_env_api_key("amazon-bedrock") == AUTHENTICATED == "<authenticated>"


def test_bedrock_access_key_alone_is_not_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIA")
    assert get_env_api_key("amazon-bedrock") is None


def test_vertex_needs_adc_file_project_and_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    adc = tmp_path / "adc.json"
    adc.write_text("{}")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(adc))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    assert get_env_api_key("google-vertex") is None
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    assert get_env_api_key("google-vertex") == AUTHENTICATED
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT")
    monkeypatch.setenv("GCLOUD_PROJECT", "proj")
    assert get_env_api_key("google-vertex") == AUTHENTICATED
    adc.unlink()
    assert get_env_api_key("google-vertex") is None


def test_vertex_default_adc_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    default = tmp_path / ".config" / "gcloud" / "application_default_credentials.json"
    default.parent.mkdir(parents=True)
    default.write_text("{}")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    assert get_env_api_key("google-vertex") == AUTHENTICATED


# --- stream_simple refuses to start without a key -------------------------------------------------


class _Recorder:
    def __init__(self) -> None:
        self.keys: list[str | None] = []

    def __call__(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        self.keys.append(options.api_key)
        return AssistantMessageEventStream()


@pytest.fixture
def recorder() -> Iterator[_Recorder]:
    rec = _Recorder()
    register_api_provider(ApiProvider(api="test-keys", stream=rec, stream_simple=rec), source_id="test-keys")
    yield rec
    unregister_api_providers("test-keys")


def _model(provider: str) -> Model:
    return Model(id="m", name="M", api="test-keys", provider=provider, base_url="http://127.0.0.1:1")


CONTEXT = Context(messages=[UserMessage(content="hi")])


def test_stream_simple_raises_synchronously_without_a_key(recorder: _Recorder) -> None:
    with pytest.raises(MissingApiKeyError) as info:
        stream_simple(_model("groq"), CONTEXT)
    assert str(info.value).splitlines()[0] == "No API key for provider: groq"
    assert "GROQ_API_KEY" in str(info.value)
    assert recorder.keys == []


def test_stream_simple_uses_the_environment_key(recorder: _Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-env")
    stream_simple(_model("groq"), CONTEXT)
    assert recorder.keys == ["gsk-env"]


def test_explicit_key_beats_the_environment(recorder: _Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-env")
    stream_simple(_model("groq"), CONTEXT, api_key="gsk-explicit")
    assert recorder.keys == ["gsk-explicit"]


def test_catalog_model_without_a_key(recorder: _Recorder) -> None:
    model = get_model("anthropic", "claude-sonnet-4-5")
    assert model is not None
    with pytest.raises(MissingApiKeyError, match=r"^No API key for provider: anthropic"):
        stream_simple(model.model_copy(update={"api": "test-keys"}), CONTEXT)
    assert recorder.keys == []


def test_unknown_provider_message_suggests_a_key_option(recorder: _Recorder) -> None:
    with pytest.raises(MissingApiKeyError) as info:
        stream_simple(_model("my-proxy"), CONTEXT)
    assert str(info.value).splitlines()[0] == "No API key for provider: my-proxy"
    assert "models.json" in str(info.value) and "pass an API key" in str(info.value)


def test_anthropic_auth_token_is_discovered_but_is_not_an_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi.ai.env_api_keys import env_bearer_token, env_var_names

    assert env_var_names("anthropic") == ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "bearer-token")
    assert get_env_api_key("anthropic") is None
    assert env_bearer_token("anthropic") == "bearer-token"
    assert env_bearer_token("openai") is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    assert get_env_api_key("anthropic") == "sk-ant-api"


def test_pi_16_provider_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi.ai.env_api_keys import PROVIDER_CONFIG_VARS

    expected = {
        "ant-ling": "ANT_LING_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "nvidia": "NVIDIA_API_KEY",
        "radius": "RADIUS_API_KEY", "typesafe": "TYPESAFE_API_KEY", "fireworks": "FIREWORKS_API_KEY",
        "together": "TOGETHER_API_KEY", "baseten": "BASETEN_API_KEY", "meta": "META_API_KEY",
        "moonshotai": "MOONSHOT_API_KEY", "moonshotai-cn": "MOONSHOT_API_KEY", "zai-coding-cn": "ZAI_CODING_CN_API_KEY",
        "xiaomi": "XIAOMI_API_KEY", "xiaomi-token-plan-cn": "XIAOMI_TOKEN_PLAN_CN_API_KEY",
        "xiaomi-token-plan-ams": "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
        "xiaomi-token-plan-sgp": "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
        "cloudflare-workers-ai": "CLOUDFLARE_API_KEY", "cloudflare-ai-gateway": "CLOUDFLARE_API_KEY",
        "google-vertex": "GOOGLE_CLOUD_API_KEY", "github-copilot": "COPILOT_GITHUB_TOKEN",
    }  # fmt: skip
    for provider, name in expected.items():
        assert ENV_KEYS[provider][0] == name, provider
    assert ENV_KEYS["github-copilot"] == ("COPILOT_GITHUB_TOKEN",)
    for provider in ("qwen-token-plan-individual", "qwen-token-plan-individual-cn"):
        legacy = ENV_KEYS[provider][1]
        monkeypatch.setenv(legacy, "legacy-key")
        assert get_env_api_key(provider) == "legacy-key"
    assert "ANTHROPIC_FEDERATION_RULE_ID" in PROVIDER_CONFIG_VARS["anthropic"]
    assert "CLOUDFLARE_GATEWAY_ID" in PROVIDER_CONFIG_VARS["cloudflare-ai-gateway"]
