"""tools/lab_settings.py writes the environment's Jupyter settings: the dashboard keeps drawing, saved widgets
come back as pictures, code is projector-sized, RISE loads nothing it cannot run, and lessons open unmodified.

Browser checks of the same settings are in test_browser_dashboard.py; these read the files, the installed
schemas, and the notebooks, and run nothing but the kernel class's import.
"""

import importlib.util
import json
import sys
from pathlib import Path

import nbformat
import pytest

from stage.kernel import LANGUAGE_INFO, LessonKernel

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lab_settings", ROOT / "tools" / "lab_settings.py")
lab_settings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lab_settings)

KERNELS = "@jupyterlab/apputils-extension:kernels-settings"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"
WIDGETS = "@jupyter-widgets/jupyterlab-manager:plugin"
EDITOR = "@jupyterlab/codemirror-extension:plugin"
SHARE = Path(sys.prefix) / "share" / "jupyter"
SCHEMAS = {
    KERNELS: SHARE / "lab" / "schemas",
    NOTIFICATION: SHARE / "lab" / "schemas",
    EDITOR: SHARE / "lab" / "schemas",
    WIDGETS: SHARE / "labextensions" / "@jupyter-widgets" / "jupyterlab-manager" / "schemas",
}


def test_writes_every_file_into_a_fresh_prefix(tmp_path):
    written = lab_settings.write_settings(tmp_path)
    css = lab_settings.stylesheet_path(tmp_path)
    assert css in written and css.is_relative_to(tmp_path)
    files = {
        path.relative_to(tmp_path).as_posix(): json.loads(path.read_text())
        for path in written
        if path != css
    }
    overrides = files["share/jupyter/lab/settings/overrides.json"]
    assert overrides[KERNELS] == {"commsOverSubshells": "disabled"}
    assert overrides[NOTIFICATION] == {"checkForUpdates": False, "fetchNews": "false"}
    assert overrides[WIDGETS] == {"saveState": True}
    assert overrides[EDITOR]["defaultConfig"]["customStyles"]["fontSize"] >= 14
    assert files["etc/jupyter/labconfig/page_config.json"]["disabledExtensions"] == {
        "@jupyterlab/mathjax3-extension": True
    }
    assert files["etc/jupyter/jupyter_rise_config.json"]["RiseApp"]["labextensions_path"] == []
    assert files["etc/ipython/ipython_kernel_config.json"] == {
        "IPKernelApp": {"kernel_class": "stage.kernel.LessonKernel"}
    }
    assert files["etc/jupyter/jupyter_server_config.json"] == {"LabApp": {"custom_css": True}}
    assert "font-size: 15px" in css.read_text() and "word-break: normal" in css.read_text()


def test_the_stylesheet_is_where_this_environments_server_looks_and_is_switched_on():
    """The server serves /custom/custom.css from ~/.jupyter/custom or from its own static folder, and only
    when LabApp.custom_css is set: both read here from the installed jupyter_server, as `jupyter lab` would."""
    serverapp = pytest.importorskip("jupyter_server.serverapp")
    app = serverapp.ServerApp()
    app.load_config_file()
    if not app.config.get("LabApp", {}).get("custom_css"):
        pytest.skip(f"run `{sys.executable} tools/lab_settings.py` (make does)")
    served_from = [Path(folder) for folder in app.static_custom_path]
    assert lab_settings.stylesheet_path(Path(sys.prefix)).parent in served_from
    assert lab_settings.stylesheet_path(Path(sys.prefix)).read_text() == lab_settings.STYLESHEET


def test_merges_with_existing_settings_and_is_idempotent(tmp_path):
    path = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
                NOTIFICATION: {"doNotDisturbMode": True, "fetchNews": "true"},
            }
        )
    )
    lab_settings.write_settings(tmp_path)
    lab_settings.write_settings(tmp_path)
    settings = json.loads(path.read_text())
    assert settings["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert settings[NOTIFICATION] == {
        "doNotDisturbMode": True,
        "checkForUpdates": False,
        "fetchNews": "false",
    }
    assert settings[KERNELS] == {"commsOverSubshells": "disabled"}


def test_refuses_to_overwrite_a_broken_file(tmp_path):
    path = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(SystemExit, match="not valid JSON"):
        lab_settings.write_settings(tmp_path)
    assert path.read_text() == "{not json"


@pytest.mark.parametrize("plugin", list(SCHEMAS))
def test_values_match_the_installed_schema(plugin):
    """A misspelt key or a wrong type would be silently ignored by JupyterLab, so check the real schema."""
    jsonschema = pytest.importorskip("jsonschema")
    package, name = plugin.split(":")
    schema_file = SCHEMAS[plugin] / package / f"{name}.json"
    if not schema_file.exists():
        pytest.skip(f"schema not installed here: {schema_file}")
    schema = json.loads(schema_file.read_text())
    values = lab_settings.OVERRIDES[plugin]
    assert set(values) <= set(schema["properties"]), "key not in the schema"
    jsonschema.validate(values, schema)


def test_rise_reads_its_config_from_this_environment():
    rise = pytest.importorskip("jupyterlab_rise.app")
    app = rise.RiseApp()
    app.load_config_file()
    if app.labextensions_path:
        pytest.skip(
            f"run `{sys.executable} tools/lab_settings.py` (make does): RISE still loads lab extensions"
        )
    assert app.labextensions_path == [] and app.extra_labextensions_path == []


# ---- lessons open unmodified -----------------------------------------------------------------------------

NOTEBOOKS = sorted(
    p
    for folder in ("notebooks", "exercises", "slides")
    for p in (ROOT / folder).rglob("*.ipynb")
    if ".ipynb_checkpoints" not in p.parts
)


def test_the_kernel_reports_what_the_lessons_are_saved_with():
    assert LessonKernel.language_info == LANGUAGE_INFO == {"name": "python"}
    assert "version" not in LessonKernel.language_info, (
        "the version differs from machine to machine"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_notebook_is_saved_with_the_metadata_jupyterlab_would_set(path):
    """JupyterLab sets a notebook's kernelspec and language_info from the kernel when it starts; a notebook
    that already holds exactly those is not marked modified. The kernelspec is the one installed here."""
    spec = json.loads(
        (Path(sys.prefix) / "share" / "jupyter" / "kernels" / "python3" / "kernel.json").read_text()
    )
    metadata = nbformat.read(path, as_version=4).metadata
    assert metadata.get("language_info") == LANGUAGE_INFO, (
        f"language_info should be {LANGUAGE_INFO}"
    )
    assert metadata.get("kernelspec") == {
        "name": "python3",
        "display_name": spec["display_name"],
        "language": spec["language"],
    }
    assert "widgets" not in metadata, (
        "saved widget state (the dashboard's last pictures) is committed: "
        "clear it before committing, as outputs are"
    )


def test_every_deck_has_the_css_file_rise_asks_for():
    """RISE loads rise.css and <deck>.css from the deck's folder; a missing one is a 404 and a console error."""
    decks = sorted((ROOT / "slides").glob("[0-9][0-9]_*.ipynb"))
    assert decks and (ROOT / "slides" / "rise.css").is_file()
    missing = [deck.name for deck in decks if not deck.with_suffix(".css").is_file()]
    assert not missing, f"add slides/<deck>.css (it may hold only a comment) for: {missing}"
