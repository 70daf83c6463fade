"""What the export dialog runs: the command line's exporter on the open session.

No widgets here. On the app's thread a request becomes a job: the output path is checked
against the input layout (the command line's refusal), and the session's analysis is
copied (``snapshot``: its containers, not its facts) with its findings when the checks
are current, so a 100,000-GPU export does not analyse and check the layout again. The job
then runs in the dialog's worker: the exporter (the same function as ``rackdesigner
export``) and the second refusal check on what it produced; once every kind asked for is
rendered, :meth:`ExportRunner.write` writes them all as one (atomic, all or none, as the
command line writes several kinds). The dialog is modal, so the layout does not change
while the jobs read it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rackdesigner.export.registry import (
    ExportContext,
    ExportError,
    Output,
    input_clash,
    write_outputs,
)
from rackdesigner.tui.screens.export import ExportRequest, Job

if TYPE_CHECKING:
    from rackdesigner.edit import Session


class ExportRunner:
    def __init__(self, session: Session, layout_path: str | None) -> None:
        self.session = session
        self.layout_path = layout_path

    @property
    def inputs(self) -> list[str]:
        return [self.layout_path] if self.layout_path else []

    def context(self, request: ExportRequest) -> ExportContext:
        """The command line's context, on the session's facts and findings."""
        session = self.session
        live = session.analysis
        analysis = live.snapshot() if live is not None and hasattr(live, "snapshot") else live
        context = ExportContext(
            session.layout,
            file=self.layout_path or "",
            settings=dict(request.settings),
            _analysis=analysis,
        )
        if live is not None and not session.fabric_stale:
            # The same findings a full check gives (the session keeps them equal to one).
            context.__dict__["diagnostics"] = list(session.findings)
        return context

    def __call__(self, request: ExportRequest) -> Job:
        target = Path(request.path)
        clash = input_clash([target], self.inputs)
        if clash is not None:
            raise ExportError(clash)
        context = self.context(request)
        exporter = request.kind.load()
        inputs = self.inputs

        def job() -> list[Output]:
            outputs = exporter(context, target)
            refused = input_clash([o.path for o in outputs], inputs)
            if refused is not None:
                raise ExportError(refused)
            return outputs

        return job

    def write(self, outputs: list[Output]) -> list[Path]:
        """Write what the jobs rendered, as one; the files written."""
        write_outputs(outputs)
        return [o.path for o in outputs]
