"""Building a layout in the designer: Add rack, Duplicate rack, Add feed, Remove feed, Set
cooling, Place device (``a``), the catalog panel and placing by mouse.

A plain class given the workspace and the screen (:class:`~rackdesigner.tui.ui.DesignerUI`).
What a new rack's defaults are, which catalog entries match, where a device goes and what
a copied rack is called are the core's (``rackdesigner.design.rack_build``,
``rackdesigner.design.placing``); every change is one edit command through ``ui.do``, so
it is undoable and re-checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.design.placing import (
    NoRoom,
    Placement,
    domain_note,
    is_rail_device,
    plan,
    rail_for,
    where,
)
from rackdesigner.model.wording import plural

# The dialogs are imported when first opened: the designer's first frame does not wait
# for them (bench/tui.py).
if TYPE_CHECKING:
    from rackdesigner.edit import Session
    from rackdesigner.layout_io.catalog import Catalog
    from rackdesigner.model.layout import DeviceType, Rack
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace


class BuildController:
    """Actions and events of building."""

    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui
        self.armed: str | None = None  # a catalog entry clicked: a click on a unit places it

    # -- helpers ----------------------------------------------------------------------------

    def _catalog(self) -> Catalog:
        from rackdesigner.layout_io.catalog import builtin, for_layout

        session = self.workspace.session
        return for_layout(session.layout) if session is not None else builtin()

    def _need_rack(self) -> str | None:
        if self.workspace.session is None:
            return None
        # The rack under the cursor of the view on screen (the floor has its own cursor).
        rack = self.ui.rack_in_view()
        if rack is None:
            self.ui.notify(
                "No rack yet: add one first (ctrl+p → Add rack).",
                title="No rack",
                severity="warning",
            )
        return rack

    def _session_rack(self) -> tuple[Session, Rack] | None:
        """The open session and the rack under the cursor (said where there is none)."""
        rack_id = self._need_rack()
        session = self.workspace.session
        if rack_id is None or session is None:
            return None
        rack = session.index.rack(rack_id)
        return (session, rack) if rack is not None else None

    def show_catalog(self) -> None:
        """Fill the catalog panel with the open layout's catalog (its own entries too)."""
        self.ui.show_catalog(self._catalog())

    def disarm(self) -> bool:
        """Forget an armed catalog entry (escape); True when there was one."""
        if self.armed is None:
            return False
        self.armed = None
        self.ui.set_status("")
        self.ui.notify("Placing cancelled", timeout=2)
        return True

    # -- racks ------------------------------------------------------------------------------

    async def add_rack(self) -> None:
        from rackdesigner.design.rack_build import Checked, check_rack_form, rack_defaults
        from rackdesigner.tui.screens.build import FormScreen

        session = self.workspace.session
        if session is None:
            return
        layout, index = session.layout, session.index
        d = rack_defaults(layout, index, self.ui.cursor().row if layout.racks else None)
        fields = [
            ("id", "id", d["id"], "the rack's id, e.g. a01"),
            ("row", "row", d["row"], "a row name; a new name starts a new row"),
            ("slot", "slot", d["slot"], "position in the row, 1-based"),
            ("height", "height", d["height"], "whole rack units, e.g. 42 U"),
            ("cooling", "cooling", d["cooling"], "air | liquid | rear-door | immersion"),
            ("sides", "feed sides", d["sides"], "one feed per side: A, B (empty: no feeds)"),
            ("voltage", "feed voltage", d["voltage"], "line-to-line for 3-phase, e.g. 415 V"),
            ("phases", "feed phases", d["phases"], "1 | 3"),
            ("current", "feed current", d["current"], "breaker rating, e.g. 63 A"),
        ]
        checked: list[Checked] = []

        def check(values: dict[str, str]) -> Checked:
            checked[:] = [check_rack_form(layout, index, values)]
            return checked[0]

        command = await self.ui.wait_for(
            FormScreen(
                "Add rack",
                fields,
                check,
                hint="enter adds the rack · tab: next field · escape cancels",
                dialog_id="add-rack-dialog",
            )
        )
        if command is None:
            return
        note = checked[-1].note if checked else ""
        rack_id = command.refs[0][1] if command.refs else None
        if self.ui.do(command) is None:
            rack_id = next((ref[1] for ref in command.refs if ref[0] == "rack"), rack_id)
            if rack_id is None:
                return
            rack = session.index.rack(rack_id)
            self.ui.jump_to(rack_id)
            self.ui.update_inspector(("rack", rack_id))
            feeds = ", ".join(f.id for f in rack.feeds) if rack is not None else ""
            pdus = sum(1 for d in rack.devices if d.feed) if rack is not None else 0
            row = (rack.row if rack is not None else "") or "(none)"
            slot = rack.slot if rack is not None else None
            self.ui.notify(
                f"Added rack {rack_id} in row {row}, slot {slot}"
                + (f", feeds {feeds}" if feeds else ", no feeds")
                + (f", {pdus} PDU{'s' if pdus != 1 else ''} on them" if pdus else "")
                + (f"; {note}" if note else "")
                + " (ctrl+z undoes)",
                severity="warning" if note else "information",
                timeout=8 if note else 5,
            )

    def duplicate_rack(self) -> None:
        from rackdesigner.design.rack_build import duplicate_rack
        from rackdesigner.edit import EditError

        found = self._session_rack()
        if found is None:
            return
        session, rack = found[0], found[1].id
        try:
            command, new = duplicate_rack(session.layout, session.index, rack)
        except EditError as error:
            self.ui.notify(str(error), title="Refused", severity="error")
            return
        if self.ui.do(command) is None:
            copy = session.index.rack(new)
            self.ui.jump_to(new)
            self.ui.update_inspector(("rack", new))
            devices = len(copy.devices) if copy is not None else 0
            self.ui.notify(
                f"Duplicated rack {rack} as {new} (slot {copy.slot if copy else '?'}, "
                f"{plural(devices, 'device')}; ctrl+z undoes)",
                timeout=5,
            )

    def remove_rack(self) -> None:
        """The palette's way to the rack's Delete (a full rack has no empty unit to put
        the cursor on for ``delete``)."""
        rack = self._need_rack()
        if rack is not None:
            self.ui.confirm_remove_rack(rack)

    # -- feeds ------------------------------------------------------------------------------

    async def add_feed(self) -> None:
        from rackdesigner.design.rack_build import check_feed_form, feed_defaults
        from rackdesigner.tui.screens.build import FormScreen

        found = self._session_rack()
        if found is None:
            return
        session, rack = found
        rack_id = rack.id
        d = feed_defaults(rack)
        fields = [
            ("id", "id", d["id"], "the feed's id, e.g. a01-C"),
            ("side", "side", d["side"], "redundant side: A, B, C …"),
            ("voltage", "voltage", d["voltage"], "line-to-line for 3-phase, e.g. 415 V"),
            ("phases", "phases", d["phases"], "1 | 3"),
            ("current", "current", d["current"], "breaker rating, e.g. 63 A"),
            ("circuit", "circuit", d["circuit"], "panel circuit (optional), e.g. PP1-C-01"),
        ]
        command = await self.ui.wait_for(
            FormScreen(
                f"Add feed to rack {rack_id}",
                fields,
                lambda values: check_feed_form(session.index, rack_id, values),
                hint="enter adds the feed · tab: next field · escape cancels",
                dialog_id="add-feed-dialog",
            )
        )
        if command is None:
            return
        if self.ui.do(command) is None:
            feed = command.refs[0][1]
            self.ui.update_inspector(("feed", feed))
            self.ui.notify(f"Added feed {feed} to rack {rack_id} (ctrl+z undoes)", timeout=4)

    async def remove_feed(self) -> None:
        from rackdesigner.edit import RemoveFeed
        from rackdesigner.tui.screens.build import ChoiceScreen

        found = self._session_rack()
        if found is None:
            return
        rack = found[1]
        rack_id = rack.id
        if not rack.feeds:
            self.ui.notify(f"Rack {rack_id} has no feeds.", severity="warning")
            return
        choices = [(feed.id, _feed_line(feed)) for feed in rack.feeds]
        feed = await self.ui.wait_for(
            ChoiceScreen(f"Remove which feed of rack {rack_id}?", choices, choices[-1][0])
        )
        if feed is None:
            return
        if self.ui.do(RemoveFeed(feed)) is None:
            self.ui.update_inspector(("rack", rack_id))
            self.ui.notify(f"Removed feed {feed} from rack {rack_id} (ctrl+z undoes)", timeout=4)

    # -- cooling ----------------------------------------------------------------------------

    async def set_cooling(self) -> None:
        from rackdesigner.design.rack_build import cooling_choices, set_cooling
        from rackdesigner.edit import EditError
        from rackdesigner.tui.screens.build import CoolingScreen

        found = self._session_rack()
        if found is None:
            return
        session, rack = found
        rack_id, index = rack.id, session.index
        choices = cooling_choices(session.layout, index, rack_id)

        def describe(device_id: str) -> str:
            device = index.device(device_id)
            owner = index.rack_of(device_id)
            return f"{device.model} in {owner.id}" if device and owner else ""

        answer = await self.ui.wait_for(
            CoolingScreen(rack_id, rack.cooling_mode, choices, describe)
        )
        if answer is None:
            return
        try:
            command = set_cooling(
                index,
                rack_id,
                answer.mode,
                cdus=answer.cdus,
                door=answer.door,
                new_door_model=answer.new_door_model,
            )
        except EditError as error:
            self.ui.notify(str(error), title="Refused", severity="error", timeout=8)
            return
        if self.ui.do(command) is None:
            self.ui.jump_to(rack_id)
            self.ui.update_inspector(("rack", rack_id))
            now = index.rack(rack_id) or rack
            extra = ""
            if answer.mode == "liquid":
                extra = f" on {', '.join(now.cdus)}"
            elif answer.mode == "rear-door":
                extra = f" with door {now.door}"
            self.ui.notify(f"Rack {rack_id} is cooled by {answer.mode}{extra} (ctrl+z undoes)")

    # -- placing ----------------------------------------------------------------------------

    async def place_device(self) -> None:
        from rackdesigner.tui.screens.catalog_picker import CatalogPickerScreen

        rack = self._need_rack()
        if rack is None or self.workspace.moving is not None:
            return
        if self.ui.view_name != "racks":  # from another view (palette): place in the racks view
            self.ui.show_view("racks")
            if self.ui.cursor().rack != rack:
                self.ui.jump_to(rack)
        cursor = self.ui.cursor()
        where_text = f"the {cursor.rail} rail" if cursor.rail else f"U{cursor.unit}"
        models = await self.ui.wait_for(
            CatalogPickerScreen(self._catalog(), f"Place a device in rack {rack} at {where_text}")
        )
        if models:
            await self.place_models(rack, models, cursor.unit, cursor.rail)

    def focus_catalog(self) -> None:
        self.show_catalog()
        self.ui.focus_catalog_search()

    async def place_models(
        self, rack_id: str, models: list[str], unit: int, rail: str | None, *, ask: bool = True
    ) -> list[str]:
        """Place ``models`` in a rack from ``unit`` (designer.md's rule), asking for the rail
        of a lone 0U device and the face of a lone half-depth one (with ``ask``; a click on
        a unit places on the face shown and the rail clicked, else the emptier); the ids
        placed."""
        import time

        from rackdesigner.design.panels import place_through_panels, taken_but_panels
        from rackdesigner.edit import PlaceDevice

        session = self.workspace.session
        if session is None:
            return []
        index = session.index
        rack = index.rack(rack_id)
        types = index.catalog.devices
        unknown = [m for m in models if m not in types]
        if rack is None or unknown:
            self.ui.notify(f"Unknown model {', '.join(unknown)}", severity="error")
            return []
        left = sum(1 for d in rack.devices if d.side == "left" and _zero_u(types, d.model))
        right = sum(1 for d in rack.devices if d.side == "right" and _zero_u(types, d.model))
        face = self.ui.cursor().face
        side = rail
        if len(models) == 1 and ask:
            answer = await self._ask_rail_or_face(
                rack_id, models[0], types, side, face, (left, right)
            )
            if answer is None:
                return []
            side, face = answer
        began = time.perf_counter()  # after any question: what the app itself takes
        taken = taken_but_panels(index, rack)  # listed blanking panels make way
        try:
            placements = plan(
                types,
                models,
                top=int(rack.height_u),
                taken=taken,
                near=unit,
                face=face,
                rails=(left, right),
                side=side,
            )
        except NoRoom as error:
            self.ui.notify(f"Rack {rack_id}: {error}", title="Refused", severity="error", timeout=8)
            return []
        commands = [
            PlaceDevice(rack_id, p.model, p.position, face=p.face, side=p.side) for p in placements
        ]
        command: Any = place_through_panels(index, rack, commands)
        if self.ui.do(command) is not None:
            return []
        ids = [str(c.device_id) for c in commands]
        self._placed(rack, types, models, placements, ids)
        self.workspace.timings["place"] = time.perf_counter() - began
        return ids

    def _placed(
        self,
        rack: Rack,
        types: dict[str, DeviceType],
        models: list[str],
        placements: list[Placement],
        ids: list[str],
    ) -> None:
        """After a placement: the cursor and inspector on the first device placed, and a
        notice of what went where (and of a tray placed outside an NVLink domain)."""
        self.ui.jump_to(rack.id, ids[0])
        self.ui.update_inspector(("device", ids[0]))
        text = _placed_text(rack.id, placements, ids, types, int(rack.height_u))
        notes = {n for m in models if (n := domain_note(types[m], rack.nvlink_domain, rack.id))}
        if notes:  # a tray in a rack without a domain: say so before NVL002 does
            text += "; " + "; ".join(sorted(notes))
        self.ui.notify(text, timeout=8 if notes else 6)

    async def _ask_rail_or_face(
        self,
        rack_id: str,
        model: str,
        types: dict[str, DeviceType],
        side: str | None,
        face: str,
        rails: tuple[int, int],
    ) -> tuple[str | None, str] | None:
        """For a lone device: which rail a 0U one goes on (unless clicked), which face a
        half-depth one; the (rail, face) to place with, or None when the user cancels."""
        from rackdesigner.tui.screens.build import ChoiceScreen

        entry, (left, right) = types[model], rails
        if is_rail_device(entry) and side is None:
            side = await self.ui.wait_for(
                ChoiceScreen(
                    f"{model} is 0U: which side rail of rack {rack_id}?",
                    [
                        ("left", f"left rail ({left} there now)"),
                        ("right", f"right rail ({right} there now)"),
                    ],
                    rail_for(left, right),
                )
            )
            if side is None:
                return None
        elif entry.height_u > 0 and not entry.full_depth:
            chosen = await self.ui.wait_for(
                ChoiceScreen(
                    f"{model} is half-depth: which face of rack {rack_id}?",
                    [("front", "front"), ("rear", "rear")],
                    face,
                )
            )
            if chosen is None:
                return None
            face = chosen
        return side, face

    # -- events -----------------------------------------------------------------------------

    def catalog_chosen(self, model: str, by_mouse: bool) -> None:
        if by_mouse:
            self.armed = model
            self.ui.set_status(f"click a unit to place {model} · escape cancels")
            self.ui.notify(f"Click a unit of a rack to place {model} there", timeout=4)
            return
        rack = self._need_rack()
        if rack is not None:
            cursor = self.ui.cursor()
            self.ui.dialog(self._place(rack, [model], cursor.unit, cursor.rail))
            self.ui.focus_racks()

    def unit_clicked(self, rack: str, unit: int, rail: str | None) -> None:
        model = self.armed
        if model is None or self.workspace.moving is not None:
            return
        self.armed = None
        self.ui.set_status("")
        self.ui.dialog(self._place(rack, [model], unit, rail, ask=False))

    def catalog_dropped(self, model: str, where: tuple[str, int, str | None] | None) -> None:
        """A catalog entry dragged onto a unit (rack, unit, rail): placed there, one undo
        step, as a click-armed entry is; dropped anywhere else, nothing changes."""
        self.ui.set_status("")
        if self.workspace.moving is not None or self.workspace.session is None:
            return
        if where is None:
            self.ui.notify(f"Drop {model} on a unit of a rack to place it", timeout=3)
            return
        self.armed = None
        rack, unit, rail = where
        self.ui.focus_racks()
        self.ui.dialog(self._place(rack, [model], unit, rail, ask=False))

    async def _place(
        self, rack: str, models: list[str], unit: int, rail: str | None, *, ask: bool = True
    ) -> None:
        await self.place_models(rack, models, unit, rail, ask=ask)


