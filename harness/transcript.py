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
    """Appends messages to a JSONL file. Example: Transcript("run.jsonl").write(user("hi"), lap=0)"""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.held = _already_there(self.path)  # what the file holds: not written twice
        self.written = 0  # messages of this run seen so far
        self.file = open(self.path, "a", encoding="utf-8")

    def write(self, message: dict, lap: int) -> None:
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


def _already_there(path: Path) -> list[dict]:
    """The messages a file already holds ([] if none, or if it cannot be read as a transcript)."""
    if not path.is_file() or path.stat().st_size == 0:
        return []
    try:
        return load_transcript(path)
    except (ValueError, OSError, UnicodeDecodeError):
        return []  # not ours to judge: the run appends after it
