"""Write the workbook's JupyterLab settings into the environment's overrides.json.

JupyterLab reads `<prefix>/share/jupyter/lab/settings/overrides.json` as the default for every
user of that environment, so `make lab` and the browser tests get these settings on a fresh machine
without touching anyone's home directory. Two settings, and why:

- Kernel comms over subshells: disabled. JupyterLab 4.6 runs widget callbacks on kernel subshells,
  concurrently with a running cell; the dashboard's matplotlib redraws then race the cell and come
  out blank or half drawn. Sending comms on the main shell makes them wait their turn.
- News and update checks: off. Their pop-ups cover the projector screen (and browser-test
  screenshots), and they try to reach the internet, which the classroom may not have.

Other keys already in overrides.json are kept: this merges, it does not clobber. A user's own
settings (in ~/.jupyter) still win over these defaults. Key names and values follow the schemas
JupyterLab ships in share/jupyter/lab/schemas/@jupyterlab/apputils-extension/.
"""

import json
import sys
from pathlib import Path

OVERRIDES = {
    "@jupyterlab/apputils-extension:kernels-settings": {
        "commsOverSubshells": "disabled",  # one of "disabled", "perComm", "perCommTarget"
    },
    "@jupyterlab/apputils-extension:notification": {
        "checkForUpdates": False,  # a boolean
        "fetchNews": "false",  # a string: "true", "false" or "none" (ask)
    },
}


def write_overrides(prefix: Path) -> Path:
    """Merge OVERRIDES into <prefix>/share/jupyter/lab/settings/overrides.json; return its path.

    Example: an existing file {"x:y": {"a": 1}, "...:notification": {"doNotDisturbMode": true}}
    keeps both entries; the notification entry gains checkForUpdates and fetchNews beside doNotDisturbMode.
    """
    path = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings = {}
    if path.exists():
        try:
            settings = json.loads(path.read_text(encoding="utf-8") or "{}")
        except json.JSONDecodeError as err:
            # Refuse rather than overwrite a file someone wrote by hand.
            raise SystemExit(f"{path} is not valid JSON ({err}); fix or delete it, then rerun.") from err
        if not isinstance(settings, dict):
            raise SystemExit(f"{path} must hold a JSON object; fix or delete it, then rerun.")
    for plugin, values in OVERRIDES.items():
        settings[plugin] = {**settings.get(plugin, {}), **values}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    # Run with the environment's own python (make does: .venv/bin/python tools/lab_settings.py).
    print(f"JupyterLab settings written to {write_overrides(Path(sys.prefix))}")
