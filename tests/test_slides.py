"""The slide decks: their furniture (fast, no browser), and the exported decks in headless Chromium, offline.

Fast tests read the deck notebooks: every segment has a deck; each deck is markdown only with no outputs,
opens on its time box, has speaker notes on every slide, asks its checkpoint question with the answer to
wait for in the notes, and shows only committed figures. The figures' stories are checked against fresh runs.

The browser tests (marker ``browser``) build the decks with ``slides.build.build()``, open each HTML file
from disk in Debian's Chromium with every non-``file://`` request blocked and recorded, step through every
slide, and fail on any blocked request, failed load, console error or blank screenshot. Screenshots go
to ``test-artifacts/slides/``. Without /usr/bin/chromium they are skipped, unless ``CI=true``.
"""

import os
import re
from pathlib import Path

import nbformat
import PIL.Image
import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS, need_chromium

from slides import build as slide_build
from slides import figures as slide_figures

pytestmark = pytest.mark.integration  # builds the decks, and plays them in Chromium

ROOT = Path(__file__).resolve().parent.parent
SLIDES = ROOT / "slides"
ARTIFACTS = ROOT / "test-artifacts" / "slides"

SEGMENTS = {  # deck -> the time box its title slide must show
    "01_the_filling_desk": "7:00–7:20",
    "02_sliding_window_failure": "7:00–7:20",
    "03_three_zone_compaction": "7:20–7:50",
    "04_running_summary": "7:50–8:30",
    "05_memory_claude_md": "8:30–8:55",
}
DECKS = slide_build.decks()
SLIDE_TYPES = {"slide", "subslide", "fragment", "notes", "skip", "-"}
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)|<img[^>]+src=[\"']([^\"']+)")


def kind(cell) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def text(cell) -> str:
    return "".join(cell.source)


def slides_of(notebook) -> list[list]:
    """The deck cut into slides: each a list of cells, starting at a slide or subslide cell."""
    found = []
    for cell in notebook.cells:
        if kind(cell) in ("slide", "subslide") or not found:
            found.append([])
        found[-1].append(cell)
    return found


@pytest.fixture(scope="module", params=DECKS, ids=[d.stem for d in DECKS])
def deck(request):
    notebook = nbformat.read(request.param, as_version=4)
    nbformat.validate(notebook)
    return request.param, notebook


# ---- fast: the decks as notebooks ------------------------------------------------------------------------


def test_there_is_one_deck_per_segment():
    assert [d.stem for d in DECKS] == list(SEGMENTS), (
        "slides/ should hold exactly the five segment decks"
    )


def test_only_markdown_no_outputs_no_blobs(deck):
    path, notebook = deck
    for number, cell in enumerate(notebook.cells):
        where = f"{path.name}, cell {number}"
        assert cell.cell_type == "markdown", (
            f"{where}: decks are markdown only (RISE cannot show widgets)"
        )
        assert "outputs" not in cell and "execution_count" not in cell, f"{where}: has outputs"
        assert not cell.get("attachments"), (
            f"{where}: images must be files under figures/, not attachments"
        )
        assert "base64," not in text(cell), (
            f"{where}: an inline base64 image; save it under figures/"
        )
        assert kind(cell) in SLIDE_TYPES, f"{where}: unknown slide_type {kind(cell)!r}"
    assert notebook.metadata.get("rise", {}).get("theme") == "white", (
        "RISE theme 'white' (simple pulls web fonts)"
    )


def test_title_slide_shows_the_time_box(deck):
    path, notebook = deck
    first = notebook.cells[0]
    assert kind(first) == "slide" and text(first).lstrip().startswith("# "), (
        f"{path.name}: no title slide"
    )
    assert SEGMENTS[path.stem] in text(first), (
        f"{path.name}: the title slide should show {SEGMENTS[path.stem]}"
    )
    if path.stem.startswith("05"):
        assert "8:55–9:00" in text(first), "deck 05 also covers the 8:55–9:00 knot"


def test_every_slide_has_speaker_notes(deck):
    path, notebook = deck
    for cells in slides_of(notebook):
        title = text(cells[0]).strip().splitlines()[0][:60]
        notes = [c for c in cells if kind(c) == "notes"]
        assert notes, (
            f"{path.name}: the slide {title!r} has no notes cell (what to say, ask, wait for)"
        )
        assert all(len(text(c).split()) >= 8 for c in notes), (
            f"{path.name}: notes on {title!r} are too thin"
        )


