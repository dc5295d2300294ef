"""The words the harness says to the model: the agent's system prompt and the summary prompts.

* ``COMPACTION_TEMPLATE`` -- the structured prompt. Its sections are the ones a fresh copy of
  the agent needs to carry on cold; *standing constraints* is a required section, because a rule
  the user stated once exists nowhere else once the middle of the conversation is summarized.
* ``NAIVE_PROMPT`` -- "summarize briefly". Kept on purpose, for the lesson on why structure matters.
* ``FOLD_PROMPT`` -- the running summary: fold the newest events into one living summary.

``render()`` turns messages into the plain transcript the summary prompts embed.
Left out: prompt caching markers and tool definitions inside the summary call (it needs none).
"""

from __future__ import annotations

from harness.messages import READABLE, block_text, blocks_of

SYSTEM_PROMPT = (
    "You are a careful coding agent working in a small repository through tools. "
    "Work one step at a time and say briefly what you noticed."
)

# In the prompts, a line that ends in a backslash goes on in the next: the model sees one line.
COMPACTION_TEMPLATE = """\
You are compacting the middle of a long agent session so the work can continue in a smaller context.
Write the notes a fresh copy of you would need to carry on cold, under these headings, \
in at most {max_words} words:
- Goal: the user's original request, in one or two sentences.
- Standing constraints: every rule the user gave that still applies, word for word. \
Always include them.
- Facts: what was discovered, with exact file paths, line numbers, identifiers and numbers.
- Decisions: what was decided, and why.
- Files read: every file read or changed.
- Done / pending: what is finished and what is left to do.
- Pointers: what can be re-read or re-run instead of remembered.
{focus}
<transcript>
{transcript}
</transcript>"""

NAIVE_PROMPT = """\
Summarize the conversation so far, briefly.
<transcript>
{transcript}
</transcript>"""

FOLD_PROMPT = """\
You keep the running summary of an agent session. \
Fold the new events into it: keep the same headings,
keep every standing constraint, update what is done and pending, and stay under {max_words} words.
- Goal: the user's request.
- Standing constraints: every rule the user gave, word for word.
- Facts: discoveries with exact paths, line numbers and identifiers.
- Files read: every file read.
- Done / pending: progress and what is left.
<summary>
{summary}
</summary>
<events>
{transcript}
</events>"""

SUMMARY_HEADER = "[Summary of earlier work, written by the model at lap {lap}]"


def compaction_prompt(
    transcript: str, max_words: int = 220, focus: str = "", template: str = COMPACTION_TEMPLATE
) -> str:
    """A compaction prompt, filled in. ``focus``: what a person typed after ``/compact``, or ""."""
    focus_line = f"Focus on {focus.strip()} first." if focus.strip() else ""
    # a template without {focus} or {max_words} still works: format ignores unused keys
    return template.format(transcript=transcript, max_words=max_words, focus=focus_line)


def fold_prompt(
    summary: str, transcript: str, max_words: int = 180, template: str = FOLD_PROMPT
) -> str:
    """Fill the running-summary fold prompt."""
    return template.format(summary=summary or "(empty)", transcript=transcript, max_words=max_words)


def render(messages: list[dict]) -> str:
    """A transcript a model can read: one line per text block, tool call and tool result.

    Example: [user("Fix the bug."), assistant([tool_use read_file app/a.py])]
    -> 'user: Fix the bug.\\nassistant -> read_file {"path": "app/a.py"}'
    """
    labels = {"text": "{role}: ", "tool_use": "assistant -> ", "tool_result": "tool result:\n"}
    return "\n".join(
        labels[block["type"]].format(role=message["role"]) + block_text(block)
        for message in messages
        for block in blocks_of(message)
        if block.get("type") in READABLE
    )
