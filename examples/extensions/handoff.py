"""Hand the task over to a fresh session: `/handoff <goal>`.

Long conversations collect dead ends, old file contents and stale plans that cost tokens and
distract the model. `/handoff <what to do next>` asks the session's model (one extra request) to
turn the conversation so far into a single self-contained prompt aimed at that goal: the relevant
decisions, file paths, open problems and next steps, nothing else. Where there is a UI with
dialogs, the draft opens in an editor first (cancel to keep working in this session). Then a new
session starts, linked to this one as its parent, with the prompt as its first user message.
"""

from __future__ import annotations

from typing import Any

from pi.app.extensions import ExtensionAPI

INSTRUCTIONS = """\
You prepare the opening prompt of a new working session that continues an existing one. The new \
session will not see the old conversation: everything it needs must be in your prompt.

Write the prompt addressed to the assistant who picks up the work, aimed at the goal the user \
gives. Include only what serves that goal: what has been decided and why, the files and \
commands involved (exact paths), what was tried and failed, what remains open, and the concrete \
next steps. Leave out chit-chat, superseded ideas and long tool output.

Answer with the prompt itself: no preamble, no closing remarks."""

USAGE = "Usage: /handoff <what the new session should do>"


class HandoffError(Exception):
    """The handoff cannot go ahead; the message says what to do instead."""


def conversation_text(ctx: Any) -> str:
    """The current branch as a labelled transcript (what compaction summarises, in the same form)."""
    from pi.session.messages import convert_to_llm
    from pi.session.serialize import serialize_conversation

    messages = ctx.session_manager.build_session_context().messages
    text: str = serialize_conversation(convert_to_llm(messages))
    return text


async def draft_prompt(ctx: Any, goal: str, transcript: str) -> str:
    """Ask the session's model for the handoff prompt (with the session's credentials, logins included)."""
    from pi.ai.types import Context, TextContent, UserMessage

    model = ctx.model
    if model is None:
        raise HandoffError("No model is selected; choose one with /model and try again")
    request = f"<conversation>\n{transcript}\n</conversation>\n\n<goal>\n{goal}\n</goal>"
    context = Context(system_prompt=INSTRUCTIONS, messages=[UserMessage(content=request)])
    reply = await ctx.model_registry.complete(model, context, signal=ctx.signal)
    if reply.stop_reason in ("error", "aborted"):
        raise HandoffError(f"The model could not write the handoff prompt: {reply.error_message or reply.stop_reason}")
    text = "".join(block.text for block in reply.content if isinstance(block, TextContent)).strip()
    if not text:
        raise HandoffError("The model answered with an empty handoff prompt; try again with a more specific goal")
    return text


def setup(pi: ExtensionAPI) -> None:
    async def handoff(args: str, ctx: Any) -> None:
        goal = args.strip()
        if not goal:
            ctx.ui.notify(USAGE, "warning")
            return
        await ctx.wait_for_idle()
        transcript = conversation_text(ctx)
        if not transcript:
            ctx.ui.notify("There is nothing to hand off yet: the conversation is empty", "warning")
            return
        try:
            prompt = await draft_prompt(ctx, goal, transcript)
        except HandoffError as error:
            ctx.ui.notify(str(error), "error")
            return
        if ctx.has_ui:
            edited = await ctx.ui.editor("Handoff prompt for the new session", prompt)
            if edited is None or not edited.strip():
                ctx.ui.notify("Handoff cancelled; still in the current session")
                return
            prompt = edited.strip()
        parent = ctx.session_manager.get_session_file()

        async def start(new_ctx: Any) -> None:
            # The old ctx is stale from here on: only the replacement context may be used.
            await new_ctx.send_user_message(prompt)

        outcome = await ctx.new_session(parent_session=str(parent) if parent else None, with_session=start)
        if outcome.get("cancelled"):
            ctx.ui.notify("Handoff cancelled: the new session was not started", "warning")

    pi.register_command("handoff", handoff, description="Continue the task in a new session: /handoff <goal>")
