"""``report.json`` says where the run's time and money went, phase by phase.

The report is written before the run ends; the completing activity adds the
phase figures and the session's usage to it, so a report kept or shared on its
own carries them. Rewriting the same keys makes a retried completion harmless.
"""

from __future__ import annotations

import json

from shared.core.session_models import PhaseFigures, Usage
from shared.ports import Services


def add_figures(svc: Services, report_ref: str, phases: list[PhaseFigures], usage: Usage) -> None:
    session_id, _, name = report_ref.partition("/")
    name = name.rsplit(".", 1)[0] + ".json"
    report = json.loads(svc.memory.read(session_id, name))
    report["phases"] = [p.model_dump(mode="json") for p in phases]
    report["usage"] = usage.model_dump(mode="json")
    data = json.dumps(report, ensure_ascii=False)
    svc.memory.write(session_id, name, data, "application/json")