def test_checkpoint_question_with_the_answer_in_the_notes(deck):
    path, notebook = deck
    checkpoints = [cells for cells in slides_of(notebook) if "Checkpoint" in text(cells[0])]
    assert len(checkpoints) == 1, (
        f"{path.name}: expected one checkpoint slide, found {len(checkpoints)}"
    )
    [cells] = checkpoints
    assert "?" in text(cells[0]), f"{path.name}: the checkpoint slide asks no question"
    notes = " ".join(text(c) for c in cells if kind(c) == "notes")
    assert "Wait for" in notes, (
        f"{path.name}: the checkpoint's notes should say which answer to wait for"
    )


def test_slides_are_big_text_few_words(deck):
    path, notebook = deck
    for cells in slides_of(notebook):
        shown = " ".join(IMAGE.sub("", text(c)) for c in cells if kind(c) != "notes")
        words = len(re.findall(r"[A-Za-z0-9']+", shown))
        assert words <= 45, (
            f"{path.name}: {words} words on the slide starting {text(cells[0])[:50]!r}"
        )


def test_every_picture_is_a_committed_figure(deck):
    path, notebook = deck
    for cell in notebook.cells:
        for match in IMAGE.finditer(text(cell)):
            src = match.group(1) or match.group(2)
            assert re.fullmatch(r"figures/[a-z0-9_]+\.png", src), (
                f"{path.name}: {src!r} is not figures/NAME.png"
            )
            assert (SLIDES / src).is_file(), (
                f"{path.name}: {src} is missing: run `python -m slides.figures`"
            )


def test_figures_match_the_generator_and_are_projector_sized():
    committed = {p.stem for p in (SLIDES / "figures").glob("*.png")}
    assert committed == set(slide_figures.FIGURES), (
        f"slides/figures/ and slides/figures.py disagree: only on disk {sorted(committed - set(slide_figures.FIGURES))}, "
        f"never written {sorted(set(slide_figures.FIGURES) - committed)}. Run `python -m slides.figures`."
    )
    used = set()
    for path in DECKS:
        used |= {
            Path(m.group(1) or m.group(2)).stem
            for m in IMAGE.finditer(path.read_text(encoding="utf-8"))
        }
    assert committed <= used, f"figures no deck shows: {sorted(committed - used)}"
    for name in committed:
        width, height = PIL.Image.open(SLIDES / "figures" / f"{name}.png").size
        assert width >= 1200 and height >= 500, (
            f"{name}.png is {width}x{height}: too small for a projector"
        )


def test_the_pictures_stories_still_hold():
    """What the figures (and the notes that talk about them) claim, checked against fresh offline runs."""
    runs = slide_figures.runs
    assert runs("full").stopped == "overflow"
    assert runs("sliding").database_target == "production" and runs("sliding").rereads
    assert runs("pinned").database_target == "staging"
    events = slide_figures.compaction_events(runs("three_zone"))
    assert events and all(e["before"] > e["after"] and e["summary_out"] > 0 for e in events)
    roomy = [lap.summary for lap in runs("roomy_summary").laps if lap.kind == "compact"]
    tight = [lap.summary for lap in runs("tight_summary").laps if lap.kind == "compact"]
    assert any("app/db.py:25" in s for s in roomy) and not any("app/db.py:25" in s for s in tight)
    assert runs("vague_passing").database_target == "production"
    assert runs("template_passing").database_target == "staging"


def test_regenerating_a_figure_gives_the_same_bytes(tmp_path):
    """Deterministic pictures: drawing one twice gives identical files (no timestamps, no randomness)."""
    first = slide_figures.build_figures(tmp_path / "a", ["sawtooth"], verbose=False)[0]
    second = slide_figures.build_figures(tmp_path / "b", ["sawtooth"], verbose=False)[0]
    assert first.read_bytes() == second.read_bytes()


# ---- browser: the exported decks, offline ------------------------------------------------------------------


