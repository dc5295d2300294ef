"""JupyterLab in headless Chromium: the dashboard renders, and its picture moves when play is pressed.

Starts JupyterLab from this environment on 127.0.0.1 (a free port, no token, ``--allow-root`` as root) in
a temporary folder holding a two-cell notebook, drives Debian's Chromium with playwright (never
``playwright install``), and blocks every request that is not for the local server. A screenshot goes
to ``test-artifacts/``. Without /usr/bin/chromium the test is skipped, unless ``CI=true``, where it fails.
"""

import base64
import io
import json
import os
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

from stage.widgets import FIXED, WALL, ZONES

pytestmark = [pytest.mark.integration, pytest.mark.browser]

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
OVERRIDES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
PICTURE = ".context-desk-picture img"




def need_lab_settings():
    """The dashboard draws blank figures unless widget comms run on the main shell (see DESIGN.md)."""
    settings = json.loads(OVERRIDES.read_text()) if OVERRIDES.exists() else {}
    comms = settings.get("@jupyterlab/apputils-extension:kernels-settings", {}).get("commsOverSubshells")
    if comms != "disabled":
        pytest.fail(f"{OVERRIDES} does not disable commsOverSubshells: "
                    f"run `{sys.executable} tools/lab_settings.py` (make does).")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_notebook(folder: Path) -> str:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell("from stage.widgets import show_dashboard"),
                      nbformat.v4.new_code_cell("show_dashboard(delay=0.4)")]
    nbformat.write(notebook, folder / "dashboard.ipynb")
    return "dashboard.ipynb"


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server in its own process group; yields its base URL; always killed afterwards."""
    need_chromium("browser test")
    need_lab_settings()
    port, home = free_port(), tmp_path / "home"
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    write_notebook(notebooks)
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces")}
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.open_browser=False",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
               "--ServerApp.token=", "--ServerApp.password=", "--expose-app-in-browser",
               "--LabApp.extension_manager=readonly", f"--ServerApp.root_dir={notebooks}"]
    if os.geteuid() == 0:
        command.append("--allow-root")        # JupyterLab exits as root without it
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(command, cwd=notebooks, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(url, server, tmp_path / "lab.log")
        yield url
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
        os.killpg(server.pid, signal.SIGKILL)        # anything still in the group
    except ProcessLookupError:
        pass
    server.wait(timeout=5)
    for kernel in kernels:
        if kernel.is_running():
            kernel.kill()


@pytest.fixture
def page(lab):
    """A Chromium page that may only talk to the local server. Yields (page, url, requests refused)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    refused = []

    def local_only(route):
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1500, "height": 1100}, service_workers="block")
            context.route("**/*", local_only)
            yield context.new_page(), lab, refused
        finally:
            browser.close()


KERNEL_IDLE = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const session = panel && panel.sessionContext && panel.sessionContext.session;
  const kernel = session && session.kernel;
  return !!kernel && kernel.status === 'idle';
}"""
STATUS_SAYS = "(words) => document.querySelector('.context-desk-dashboard').innerText.includes(words)"
PICTURE_CHANGED = """(before) => {
  const img = document.querySelector('.context-desk-picture img');
  return !!img && img.src !== before;
}"""


def picture_src(page) -> str:
    return page.locator(PICTURE).first.get_attribute("src")


def test_dashboard_renders_and_moves_in_jupyterlab(page):
    page, url, refused = page
    page.goto(f"{url}/lab/tree/dashboard.ipynb?reset", wait_until="domcontentloaded")
    page.wait_for_function(KERNEL_IDLE, timeout=45_000)
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")      # room for the whole dashboard
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_selector(PICTURE, timeout=45_000)
    dashboard = page.locator(".context-desk-dashboard")
    assert "stopped: answered" in dashboard.inner_text(), "show_dashboard draws the last lap of a run"
    last_lap = picture_src(page)

    dashboard.locator("button", has_text="play").click()
    page.wait_for_function(PICTURE_CHANGED, arg=last_lap, timeout=20_000)
    moment_one = picture_src(page)
    page.wait_for_function(PICTURE_CHANGED, arg=moment_one, timeout=20_000)
    moment_two = picture_src(page)
    assert len({last_lap, moment_one, moment_two}) == 3, "the picture changes while playing"
    assert_desk_view_drawn(moment_two)

    page.wait_for_function(STATUS_SAYS, arg="lap 9 of", timeout=20_000)   # past the first compaction
    dashboard.locator("button", has_text="pause").click()
    page.wait_for_timeout(300)
    paused = picture_src(page)
    page.wait_for_timeout(1500)                           # several play delays: nothing may move
    assert picture_src(page) == paused, "pause stops the picture"
    assert "Goal:" in dashboard.inner_text(), "the summary panel shows the summary on the desk"

    ARTIFACTS.mkdir(exist_ok=True)
    dashboard.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard-in-jupyterlab.png"))
    dashboard.screenshot(path=str(ARTIFACTS / "dashboard.png"))
    assert "Error displaying widget" not in page.content()
    assert refused == [], f"requests left the machine: {refused}"


def assert_desk_view_drawn(src: str):
    """The lower part of the picture is the desk: grey system + tools, a blue head block, the red edge."""
    assert src.startswith("data:image/png;base64,")
    picture = PIL.Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB")
    width, height = picture.size
    desk = picture.crop((0, int(height * 0.62), width, height))
    colours = {colour for _, colour in desk.getcolors(maxcolors=width * height)}
    for name, hex_colour in (("system + tools", FIXED[0]), ("head", ZONES["head"][0]), ("window edge", WALL)):
        rgb = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
        assert rgb in colours, f"the desk view has no {name} block ({hex_colour})"
