"""`modelOverrides` change only the fields they name, nested objects included (delta-1.6 §7.1.5)."""

from __future__ import annotations

import json
from pathlib import Path

from pi.app.auth import AuthStorage
from pi.app.model_registry import ModelRegistry


def test_an_input_limits_override_keeps_the_catalogs_other_limits(tmp_path: Path) -> None:
    override = {"inputLimits": {"images": {"resize": {"maxWidth": 800}}}, "cost": {"input": 9}}
    providers = {"anthropic": {"modelOverrides": {"claude-sonnet-5": override}}}
    (tmp_path / "models.json").write_text(json.dumps({"providers": providers}))
    catalog = ModelRegistry(AuthStorage.in_memory()).find("anthropic", "claude-sonnet-5")
    model = ModelRegistry(AuthStorage.in_memory(), tmp_path / "models.json").find("anthropic", "claude-sonnet-5")
    assert catalog is not None and model is not None
    assert catalog.input_limits is not None and catalog.input_limits.images is not None
    limits = model.input_limits
    assert limits is not None and limits.images is not None and limits.images.resize is not None
    assert limits.images.resize.max_width == 800
    assert limits.images.resize.max_height == 2000
    assert limits.max_request_bytes == catalog.input_limits.max_request_bytes
    assert limits.images.max_per_request == catalog.input_limits.images.max_per_request
    assert model.cost.input == 9 and model.cost.output == catalog.cost.output
