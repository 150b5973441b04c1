"""Image limits per model, for the code that resizes attachments."""

from __future__ import annotations

from pi.ai.input_limits import image_resize_profile, max_images
from pi.ai.models import get_model
from pi.ai.types import InputLimits, Model


def bare(**kw: object) -> Model:
    return Model(id="m", name="m", api="x", provider="p", base_url="u", **kw)


def test_defaults_without_limits() -> None:
    profile = image_resize_profile(bare())
    assert (profile.max_width, profile.max_height, profile.max_bytes, profile.jpeg_quality) == (
        2000,
        2000,
        4_718_592,
        80,
    )
    assert max_images(bare()) == (None, None)


def test_a_models_own_limits_and_partial_ones() -> None:
    limits = InputLimits.model_validate({"images": {"resize": {"maxWidth": 1568}, "maxPerMessage": 20}})
    model = bare(input_limits=limits)
    profile = image_resize_profile(model)
    assert (profile.max_width, profile.max_height) == (1568, 2000)
    assert max_images(model) == (20, None)


def test_catalog_limits() -> None:
    sol = get_model("openai", "gpt-6.2-sol")
    assert sol is not None
    assert max_images(sol) == (None, 1500)
    assert image_resize_profile(sol).max_bytes == 4_718_592
