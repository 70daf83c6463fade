"""The designer's cabling actions: Connect ports (``l``), Generate fabric (``g``) and New
from template. A plain class given the workspace and the screen: the dialogs ask, the
core answers (:mod:`rackdesigner.design.connect`, :mod:`rackdesigner.design.fabric_choices`,
:mod:`rackdesigner.design.template_fill`), and every change goes through ``ui.do`` as one command,
so it is undoable and re-checked.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rackdesigner.model.wording import plural
from rackdesigner.tui.controllers.long_edit import is_long, long_enough

# The dialogs (and the generators and templates behind them) are imported when first
# opened: the designer's first frame does not wait for them (bench/tui.py).
if TYPE_CHECKING:
    from rackdesigner.tui.screens.connect import ConnectRequest
    from rackdesigner.tui.screens.fabric import GenerateResult
    from rackdesigner.tui.screens.template import TemplateResult
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace


class WiringController:
    """Connect ports, Generate fabric, New from template (designer.md)."""

    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui

    # -- connect ports --------------------------------------------------------------------

    async def connect_dialog(self) -> None:
        session = self.workspace.session
        if session is None or self.workspace.moving is not None:
            return
        device = self.ui.cursor().device
        from rackdesigner.tui.screens.connect import ConnectScreen

        request = await self.ui.wait_for(ConnectScreen(session.layout, session.index, device))
        if request is not None:
            self.connect(request)

    def connect(self, request: ConnectRequest) -> str | None:
        """One AddLink for the dialog's answer; the refusal's message, or None."""
        from rackdesigner.edit import AddLink

        began = time.perf_counter()
        fields: dict[str, Any] = {"length": request.length} if request.length else {}
        command = AddLink(request.a, request.b, request.media, **fields)
        error = self.ui.do(command)
        if error is not None:
            return error
        device = request.a.partition(":")[0]
        owner = self.workspace.session.index.rack_of(device) if self.workspace.session else None
        if owner is not None:
            self.ui.jump_to(owner.id, device)
        self.ui.update_inspector(("device", device))
        self.workspace.timings["connect"] = time.perf_counter() - began
        media = f" ({request.media})" if request.media else ""
        self.ui.notify(f"Connected {request.a} to {request.b}{media} (ctrl+z undoes)", timeout=4)
        return None

    # -- generate fabric ----------------------------------------------------------------

    async def generate_dialog(self) -> None:
        from rackdesigner.design.fabric_choices import gpu_nodes
        from rackdesigner.layout_io.catalog import for_layout

        session = self.workspace.session
        if session is None or self.workspace.moving is not None:
            return
        catalog = for_layout(session.layout)
        nodes = gpu_nodes(session.layout, catalog, self.workspace.selection)
        if not nodes.ids:
            self.ui.notify(
                "No GPU nodes to cable: place GPU nodes first (a, Place device).",
                title="Generate fabric",
                severity="warning",
            )
            return
        from rackdesigner.tui.screens.fabric import GenerateScreen

        result = await self.ui.wait_for(GenerateScreen(session.layout, catalog, nodes))
        if result is not None:
            self.apply_fabric(result)

    def apply_fabric(self, result: GenerateResult) -> str | None:
        """The previewed plan as one undoable Batch; the refusal's message, or None. A
        large plan is applied in a worker (:mod:`.long_edit`): None here, and a refusal then
        comes as a notification."""
        from rackdesigner.design.generators.apply import to_batch

        session = self.workspace.session
        if session is None:
            return "no layout is open"
        began = time.perf_counter()
        plan = result.plan
        if long_enough(len(plan.links) + len(plan.devices)):
            # 300,000 cables on 100,000 GPUs: seconds of the core's time, in a worker.
            before = self.workspace.before_edit()

            def job() -> Any:
                batch = to_batch(session.layout, plan)
                session.do(batch, fabric=False)
                return batch

            def done(batch: Any, refusal: Exception | None) -> None:
                if refusal is not None:
                    self.ui.notify(str(refusal), title="Refused", severity="error", timeout=8)
                    return
                self.ui.after_edit(batch, before)
                self._fabric_applied(result, began)

            self.ui.run_long_edit(
                "Generate fabric",
                f"{plan.label}…",  # "Generate rail fabric: 640 switches, 24,576 cables"
                job,
                done,
            )
            return None
        error = self.ui.do(to_batch(session.layout, plan))
        if error is not None:
            return error
        self._fabric_applied(result, began)
        return None

    def _fabric_applied(self, result: GenerateResult, began: float) -> None:
        self.clear_rack_selection()
        self.workspace.timings["generate_apply"] = time.perf_counter() - began
        self.workspace.timings["generate_preview"] = result.seconds
        shown = result.preview
        added = f", {plural(len(shown.racks_added), 'rack')} added" if shown.racks_added else ""
        self.ui.notify(
            f"{result.plan.label}{added} (ctrl+z undoes)", title="Generate fabric", timeout=6
        )
        for warning in result.plan.warnings[:3]:
            self.ui.notify(warning, title="Generate fabric", severity="warning", timeout=8)

    def clear_rack_selection(self) -> None:
        """Forget the racks view's selection and redraw the racks that showed it (the
        fabric's batch only redraws the racks it placed switches in)."""
        index = self.workspace.session.index if self.workspace.session is not None else None
        racks = {
            owner.id
            for device in self.workspace.selection
            if index is not None and (owner := index.rack_of(device)) is not None
        }
        self.workspace.selection.clear()
        self.ui.redraw_racks(racks)

    # -- new from template --------------------------------------------------------------

    async def template_dialog(self) -> None:
        from rackdesigner.layout_io.catalog import builtin

        if self.workspace.moving is not None:
            return
        if not await self.ui.settle_unsaved("New from template"):
            return
        from rackdesigner.tui.screens.template import TemplateScreen

        result = await self.ui.wait_for(TemplateScreen(builtin()))
        if result is not None:
            self.use_template(result)

    def use_template(self, result: TemplateResult) -> None:
        """A new layout holding the template, for the file the user opened (untitled when
        none: the first save asks for a path); unsaved, and the first save asks before it
        replaces what the file holds. ctrl+z empties it."""
        from rackdesigner.design.template_fill import FillLayout
        from rackdesigner.edit import Session
        from rackdesigner.model.layout import Layout

        layout = result.built.layout
        path = self.workspace.path
        if path and not result.named:
            layout.name = Path(path).stem  # designer.md: a new layout's name is its file's stem
        session = Session(Layout(name=layout.name))
        self.ui.use_session(session, path)
        what = result.template or "custom"
        fill = FillLayout(layout, f"New from template {what}")
        save = f"ctrl+s saves it to {path}" if path else "ctrl+s asks for a path"

        def filled() -> None:
            self.ui.notify(
                f"New layout from {what}: {result.built.summary}. Unsaved: {save}.",
                title="New from template",
                timeout=8,
            )

        if is_long(fill):  # a template of 100,000 GPUs: seconds of checking, in a worker
            before = self.workspace.before_edit()

            def done(command: Any, refusal: Exception | None) -> None:
                if refusal is not None:
                    self.ui.notify(str(refusal), title="Refused", severity="error", timeout=8)
                    return
                self.ui.after_edit(command, before)
                filled()

            self.ui.run_long_edit(
                "New from template",
                f"{fill.label}: {result.built.summary}…",
                lambda: session.do(fill, fabric=False),
                done,
            )
        elif self.ui.do(fill) is None:
            filled()
