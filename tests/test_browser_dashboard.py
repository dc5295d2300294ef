"""JupyterLab in headless Chromium, the way a class sees it: a projector, laptops, a lesson saved and reopened.

One JupyterLab serves every check here (it takes seconds to start): it runs from this environment on
127.0.0.1 (a free port, no token, ``--allow-root`` as root), in a temporary folder holding a small dashboard
notebook and copies of the lessons and slide decks, so nothing in the repository is opened or saved. Debian's
Chromium is driven with playwright (never ``playwright install``); every request that is not for the local
server is blocked and recorded. Screenshots go to ``test-artifacts/``. Without /usr/bin/chromium the tests are
skipped, unless ``CI=true``, where they fail.

* the dashboard renders, plays, pauses (at a roomy 1500 x 1100);
* at 1280 x 720 with the file browser open it fits, plot and desk view on screen together, its buttons
  still through ten laps; every control stays on screen after reset and play too (the default dashboard
  and lesson 04's, screenshots of each moment); it fits a 1366 x 768 and a 1440 x 900 laptop and a
  1920 x 1080 screen, there also at the large size; code and printed output are at least 15 px, a long
  printed verdict wraps between words, a verdict carries its symbol and colour;
* a lesson saved with a dashboard in it, closed, and reopened without running shows the last picture,
  not a widget error; opening a lesson (every one in notebooks/) does not mark it modified;
* a slide deck opened in RISE loads its styles and no extension it cannot run.
"""

import base64
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import PIL.Image
import psutil
import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS, need_chromium

from stage.kernel import LANGUAGE_INFO
from tools import build_views
from stage.palette import FIXED, GOOD, WALL, ZONES, rgb

pytestmark = [pytest.mark.integration, pytest.mark.browser]

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
OVERRIDES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
PICTURE = ".context-desk-picture img"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
LONG_VERDICT = (  # a verdict as long as an exercise's, made of words that a break inside would show
    "the sliding window kept the newest messages within the room it was given, but the "
    "standing rule left the desk with the oldest turns, and the agent then aimed its fix "
    "at production; keep the request pinned at the head, or carry the rule forward in a summary"
)


def need_lab_settings():
    """The dashboard draws blank figures unless widget comms run on the main shell (see DESIGN.md)."""
    settings = json.loads(OVERRIDES.read_text()) if OVERRIDES.exists() else {}
    comms = settings.get("@jupyterlab/apputils-extension:kernels-settings", {}).get(
        "commsOverSubshells"
    )
    if comms != "disabled":
        pytest.fail(
            f"{OVERRIDES} does not disable commsOverSubshells: "
            f"run `{sys.executable} tools/lab_settings.py` (make does)."
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_notebook(path: Path, *cells: str) -> str:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata.update(kernelspec=KERNELSPEC, language_info=dict(LANGUAGE_INFO))
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in cells]
    nbformat.write(notebook, path)
    return path.name


