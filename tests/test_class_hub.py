"""The class's JupyterHub with five students: log in, start servers, hand out the workbook, run lesson 03 at once.

class/sizing.py does the work (the benchmark runs the same code with more students): the hub of
class/jupyterhub_config.py starts on 127.0.0.1 with its state in this test's temporary folder, each
student logs in through the hub's REST API with the class password, starts a server, pulls the workbook
with nbgitpuller and runs every code cell of lesson 03 over their own server's kernel websocket. The
servers run as this user (SimpleLocalProcessSpawner), so nothing outside the temporary folder changes.
"""

from pathlib import Path

import nbformat
import pytest
import sizing

pytestmark = pytest.mark.integration      # a real JupyterHub

STUDENTS = 5


@pytest.fixture(scope="module")
def lesson_in_five_servers(tmp_path_factory):
    return sizing.run_class(STUDENTS, tmp_path_factory.mktemp("class-hub"))


def code_cells(path: Path) -> int:
    notebook = nbformat.read(path, as_version=4)
    return sum(1 for cell in notebook.cells if cell.cell_type == "code" and cell.source.strip())


def test_every_student_ran_the_whole_lesson_without_an_error(lesson_in_five_servers):
    home = lesson_in_five_servers["state"] / "home"
    for student in lesson_in_five_servers["students"]:
        # the student's own copy, as nbgitpuller left it (the committed lesson, not this working tree)
        expected = code_cells(home / student.name / sizing.WORKBOOK_FOLDER / sizing.LESSON)
        assert expected >= 10
        assert student.errors == [], f"{student.name}: {student.errors}"
        assert student.cells_run == expected, f"{student.name} ran {student.cells_run} of {expected} cells"


def test_each_lesson_ran_in_that_students_own_server_and_copy(lesson_in_five_servers):
    state = lesson_in_five_servers["state"]
    students = lesson_in_five_servers["students"]
    for student in students:
        notebooks = (state / "home" / student.name / sizing.WORKBOOK_FOLDER / "notebooks").resolve()
        assert Path(student.kernel_cwd).resolve() == notebooks, f"{student.name}'s kernel ran in {student.kernel_cwd}"
    assert len({s.server_pid for s in students}) == STUDENTS
    assert len({s.kernel_pid for s in students}) == STUDENTS
    assert lesson_in_five_servers["isolation"], "one student's token opened another student's server"


def test_the_lessons_ran_at_the_same_time(lesson_in_five_servers):
    students = lesson_in_five_servers["students"]
    last_start = max(s.lesson_started for s in students)
    first_end = min(s.lesson_started + s.lesson_s for s in students)
    assert last_start < first_end, "some lesson finished before another had started"


def test_each_student_is_measured_and_the_table_sizes_a_class(lesson_in_five_servers):
    for student in lesson_in_five_servers["students"]:
        assert student.server_rss_peak > 20 * sizing.MIB and student.kernel_rss_peak > 20 * sizing.MIB
        assert student.kernel_cpu_s > 0.1 and student.server_cpu_s > 0
        assert student.lesson_s > 0 and student.server_start_s > 0
    table = sizing.sizing_table(lesson_in_five_servers)
    print("\n" + table)
    assert "| 30 students |" in table and "| 100 students |" in table and "per GiB" in table


# ---- the configuration's choices, loaded as JupyterHub loads them (no hub started) ------------

CHOICES = [("shared-password", "simple", "SharedPasswordAuthenticator", "SimpleLocalProcessSpawner"),
           ("native", "simple", "NativeAuthenticator", "SimpleLocalProcessSpawner"),
           ("shared-password", "systemd", "SharedPasswordAuthenticator", "SystemdSpawner"),
           ("dummy", "local", "DummyAuthenticator", "LocalProcessSpawner")]


def load_hub_config(monkeypatch, tmp_path, **settings):
    from traitlets.config.loader import PyFileConfigLoader

    monkeypatch.setenv("CLASS_STATE", str(tmp_path))
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    return PyFileConfigLoader("jupyterhub_config.py", path=str(sizing.HERE)).load_config()


@pytest.mark.parametrize("auth, spawner, auth_class, spawner_class", CHOICES)
def test_each_login_and_spawner_choice_resolves(monkeypatch, tmp_path, auth, spawner, auth_class, spawner_class):
    from jupyterhub.app import JupyterHub

    config = load_hub_config(monkeypatch, tmp_path, CLASS_AUTH=auth, CLASS_SPAWNER=spawner,
                             CLASS_PASSWORD="long-enough", CLASS_MEM_LIMIT="700M")
    hub = JupyterHub(config=config)
    assert hub.authenticator_class.__name__ == auth_class
    assert hub.spawner_class.__name__ == spawner_class
    assert config.Spawner.mem_limit == "700M" and config.Spawner.cmd[1:] == ["-m", "jupyterhub.singleuser"]
    culler = next(s for s in config.JupyterHub.services if s["name"] == "idle-culler")
    assert culler["command"][-1] == "--timeout=3600"


def test_the_shared_password_is_required_and_checked(monkeypatch, tmp_path):
    monkeypatch.delenv("CLASS_PASSWORD", raising=False)
    with pytest.raises(SystemExit, match="CLASS_PASSWORD"):
        load_hub_config(monkeypatch, tmp_path, CLASS_AUTH="shared-password")
    from jupyterhub.authenticators.shared import SharedPasswordAuthenticator

    config = load_hub_config(monkeypatch, tmp_path, CLASS_PASSWORD="short")
    with pytest.raises(Exception, match="at least 8"):
        SharedPasswordAuthenticator(config=config)


def test_the_class_endpoint_reaches_every_server(monkeypatch, tmp_path):
    config = load_hub_config(monkeypatch, tmp_path, CLASS_PASSWORD="long-enough",
                             CLASS_ANTHROPIC_BASE_URL="http://127.0.0.1:9/gateway", CLASS_ANTHROPIC_API_KEY="class-token")
    assert config.Spawner.environment == {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9/gateway",
                                          "ANTHROPIC_API_KEY": "class-token"}
    assert "ANTHROPIC_API_KEY" not in load_hub_config(monkeypatch, tmp_path / "2", CLASS_PASSWORD="long-enough",
                                                      CLASS_ANTHROPIC_BASE_URL="", CLASS_ANTHROPIC_API_KEY="") \
        .Spawner.environment
