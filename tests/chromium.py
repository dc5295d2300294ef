"""Debian's Chromium for the browser tests: where it is, how to start it, and what to do without it.

Never ``playwright install``: Playwright's Python package drives the system's /usr/bin/chromium.
The flags keep a headless Chromium from reaching for the network on its own.
"""

import os

import pytest

from slides.build import CHROMIUM, CHROMIUM_ARGS  # noqa: F401  (one definition, shared with the slide build)


def need_chromium(what: str = "browser test") -> None:
    """Skip with one line on a laptop without Chromium; under CI=true its absence is a failure."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(
            f"CI=true but {CHROMIUM} is missing: `make test` installs it (target browser-deps)."
        )
    pytest.skip(f"{what} skipped: no {CHROMIUM}; enable it with `sudo apt-get install chromium`.")