def fill_folder(folder: Path):
    """What the lab serves: a dashboard notebook, a verdict notebook, the lessons, the decks and their figures."""
    write_notebook(
        folder / "dashboard.ipynb",
        "from stage.widgets import show_dashboard",
        "show_dashboard(delay=0.4)",
    )
    write_notebook(
        folder / "dashboard-04.ipynb",  # lesson 04's: the class's piece first in a longer menu
        "from harness.running_summary import RunningSummary\n"
        "from harness.strategies import STRATEGIES\n"
        "from stage.widgets import show_dashboard",
        "menu = {'your running summary': lambda s: RunningSummary(tail_turns=s.tail_turns)}\n"
        "menu.update({name: cls.from_settings for name, cls in STRATEGIES.items()})\n"
        "show_dashboard(strategies=menu, strategy='your running summary', delay=0.3)",
    )
    write_notebook(
        folder / "verdicts.ipynb",
        "from IPython.display import display\n"
        "from stage.palette import verdict_bundle, verdict_line\n"
        "print(verdict_line(True, 'the window slides'))\nprint(verdict_line(False, 'the rule fell off'))\n"
        "display(verdict_bundle(True, 'shown big'), raw=True)\n"
        "display(verdict_bundle(False, 'shown big'), raw=True)",
        f"print(verdict_line(False, {LONG_VERDICT!r}))",
    )
    code = [
        c.source
        for lesson in LESSONS
        for c in nbformat.read(lesson, as_version=4).cells
        if c.cell_type == "code"
    ]
    fenced = "# The lessons' code, as the runbook shows it\n\n" + "".join(
        f"```python\n{c}\n```\n\n" for c in code
    )
    fenced += (
        "```text\n" + "x-1 " * 3 + "-".join(["app/auth.py"] * 40) + "\n```\n"
    )  # sure to wrap somewhere
    (folder / "runbook-fenced.md").write_text(fenced, encoding="utf-8")
    (folder / "runbook-code.md").write_text(build_views.no_wrap_code(fenced), encoding="utf-8")
    (folder / "notebooks").mkdir()
    for lesson in LESSONS:
        shutil.copy(lesson, folder / "notebooks" / lesson.name)
    shutil.copytree(
        ROOT / "slides",
        folder / "slides",
        ignore=shutil.ignore_patterns("node_modules", "html", "__pycache__", "*.py", "template"),
    )


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server in its own process group; yields (base URL, its folder); always killed afterwards."""
    need_chromium("browser test")
    need_lab_settings()
    tmp_path = tmp_path_factory.mktemp("lab")
    port, home, folder = free_port(), tmp_path / "home", tmp_path / "root"
    folder.mkdir()
    fill_folder(folder)
    env = {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
    }
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.open_browser=False",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True",
        "--expose-app-in-browser",
        "--LabApp.extension_manager=readonly",
        f"--ServerApp.root_dir={folder}",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")  # JupyterLab exits as root without it
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(
        command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(url, server, tmp_path / "lab.log")
        yield url, folder
    finally:
        stop(server)
        log.close()


def wait_until_answering(url: str, server: subprocess.Popen, log: Path, timeout: float = 45):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited ({server.returncode}):\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"JupyterLab did not answer within {timeout} s:\n{log.read_text()[-2000:]}")


def stop(server: subprocess.Popen):
    """Stop the server's process group, politely (it shuts its kernels down) and then for certain.

    Kernels run in sessions of their own, so any the server left behind are killed by pid afterwards.
    """
    try:
        kernels = psutil.Process(server.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        kernels = []
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    try:
        os.killpg(server.pid, signal.SIGKILL)  # anything still in the group
    except ProcessLookupError:
        pass
    server.wait(timeout=5)
    for kernel in kernels:
        if kernel.is_running():
            kernel.kill()


def shut_down_kernels(url: str):
    """Every kernel of the server, shut down through its REST API (as closing JupyterLab would leave them)."""
    with urllib.request.urlopen(f"{url}/api/kernels", timeout=5) as answer:
        for kernel in json.load(answer):
            request = urllib.request.Request(f"{url}/api/kernels/{kernel['id']}", method="DELETE")
            urllib.request.urlopen(request, timeout=10).close()


@pytest.fixture(scope="module")
def browser(lab):
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(lab, browser):
    """A Chromium page that may only talk to the local server. Yields (page, url, requests refused, folder)."""
    url, folder = lab
    refused = []

    def local_only(route):
        if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context = browser.new_context(viewport={"width": 1280, "height": 720}, service_workers="block")
    context.route("**/*", local_only)
    try:
        yield context.new_page(), url, refused, folder
    finally:
        context.close()
        shut_down_kernels(url)


KERNEL_IDLE = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const session = panel && panel.sessionContext && panel.sessionContext.session;
  const kernel = session && session.kernel;
  return !!kernel && kernel.status === 'idle';
}"""
DIRTY = "() => window.jupyterapp.shell.currentWidget.model.dirty"
STATUS_SAYS = (
    "(words) => document.querySelector('.context-desk-dashboard').innerText.includes(words)"
)
PICTURE_CHANGED = """(before) => {
  const img = document.querySelector('.context-desk-picture img');
  return !!img && img.src !== before;
}"""
BOXES = """(selectors) => Object.fromEntries(selectors.map(s => {
  const e = document.querySelector(s);
  if (!e) return [s, null];
  const b = e.getBoundingClientRect();
  return [s, [b.left, b.top, b.right, b.bottom]];
}))"""


def open_notebook(page, url: str, name: str):
    page.goto(f"{url}/lab/tree/{name}?reset", wait_until="domcontentloaded")
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)


def run_all(page):
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_selector(PICTURE, timeout=60_000)
    page.wait_for_function(STATUS_SAYS, arg="stopped:", timeout=30_000)


