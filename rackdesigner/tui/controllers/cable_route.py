"""(v1.4) A selected cable's route: ``t`` (Trace cable) picks a cable of the device under the
cursor and shows it; the inspector lists its segments and its routed and stock lengths
(design/facts_text.py), and the floor view draws its way along the pathways.

A cable is selected whenever the inspector shows one (Trace cable, Go to, a finding about
it): :meth:`CableRoutes.follow` is told each time the inspector changes, and draws the
route on the floor view, or clears it once the inspector shows something else (but the
racks the floor view's cursor passes over while the route is followed). A plain
class given the workspace and the screen; the route's points come from
``design.cable_route`` (no Textual), imported when a cable is first shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rackdesigner.model.layout import Link
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace

Ref = tuple[str, str]


class CableRoutes:
    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui
        self.shown: str | None = None  # the cable whose route the floor view draws

    def follow(self, ref: Ref | None, *, force: bool = False) -> None:
        """The inspector shows ``ref``: draw its route if it is a cable, else clear one. The
        floor view's own cursor (a rack inspected as it rests) keeps the route, so that it
        can be followed across the hall."""
        link = ref[1] if ref is not None and ref[0] == "link" else None
        if link is None and self.shown is None and not force:
            return  # the common case: the cursor moves over racks and devices
        if link is None and ref is not None and ref[0] == "rack" and self.ui.view_name == "floor":
            return
        self.shown = link
        self.ui.show_route(self.route_of(link) if link is not None else None)

    def route_of(self, link_id: str) -> Any:
        """The floor route of a cable (design.cable_route.FloorRoute), or None."""
        session = self.workspace.session
        if session is None or session.analysis is None:
            return None
        link = session.index.link(link_id)
        if link is None:
            return None
        from rackdesigner.design.cable_route import facts_of, floor_route

        facts = facts_of(session.analysis, link)
        return floor_route(session.analysis, facts) if facts is not None else None

    def first_rack(self, link_id: str) -> str | None:
        """The rack of the cable's ``a`` end (where the floor view's cursor goes)."""
        session = self.workspace.session
        if session is None:
            return None
        owner = session.index.rack_of(link_id.partition(":")[0])
        return owner.id if owner is not None else None

    async def trace(self) -> None:
        """``t``: a cable of the device under the cursor, chosen by its port (one cable: at
        once), shown in the inspector and on the floor view."""
        session = self.workspace.session
        if session is None:
            return
        device = self.ui.cursor().device
        if device is None:
            self.ui.notify("Put the cursor on a device with cables first.", severity="warning")
            return
        links = session.index.links_of(device)
        if not links:
            self.ui.notify(f"{device} has no cables.", severity="warning")
            return
        chosen = links[0] if len(links) == 1 else await self._choose(device, links)
        if chosen is not None:
            self.select(chosen.a)

    async def _choose(self, device: str, links: list[Link]) -> Link | None:
        from rackdesigner.tui.screens.prompt import PromptScreen

        ports = {_port_on(link, device): link for link in links}
        answer = await self.ui.wait_for(
            PromptScreen(
                "Trace cable",
                hint=f"a port of {device} with a cable ({len(ports)}), or a cable's id",
                suggestions=list(ports),
            )
        )
        if not answer:
            return None
        answer = answer.strip()
        found = ports.get(answer) or ports.get(answer.partition(":")[2])
        if found is None:
            found = next((link for link in links if answer in (link.a, link.b)), None)
        if found is None:
            self.ui.notify(f"{device} has no cable on {answer!r}", severity="error")
        return found

    def select(self, link_id: str) -> None:
        """Show a cable: the inspector lists its route, the floor view draws it (its cursor
        on the cable's first rack)."""
        self.ui.update_inspector(("link", link_id))
        self.ui.show_view("floor")


def _port_on(link: Link, device: str) -> str:
    """The port of ``device`` a link ends on (``ib3``)."""
    end = link.a if link.a.partition(":")[0] == device else link.b
    return end.partition(":")[2]
