"""Export the decks to HTML that opens from disk with no network, and print a PDF handout of each.

    python -m slides.build            # = make slides: HTML decks in slides/html/, PDFs in slides/html/handouts/
    python -m slides.build --no-pdf   # HTML only

nbconvert's slides exporter loads reveal.js, require.js and jQuery from CDNs, so its decks are blank
offline. Here they come from npm instead (pinned in ``slides/package.json``, locked in
``package-lock.json``): ``npm ci`` fills ``slides/node_modules`` when it is missing, and the few files a
deck needs are copied to ``slides/html/vendor/``, next to the HTML, with relative URLs. The figures
are copied to ``slides/html/figures/``, so the decks' ``figures/NAME.png`` resolve from the HTML too.
reveal.js stays at 4.0.2: later versions moved the plugin folder that nbconvert's template loads.

The handouts are the HTML decks printed by Debian's Chromium (``/usr/bin/chromium``) through
playwright's Python package, with reveal.js's ``?print-pdf`` layout: one page per slide, fragments
shown, notes left out. Without Chromium the PDFs are skipped with a message; the HTML still builds.

Left out: regenerating the figures (``python -m slides.figures`` does that; they are committed),
the speaker notes in the handouts, and any theme but ``white`` (``simple`` pulls web fonts).
"""

from __future__ import annotations

import argparse
import html
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tools.lessons import registry  # the one table of lessons

SLIDES = Path(__file__).resolve().parent
HTML = SLIDES / "html"
VENDOR = HTML / "vendor"
HANDOUTS = HTML / "handouts"
FIGURES = SLIDES / "figures"
TEMPLATE = SLIDES / "template" / "context_desk.html.j2"  # extends nbconvert's reveal template
NODE_MODULES = SLIDES / "node_modules"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# What a deck loads, as (file in node_modules, where it goes under html/vendor/). Folders are copied whole.
VENDORED = [
    ("reveal.js/dist/reveal.css", "reveal.js/dist/reveal.css"),
    ("reveal.js/dist/reveal.js", "reveal.js/dist/reveal.js"),
    ("reveal.js/dist/theme/white.css", "reveal.js/dist/theme/white.css"),
    ("reveal.js/dist/theme/fonts/source-sans-pro", "reveal.js/dist/theme/fonts/source-sans-pro"),
    ("reveal.js/plugin/notes/notes.js", "reveal.js/plugin/notes/notes.js"),
    ("reveal.js/LICENSE", "reveal.js/LICENSE"),
    ("requirejs/require.js", "requirejs/require.js"),
    ("jquery/dist/jquery.min.js", "jquery/jquery.min.js"),
    ("jquery/LICENSE.txt", "jquery/LICENSE.txt"),
]
URLS = {  # relative to the HTML file, so the folder can be copied to a USB stick and still work
    "reveal_url_prefix": "vendor/reveal.js",
    "require_js_url": "vendor/requirejs/require.js",
    "jquery_url": "vendor/jquery/jquery.min.js",
}


class BuildError(Exception):
    """Something the build needs is missing; the message says how to get it."""


def decks() -> list[Path]:
    """The deck notebooks, in class order: the lesson registry's `deck` column (notebooks/lessons.toml).

    Example: [slides/01_the_filling_desk.ipynb, ...]
    """
    return [entry.deck_path for entry in registry() if entry.deck]


# ---- 1. the local copies of reveal.js, require.js and jQuery -------------------------------------------


def ensure_node_modules(quiet: bool = False) -> None:
    """Install the pinned packages into slides/node_modules with npm, unless they are already there."""
    if all((NODE_MODULES / source).exists() for source, _ in VENDORED):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError(
            "npm is needed once to fetch reveal.js, require.js and jQuery into slides/node_modules "
            "(install Node.js, e.g. `sudo apt-get install npm`), then run `make slides` again."
        )
    command = [
        npm,
        "ci" if (SLIDES / "package-lock.json").exists() else "install",
        "--no-audit",
        "--no-fund",
    ]
    if not quiet:
        print(f"installing the slide players with `{' '.join(command[1:])}` in {SLIDES} ...")
    done = subprocess.run(command, cwd=SLIDES, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"`npm {command[1]}` failed in {SLIDES}:\n{done.stderr.strip()[-2000:]}")
    missing = [source for source, _ in VENDORED if not (NODE_MODULES / source).exists()]
    if missing:
        raise BuildError(
            f"npm ran, but these files are still missing from {NODE_MODULES}: {', '.join(missing)}. "
            "Is reveal.js pinned to 4.0.2 in slides/package.json?"
        )


def copy_vendor() -> None:
    """Copy what the decks load from node_modules to html/vendor/ (only those files: a few hundred kB)."""
    shutil.rmtree(VENDOR, ignore_errors=True)
    for source, target in VENDORED:
        origin, destination = NODE_MODULES / source, VENDOR / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, destination)
        else:
            shutil.copy2(origin, destination)