def picture_src(page) -> str:
    return page.locator(PICTURE).first.get_attribute("src")


def boxes(page, selectors: list[str]) -> dict:
    return page.evaluate(BOXES, selectors)


def button_boxes(page) -> list:
    """Where each button and the size toggle is on the screen: [left, top, right, bottom] each."""
    return page.evaluate("""() => Array.from(document.querySelectorAll(
        '.context-desk-dashboard button')).map(b => { const r = b.getBoundingClientRect();
        return [b.innerText.trim(), Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)]; })""")


def show_dashboard_at_top(page):
    page.evaluate(
        "() => document.querySelector('.context-desk-dashboard').scrollIntoView({block: 'start'})"
    )
    page.wait_for_timeout(300)


def assert_fits(page, what: str):
    """The dashboard lies inside the viewport and inside the notebook's visible area; the picture whole, unscaled."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    show_dashboard_at_top(page)
    found = boxes(
        page,
        [".context-desk-dashboard", PICTURE, ".jp-WindowedPanel-outer", ".context-desk-summary"],
    )
    dash, picture, notebook = (
        found[".context-desk-dashboard"],
        found[PICTURE],
        found[".jp-WindowedPanel-outer"],
    )
    assert dash[0] >= 0 and dash[1] >= 0 and dash[2] <= width and dash[3] <= height, (
        f"{what}: the dashboard {dash} is not inside the {width}x{height} viewport"
    )
    assert dash[2] <= notebook[2] + 1 and dash[3] <= notebook[3] + 1, (
        f"{what}: the dashboard {dash} runs past the notebook's visible area {notebook}"
    )
    assert (
        notebook[1] - 1 <= picture[1]
        and picture[3] <= notebook[3] + 1
        and picture[2] <= notebook[2] + 1
    ), f"{what}: plot and desk view {picture} are not both on screen in {notebook}"
    natural = page.evaluate(
        "() => { const i = document.querySelector('.context-desk-picture img');"
        " return [i.naturalWidth, i.getBoundingClientRect().width]; }"
    )
    assert natural[1] >= natural[0] * 0.99, (
        f"{what}: the picture is shrunk ({natural}): its text is below 15 px"
    )
    return found


# ---- the dashboard --------------------------------------------------------------------------------------


def test_dashboard_renders_and_moves_in_jupyterlab(page):
    page, url, refused, _ = page
    page.set_viewport_size({"width": 1500, "height": 1100})
    open_notebook(page, url, "dashboard.ipynb")
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")  # room for the whole dashboard
    run_all(page)
    dashboard = page.locator(".context-desk-dashboard")
    assert "stopped: answered" in dashboard.inner_text(), (
        "show_dashboard draws the last lap of a run"
    )
    last_lap = picture_src(page)

    dashboard.locator("button", has_text="play").click()
    page.wait_for_function(PICTURE_CHANGED, arg=last_lap, timeout=20_000)
    moment_one = picture_src(page)
    page.wait_for_function(PICTURE_CHANGED, arg=moment_one, timeout=20_000)
    moment_two = picture_src(page)
    assert len({last_lap, moment_one, moment_two}) == 3, "the picture changes while playing"
    assert_desk_view_drawn(moment_two)

    page.wait_for_function(STATUS_SAYS, arg="lap 9 of", timeout=20_000)  # past the first compaction
    dashboard.locator("button", has_text="pause").click()
    page.wait_for_timeout(300)
    paused = picture_src(page)
    page.wait_for_timeout(1500)  # several play delays: nothing may move
    assert picture_src(page) == paused, "pause stops the picture"
    assert "Goal:" in dashboard.inner_text(), "the summary panel shows the summary on the desk"

    ARTIFACTS.mkdir(exist_ok=True)
    dashboard.screenshot(path=str(ARTIFACTS / "dashboard.png"))
    assert "Error displaying widget" not in page.content()
    assert refused == [], f"requests left the machine: {refused}"


def assert_desk_view_drawn(src: str):
    """The lower part of the picture is the desk: grey system + tools, a blue head block, the red edge."""
    assert src.startswith("data:image/png;base64,")
    picture = PIL.Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB")
    width, height = picture.size
    desk = picture.crop((0, int(height * 0.6), width, height))
    colours = {colour for _, colour in desk.getcolors(maxcolors=width * height)}
    for name, hex_colour in (
        ("system + tools", FIXED.colour),
        ("head", ZONES["head"].colour),
        ("window edge", WALL),
    ):
        wanted = tuple(round(c * 255) for c in rgb(hex_colour))
        assert wanted in colours, f"the desk view has no {name} block ({hex_colour})"


def test_on_a_projector_the_dashboard_fits_and_its_buttons_stay_put(page):
    """1280 x 720 with the file browser open: all of it on screen; ten laps later the buttons are where they were."""
    page, url, refused, _ = page
    open_notebook(page, url, "dashboard.ipynb")
    assert boxes(page, ["#jp-left-stack"])["#jp-left-stack"][2] > 200, (
        "the file browser should be open"
    )
    run_all(page)
    code = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('.jp-Cell .cm-content')).fontSize)"
    )
    assert code >= 15, f"code is {code} px on screen"
    assert_fits(page, "1280x720, file browser open")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-1280x720.png"))

    before = button_boxes(page)
    assert [name for name, *_ in before] == ["step", "play", "pause", "reset", "large"]
    page.locator(".context-desk-dashboard button", has_text="reset").click()
    page.wait_for_function(STATUS_SAYS, arg="lap 0 of", timeout=10_000)
    for lap in range(1, 11):
        shown = picture_src(page)
        page.locator(".context-desk-dashboard button", has_text="step").click()
        page.wait_for_function(STATUS_SAYS, arg=f"lap {lap} of", timeout=10_000)
        page.wait_for_function(PICTURE_CHANGED, arg=shown, timeout=10_000)
        assert button_boxes(page) == before, f"the buttons moved at lap {lap}"
    page.locator(".context-desk-dashboard select").select_option(
        "full history"
    )  # a longer status line
    page.wait_for_function(STATUS_SAYS, arg="settings changed", timeout=10_000)
    assert button_boxes(page) == before, (
        "the buttons moved when the status said the settings changed"
    )

    for width, height in ((1366, 768), (1440, 900), (1920, 1080)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(500)
        assert_fits(page, f"{width}x{height}, file browser open")
    page.locator(".context-desk-dashboard button", has_text="large").click()
    page.wait_for_function(
        "() => document.querySelector('.context-desk-picture img').naturalWidth > 800",
        timeout=10_000,
    )
    assert_fits(page, "1920x1080 at the large size")
    page.screenshot(path=str(ARTIFACTS / "dashboard-1920x1080-large.png"))
    assert "Error displaying widget" not in page.content()
    assert refused == [], f"requests left the machine: {refused}"


CONTROLS = """() => Array.from(document.querySelectorAll(
  '.context-desk-dashboard button, .context-desk-dashboard select, .context-desk-dashboard .widget-slider,'
  + ' .context-desk-dashboard .widget-readout, .context-desk-dashboard .widget-label,'
  + ' .context-desk-status, .context-desk-picture img, .context-desk-summary'))
  .map(e => { const b = e.getBoundingClientRect();
    return [e.className.split(' ')[0] + ':' + (e.innerText || '').trim().slice(0, 20),
            Math.round(b.left), Math.round(b.top), Math.round(b.right), Math.round(b.bottom)]; })"""


def assert_every_control_on_screen(page, what: str):
    """Every button, menu, slider, the status line, the picture and the summary lie inside the viewport."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    found = page.evaluate(CONTROLS)
    assert len(found) >= 12, f"{what}: the dashboard's controls were not found: {found}"
    outside = [
        (name, box)
        for name, *box in found
        if box[0] < 0 or box[1] < 0 or box[2] > width + 1 or box[3] > height + 1
    ]
    assert not outside, f"{what}: outside the {width}x{height} screen: {outside}"


