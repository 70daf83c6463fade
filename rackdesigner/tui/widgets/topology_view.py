"""The topology view: each compute fabric as a tree, core → spine → leaf → nodes.

The outline comes from :mod:`rackdesigner.export.render.topology_outline` (the topology drawing's
grouping: a scalable unit once with a count), built off the main thread; choosing an entry
(enter or a click) jumps to its switch or node in the racks view. A rack-scale rack is drawn
as its NVLink domain, one block (``nvl-a03 · NVL72 · 72 GPUs · 18 trays``) over its uplinks
and switch trays, not as its 27 trays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.message import Message
from textual.widgets import Tree

from rackdesigner.model.wording import plural
from rackdesigner.tui import safe

# How an entry marked by a scan's differences or a what-if is drawn: symbol, style.
MARK_STYLES = {
    "error": ("✖ ", "bold red"),
    "warning": ("▲ ", "bold yellow"),
    "info": ("● ", "cyan"),
    "down": ("▼ ", "bold red strike"),
    "degraded": ("◐ ", "bold yellow"),
    "cut off": ("⌁ ", "bold magenta"),
}
MARK_ORDER = tuple(MARK_STYLES)
# The title's words for the networks besides the compute fabrics.
NETWORK_WORDS = {"storage": "storage", "management": "out-of-band"}

if TYPE_CHECKING:  # the outline (networkx, 0.45 s) loads when the outline is made
    from rackdesigner.export.render.topology_outline import Entry


class TopologyView(Tree[str | None], can_focus=True):
    class Chosen(Message):
        def __init__(self, device: str) -> None:
            self.device = device
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("fabrics", id=id)
        self.show_root = False
        self.guide_depth = 3
        self.entries: list[Entry] = []
        self.border_title = "Topology"
        # Marks over the fabric (a scan's differences, a what-if): entry target -> a key
        # of MARK_STYLES; None: none.
        self.mark: Callable[[str], str | None] | None = None

    def set_marks(self, mark: Callable[[str], str | None] | None) -> None:
        """Mark the entries ``mark`` names (None clears), drawn again at once."""
        self.mark = mark
        if self.entries:
            self.show(self.entries)

    def show(self, entries: list[Entry] | None, waiting: str = "Reading the fabric…") -> None:
        self.entries = entries or []
        self.clear()
        if entries is None:
            self.root.add_leaf(safe.text(waiting))
            return
        fabrics = [e for e in entries if e.network is None]
        if not fabrics:
            self.root.add_leaf("No compute fabric: no cables between compute ports.")
        for entry in entries:
            # The compute fabrics open; the storage and out-of-band networks are a line
            # each (their switches and what is on them), opened with enter or a click.
            self._add(self.root, entry, expand=entry.network is None)
        nets = [NETWORK_WORDS.get(e.network or "", e.network) for e in entries if e.network]
        self.border_title = " · ".join(["Topology", plural(len(fabrics), "fabric"), *nets])

    def _marked(self, entry: Entry) -> str | None:
        """The entry's own mark, else the first (by MARK_ORDER) of its children's."""
        mark = self.mark
        if mark is None:
            return None
        own = mark(entry.target) if entry.target else None
        if own is not None or not entry.children:
            return own
        found = [m for m in (self._marked(child) for child in entry.children) if m]
        return min(found, key=MARK_ORDER.index) if found else None

    def _add(self, parent: object, entry: Entry, *, expand: bool) -> None:
        """``entry`` under ``parent``, its children opened with it when ``expand``."""
        label = safe.text(entry.label)
        marked = self._marked(entry)
        if marked is not None:
            symbol, style = MARK_STYLES[marked]
            label = safe.text(symbol + entry.label)
            label.stylize(style)
        elif entry.spof:
            label.stylize("bold red")
        elif entry.oversubscribed:
            label.stylize("yellow")
        if entry.children:
            node = parent.add(label, entry.target, expand=expand)  # type: ignore[attr-defined]
            for child in entry.children:
                self._add(node, child, expand=expand)
        else:
            parent.add_leaf(label, entry.target)  # type: ignore[attr-defined]

    def on_tree_node_selected(self, event: Tree.NodeSelected[str | None]) -> None:
        event.stop()
        # Groups open and close on enter; a switch or a rack of nodes jumps.
        if event.node.data and not event.node.children:
            self.post_message(self.Chosen(event.node.data))
