"""Context rot, as a labelled SIMULATION for the offline model -- not a measurement of any real model.

Left out: everything real models actually do; see ``ContextRot``.
"""

from __future__ import annotations

import hashlib
import json

from harness.messages import blocks_of, result_text


class ContextRot:
    """A SIMULATION of context rot -- not a measurement of any real model.

    Practitioners report that a very full context is recalled less reliably than a roomy one,
    worst for what sits far from the end. This knob imitates that in the offline model, so the class
    can watch the effect: when a request fills more than ``starts_at`` of the window, each line of
    text (a note, a rule, a summary line) and each tool result may slip out of what the model sees.
    The chance grows with fullness and with distance from the end:

        chance = strength x (fullness - starts_at) / (1 - starts_at) x distance_from_end

    Example: starts_at 0.6, strength 0.9, a request 90 % full, a rule 80 % of the way back
    -> 0.9 x 0.75 x 0.8 = 54 % chance that the rule is not seen.

    Deterministic: whether a line slips is a hash of ``seed`` and the line's text, so the same
    request always rots the same way, and a line that slipped at 85 % full also slips, in the same
    place, at 90 %.
    Left out: everything real models actually do. The opening request (pinned at the start, and
    the part practitioners find best recalled) and the newest message are spared, and so are the
    harness's own ``[...]`` header lines, so the offline model can still tell a summary from a remark.
    """

    def __init__(self, starts_at: float = 0.6, strength: float = 0.9, seed: int = 0):
        if not 0 <= starts_at < 1 or not 0 <= strength <= 1:
            raise ValueError(
                f"starts_at must be in [0, 1) and strength in [0, 1], not {starts_at}, {strength}."
            )
        self.starts_at, self.strength, self.seed = starts_at, strength, seed

    def chance(self, fullness: float, distance: float) -> float:
        """The chance that a piece ``distance`` from the end (0 newest, 1 oldest) slips, at ``fullness``."""
        rise = min(1.0, max(0.0, (fullness - self.starts_at) / (1 - self.starts_at)))
        return self.strength * rise * distance

    def slips(self, piece: str, fullness: float, distance: float) -> bool:
        """Does this piece of text slip? Seeded and repeatable: a hash stands in for a dice roll."""
        draw = int(hashlib.sha1(f"{self.seed}|{piece}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        return draw < self.chance(fullness, distance)

    def blur(self, messages: list[dict], fullness: float) -> list[dict]:
        """What a rotting model sees of ``messages``: new copies with the slipped lines and results taken out."""
        if fullness <= self.starts_at or len(messages) < 3:
            return messages
        sizes = [len(json.dumps(m["content"])) for m in messages]
        total, seen = sum(sizes), [messages[0]]
        for i, message in enumerate(messages[1:-1], start=1):
            distance = sum(sizes[i + 1 :]) / total
            blocks = []
            for block in blocks_of(message):
                if block.get("type") == "text":
                    block = {**block, "text": self._keep_lines(block["text"], fullness, distance)}
                elif block.get("type") == "tool_result" and self.slips(
                    result_text(block), fullness, distance
                ):
                    block = {**block, "content": ""}
                blocks.append(block)
            seen.append({"role": message["role"], "content": blocks})
        return seen + messages[-1:]

    def blur_text(self, text: str, fullness: float) -> str:
        """The same for one long text (a transcript to summarize): lines far from its end may slip."""
        if fullness <= self.starts_at:
            return text
        lines, kept, done = text.splitlines(), [], 0
        total = sum(len(line) + 1 for line in lines) or 1
        for line in lines:
            done += len(line) + 1
            if line.lstrip().startswith("[") or not self.slips(line, fullness, 1 - done / total):
                kept.append(line)
        return "\n".join(kept)

    def _keep_lines(self, text: str, fullness: float, distance: float) -> str:
        return "\n".join(
            line
            for line in text.splitlines()
            if line.lstrip().startswith("[") or not self.slips(line, fullness, distance)
        )
