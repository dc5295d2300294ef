"""The sizing run (class/sizing.py): the README's table is the committed run's, and a short evening really runs.

The fast tests read class/results/sizing-evening-10.json (written by `class/sizing.py --students 10 --json
...`): the table in class/README.md must be exactly the one that run prints, and the Kubernetes values must
not promise less memory than it measured. The integration test lives a short evening (lessons 01 and 02
and their exercises: four notebooks, each in a kernel of its own, none closed) for one student on the
README's set-up, and checks what the full run relies on: every cell ran, the kernel cap held, PSS and CPU
were measured.
"""

import os
from pathlib import Path

import pytest
from conftest import load_class as load

CLASS = Path(__file__).resolve().parent.parent / "class"
RUN = CLASS / "results" / "sizing-evening-10.json"


def test_the_readme_table_is_the_committed_runs():
    sizing = load("sizing")
    result = sizing.load_result(RUN)
    assert len(result["students"]) == 10 and not any(s.errors for s in result["students"])
    assert all(len(s.steps) == 10 for s in result["students"]), (
        "five lessons and five exercises each"
    )
    table = sizing.sizing_table(result)
    assert table in (CLASS / "README.md").read_text(), (
        "class/README.md does not quote the committed run's table"
    )


def test_the_kubernetes_values_hold_the_measured_peak():
    import yaml

    sizing = load("sizing")
    result = sizing.load_result(RUN)
    peak = max(s.peak_pss for s in result["students"])
    values = yaml.safe_load((CLASS / "z2jh-values.yaml").read_text())
    spawners = load("spawners")
    memory = values["singleuser"]["memory"]
    assert spawners.parse_bytes(memory["guarantee"]) >= peak
    assert spawners.parse_bytes(memory["limit"]) >= max(s.cgroup_peak for s in result["students"])
    assert values["cull"]["timeout"] >= 600
    assert values["hub"]["config"]["Authenticator"]["admin_users"]
    assert set(values["hub"]["config"]["Authenticator"]["admin_users"]) <= set(
        values["hub"]["config"]["Authenticator"]["allowed_users"]
    )
    assert values["hub"]["config"]["JupyterHub"]["concurrent_spawn_limit"] >= 30


@pytest.mark.integration
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: real Unix accounts and cgroups")
def test_a_short_evening_runs_within_the_kernel_cap_and_is_measured():
    sizing = load("sizing")
    result = sizing.run_class(
        1, mem_limit="1G", max_kernels=2, prefix="cdsizetest", lessons=["01", "02"]
    )
    student = result["students"][0]
    assert [step.notebook.rsplit("/", 1)[-1][:2] for step in student.steps] == [
        "01",
        "01",
        "02",
        "02",
    ]
    assert student.errors == []
    assert all(step.cells >= 3 and step.cpu_s > 0 for step in student.steps), student.steps
    assert 1 <= student.most_kernels <= 2, (
        f"the cap is 2 kernels, the student held {student.most_kernels}"
    )
    assert 100 * sizing.MIB < student.peak_pss < 1024 * sizing.MIB
    assert student.server_peak_pss > 0 and student.kernel_peak_pss > 0 and student.steady_pss > 0
    assert student.cgroup_peak >= student.kernel_peak_pss
    table = sizing.sizing_table(result)
    assert "| per GiB / per core |" in table and "| 30 students |" in table
