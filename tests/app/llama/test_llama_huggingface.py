"""Reading quantizations from GGUF file names, and finding the Hugging Face token."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.app.llama.huggingface import Quantization, compact_count, find_token, quantization_of, quantizations


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("gemma-3-4b-it-Q4_K_M.gguf", "Q4_K_M"),
        ("sub/model.q8_0.gguf", "Q8_0"),
        ("big-UD-IQ2_XXS-00001-of-00003.gguf", "UD-IQ2_XXS"),
        ("model-BF16.gguf", "BF16"),
        ("model-MXFP4.gguf", "MXFP4"),
        ("mmproj-model-F16.gguf", None),
        ("model.safetensors", None),
        ("model.gguf", None),
    ],
)
def test_quantization_from_file_name(name: str, expected: str | None) -> None:
    assert quantization_of(name) == expected


def test_shards_add_up_and_the_recommended_one_comes_first() -> None:
    files = [
        {"rfilename": "m-Q2_K.gguf", "size": 10},
        {"rfilename": "m-Q8_0.gguf"},
        {"rfilename": "m-Q4_K_M-00001-of-00002.gguf", "size": 30},
        {"rfilename": "m-Q4_K_M-00002-of-00002.gguf", "size": 30},
        {"rfilename": "m-Q3_K_S.gguf", "size": 20},
    ]
    assert quantizations(files) == [
        Quantization("Q4_K_M", 60),
        Quantization("Q2_K", 10),
        Quantization("Q3_K_S", 20),
        Quantization("Q8_0", None),
    ]


def test_the_token_comes_from_the_variable_then_the_token_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert find_token({"HF_TOKEN": " t1 "}) == "t1"
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "token").write_text("t2\n")
    assert find_token({"HF_HOME": str(tmp_path / "hf")}) == "t2"
    (tmp_path / "explicit").write_text("t3")
    assert find_token({"HF_TOKEN_PATH": str(tmp_path / "explicit"), "HF_HOME": str(tmp_path / "hf")}) == "t3"
    assert find_token({}) is None


def test_download_counts_are_compact() -> None:
    assert [compact_count(n) for n in (950, 12345, 450000, 1_234_567, 15_000_000)] == [
        "950",
        "12.3k",
        "450k",
        "1.2M",
        "15M",
    ]