@pytest.fixture(scope="module")
def built():
    """Build every deck (HTML and PDF handouts) once for the browser tests; the build is quick and never stale."""
    need_chromium("slide browser test")
    try:
        return slide_build.build(pdf=True, quiet=True)
    except slide_build.BuildError as problem:
        if os.environ.get("CI") == "true" or "npm" not in str(problem):
            raise
        pytest.skip(f"slide browser test skipped: {problem}")


@pytest.fixture(scope="module")
def browser(built):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.mark.browser
@pytest.mark.parametrize("name", list(SEGMENTS))
def test_deck_plays_offline_in_chromium(browser, name):
    page_file = slide_build.HTML / f"{name}.slides.html"
    assert page_file.is_file(), f"the build wrote no {page_file}"
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    blocked, failed, errors = [], [], []

    def only_local(route):
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.on("requestfailed", lambda request: failed.append(f"{request.url}: {request.failure}"))
    page.on(
        "response",
        lambda response: (
            response.status >= 400 and failed.append(f"{response.url}: {response.status}")
        ),
    )
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda problem: errors.append(str(problem)))
    try:
        page.goto(page_file.as_uri())
        page.wait_for_selector("body[data-deck-ready='yes']", state="attached", timeout=20_000)
        page.evaluate("Reveal.configure({transition: 'none', backgroundTransition: 'none'})")
        page.add_style_tag(
            content=".reveal .slides section .fragment { transition: none !important; }"
        )
        total = page.evaluate("Reveal.getTotalSlides()")
        assert total >= 5, f"{name}: only {total} slides"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for number in range(1, total + 1):
            page.evaluate(
                "() => { while (Reveal.availableFragments().next) Reveal.nextFragment(); }"
            )
            page.wait_for_function(
                "Array.from(document.querySelectorAll('section.present img'))"
                ".every(i => i.complete && i.naturalWidth > 0)",
                timeout=10_000,
            )
            shot = ARTIFACTS / f"{name}-{number:02d}.png"
            page.screenshot(path=str(shot))
            assert_not_blank(shot)
            if number < total:
                page.evaluate("Reveal.next()")
        assert page.evaluate("Reveal.isLastSlide()"), (
            f"{name}: stepping {total} times did not reach the last slide"
        )
    finally:
        page.close()
    assert not blocked, f"{name}: the deck tried to reach the network: {blocked}"
    assert not failed, f"{name}: missing or failed assets: {failed}"
    assert not errors, f"{name}: errors in the browser console: {errors}"


def assert_not_blank(shot: Path):
    """A slide with text or a picture on it: some non-white pixels and more than a handful of colours."""
    image = PIL.Image.open(shot).convert("RGB").resize((320, 180))
    grey = image.convert("L").histogram()
    inked = sum(grey[:200]) / sum(grey)  # pixels clearly darker than the white page
    colours = len(image.getcolors(320 * 180))
    assert inked > 0.004 and colours > 12, (
        f"{shot.name} looks blank ({inked:.1%} inked, {colours} colours)"
    )


@pytest.mark.browser
def test_handouts_have_one_page_per_slide(built):
    for page_file in built:
        pdf = slide_build.HANDOUTS / page_file.name.replace(".slides.html", ".pdf")
        assert pdf.is_file(), f"no handout {pdf}"
        data = pdf.read_bytes()
        assert data.startswith(b"%PDF"), f"{pdf.name} is not a PDF"
        pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
        notebook = nbformat.read(
            SLIDES / page_file.name.replace(".slides.html", ".ipynb"), as_version=4
        )
        slides = sum(kind(cell) in ("slide", "subslide") for cell in notebook.cells)
        assert pages == slides, f"{pdf.name}: {pages} pages for {slides} slides"


@pytest.mark.browser
def test_exported_html_names_no_remote_asset(built):
    for page_file in built:
        html = page_file.read_text(encoding="utf-8")
        remote = re.findall(r"(?:src|href)=[\"'](https?:[^\"']+)", html)
        assert not remote, f"{page_file.name} points at the network: {remote}"
        for local in (
            "vendor/reveal.js/dist/reveal.js",
            "vendor/requirejs/require.js",
            "vendor/jquery/jquery.min.js",
        ):
            assert local in html and (slide_build.HTML / local).is_file(), (
                f"{page_file.name}: {local} missing"
            )
