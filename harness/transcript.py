"""The transcript: the raw history on disk, one JSON line per message, written as the run goes.

Each line is ``{"lap": 3, "message": {...}}``. A line is written and flushed the moment the loop's
bookkeeping sees the message, so killing the process mid-run loses nothing already appended.
A transcript file that already holds the start of this run's history (a session going on from where
it stopped) is continued: the messages it holds are not written a second time.

Left out: rotating or compressing long files, and writing the lap records (they can be recomputed).
"""

from __future__ import annotations

import json
from pathlib import Path


class Transcript:
    """Appends messages to a JSONL file. Example: .write(user("hi"), lap=0) -> a line, flushed"""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.held = []  # what the file already holds (a session going on): not written twice
        if self.path.is_file() and self.path.stat().st_size:
            try:
                self.held = load_transcript(self.path)
            except (ValueError, OSError, UnicodeDecodeError):
                pass  # not a transcript: not ours to judge, the run appends after it
        self.written = 0  # messages of this run seen so far
        self.file = open(self.path, "a", encoding="utf-8")

    def write(self, message: dict, lap: int) -> None:
        # compared as the file holds it (a tuple comes back as a list)
        as_saved = json.loads(json.dumps(message))
        if self.written < len(self.held) and self.held[self.written] == as_saved:
            self.written += 1  # the file holds it already: a continued session
            return
        self.held = []  # from the first difference on, everything is new
        self.written += 1
        self.file.write(json.dumps({"lap": lap, "message": message}) + "\n")
        self.file.flush()  # on disk now: a killed process keeps it

    def close(self) -> None:
        self.file.close()


def load_transcript(path: str | Path) -> list[dict]:
    """Read a JSONL transcript back into a message list. A malformed line is named in the error."""
    messages = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            message = record["message"]
            if message.get("role") not in ("user", "assistant") or "content" not in message:
                raise ValueError("not a message")
        except (ValueError, KeyError, TypeError, AttributeError) as problem:
            raise ValueError(
                f"{path}, line {number}: not a transcript record ({problem})."
            ) from None
        messages.append(message)
    return messages
