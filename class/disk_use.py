"""How much disk each student's files take, and a warning past a threshold (a check, not a quota).

    .venv/bin/python class/disk_use.py --warn 2G          # as root: every roster account's home, biggest first

Students' homes, /tmp, and the hub's state folder usually share one filesystem: a student who fills it
stops everyone's saving (and, on a filesystem without blocks kept for root, the hub's database). Linux
quotas are the real limit, where the filesystem has them switched on (class/README.md says how); this
file is what the hub can do without them: the spawner measures a student's home at every server start
and, over CLASS_DISK_WARNING, writes a line in the hub's log and tells the student in the spawn page and
their first cell (class/memory_guard.py). The instructor can list everyone with the command above.

Measured the way `du` does: the blocks each file really holds (a sparse file counts what it uses), every
hard-linked file once, symbolic links not followed. Left out: files a student keeps outside their home
(in /tmp, say; a quota counts those, this check does not), and stopping anyone: it only warns.
"""

from __future__ import annotations

import argparse
import os
import pwd
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path

UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


@dataclass
class Usage:
    bytes: int
    files: int
    complete: (
        bool  # False when the walk stopped at its time limit: `bytes` is then at least this much
    )

    def __str__(self) -> str:
        return (
            f"{'' if self.complete else 'at least '}{size_text(self.bytes)} in {self.files:,} files"
        )


def size_text(count: int) -> str:
    """1536 * 1024**2 -> '1.5 GiB'."""
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= factor:
            return f"{count / factor:.1f} {unit}"
    return f"{count} bytes"


def parse_size(text: str) -> int:
    """'2G' -> 2147483648, '500M' -> 524288000; a clear error otherwise."""
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    number, unit = (cleaned[:-1], cleaned[-1]) if cleaned[-1:] in UNITS else (cleaned, "")
    try:
        return int(float(number) * UNITS[unit])
    except ValueError:
        raise ValueError(f"disk size {text!r}: write a size such as 500M or 2G") from None


def usage(folder: Path, seconds: float = 5.0) -> Usage:
    """The disk blocks under `folder`, each inode once, links not followed; stops after `seconds`."""
    deadline = time.monotonic() + seconds
    seen: set[tuple[int, int]] = set()
    total = files = 0
    for root, folders, names in os.walk(folder, followlinks=False):
        for name in folders + names:
            try:
                info = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            total += info.st_blocks * 512
            files += not stat.S_ISDIR(info.st_mode)
        if time.monotonic() > deadline:
            return Usage(total, files, complete=False)
    return Usage(total, files, complete=True)


def warning(used: Usage, threshold: int) -> str:
    """What the student reads when their home is over the threshold."""
    return (
        f"Disk use: your files take {used}, over the {size_text(threshold)} each student should stay "
        "under on this server (everyone's work is saved on the same disk). Delete what you no longer "
        "need: large outputs, copies of datasets, old checkpoints (`du -sh ~/* | sort -h` in a terminal "
        "shows what is biggest)."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warn", default="2G", help="flag homes over this size (default 2G)")
    parser.add_argument(
        "--state", default=os.environ.get("CLASS_STATE", "/var/lib/context-desk-class")
    )
    args = parser.parse_args(argv)
    roster_file = Path(args.state) / "roster.json"
    try:
        threshold = parse_size(args.warn)
        import json

        names = sorted(json.loads(roster_file.read_text()))
    except (ValueError, OSError) as problem:
        print(f"disk_use: {problem}", file=sys.stderr)
        return 1
    rows = []
    for name in names:
        try:
            home = Path(pwd.getpwnam(name).pw_dir)
        except KeyError:
            continue
        rows.append((usage(home, seconds=30), name, home))
    for used, name, home in sorted(rows, key=lambda row: -row[0].bytes):
        flag = "  OVER" if used.bytes > threshold else ""
        print(f"{name:<20} {size_text(used.bytes):>10}  {home}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
