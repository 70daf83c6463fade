"""Every action of the designer in one table: bindings, the command palette and the help
screen are all built from it, so a key, its palette name and its help line never disagree.

Each binding has an id (``binding-id = "keys"`` in ``keymap.toml`` remaps it). Actions are
the main screen's methods (``action_<name>``): an app-wide binding calls ``main.<name>``
(the app's name for its main screen, which works under a dialog too), a binding in a panel
``screen.<name>``, so the key and the palette run the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True, slots=True)
class Action:
    id: str  # binding id, stable: users remap keys by it
    action: str  # the main screen's action (``action_<action>``), with its arguments
    name: str  # the command palette's name (designer.md); "" when not in the palette
    help: str  # one line for the help screen and the palette
    keys: str = ""  # default keys, comma-separated; "" for palette-only actions
    # "app": everywhere (ctrl keys, priority); "views": the digits, priority bindings that
    # act while a view has the focus; "racks"; "floor"; "problems".
    scope: str = "app"
    footer: str = ""  # short footer label; "" keeps it out of the footer
    key_display: str | None = None
    # App-wide ctrl keys work everywhere (priority); a printable key such as ``?`` must not,
    # or typing it in a field would trigger it.
    priority: bool = True


ACTIONS: tuple[Action, ...] = (
    # The racks view: letter keys act only when it has focus (typing in a field never does).
    Action("cursor-up", "cursor(0, 1)", "", "cursor up one unit", "up", "racks"),
    Action("cursor-down", "cursor(0, -1)", "", "cursor down one unit", "down", "racks"),
    Action("cursor-left", "cursor(-1, 0)", "", "cursor to the rack on the left", "left", "racks"),
    Action("cursor-right", "cursor(1, 0)", "", "cursor to the rack on the right", "right", "racks"),
    Action(
        "rail-left",
        "cursor(-1, 0, True)",
        "",
        "cursor left, stopping on 0U side rails (PDUs)",
        "shift+left",
        "racks",
    ),
    Action(
        "rail-right",
        "cursor(1, 0, True)",
        "",
        "cursor right, stopping on 0U side rails (PDUs)",
        "shift+right",
        "racks",
    ),
    Action("cursor-top", "cursor_end(1)", "", "cursor to the rack's top unit", "home", "racks"),
    Action(
        "cursor-bottom", "cursor_end(-1)", "", "cursor to the rack's bottom unit", "end", "racks"
    ),
    Action("page-up", "cursor(0, 10)", "", "cursor up ten units", "pageup", "racks"),
    Action("page-down", "cursor(0, -10)", "", "cursor down ten units", "pagedown", "racks"),
    Action("next-row", "row(1)", "Next row", "show the next row of racks", "]", "racks", "", "]"),
    Action(
        "previous-row",
        "row(-1)",
        "Previous row",
        "show the previous row of racks",
        "[",
        "racks",
    ),
    Action(
        "inspect",
        "inspect",
        "Edit in inspector",
        "edit the entity under the cursor in the inspector",
        "enter",
        "racks",
        "edit",
    ),
    Action(
        "move",
        "move",
        "Move device",
        "move the device under the cursor: arrows, enter to place, escape to cancel",
        "m",
        "racks",
    ),
    Action(
        "select",
        "toggle_select",
        "",
        "add or remove the device under the cursor from the selection",
        "space",
        "racks",
    ),
    Action(
        "delete",
        "delete",
        "Delete",
        "delete the selected devices (or the one under the cursor)",
        "delete",
        "racks",
    ),
    Action(
        "duplicate",
        "duplicate",
        "Duplicate",
        "duplicate the device under the cursor into the next free units",
        "c",
        "racks",
    ),
    Action("rename", "rename", "Rename", "rename the entity under the cursor", "r", "racks"),
    # Cabling (connect ports, generate a fabric).
    Action(
        "connect",
        "connect",
        "Connect ports",
        "cable a free port of the device under the cursor to another device's free port",
        "l",
        "racks",
        "link",
    ),
    Action(
        "generate-fabric",
        "generate_fabric",
        "Generate fabric",
        "switches and cables for the selected GPU nodes (no selection: all), previewed first",
        "g",
        "racks",
        "fabric",
    ),
    Action(
        "trace-cable",
        "trace_cable",
        "Trace cable",
        "a cable of the device under the cursor: its route on the floor, its segments",
        "t",
        "racks",
    ),
    Action("face", "toggle_face", "Toggle face", "show the front or the rear", "f", "racks"),
    # See the whole rack (the compact zooms).
    Action(
        "zoom",
        "zoom",
        "Zoom",
        "the racks view's zoom, in turn: 1 U per row, 2 U per row, the whole rack",
        "z",
        "racks",
    ),
    Action("zoom-1", "zoom(1)", "Zoom 1 U per row", "one unit a row (the default)"),
    Action("zoom-2", "zoom(2)", "Zoom 2 U per row", "two units a row"),
    Action(
        "zoom-fit",
        "zoom(0)",
        "Zoom whole rack",
        "the whole of the tallest rack fitted to the view's height",
    ),
    # Building: racks, feeds, cooling, the catalog and placing devices.
    Action(
        "place",
        "place_device",
        "Place device",
        "place a device at the cursor from the catalog picker (space marks several)",
        "a",
        "racks",
        "place",
    ),
    Action("add-rack", "add_rack", "Add rack", "add a rack (a new row name starts a row)"),
    Action(
        "duplicate-rack",
        "duplicate_rack",
        "Duplicate rack",
        "copy the rack under the cursor with its feeds and devices into the next free slot",
    ),
    Action(
        "remove-rack",
        "remove_rack",
        "Remove rack",
        "delete the rack under the cursor with its feeds, devices and cables (asks first)",
    ),
    Action("add-feed", "add_feed", "Add feed", "add a power feed to the rack under the cursor"),
    Action(
        "remove-feed", "remove_feed", "Remove feed", "remove a feed of the rack under the cursor"
    ),
    Action(
        "set-cooling",
        "set_cooling",
        "Set cooling",
        "air, liquid (choose the CDUs), rear door (choose the door) or immersion",
    ),
    Action("catalog", "focus_catalog", "Catalog", "search the catalog; enter places at the cursor"),
    # Every setting the rules read, in the inspector.
    Action(
        "layout-settings",
        "layout_settings",
        "Layout settings",
        "the layout's name, workload, site, rules select / ignore and thresholds, editable",
    ),
    # The as-built check and failures. Neither edits the layout.
    Action(
        "verify-scan",
        "verify_scan",
        "Verify against scan",
        "compare the cables with an ibnetdiscover or LLDP scan; marks what differs",
    ),
    Action(
        "export-work-order",
        "export_work_order",
        "Export work order",
        "write the scan's differences as a CSV work order (w in the problems panel)",
    ),
    Action(
        "clear-scan",
        "clear_scan",
        "Clear scan results",
        "take the scan's differences off the views and the problems panel",
    ),
    Action(
        "what-if",
        "what_if",
        "What if…",
        "shade what a failure takes down, its findings in the problems panel; escape clears",
    ),
    # The floor view.
    Action("floor-up", "floor_cursor(0, -1)", "", "cursor to the row above", "up", "floor"),
    Action("floor-down", "floor_cursor(0, 1)", "", "cursor to the row below", "down", "floor"),
    Action(
        "floor-left", "floor_cursor(-1, 0)", "", "cursor to the rack on the left", "left", "floor"
    ),
    Action(
        "floor-right", "floor_cursor(1, 0)", "", "cursor to the rack on the right", "right", "floor"
    ),
    Action(
        "floor-open",
        "floor_open",
        "",
        "open the rack under the cursor in the racks view",
        "enter",
        "floor",
        "open",
    ),
    # Every view (racks, floor, topology, summary, power): digits switch between them.
    Action(
        "racks-view", "view('racks')", "Racks view", "show the racks (elevations)", "1", "views"
    ),
    Action("floor-view", "view('floor')", "Floor view", "show the hall from above", "2", "views"),
    Action(
        "topology-view",
        "view('topology')",
        "Topology view",
        "show the fabric as a tree",
        "3",
        "views",
    ),
    Action(
        "summary-view",
        "view('summary')",
        "Summary view",
        "show power, heat, CDU margins, GPUs, cost and the workload's fit, worst first",
        "4",
        "views",
    ),
    Action(
        "power-view",
        "view('power')",
        "Power view",
        "show the power chain: load bars, margins, worst single failures",
        "5",
        "views",
    ),
    # The problems panel: guidance (Apply fix). Its key is the panel's own binding, shown in
    # the footer only when the highlighted finding has a mechanical fix.
    Action(
        "apply-fix",
        "apply_fix",
        "Apply fix",
        "apply the highlighted problem's fix where it is mechanical (one undo step)",
        "x",
        "problems",
        "fix",
    ),
    # Everywhere.
    Action("undo", "undo", "Undo", "undo the last change", "ctrl+z", footer="undo"),
    Action("redo", "redo", "Redo", "redo the change undone last", "ctrl+y"),
    Action("save", "save", "Save", "save the layout (canonical TOML)", "ctrl+s", footer="save"),
    Action("save-as", "save_as", "Save as", "save the layout under another name"),
    Action("open", "open", "Open", "open another layout"),
    # New layouts from the templates of `rackdesigner new`.
    Action(
        "new-from-template",
        "new_from_template",
        "New from template",
        "a new, unsaved layout from a template of rackdesigner new, its options in a form",
    ),
    Action("export", "export", "Export", "write drawings and files (every export kind)", "ctrl+e"),
    Action("goto", "goto", "Go to", "jump to a rack, device, feed or link by id", "ctrl+g"),
    Action("problems", "focus_problems", "Problems", "focus the problems panel", "ctrl+o"),
    Action(
        "help",
        "help",
        "Help",
        "every key and what it does",
        "question_mark,f1",
        footer="help",
        priority=False,
    ),
    Action("quit", "quit", "", "quit (asks when there are unsaved changes)", "ctrl+q"),
)

BY_ID = {action.id: action for action in ACTIONS}


# What the footer shows first: building from nothing starts with a, l and g. An 80-column
# footer holds about nine keys, so the others (move, delete, copy, face, rows, redo) are in the help
# screen and the palette, not the footer.
FOOTER_FIRST = ("place", "connect", "generate-fabric")


def bindings(scope: str) -> list[Binding]:
    """The Textual bindings of one scope; app-wide ones are priority bindings.

    The view digits are the app's priority bindings too. A key goes to the focused widget
    and reaches the app's own bindings only after bubbling up from it; while a view switch
    moves the focus, keys pressed quickly bubbled up from different widgets, out of order
    (``4 3 2 1`` arrived as ``3 1 2 4``), or were dropped while nothing had focus. A
    priority binding runs as the key arrives; the app refuses the digits unless a view has
    the focus (``check_action``), so a field, a panel or a dialog keeps them."""
    app_wide = scope in ("app", "views")
    out: list[Binding] = []
    first = [BY_ID[i] for i in FOOTER_FIRST if i in BY_ID]
    for action in (*first, *(a for a in ACTIONS if a not in first)):
        if action.scope != scope or not action.keys:
            continue
        out.append(
            Binding(
                action.keys,
                f"main.{action.action}" if app_wide else f"screen.{action.action}",
                action.footer or action.help,
                show=bool(action.footer),
                key_display=action.key_display,
                priority=app_wide and action.priority,
                id=action.id,
                tooltip=action.help,
            )
        )
    return out


def palette() -> list[Action]:
    """The actions the command palette offers, by name."""
    return [action for action in ACTIONS if action.name]


def key_text(keys: str) -> str:
    """Keys as people write them: ``question_mark,f1`` → ``? / f1``."""
    names = {"question_mark": "?", "delete": "del", "pageup": "pgup", "pagedown": "pgdn"}
    return " / ".join(names.get(k, k) for k in keys.split(",") if k)
