"""The sandbox: a path that leads outside the workspace -- by '..', an absolute path, a symlink, a NUL
byte or sheer length -- is refused with an error the model hears, and nothing is read."""

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.sandbox import ToolError, files_under, inside
from harness.tools import WORKSPACE, Toolbox


def call(box, name, **args):
    return box.run({"type": "tool_use", "id": "t1", "name": name, "input": args})


@pytest.fixture
def box():
    return Toolbox()


@pytest.mark.parametrize(
    "path", ["../README.md", "../../etc/passwd", "/etc/passwd", "app/../../Makefile", "x" * 5000]
)
def test_paths_outside_the_workspace_are_refused(box, path):
    result = call(box, "read_file", path=path)
    assert result["is_error"] and result["content"].startswith("Error:")
    assert box.reads == []


def test_symlink_pointing_out_is_refused(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", tmp_path / "ws" / "link.txt")
    result = call(Toolbox(tmp_path / "ws"), "read_file", path="link.txt")
    assert result["is_error"] and "outside the workspace" in result["content"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="./ab\x00-~", min_size=0, max_size=30))
def test_inside_never_returns_a_path_outside_the_root(path):
    root = WORKSPACE.resolve()
    try:
        real = inside(root, path)
    except ToolError:
        return  # refused, with a message: fine
    assert real == root or real.is_relative_to(root)


def test_hidden_files_are_not_listed():
    shown = files_under(WORKSPACE, WORKSPACE)
    assert shown and not [
        p for p in shown if any(part.startswith(".") for part in p.relative_to(WORKSPACE).parts)
    ]
    assert (WORKSPACE / ".task.toml").is_file() and Path(WORKSPACE / ".task.toml") not in shown