@pytest.mark.parametrize("notebook", ["dashboard.ipynb", "dashboard-04.ipynb"])
def test_on_a_projector_nothing_leaves_the_screen_after_reset_and_play(page, notebook):
    """1280 x 720, file browser open: after the first draw, and again while and after it replays from lap 0."""
    page, url, refused, _ = page
    open_notebook(page, url, notebook)
    run_all(page)
    assert boxes(page, ["#jp-left-stack"])["#jp-left-stack"][2] > 200, "the file browser is open"
    stem = notebook.removesuffix(".ipynb")
    ARTIFACTS.mkdir(exist_ok=True)
    for moment in ("drawn", "playing", "played"):
        if moment == "playing":
            page.locator(".context-desk-dashboard button", has_text="reset").click()
            page.wait_for_function(STATUS_SAYS, arg="lap 0 of", timeout=10_000)
            page.locator(".context-desk-dashboard button", has_text="play").click()
            page.wait_for_function(STATUS_SAYS, arg="lap 6 of", timeout=20_000)
        elif moment == "played":
            page.wait_for_function(STATUS_SAYS, arg="stopped:", timeout=60_000)
        assert_fits(page, f"{notebook}, {moment}")
        assert_every_control_on_screen(page, f"{notebook}, {moment}")
        page.screenshot(path=str(ARTIFACTS / f"{stem}-1280x720-{moment}.png"))
    assert "Error displaying widget" not in page.content()
    assert refused == [], f"requests left the machine: {refused}"


