from __future__ import annotations

import pytest

from pi.app.oauth.device_flow import (
    DRIFT_TIMEOUT_MESSAGE,
    TIMEOUT_MESSAGE,
    Approved,
    Pending,
    PollOutcome,
    SlowDown,
    check_verification_uri,
    poll_device,
    rfc8628_outcome,
    start_interval,
)
from pi.app.oauth.errors import OAuthError
from tests.app.oauth.conftest import FakeClock


def _script(clock: FakeClock, outcomes: list[PollOutcome], times: list[float]):  # type: ignore[no-untyped-def]
    async def poll() -> PollOutcome:
        times.append(clock.now())
        return outcomes.pop(0) if outcomes else SlowDown()

    return poll


async def test_pending_then_slow_down_without_interval_grows_the_gap_by_five_seconds(clock: FakeClock) -> None:
    times: list[float] = []
    start = clock.now()
    poll = _script(clock, [Pending(), SlowDown(), Approved({"access_token": "t"})], times)
    body = await poll_device(poll, interval=5, expires_in=600, clock=clock)
    assert body == {"access_token": "t"}
    assert [t - start for t in times] == [5, 10, 20]


async def test_slow_down_with_an_interval_uses_the_servers_value(clock: FakeClock) -> None:
    times: list[float] = []
    poll = _script(clock, [SlowDown(7), Approved({})], times)
    await poll_device(poll, interval=2, expires_in=600, clock=clock)
    assert times[1] - times[0] == 7


async def test_only_slow_downs_until_expiry_reports_clock_drift(clock: FakeClock) -> None:
    poll = _script(clock, [], [])
    with pytest.raises(OAuthError) as caught:
        await poll_device(poll, interval=5, expires_in=60, clock=clock)
    assert str(caught.value) == DRIFT_TIMEOUT_MESSAGE
    assert clock.now() - 1_700_000_000.0 <= 60


async def test_only_pending_until_expiry_is_a_plain_timeout(clock: FakeClock) -> None:
    async def poll() -> PollOutcome:
        return Pending()

    with pytest.raises(OAuthError, match=f"^{TIMEOUT_MESSAGE}$"):
        await poll_device(poll, interval=5, expires_in=30, clock=clock)
    assert clock.sleeps == [5] * 6


def test_interval_rules() -> None:
    assert start_interval(None) == 5
    assert start_interval(0.2) == 1
    assert start_interval(9) == 9
    assert start_interval(True) == 5


def test_standard_token_replies() -> None:
    assert rfc8628_outcome(400, {"error": "authorization_pending"}) == Pending()
    assert rfc8628_outcome(400, {"error": "slow_down"}) == SlowDown(None)
    assert rfc8628_outcome(400, {"error": "slow_down", "interval": 12}) == SlowDown(12)
    assert rfc8628_outcome(200, {"access_token": "a"}) == Approved({"access_token": "a"})
    with pytest.raises(OAuthError, match="denied"):
        rfc8628_outcome(400, {"error": "access_denied"})


def test_verification_urls_must_be_http_or_https() -> None:
    assert check_verification_uri("http://x.test/d") == "http://x.test/d"
    with pytest.raises(OAuthError):
        check_verification_uri("javascript:alert(1)")
    with pytest.raises(OAuthError):
        check_verification_uri("http://x.test/d", https_only=True)
