"""Write the workbook's JupyterLab settings into the environment (the venv), so every user of it gets them.

JupyterLab and Jupyter read defaults from the environment's own folders, so `make lab`, the class hub and the
browser tests get these on a fresh machine without touching anyone's home directory. Six files, and why:

`share/jupyter/lab/settings/overrides.json` -- settings every user starts from:
- Kernel comms over subshells: disabled. JupyterLab 4.6 runs widget callbacks on kernel subshells,
  concurrently with a running cell; the dashboard's matplotlib redraws then race the cell and come
  out blank or half drawn. Sending comms on the main shell makes them wait their turn.
- News and update checks: off. Their pop-ups cover the projector screen (and browser-test
  screenshots), and they try to reach the internet, which the classroom may not have.
- Widget state saved with the notebook: on. Otherwise a lesson saved (or autosaved) with a dashboard in it
  reopens to "Error displaying widget: model not found"; with it, the dashboard comes back as a still
  picture of the last lap until the cell runs again.
- Code at 15 px in every editor (JupyterLab's default is 13): it is read from the back of the room.
  Printed output is not set here: JupyterLab takes its theme's font sizes from a user's own settings only,
  never from these defaults. The stylesheet below does it instead.

`etc/jupyter/jupyter_server_config.json` and `custom/custom.css` in jupyter_server's own static folder --
printed output (verdicts, printouts, tracebacks) at 15 px, wrapped between words. JupyterLab's default is 13 px, and it breaks a printed line at any letter (``word-break: break-all``): a
verdict came out as "wi" at the end of one line and "th" at the start of the next. The config file turns on
JupyterLab's custom stylesheet (``LabApp.custom_css``); the server looks for it in the user's
``~/.jupyter/custom/`` first (a user's own still wins), then in that static folder, which is this
environment's.

`etc/jupyter/labconfig/page_config.json` -- the old `jupyterlab-mathjax3` extension (JupyterLab 3, pulled
in by jupyterlab-rise) is disabled: JupyterLab 4 has MathJax built in, and the old one warns about versions
in the browser every time a page opens.

`etc/jupyter/jupyter_rise_config.json` -- RISE's slideshow page loads no other
extension. It is built against an older JupyterLab than the one installed, so the widget manager and the
others loaded there warned about versions and failed; the decks are markdown and pictures only.

`etc/ipython/ipython_kernel_config.json` -- the kernel is `stage.kernel.LessonKernel`: IPython's, naming its
language without the Python version, so opening a lesson does not mark it modified (see that module).

Other keys already in the JSON files are kept: this merges, it does not clobber (the stylesheet is this
workbook's alone, and is written whole). A user's own settings (in
~/.jupyter) still win. Key names and values follow the schemas JupyterLab ships in share/jupyter/lab/schemas/.
"""

import json
import sys
import sysconfig
from pathlib import Path

OVERRIDES = {
    "@jupyterlab/apputils-extension:kernels-settings": {
        "commsOverSubshells": "disabled",  # one of "disabled", "perComm", "perCommTarget"
    },
    "@jupyterlab/apputils-extension:notification": {
        "checkForUpdates": False,  # a boolean
        "fetchNews": "false",  # a string: "true", "false" or "none" (ask)
    },
    "@jupyter-widgets/jupyterlab-manager:plugin": {
        "saveState": True,  # a boolean
    },
    "@jupyterlab/codemirror-extension:plugin": {
        "defaultConfig": {"customStyles": {"fontSize": 15}},  # pixels, every code editor
    },
}
PAGE_CONFIG = {"disabledExtensions": {"@jupyterlab/mathjax3-extension": True}}
RISE_CONFIG = {"RiseApp": {"labextensions_path": [], "extra_labextensions_path": []}}
KERNEL_CONFIG = {"IPKernelApp": {"kernel_class": "stage.kernel.LessonKernel"}}
SERVER_CONFIG = {"LabApp": {"custom_css": True}}  # load custom/custom.css on every JupyterLab page
OUTPUT_PX = 15  # printed output, in pixels
STYLESHEET = f"""/* Context Desk (tools/lab_settings.py writes this file; edits are overwritten).
   Printed output -- verdicts, printouts, tracebacks -- at projector size, wrapped between words only:
   JupyterLab's own rule breaks a line at any letter (word-break: break-all). */
.jp-ThemedContainer .jp-RenderedText.jp-OutputArea-output pre {{
  font-size: {OUTPUT_PX}px;
  word-break: normal;
  overflow-wrap: break-word; /* a word longer than the whole line still breaks, rather than run off */
}}
"""


def files(prefix: Path) -> dict[Path, dict]:
    """Where each JSON piece goes under ``prefix`` (the environment's ``sys.prefix``), and what it holds."""
    prefix = Path(prefix)
    return {
        prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json": OVERRIDES,
        prefix / "etc" / "jupyter" / "labconfig" / "page_config.json": PAGE_CONFIG,
        prefix / "etc" / "jupyter" / "jupyter_rise_config.json": RISE_CONFIG,
        prefix / "etc" / "ipython" / "ipython_kernel_config.json": KERNEL_CONFIG,
        prefix / "etc" / "jupyter" / "jupyter_server_config.json": SERVER_CONFIG,
    }


def stylesheet_path(prefix: Path) -> Path:
    """custom/custom.css in jupyter_server's static folder, in the environment at ``prefix``.

    Example: on Linux, .venv -> .venv/lib/python3.11/site-packages/jupyter_server/static/custom/custom.css
    """
    packages = sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)})
    return Path(packages) / "jupyter_server" / "static" / "custom" / "custom.css"


def write_settings(prefix: Path) -> list[Path]:
    """Merge every JSON piece into its file under ``prefix``, write the stylesheet; return the paths."""
    written = [merge_into(path, values) for path, values in files(prefix).items()]
    css = stylesheet_path(prefix)
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_text(STYLESHEET, encoding="utf-8")
    return [*written, css]


def merge_into(path: Path, values: dict) -> Path:
    """Merge ``values`` into the JSON object in ``path``, one level deep (a plugin's keys beside others').

    Example: an existing file {"x:y": {"a": 1}, "...:notification": {"doNotDisturbMode": true}}
    keeps both entries; the notification entry gains checkForUpdates and fetchNews beside doNotDisturbMode.
    """
    settings = {}
    if path.exists():
        try:
            settings = json.loads(path.read_text(encoding="utf-8") or "{}")
        except json.JSONDecodeError as err:
            # Refuse rather than overwrite a file someone wrote by hand.
            raise SystemExit(
                f"{path} is not valid JSON ({err}); fix or delete it, then rerun."
            ) from err
        if not isinstance(settings, dict):
            raise SystemExit(f"{path} must hold a JSON object; fix or delete it, then rerun.")
    for key, value in values.items():
        mine = settings.get(key)
        settings[key] = (
            {**mine, **value} if isinstance(mine, dict) and isinstance(value, dict) else value
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    # Run with the environment's own python (make does: .venv/bin/python tools/lab_settings.py).
    for written in write_settings(Path(sys.prefix)):
        print(f"JupyterLab settings written to {written}")
