"""``compaction.modelOverrides`` (delta-1.6 §5.1.6, §6.5): per-model budgets, each value falling back on its own."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pi.ai.faux import FauxProvider, faux_assistant_message
from pi.app.agent_session import AgentSession
from pi.session.compaction_errors import CompactionError
from tests.support.faux_session import make_faux_session, words


def _session(faux: FauxProvider, tmp_path: Path, override: object) -> AgentSession:
    key = f"{faux.model.provider}/{faux.model.id}"
    settings = {"compaction": {"reserveTokens": 500, "keepRecentTokens": 100000, "modelOverrides": {key: override}}}
    return make_faux_session(faux, tmp_path, settings)


async def _three_turns(session: AgentSession, faux: FauxProvider) -> None:
    faux.set_responses([faux_assistant_message(words(60)) for _ in range(3)])
    for i in range(3):
        await session.prompt(f"turn {i} " + words(60))


async def test_the_models_own_keep_recent_tokens_decides_what_is_summarized(faux: FauxProvider, tmp_path: Path) -> None:
    session = _session(faux, tmp_path, {"keepRecentTokens": 40})
    await _three_turns(session, faux)
    faux.set_responses([faux_assistant_message("## Goal\nShort."), faux_assistant_message("## Original Request\nx")])
    result = await session.compact()
    assert result["summary"].startswith("## Goal")


async def test_without_an_override_for_the_model_the_global_budget_applies(faux: FauxProvider, tmp_path: Path) -> None:
    session = make_faux_session(
        faux,
        tmp_path,
        {"compaction": {"keepRecentTokens": 100000, "modelOverrides": {"other/model": {"keepRecentTokens": 1}}}},
    )
    await _three_turns(session, faux)
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await session.compact()


async def test_each_override_value_falls_back_on_its_own(faux: FauxProvider, tmp_path: Path) -> None:
    session = _session(faux, tmp_path, {"keepRecentTokens": 7})
    budget = session._compactor.budget()
    assert (budget.reserve_tokens, budget.keep_recent_tokens) == (500, 7)


async def test_an_invalid_override_value_is_reported_and_the_global_value_used(
    faux: FauxProvider, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    session = _session(faux, tmp_path, {"reserveTokens": -1, "keepRecentTokens": 9})
    with caplog.at_level(logging.WARNING, logger="pi"):
        budget = session._compactor.budget()
    assert (budget.reserve_tokens, budget.keep_recent_tokens) == (500, 9)
    assert (
        'Invalid compaction.modelOverrides["faux/faux-1"].reserveTokens: expected a non-negative integer, got -1'
        in (caplog.text)
    )