def _zero_u(types: dict[str, Any], model: str) -> bool:
    entry = types.get(model)
    return entry is not None and entry.height_u <= 0


def _feed_line(feed: Any) -> str:
    parts = [feed.id]
    if feed.side:
        parts.append(f"side {feed.side}")
    electric = " ".join(
        str(x)
        for x in (
            getattr(feed.voltage, "text", feed.voltage),
            f"{feed.phases}-phase" if feed.phases else None,
            getattr(feed.current, "text", feed.current),
        )
        if x
    )
    if electric:
        parts.append(electric)
    if feed.circuit:
        parts.append(f"circuit {feed.circuit}")
    return " · ".join(parts)


def _placed_text(
    rack: str, placements: list[Placement], ids: list[str], types: dict[str, Any], top: int
) -> str:
    """Where each device went; the first one also says when its units were taken."""
    if len(placements) == 1:
        p = placements[0]
        height = types[p.model].height_u
        text = f"Placed {ids[0]} ({p.model}) in {rack} {where(p, height)}"
        if p.moved and p.asked is not None:
            if p.asked + max(1, round(height)) - 1 > top:
                text += f": from U{p.asked} it would pass the rack's top (U{top})"
            else:
                text += f": U{p.asked} and up were taken, so at the nearest free units"
        return text + " (ctrl+z undoes)"
    spots = ", ".join(
        f"{i} {where(p, types[p.model].height_u)}" for i, p in zip(ids, placements, strict=True)
    )
    return f"Placed {len(ids)} devices in {rack}: {spots} (ctrl+z undoes)"
