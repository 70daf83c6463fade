"""The topology view: each compute fabric as a tree, core → spine → leaf → nodes.

The outline comes from :mod:`rackdesigner.export.render.topology_outline` (the topology drawing's
grouping: a scalable unit once with a count), built off the main thread; choosing an entry
(enter or a click) jumps to its switch or node in the racks view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message
from textual.widgets import Tree

from rackdesigner.tui import safe

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

    def show(self, entries: list[Entry] | None, waiting: str = "Reading the fabric…") -> None:
        self.entries = entries or []
        self.clear()
        if entries is None:
            self.root.add_leaf(safe.text(waiting))
            return
        if not entries:
            self.root.add_leaf("No compute fabric: no cables between compute ports.")
            return
        for entry in entries:
            self._add(self.root, entry, expand=True)
        self.border_title = f"Topology · {len(entries)} fabric{'s' if len(entries) > 1 else ''}"

    def _add(self, parent: object, entry: Entry, *, expand: bool) -> None:
        label = safe.text(entry.label)
        if entry.spof:
            label.stylize("bold red")
        elif entry.oversubscribed:
            label.stylize("yellow")
        if entry.children:
            node = parent.add(label, entry.target, expand=expand)  # type: ignore[attr-defined]
            for child in entry.children:
                self._add(node, child, expand=True)
        else:
            parent.add_leaf(label, entry.target)  # type: ignore[attr-defined]

    def on_tree_node_selected(self, event: Tree.NodeSelected[str | None]) -> None:
        event.stop()
        # Groups open and close on enter; a switch or a rack of nodes jumps.
        if event.node.data and not event.node.children:
            self.post_message(self.Chosen(event.node.data))
