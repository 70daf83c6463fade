"""The designer's cabling actions: Connect ports (``l``), Generate fabric (``g``) and New
from template. A mixin of :class:`~rackdesigner.tui.app.DesignerApp`: the dialogs ask, the
core answers (:mod:`rackdesigner.design.connect`, :mod:`rackdesigner.design.fabric_choices`,
:mod:`rackdesigner.design.template_fill`), and every change goes through ``app.do`` as one command,
so it is undoable and re-checked.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual import work

from rackdesigner.tui.controllers.long_edit import is_long, long_enough
from rackdesigner.tui.screens.connect import ConnectRequest, ConnectScreen
from rackdesigner.tui.screens.fabric import GenerateResult, GenerateScreen
from rackdesigner.tui.screens.template import TemplateResult, TemplateScreen

if TYPE_CHECKING:
    from rackdesigner.tui.app import DesignerApp


class WiringActions:
    """Connect ports, Generate fabric, New from template (designer.md)."""

    # -- connect ports --------------------------------------------------------------------

    @work(group="dialog", exclusive=True)
    async def action_connect(self: DesignerApp) -> None:  # type: ignore[misc]
        session = self.session
        if session is None or self.moving is not None:
            return
        device = self.racks.current_device_id()
        request = await self.push_screen_wait(ConnectScreen(session.layout, session.index, device))
        if request is not None:
            self.connect(request)

    def connect(self: DesignerApp, request: ConnectRequest) -> str | None:  # type: ignore[misc]
        """One AddLink for the dialog's answer; the refusal's message, or None."""
        from rackdesigner.edit import AddLink

        began = time.perf_counter()
        fields: dict[str, Any] = {"length": request.length} if request.length else {}
        command = AddLink(request.a, request.b, request.media, **fields)
        error = self.do(command)
        if error is not None:
            return error
        device = request.a.partition(":")[0]
        owner = self.session.index.rack_of(device) if self.session else None
        if owner is not None:
            self.racks.jump(owner.id, device, announce=False)
        self.update_inspector(("device", device))
        self.timings["connect"] = time.perf_counter() - began
        media = f" ({request.media})" if request.media else ""
        self.notify(f"Connected {request.a} to {request.b}{media} (ctrl+z undoes)", timeout=4)
        return None

    # -- generate fabric ----------------------------------------------------------------

    @work(group="dialog", exclusive=True)
    async def action_generate_fabric(self: DesignerApp) -> None:  # type: ignore[misc]
        from rackdesigner.design.fabric_choices import gpu_nodes
        from rackdesigner.layout_io.catalog import for_layout

        session = self.session
        if session is None or self.moving is not None:
            return
        catalog = for_layout(session.layout)
        nodes = gpu_nodes(session.layout, catalog, self.racks.selection)
        if not nodes.ids:
            self.notify(
                "No GPU nodes to cable: place GPU nodes first (a, Place device).",
                title="Generate fabric",
                severity="warning",
            )
            return
        result = await self.push_screen_wait(GenerateScreen(session.layout, catalog, nodes))
        if result is not None:
            self.apply_fabric(result)

    def apply_fabric(self: DesignerApp, result: GenerateResult) -> str | None:  # type: ignore[misc]
        """The previewed plan as one undoable Batch; the refusal's message, or None. A
        large plan is applied in a worker (:mod:`.long_edit`): None here, and a refusal then
        comes as a notification."""
        from rackdesigner.design.generators.apply import to_batch

        session = self.session
        if session is None:
            return "no layout is open"
        began = time.perf_counter()
        plan = result.plan
        if long_enough(len(plan.links) + len(plan.devices)):
            # 300,000 cables on 100,000 GPUs: seconds of the core's time, in a worker.
            before = self.guide_before()

            def job() -> Any:
                batch = to_batch(session.layout, plan)
                session.do(batch, fabric=False)
                return batch

            def done(batch: Any, refusal: Exception | None) -> None:
                if refusal is not None:
                    self.notify(str(refusal), title="Refused", severity="error", timeout=8)
                    return
                self.guide_edit(before)
                self.after_change(batch)
                self._fabric_applied(result, began)

            self.run_long_edit(
                "Generate fabric",
                f"{plan.label}…",  # "Generate rail fabric: 640 switches, 24,576 cables"
                job,
                done,
            )
            return None
        error = self.do(to_batch(session.layout, plan))
        if error is not None:
            return error
        self._fabric_applied(result, began)
        return None

    def _fabric_applied(self: DesignerApp, result: GenerateResult, began: float) -> None:  # type: ignore[misc]
        self.clear_rack_selection()
        self.timings["generate_apply"] = time.perf_counter() - began
        self.timings["generate_preview"] = result.seconds
        shown = result.preview
        added = f", {len(shown.racks_added)} racks added" if shown.racks_added else ""
        self.notify(
            f"{result.plan.label}{added} (ctrl+z undoes)", title="Generate fabric", timeout=6
        )
        for warning in result.plan.warnings[:3]:
            self.notify(warning, title="Generate fabric", severity="warning", timeout=8)

    def clear_rack_selection(self: DesignerApp) -> None:  # type: ignore[misc]
        """Forget the racks view's selection and redraw the racks that showed it (the
        fabric's batch only redraws the racks it placed switches in). Not named
        ``clear_selection``: that is Textual's App method for text selection, which every
        Input calls when its cursor moves, and overriding it lost the user's selection."""
        index = self.session.index if self.session is not None else None
        racks = {
            owner.id
            for device in self.racks.selection
            if index is not None and (owner := index.rack_of(device)) is not None
        }
        self.racks.selection.clear()
        for rack in racks:
            self.racks.versions[rack] = self.racks.versions.get(rack, 0) + 1
        self.racks.refresh()

    # -- new from template --------------------------------------------------------------

    @work(group="dialog", exclusive=True)
    async def action_new_from_template(self: DesignerApp) -> None:  # type: ignore[misc]
        from rackdesigner.layout_io.catalog import builtin

        if self.moving is not None:
            return
        if not await self.settle_unsaved("New from template"):
            return
        result = await self.push_screen_wait(TemplateScreen(builtin()))
        if result is not None:
            self.use_template(result)

    def use_template(self: DesignerApp, result: TemplateResult) -> None:  # type: ignore[misc]
        """A new, untitled layout holding the template (unsaved: the first save asks for a
        path; ctrl+z empties it)."""
        from rackdesigner.design.template_fill import FillLayout
        from rackdesigner.edit import Session
        from rackdesigner.model.layout import Layout

        layout = result.built.layout
        session = Session(Layout(name=layout.name))
        self.use_session(session, None)
        what = result.template or "custom"
        fill = FillLayout(layout, f"New from template {what}")

        def filled() -> None:
            self.notify(
                f"New layout from {what}: {result.built.summary}. Unsaved: ctrl+s asks for a path.",
                title="New from template",
                timeout=8,
            )

        if is_long(fill):  # a template of 100,000 GPUs: seconds of checking, in a worker
            before = self.guide_before()

            def done(command: Any, refusal: Exception | None) -> None:
                if refusal is not None:
                    self.notify(str(refusal), title="Refused", severity="error", timeout=8)
                    return
                self.guide_edit(before)
                self.after_change(command)
                filled()

            self.run_long_edit(
                "New from template",
                f"{fill.label}: {result.built.summary}…",
                lambda: session.do(fill, fabric=False),
                done,
            )
        elif self.do(fill) is None:
            filled()