def test_verdicts_carry_a_symbol_and_a_colour_and_show_big(page):
    """Printed: the symbol and word in the palette's colour, bold, at 15 px (tools/lab_settings.py's
    stylesheet), a long one wrapped between words. Shown (verdict_bundle): the same at 16 px."""
    page, url, _, _ = page
    open_notebook(page, url, "verdicts.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_selector(".jp-OutputArea-output div span", timeout=30_000)
    spans = page.evaluate("""() => Array.from(document.querySelectorAll('.jp-OutputArea-output span')).map(s =>
        [s.closest('pre') ? 'printed' : 'shown', s.innerText, getComputedStyle(s).color,
         parseFloat(getComputedStyle(s).fontSize), parseInt(getComputedStyle(s).fontWeight)])""")
    for way in ("printed", "shown"):
        found = {text: rest for kind, text, *rest in spans if kind == way}
        for words, colour in (("✔ PASS", GOOD), ("✘ FAIL", WALL)):
            assert words in found, f"no {words!r} {way}: {spans}"
            shown, size, weight = found[words]
            assert shown == "rgb({}, {}, {})".format(*(round(c * 255) for c in rgb(colour))), (
                way,
                words,
                shown,
            )
            assert weight >= 600, f"{way} {words} is not bold"
            assert size >= 15, f"{words} is {way} at {size} px"
    printed = page.locator(".jp-OutputArea-output pre", has_text="standing rule left the desk")
    printed.wait_for(timeout=30_000)
    size = printed.evaluate("(pre) => parseFloat(getComputedStyle(pre).fontSize)")
    assert size >= 15, f"printed output is {size} px"
    lines = printed.evaluate(
        "(pre) => Math.round(pre.getBoundingClientRect().height / "
        "parseFloat(getComputedStyle(pre).lineHeight))"
    )
    assert lines >= 2, "the long verdict should wrap at 1280 x 720 with the file browser open"
    broken = printed.evaluate(BREAKS_INSIDE_A_WORD)
    assert not broken, "a printed verdict wraps inside a word:\n" + "\n".join(broken)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "verdicts-1280x720.png"))


# ---- save, close, reopen ------------------------------------------------------------------------------------


def test_a_saved_lesson_reopens_as_a_picture_not_a_widget_error(page):
    page, url, refused, folder = page
    open_notebook(page, url, "dashboard.ipynb")
    run_all(page)
    last = picture_src(page)
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.model.dirty", timeout=20_000
    )
    saved = json.loads((folder / "dashboard.ipynb").read_text())
    assert saved["metadata"].get("widgets"), "the widget state was not saved with the notebook"

    shut_down_kernels(url)  # closed: the kernel and its widgets are gone
    page.goto("about:blank")
    open_notebook(page, url, "dashboard.ipynb")  # reopened, not run
    page.wait_for_selector(PICTURE, timeout=30_000)
    page.wait_for_timeout(1500)  # time for a late "model not found" to appear
    assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()
    assert picture_src(page) == last, "the reopened lesson shows the last picture it had"
    # Not asserted: that it stays unmodified. Restoring saved widgets, JupyterLab's widget manager marks the
    # notebook modified itself (it does so for every widget it registers while saving widget state is on).
    page.screenshot(path=str(ARTIFACTS / "dashboard-reopened.png"))
    assert refused == []


