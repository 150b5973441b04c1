"""Header layers of a request: later layers win, whatever the letter case of a name."""

from __future__ import annotations

from pi.ai.options import merge_headers


def test_a_later_layer_replaces_a_header_spelled_differently() -> None:
    merged = merge_headers({"User-Agent": "catalog/1"}, None, {"user-agent": "configured/2", "X-Extra": "1"})
    assert merged == {"user-agent": "configured/2", "X-Extra": "1"}


def test_layers_without_a_clash_are_all_kept_in_order() -> None:
    assert list(merge_headers({"A": "1"}, {}, {"B": "2"}, {"a": "3"})) == ["B", "a"]
