"""The class task, run with the offline model: the helper the strategy tests share."""

from harness.loop import run_agent
from harness.tokens import Meter
from stage.offline import OfflineModel
from stage.tasks import file_reading_task


def go(context, task=None, window=5000, meter=None, **kw):
    """A run of ``task`` (default: the class task) under ``context`` on a ``window``-token desk."""
    task = task or file_reading_task()
    model = OfflineModel(window=window, meter=meter or Meter())
    return run_agent(task.request, model, context=context, remarks=task.remarks, max_laps=80, **kw)


def rule_visible(lap) -> bool:
    """True when the standing rule is on the desk this lap sent."""
    return any("never touch production" in str(m["content"]).lower() for m in lap.sent)