@pytest.mark.parametrize("lesson", [path.name for path in LESSONS])
def test_opening_a_lesson_does_not_mark_it_modified(page, lesson):
    page, url, _, _ = page
    open_notebook(page, url, f"notebooks/{lesson}")
    page.wait_for_timeout(1000)  # the kernel's info has arrived and been applied
    metadata = page.evaluate("() => window.jupyterapp.shell.currentWidget.model.metadata")
    assert not page.evaluate(DIRTY), (
        f"{lesson} is marked modified as soon as it opens; JupyterLab set "
        f"its metadata to {metadata}"
    )


# ---- RISE --------------------------------------------------------------------------------------------------


def test_a_deck_opens_in_rise_with_its_styles_and_no_extension_it_cannot_run(page):
    """RISE's page loads rise.css and the deck's own CSS, no lab extension, and shows the title slide."""
    page, url, refused, _ = page
    messages, missing = [], []
    page.on(
        "console",
        lambda message: messages.append(
            f"{message.type}: {message.text[:200]} ({message.location.get('url', '')})"
        ),
    )
    page.on(
        "response",
        lambda answer: answer.status >= 400 and missing.append(f"{answer.status} {answer.url}"),
    )
    open_notebook(page, url, "slides/01_the_filling_desk.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('RISE:preview')")
    frame = None
    for _ in range(120):
        frame = next((f for f in page.frames if "/rise/" in f.url), None)
        if frame:
            break
        page.wait_for_timeout(250)
    assert frame, "RISE:preview opened no slideshow"
    frame.wait_for_selector(".reveal .slides section.present h1", timeout=60_000)
    size = frame.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector("
        "'.reveal .slides section.present .jp-RenderedMarkdown p')).fontSize)"
    )
    assert size >= 20, f"rise.css did not make the slide text big ({size} px)"
    page.screenshot(path=str(ARTIFACTS / "rise-01.png"))
    assert not missing, f"RISE asked for files that are not there: {missing}"
    loaded = frame.evaluate(
        "() => JSON.parse(document.getElementById('jupyter-config-data').textContent)"
        ".federated_extensions.map(e => e.name)"
    )
    assert loaded == [], f"RISE's page loads lab extensions built for another JupyterLab: {loaded}"
    failed = [m for m in messages if "Failed to create module" in m or "No satisfying version" in m]
    assert not failed, "extensions failed to load:\n" + "\n".join(failed)
    assert refused == [], f"requests left the machine: {refused}"


# ---- the runbook's code ------------------------------------------------------------------------------------

BREAKS_INSIDE_A_WORD = """(pre) => {
  const found = [], range = document.createRange();
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  let top = null, before = '\\n', node;
  while ((node = walker.nextNode())) {
    const text = node.textContent;
    for (let i = 0; i < text.length; i++) {
      const letter = text[i];
      if (letter === '\\n') { top = null; before = letter; continue; }
      range.setStart(node, i); range.setEnd(node, i + 1);
      const box = range.getClientRects()[0];
      if (!box) continue;
      if (top !== null && box.top > top + 2 && !/\\s/.test(before) && !/\\s/.test(letter))
        found.push(text.slice(Math.max(0, i - 20), i) + ' | ' + text.slice(i, i + 20));
      top = box.top; before = letter;
    }
  }
  return found;
}"""


def wrapped_inside_words(page, url: str, name: str) -> list[str]:
    page.goto(f"{url}/lab?reset", wait_until="domcontentloaded")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('markdownviewer:open')",
        timeout=60_000,
    )
    page.evaluate(
        f"() => window.jupyterapp.commands.execute('docmanager:open', "
        f"{{path: '{name}', factory: 'Markdown Preview'}})"
    )
    page.wait_for_selector(".jp-RenderedMarkdown pre", timeout=30_000)
    page.wait_for_timeout(500)
    return [
        cut
        for pre in page.query_selector_all(".jp-RenderedMarkdown pre")
        for cut in pre.evaluate(BREAKS_INSIDE_A_WORD)
    ]


def test_runbook_code_never_wraps_inside_a_word_on_a_projector(page):
    """JupyterLab's Markdown preview at 1280 x 720 wraps fenced code, at hyphens and slashes too; the runbook's
    blocks (tools.build_views.no_wrap_code) do not wrap at all: a long line scrolls sideways."""
    page, url, _, _ = page
    assert wrapped_inside_words(page, url, "runbook-fenced.md"), (
        "the check should see plain fenced code break"
    )
    broken = wrapped_inside_words(page, url, "runbook-code.md")
    assert not broken, "runbook code breaks inside a word:\n" + "\n".join(broken[:10])
