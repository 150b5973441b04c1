"""InteractiveApp in-process: the `/reload` box, the retry give-up line, the footer's context estimate."""

from __future__ import annotations

from pathlib import Path

from pi.ai.faux import faux_assistant_message
from tests.app.interactive.core_support import faux_provider, make_app

ENTER = "\r"
CTRL_C = "\x03"
RELOADING = "Reloading keybindings, extensions, skills, prompts, themes, and context files..."
RELOADED = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"


async def test_reload_box_goes_once_the_reload_is_done(tmp_path: Path) -> None:
    with faux_provider() as faux:
        h = make_app(faux, tmp_path)
        await h.start()
        h.terminal.clear_output()
        h.type("/reload")
        h.keys(ENTER)
        text = await h.wait(RELOADED)
        assert RELOADING in h.terminal.output  # it was drawn while the reload ran
        assert RELOADING not in text
        h.type("still editing")
        await h.wait("still editing")
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_retries_running_out_show_the_give_up_line(tmp_path: Path) -> None:
    """auto_retry_end with success false: pi's `Error: Retry failed after N attempts: <last error>`."""
    with faux_provider() as faux:
        faux.set_responses(
            [faux_assistant_message(stop_reason="error", error_message="429 rate limit exceeded") for _ in range(4)]
        )
        h = make_app(faux, tmp_path, settings={"retry": {"baseDelayMs": 1, "maxRetries": 3}})
        await h.start()
        h.type("go")
        h.keys(ENTER)
        text = await h.wait("Retry failed after")
        text = await h.wait(lambda s: "Working" not in s and "Retrying" not in s)
        assert "Error: Retry failed after 3 attempts: 429 rate limit exceeded" in text
        assert text.count("Retry failed after") == 1
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_footer_estimates_the_context_before_any_usage_report(tmp_path: Path) -> None:
    """pi estimates the context (chars / 4) until a reply reports usage: after `!seq 1 2000`, about
    8900 characters of command and output are ~2226 tokens, 1.7% of the faux model's 128k."""
    with faux_provider() as faux:
        h = make_app(faux, tmp_path)
        await h.start()
        assert h.terminal.display()[-1].startswith("0.0%/128k")
        h.type("!seq 1 2000")
        h.keys(ENTER)
        await h.wait(lambda s: s.split("\n")[-1].startswith("1.7%/128k"))
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
        h.check_frames()


async def test_footer_counts_the_prompt_while_the_first_reply_streams(tmp_path: Path) -> None:
    """A 4000-character prompt is ~1000 tokens: 0.8% of 128k shows before the reply reports usage."""
    with faux_provider(tokens_per_second=20) as faux:
        faux.set_responses([faux_assistant_message(" ".join(f"w{i}" for i in range(200)))])
        h = make_app(faux, tmp_path)
        await h.start()
        h.keys("\x1b[200~" + "a" * 4000 + "\x1b[201~")
        await h.wait("[paste #1 4000 chars]")
        h.keys(ENTER)
        await h.wait(lambda s: " Working " in s and s.split("\n")[-1].startswith("0.8%/128k"))
        h.keys("\x1b")
        await h.wait(lambda s: "Working" not in s)
        h.keys(CTRL_C, CTRL_C)
        assert await h.finished() == 0