def copy_figures() -> None:
    """The figures next to the HTML, so ``figures/NAME.png`` in a deck resolves from slides/html/ too."""
    shutil.rmtree(HTML / "figures", ignore_errors=True)
    shutil.copytree(FIGURES, HTML / "figures")


# ---- 2. the HTML decks -----------------------------------------------------------------------------------


def exporter():
    """nbconvert's SlidesExporter, pointed at the local copies and at our template."""
    from nbconvert import SlidesExporter

    slides = SlidesExporter(
        template_file=str(TEMPLATE),
        reveal_theme="white",
        reveal_transition="fade",
        reveal_number="c/t",
        reveal_scroll=False,
        reveal_width="1280",
        reveal_height="720",  # 16:9
        **URLS,
    )
    slides.exclude_input_prompt = True
    return slides


def export_html(deck: Path, slides=None) -> Path:
    """Write one deck as ``slides/html/<deck>.slides.html`` and return its path."""
    import nbformat

    notebook = nbformat.read(deck, as_version=4)
    body, _ = (slides or exporter()).from_notebook_node(
        notebook, resources={"metadata": {"name": deck.stem}}
    )
    offline_check(body, deck)
    target = HTML / f"{deck.stem}.slides.html"
    target.write_text(body, encoding="utf-8")
    return target


def offline_check(body: str, deck: Path) -> None:
    """Refuse to write a deck that still points at the network (a template change could bring a CDN back)."""
    for needle in (
        'src="http',
        'href="http',
        "url(http",
        'import("http',
        "from 'http",
        '"https://',
        "'https://",
    ):
        if needle in body:
            start = body.index(needle)
            raise BuildError(
                f"{deck.name}: the exported HTML still loads from the network near "
                f"{body[max(0, start - 80) : start + 120]!r}"
            )


def write_index(pages: list[Path]) -> Path:
    """A plain page listing the decks and handouts, for the projector's browser."""
    rows = []
    for page in pages:
        name = page.name.removesuffix(".slides.html")
        pdf = HANDOUTS / f"{name}.pdf"
        handout = f' · <a href="handouts/{pdf.name}">PDF handout</a>' if pdf.exists() else ""
        rows.append(
            f'<li><a href="{page.name}">{html.escape(name.replace("_", " "))}</a>{handout}</li>'
        )
    index = HTML / "index.html"
    index.write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Context Desk slides'
        '</title></head>\n<body style="font: 28px sans-serif; margin: 2em">\n<h1>Context Desk: the decks'
        "</h1>\n<ol>\n" + "\n".join(rows) + "\n</ol>\n</body></html>\n",
        encoding="utf-8",
    )
    return index


# ---- 3. the PDF handouts ------------------------------------------------------------------------------------


def print_handouts(pages: list[Path], quiet: bool = False) -> list[Path]:
    """Print each HTML deck to ``slides/html/handouts/<deck>.pdf`` with Chromium, offline. [] if no Chromium."""
    if not CHROMIUM.exists():
        print(
            f"PDF handouts skipped: no {CHROMIUM} (install it with `sudo apt-get install chromium`)."
        )
        return []
    from playwright.sync_api import sync_playwright

    HANDOUTS.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 960})
            page.route(
                "**/*",
                lambda route: (
                    route.continue_() if route.request.url.startswith("file://") else route.abort()
                ),
            )  # a handout never waits on the network
            for deck_page in pages:
                page.goto(deck_page.as_uri() + "?print-pdf")
                page.wait_for_selector(
                    "body[data-deck-ready='yes']", state="attached", timeout=20_000
                )
                page.wait_for_function(
                    "Array.from(document.images).every(i => i.complete)", timeout=20_000
                )
                target = HANDOUTS / deck_page.name.replace(".slides.html", ".pdf")
                page.pdf(path=str(target), prefer_css_page_size=True, print_background=True)
                written.append(target)
                if not quiet:
                    print(f"wrote {target.relative_to(SLIDES.parent)}")
        finally:
            browser.close()
    return written


# ---- all of it ------------------------------------------------------------------------------------------------


def build(pdf: bool = True, quiet: bool = False) -> list[Path]:
    """Build every deck: vendor files, figures, HTML, index, and (if ``pdf``) the handouts. Returns the HTML paths."""
    started = time.perf_counter()
    ensure_node_modules(quiet)
    HTML.mkdir(exist_ok=True)
    copy_vendor()
    copy_figures()
    slides = exporter()
    pages = []
    for deck in decks():
        pages.append(export_html(deck, slides))
        if not quiet:
            print(f"wrote {pages[-1].relative_to(SLIDES.parent)}")
    if pdf:
        print_handouts(pages, quiet)
    write_index(pages)
    if not quiet:
        print(
            f"done in {time.perf_counter() - started:.1f} s: open {(HTML / 'index.html').relative_to(SLIDES.parent)}"
            " in a browser (no network needed)"
        )
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Export the slide decks to offline HTML and PDF handouts."
    )
    parser.add_argument("--no-pdf", action="store_true", help="skip the PDF handouts")
    args = parser.parse_args(argv)
    try:
        build(pdf=not args.no_pdf)
    except BuildError as problem:
        print(f"make slides: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
