"""What if…: what a failure takes down, shaded over the views; no edit is made.

A plain class given the workspace and the screen. The part is the entity under the cursor
(a switch, PDU, CDU or rear door; a GPU node's cables; its rack, the rack's feeds and power
sides, its path up the power chain, its CDUs' water loops), any chain element or loop,
warmer facility water, or one typed as ``KIND:ID``. The failure model runs in a worker thread on a
snapshot of the analysis taken on the app's thread and comes back as one message
(``WhatIfDone``). The racks and the topology shade what goes down, degrades or is cut off,
the header shows the figures and the problems panel pins the scenario with its new
findings, as ``rackdesigner whatif --fail`` prints them, until escape or an edit
(:meth:`WhatIfController.clear`); the notice says the figures in a few lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.tui.controllers.verify import mark_topology, pin_overlay
from rackdesigner.tui.messages import WhatIfDone

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace

# The device kinds a failure names by id (whatif's parts).
DEVICE_PARTS = {
    "switch": "switch",
    "pdu": "pdu",
    "cdu": "cdu",
    "rear-door": "door",
    "storage": "storage",
}


def choices(analysis: Analysis, device: str | None, rack: str | None) -> list[tuple[str, str]]:
    """The parts to offer, the entity under the cursor first: (part, text), from each of
    :data:`OFFERS` in turn."""
    seen: set[str] = set()
    unique = []
    for offer in OFFERS:
        for key, text in offer(analysis, device, rack):
            if key not in seen:
                seen.add(key)
                unique.append((key, text))
    return unique


Offered = list[tuple[str, str]]


def _device_parts(analysis: Analysis, device: str | None, rack: str | None) -> Offered:
    """The device under the cursor (a switch, PDU, CDU or door) and each of its cables."""
    out: Offered = []
    facts = analysis.device_by_id.get(device) if device else None
    if facts is not None:
        kind = DEVICE_PARTS.get(facts.kind or "")
        if kind is not None:
            out.append((f"{kind}:{facts.id}", f"{kind}:{facts.id}  (under the cursor)"))
        links = [
            link.a if link.a.split(":")[0] == facts.id else link.b
            for link in analysis.layout.links
            if facts.id in (link.a.split(":")[0], link.b.split(":")[0])
        ]
        for end in links:  # every one: typing filters the list
            out.append((f"link:{end}", f"link:{end}  (a cable of {facts.id})"))
    return out


def _rack_parts(analysis: Analysis, device: str | None, rack: str | None) -> Offered:
    """The rack under the cursor, its feeds and its power sides."""
    out: Offered = []
    rack_facts = next((r for r in analysis.racks if r.rack.id == rack), None) if rack else None
    if rack_facts is not None:
        out.append((f"rack:{rack}", f"rack:{rack}  (everything in it)"))
        for feed in rack_facts.rack.feeds:
            out.append((f"feed:{rack}/{feed.id}", f"feed:{rack}/{feed.id}"))
        for side in sorted({feed.side for feed in rack_facts.rack.feeds if feed.side}):
            out.append((f"side:{side}", f"side:{side}  (every rack's side {side} feeds)"))
    return out


def _chain_parts(analysis: Analysis, device: str | None, rack: str | None) -> Offered:
    """The power chain's elements (``ups:ups-a``): the rack's path up it first, nearest
    first, then every other element (read from the layout: no loads needed)."""
    from rackdesigner.design.facts_text import chain_path

    layout = analysis.layout
    out: Offered = []
    racks = [r for r in layout.racks if r.id == rack] if rack else []
    for feed in racks[0].feeds if racks else ():
        for element in chain_path(layout, feed.source) if feed.source else ():
            part = f"{element.kind}:{element.id}"
            out.append((part, f"{part}  (rack {rack}'s power, {feed.side or feed.id})"))
    out.extend((f"{e.kind}:{e.id}", f"{e.kind}:{e.id}") for e in layout.power_elements)
    return out


def _loop_parts(analysis: Analysis, device: str | None, rack: str | None) -> Offered:
    """The water loops (``loop:fws-1``): those the CDU or door under the cursor, or the
    rack's CDUs and door, hang on first; then every loop, and warmer facility water."""
    loops = analysis.layout.cooling_loops
    if not loops:
        return []
    near = {device} if device else set()
    facts = next((r for r in analysis.racks if r.rack.id == rack), None) if rack else None
    if facts is not None:
        near.update(facts.rack.cdus)
        near.update([facts.rack.door] if facts.rack.door else [])
    out: Offered = [
        (f"loop:{loop.id}", f"loop:{loop.id}  (the water loop of {name})")
        for loop in loops
        for name in sorted(near & set(loop.devices or ()))[:1]
    ]
    out.extend((f"loop:{loop.id}", f"loop:{loop.id}  (its CDUs and doors stop)") for loop in loops)
    out.append(("warmer-water:5 K", "warmer-water:5 K  (the facility water 5 K warmer)"))
    return out


