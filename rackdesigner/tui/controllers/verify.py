"""Verify against scan: the layout's cabling against what the fabric reports.

A plain class given the workspace and the screen. The dialog asks for the scan; it is read
and compared in a worker thread, on a snapshot of the analysis taken on the app's thread,
and the work order comes back as one message (``VerifyDone``). Nothing here edits the
layout: the differences are shown over it (marks on the racks and the topology, one group
per kind pinned above the problems) until the next scan, another file, or "Clear scan
results"; ``w`` in the problems panel (or "Export work order") writes the technician's CSV,
the same sheet as ``rackdesigner verify --format csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rackdesigner.model.wording import plural
from rackdesigner.tui.findings import entry_marks
from rackdesigner.tui.messages import VerifyDone

# The overlays and the dialog (and through them the as-built check) are imported when a
# scan is asked for: the designer's first frame does not wait for them (bench/tui.py).
if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.asbuilt import Finding
    from rackdesigner.tui.overlays import VerifyRequest
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace


def run_verify(analysis: Analysis, request: VerifyRequest) -> tuple[list[Finding], int]:
    """Read the scan and compare (a worker's body): the differences and the cables
    compared. Raises ScanError for a scan that cannot be read."""
    from rackdesigner.asbuilt import ScanError, design_of, read_scan
    from rackdesigner.asbuilt.compare import compare
    from rackdesigner.asbuilt.routes import add_routes

    scan = read_scan(Path(request.scan), request.form)
    names: dict[str, str] = {}
    if request.names:
        from rackdesigner.asbuilt.ibnetdiscover import parse_node_name_map

        try:
            text = Path(request.names).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ScanError(request.names, 0, f"cannot read it: {error}") from None
        names = parse_node_name_map(text, request.names)
    design = design_of(analysis, scan.tech)
    findings = compare(design, scan, names, speed=request.speed)
    add_routes(analysis, design, findings)
    return findings, len(design.cables)


def mark_topology(workspace: Workspace, ui: DesignerUI) -> None:
    """The topology view's marks: what the workspace shows over the layout (a what-if's
    shades, else a scan's differences), on the entries of those devices."""
    devices = workspace.overlay()
    session = workspace.session
    if not devices or session is None or session.analysis is None:
        ui.mark_topology(None)
        return
    index = session.index
    by_id = session.analysis.device_by_id

    def rack_of(device: str) -> str | None:
        owner = index.rack_of(device)
        return owner.id if owner is not None else None

    def is_node(device: str) -> bool:
        facts = by_id.get(device)
        return facts is not None and facts.is_gpu_node

    ui.mark_topology(entry_marks(devices, rack_of, is_node))


def pin_overlay(workspace: Workspace, ui: DesignerUI) -> None:
    """What the problems panel pins above the layout's findings: a what-if's scenario and
    new findings while one is shown, a scan's differences until cleared (both: the
    what-if's first); nothing once neither is."""
    shown = [o for o in (workspace.shaded, workspace.verified) if o is not None]
    ui.pin_findings(" · ".join(o.title for o in shown), [g for o in shown for g in o.groups()])


class VerifyController:
    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui
        self._token: object | None = None
        self.last_scan = ""

    async def verify(self) -> None:
        """The dialog, then the comparison in a worker (its result: :meth:`done`)."""
        session = self.workspace.session
        if session is None or session.analysis is None:
            self.ui.notify("The layout is still being checked: verify once it is done.")
            return
        from rackdesigner.tui.overlays import VerifyRequest
        from rackdesigner.tui.screens.verify import VerifyScreen

        request = await self.ui.wait_for(VerifyScreen(self.last_scan))
        if not isinstance(request, VerifyRequest):
            return
        self.last_scan = request.scan
        live = session.analysis
        # A copy of the containers, taken here: the worker reads it while edits go on.
        analysis = live.snapshot() if hasattr(live, "snapshot") else live
        token = self._token = object()
        self.ui.set_status(f"verifying against {Path(request.scan).name}…")

        def job() -> None:
            from rackdesigner.asbuilt import ScanError
            from rackdesigner.tui.controllers.checking import background_work

            findings, checked, error = None, 0, None
            try:
                with background_work():
                    findings, checked = run_verify(analysis, request)
            except ScanError as failed:
                error = f"cannot read the scan: {failed}"
            except Exception as failed:  # a scan the parsers did not expect: said, not raised
                error = f"verify failed: {failed}"
            self.ui.post_result(VerifyDone(token, request, findings, checked, error))

        self.ui.run_thread(job, group="verify", exclusive=True)

    def done(self, event: VerifyDone) -> None:
        """Show the differences (or why the scan could not be read)."""
        self.ui.set_status("")
        if event.token is not self._token:
            return  # another scan was asked for since, or the file changed
        if event.findings is None:
            self.ui.notify(
                event.error or "verify failed", title="Verify", severity="error", timeout=10
            )
            return
        from rackdesigner.tui.overlays import Verified

        verified = Verified(event.request, event.findings, event.checked)
        self.workspace.verified = verified
        self.show()
        if verified.findings:
            counts = ", ".join(
                f"{len(rows)} {heading.split(':')[0]}" for heading, rows in verified.groups()
            )
            self.ui.notify(
                f"{plural(len(verified.findings), 'difference')} from the design ({counts}) "
                f"in {plural(verified.checked, 'cable')}: marked on the racks and the "
                "topology, listed in the problems panel (w writes the work order)",
                title="Verify",
                severity="warning",
                timeout=10,
            )
            self.ui.focus_problems()
        else:
            self.ui.notify(
                f"The fabric matches the design: {plural(verified.checked, 'cable')} as designed",
                title="Verify",
                timeout=8,
            )

    def show(self) -> None:
        """The scan's differences on every view (after a result, an edit, a clear)."""
        pin_overlay(self.workspace, self.ui)
        self.ui.refresh_all(racks=set())
        mark_topology(self.workspace, self.ui)

    def clear(self) -> None:
        self._token = None
        if self.workspace.verified is None:
            self.ui.notify("No scan results to clear.", timeout=3)
            return
        self.workspace.verified = None
        self.show()
        self.ui.notify("Scan results cleared.", timeout=3)

    async def export_work_order(self) -> None:
        """Ask where, then write the work order (CSV) atomically."""
        from rackdesigner.layout_io.saving import write_atomic
        from rackdesigner.tui.screens.prompt import PromptScreen

        verified = self.workspace.verified
        if verified is None:
            self.ui.notify("No scan results: run Verify against scan first.", timeout=5)
            return
        stem = Path(self.workspace.path).stem if self.workspace.path else "layout"
        folder = Path(self.workspace.path).parent if self.workspace.path else Path.cwd()
        default = str(folder / f"{stem}-work-order.csv")
        while True:
            screen = PromptScreen(
                "Write the work order (CSV)",
                default,
                hint="rack, unit, face, port label and cable id per line · enter writes",
            )
            target = await self.ui.wait_for(screen)
            if not target:
                return
            path = Path(target).expanduser()
            if self.workspace.path and path.resolve() == Path(self.workspace.path).resolve():
                self.ui.notify(
                    "That is the layout's own file: choose another name.",
                    severity="error",
                    timeout=6,
                )
                default = target
                continue
            try:
                write_atomic(path, verified.csv().encode("utf-8"))
            except OSError as error:
                self.ui.notify(
                    f"Cannot write {path}: {error.strerror or error}", severity="error", timeout=8
                )
                default = target
                continue
            self.ui.notify(
                f"Wrote the work order to {path} ({plural(len(verified.findings), 'line')})",
                title="Work order",
                timeout=6,
            )
            return
