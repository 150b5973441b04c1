"""Cost of a reply from the catalog's per-million prices."""

from __future__ import annotations

import pytest

from pi.ai.cost import calculate_cost
from pi.ai.types import Model, ModelCost, Usage


def model(**prices: float) -> Model:
    return Model(
        id="m", name="M", api="openai-completions", provider="p", base_url="http://x", cost=ModelCost(**prices)
    )


def test_each_kind_of_token_is_priced_separately() -> None:
    usage = Usage(input=1_000_000, output=500_000, cache_read=2_000_000, cache_write=100_000, total_tokens=3_600_000)
    cost = calculate_cost(model(input=3, output=15, cache_read=0.3, cache_write=3.75), usage)
    assert cost.input == pytest.approx(3.0)
    assert cost.output == pytest.approx(7.5)
    assert cost.cache_read == pytest.approx(0.6)
    assert cost.cache_write == pytest.approx(0.375)
    assert cost.total == pytest.approx(3 + 7.5 + 0.6 + 0.375)


def test_cost_is_written_into_the_usage_and_returned() -> None:
    usage = Usage(input=10, output=10)
    cost = calculate_cost(model(input=1, output=2), usage)
    assert cost is usage.cost
    assert usage.cost.total == pytest.approx(30 / 1e6)


def test_recalculating_replaces_rather_than_adds() -> None:
    usage = Usage(input=1_000_000)
    m = model(input=2)
    calculate_cost(m, usage)
    calculate_cost(m, usage)
    assert usage.cost.total == pytest.approx(2.0)


def test_input_excludes_cached_tokens_so_cache_hits_are_not_charged_twice() -> None:
    # 10k prompt tokens of which 8k came from the cache: providers report input=2k, cacheRead=8k.
    usage = Usage(input=2_000, cache_read=8_000, output=0)
    cost = calculate_cost(model(input=1.25, cache_read=0.125), usage)
    assert cost.input == pytest.approx(2_000 * 1.25 / 1e6)
    assert cost.cache_read == pytest.approx(8_000 * 0.125 / 1e6)
    assert cost.total == pytest.approx(0.0025 + 0.001)


def test_free_model_costs_nothing() -> None:
    assert calculate_cost(model(), Usage(input=5, output=5, cache_read=5, cache_write=5)).total == 0


def tiered() -> Model:
    from pi.ai.types import CostTier

    tiers = [
        CostTier(input_tokens_above=200_000, input=4, output=18, cache_read=0.4, cache_write=5),
        CostTier(input_tokens_above=100_000, input=3, output=15, cache_read=0.3, cache_write=4),
    ]
    return model(input=2, output=12, cache_read=0.2, cache_write=2.5).model_copy(
        update={"cost": ModelCost(input=2, output=12, cache_read=0.2, cache_write=2.5, tiers=tiers)}
    )


@pytest.mark.parametrize(
    ("fresh", "cached", "written", "input_price", "output_price"),
    [
        (50_000, 0, 0, 2, 12),  # under every threshold: base prices
        (100_000, 0, 0, 2, 12),  # a threshold is exceeded only strictly
        (90_000, 20_000, 0, 3, 15),  # cached tokens count towards the threshold
        (150_000, 40_000, 20_000, 4, 18),  # the highest tier exceeded wins, whatever the list order
    ],
)
def test_highest_matching_tier_prices_the_whole_request(
    fresh: int, cached: int, written: int, input_price: float, output_price: float
) -> None:
    usage = Usage(input=fresh, cache_read=cached, cache_write=written, output=1_000_000)
    cost = calculate_cost(tiered(), usage)
    assert cost.input == pytest.approx(fresh * input_price / 1e6)
    assert cost.output == pytest.approx(output_price)
    assert cost.total_from_provider is False


def test_one_hour_cache_writes_cost_twice_the_input_price() -> None:
    usage = Usage(cache_write=1_000_000, cache_write_1h=400_000)
    cost = calculate_cost(model(input=3, cache_write=3.75), usage)
    assert cost.cache_write == pytest.approx(0.6 * 3.75 + 0.4 * 6)


def test_catalog_tier_of_gpt_6_2_sol() -> None:
    from pi.ai.models import get_model

    sol = get_model("openai", "gpt-6.2-sol")
    assert sol is not None
    assert calculate_cost(sol, Usage(input=300_000)).input == pytest.approx(300_000 * 4 / 1e6)
    assert calculate_cost(sol, Usage(input=100_000)).input == pytest.approx(100_000 * 2 / 1e6)
