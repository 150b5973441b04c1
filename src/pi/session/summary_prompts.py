"""The prompts that turn history into a summary another model can pick the work up from.

The headings are fixed (Goal, Constraints & Preferences, Progress with Done / In Progress / Blocked,
Key Decisions, Next Steps, Critical Context): a summary with a known shape can be updated section by
section at the next compaction, and read by the user at a glance.
"""

from __future__ import annotations

SUMMARIZATION_SYSTEM_PROMPT = (
    "You are a context summarization assistant. Your task is to read a conversation between a user and an AI "
    "assistant, then produce a structured summary following the exact format specified.\n\n"
    "Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the "
    "structured summary."
)

_FORMAT = """## Goal
[What the user wants to achieve. List each goal if there are several.]

## Constraints & Preferences
- [Requirements, conventions and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Work that is finished]

### In Progress
- [ ] [Work that was under way]

### Blocked
- [Problems still open, or "(none)"]

## Key Decisions
- **[Decision]**: [Why it was made]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples, references or error messages needed to continue, or "(none)"]"""

SUMMARIZATION_PROMPT = f"""The transcript above is to be replaced by your summary. Write it as a checkpoint \
another model will resume the work from.

Use exactly this format:

{_FORMAT}

Keep each section short and concrete. Keep exact file paths, function names, commands and error messages."""

UPDATE_SUMMARIZATION_PROMPT = f"""The transcript above continues the session described in <previous-summary>. \
Merge the two into one updated summary:
- keep everything from the previous summary that still holds;
- add the new progress, decisions and context;
- move items from "In Progress" to "Done" once they are finished;
- rewrite "Next Steps" for where the work stands now.

Use exactly this format:

{_FORMAT}

Keep each section short and concrete. Keep exact file paths, function names, commands and error messages."""

TURN_PREFIX_SUMMARIZATION_PROMPT = """The conversation above is the first part of a single turn that grew too \
large to keep. The later part of the same turn is kept word for word right after your summary, so write \
what someone reading only that later part needs to know.

Use exactly this format:

## Original Request
[What the user asked for in this turn]

## Progress So Far
- [What was done in this part of the turn, with file paths and results]

## Context Needed to Continue
- [Facts, decisions and errors the kept part depends on]

Be brief and concrete."""

TURN_PREFIX_HEADER = "# Conversation\n"
TURN_PREFIX_INSTRUCTIONS_HEADER = "\n\n# Instructions\n"

BRANCH_SUMMARY_PROMPT = """Create a structured summary of this conversation branch for returning to it \
later. The user has left this branch to work elsewhere; the summary tells the continuing conversation \
what was tried here and what came of it.

Use exactly this format:

## Goal
[What the user was trying to achieve on this branch]

## Constraints & Preferences
- [Requirements and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Work that was finished]

### In Progress
- [ ] [Work that was left unfinished]

### Blocked
- [Problems that stayed open, or "(none)"]

## Key Decisions
- **[Decision]**: [Why it was made]

## Next Steps
1. [What would have come next on this branch]

Keep each section short. Keep exact file paths, function names and error messages."""

BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
)

__all__ = [
    "BRANCH_SUMMARY_PREAMBLE",
    "BRANCH_SUMMARY_PROMPT",
    "SUMMARIZATION_PROMPT",
    "SUMMARIZATION_SYSTEM_PROMPT",
    "TURN_PREFIX_HEADER",
    "TURN_PREFIX_INSTRUCTIONS_HEADER",
    "TURN_PREFIX_SUMMARIZATION_PROMPT",
    "UPDATE_SUMMARIZATION_PROMPT",
]
