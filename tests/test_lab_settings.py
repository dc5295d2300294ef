"""tools/lab_settings.py writes the JupyterLab overrides that keep the dashboard drawing, the screen clear."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lab_settings", ROOT / "tools" / "lab_settings.py")
lab_settings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lab_settings)

KERNELS = "@jupyterlab/apputils-extension:kernels-settings"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"


def test_writes_overrides_into_a_fresh_prefix(tmp_path):
    path = lab_settings.write_overrides(tmp_path)
    assert path == tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings = json.loads(path.read_text())
    assert settings[KERNELS] == {"commsOverSubshells": "disabled"}
    assert settings[NOTIFICATION] == {"checkForUpdates": False, "fetchNews": "false"}


def test_merges_with_existing_settings_and_is_idempotent(tmp_path):
    path = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({
        "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
        NOTIFICATION: {"doNotDisturbMode": True, "fetchNews": "true"},
    }))
    lab_settings.write_overrides(tmp_path)
    lab_settings.write_overrides(tmp_path)
    settings = json.loads(path.read_text())
    assert settings["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    expected = {"doNotDisturbMode": True, "checkForUpdates": False, "fetchNews": "false"}
    assert settings[NOTIFICATION] == expected
    assert settings[KERNELS] == {"commsOverSubshells": "disabled"}


def test_refuses_to_overwrite_a_broken_file(tmp_path):
    path = tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(SystemExit, match="not valid JSON"):
        lab_settings.write_overrides(tmp_path)
    assert path.read_text() == "{not json"


@pytest.mark.parametrize("plugin", [KERNELS, NOTIFICATION])
def test_values_match_the_installed_jupyterlab_schema(plugin):
    """A misspelt key or a wrong type would be silently ignored by JupyterLab, so check the real schema."""
    jsonschema = pytest.importorskip("jsonschema")
    package, name = plugin.split(":")
    schema_file = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas" / package / f"{name}.json"
    if not schema_file.exists():
        pytest.skip(f"JupyterLab schema not installed here: {schema_file}")
    schema = json.loads(schema_file.read_text())
    values = lab_settings.OVERRIDES[plugin]
    assert set(values) <= set(schema["properties"]), "key not in the schema"
    jsonschema.validate(values, schema)