def _storage_parts(analysis: Analysis, device: str | None, rack: str | None) -> Offered:
    """Every storage appliance (``storage:ID``), the rack's first, with its tier."""
    from rackdesigner.analysis.storage import PARALLEL_FS, tier_of

    found = [(d, tier_of(d)) for d in analysis.devices if tier_of(d) is not None]
    found.sort(key=lambda pair: pair[0].rack.id != rack)  # stable: layout order otherwise
    words = {PARALLEL_FS: "a parallel file system appliance", "object": "an object store node"}
    return [
        (f"storage:{d.id}", f"storage:{d.id}  ({words.get(tier or '', 'storage')}, {d.rack.id})")
        for d, tier in found
    ]


# Where the dialog's parts come from, in the order it lists them: a new kind of part is
# one more function here (and its kind in whatif's parts, which computes its failure).
OFFERS = (_device_parts, _rack_parts, _chain_parts, _loop_parts, _storage_parts)


def is_part(text: str) -> bool:
    """Whether a typed text names a part as it stands (``side:A``): Enter runs it even
    when the list does not offer it."""
    from rackdesigner.whatif.parts import PartError, parse_failure

    try:
        parse_failure(text)
    except PartError:
        return False
    return True


class WhatIfController:
    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui
        self._token: object | None = None

    @property
    def active(self) -> bool:
        return self.workspace.shaded is not None

    async def what_if(self) -> None:
        """Choose the part (the cursor's first), then the failure model in a worker."""
        session = self.workspace.session
        if session is None or session.analysis is None:
            self.ui.notify("The layout is still being checked: ask once it is done.")
            return
        live = session.analysis
        at = self.ui.cursor()
        offered = choices(live, at.device, at.rack)
        from rackdesigner.tui.screens.typed_choice import TypedChoiceScreen

        part = await self.ui.wait_for(
            TypedChoiceScreen(
                "What if… fails",
                offered,
                is_part,
                placeholder="type to filter, or a part: side:A, feed:a01/a01-A, switch:…",
                hint="KIND:ID: feed side pdu cdu door switch rack link storage, a power chain "
                "element (ups:…), loop:…, warmer-water:3K · ↑↓ choose · enter shades what goes "
                "down (no edit) · esc cancels",
            )
        )
        if not part:
            return
        self.run(str(part))

    def run(self, part: str) -> None:
        from rackdesigner.whatif import PartError, parse_failure, what_if
        from rackdesigner.whatif.parts import WARMER

        session = self.workspace.session
        if session is None or session.analysis is None:
            return
        try:
            failure = parse_failure(part)
        except PartError as error:
            self.ui.notify(str(error), title="What if", severity="error", timeout=8)
            return
        live = session.analysis
        analysis = live.snapshot() if hasattr(live, "snapshot") else live
        token = self._token = object()
        warmer = failure.kind == WARMER
        said = f"the facility water is {failure.id} warmer" if warmer else f"{part} fails"
        self.ui.set_status(f"what if {said}…")

        def job() -> None:
            from rackdesigner.tui.controllers.checking import background_work

            impact, error = None, None
            try:
                with background_work():
                    impact = what_if(analysis, [failure])
            except PartError as failed:
                error = str(failed)
            except Exception as failed:  # said, never raised into the app
                error = f"what-if failed: {failed}"
            self.ui.post_result(WhatIfDone(token, part, impact, error))

        self.ui.run_thread(job, group="whatif", exclusive=True)

    def done(self, event: WhatIfDone) -> None:
        self.ui.set_status("")
        if event.token is not self._token:
            return
        if event.impact is None:
            self.ui.notify(
                event.error or "what-if failed", title="What if", severity="error", timeout=8
            )
            return
        session = self.workspace.session
        rack_of: dict[str, str] = {}
        if session is not None:
            for node in (n for f in event.impact.fabrics for n in (*f.cut_off, *f.rails_cut)):
                owner = session.index.rack_of(node)
                if owner is not None:
                    rack_of[node] = owner.id
        from rackdesigner.tui.notices import NOTICE_LINES
        from rackdesigner.tui.overlays import shading_of  # with its first use: see verify.py

        shading = shading_of(event.part, event.impact, rack_of)
        self.workspace.shaded = shading
        self.show()
        # The figures, whole; the scenario and its findings are in the problems panel.
        severity = "information" if event.impact.harmless else "warning"
        self.ui.notify(shading.notice(NOTICE_LINES), title="What if", severity=severity, timeout=12)

    def show(self) -> None:
        """The shading and the figures as the workspace holds them (None: cleared)."""
        shading = self.workspace.shaded
        if shading is None:
            self.ui.shade({}, {}, "")
        else:
            self.ui.shade(shading.shade, shading.where, shading.figures)
        pin_overlay(self.workspace, self.ui)
        mark_topology(self.workspace, self.ui)
        self.ui.update_inspector(self.workspace.inspected)  # with its what-if findings

    def clear(self) -> bool:
        """Escape: the views as they were; False when nothing was shaded."""
        self._token = None
        if self.workspace.shaded is None:
            return False
        self.workspace.shaded = None
        self.show()
        return True
