"""New from template in the designer: a template's options, and its layout as one edit.

:func:`template_defaults` gives the form a template's values (what ``rackdesigner new
--template NAME`` would use); :func:`rackdesigner.design.templates.build` builds the
layout, the same as the command line; :class:`FillLayout` puts it into the designer's new,
empty layout as one undoable step, so the new layout is unsaved (quitting asks) and ctrl+z
gives the empty one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rackdesigner.design.generators import GenerateError
from rackdesigner.design.templates import TEMPLATES, NewOptions, with_template
from rackdesigner.edit.base import Command, EditError
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.layout_io.catalog import for_layout
from rackdesigner.model.layout import Layout

# The layout's own keys a template sets (everything but racks and links, which go through
# the index).
_SECTIONS = tuple(f.name for f in dataclasses.fields(Layout) if f.name not in ("racks", "links"))

# "" in the form: a parametric layout (no template), the command line's --gpus N.
CUSTOM = ""


def template_defaults(name: str) -> NewOptions:
    """The options ``rackdesigner new --template NAME`` runs with (NAME "" : the plain
    defaults, 64 GPUs, as a starting point for a parametric layout)."""
    if name == CUSTOM:
        return NewOptions(gpus=64)
    options = NewOptions(template=name)
    if name == "superpod":
        options.sus = 1
    resolved = with_template(options)
    return dataclasses.replace(resolved, template=name)


def template_names() -> list[str]:
    return list(TEMPLATES)


class FillLayout(Command):
    """Give an empty layout everything ``source`` holds: racks (with their feeds and
    devices), links, site, workload, rules, catalog, name and comments. Refused when the
    layout already has racks or links; undo empties it again."""

    def __init__(self, source: Layout, label: str):
        super().__init__()
        self.source = source
        self.label = label
        self._old: dict[str, Any] = {}

    @property
    def size(self) -> int:
        source = self.source
        return len(source.racks) + sum(len(r.devices) for r in source.racks) + len(source.links)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        if layout.racks or layout.links:
            raise EditError("the layout is not empty: a template fills a new layout only")
        self._old = {key: getattr(layout, key) for key in _SECTIONS}
        for key in _SECTIONS:
            setattr(layout, key, getattr(self.source, key))
        index.catalog = for_layout(layout)
        layout.racks = list(self.source.racks)
        layout.links = list(self.source.links)
        for rack in layout.racks:
            index.add_rack(rack, with_contents=True)
        for link in layout.links:
            index.add_link(link)
        self._touch(layout)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        for link in layout.links:
            index.remove_link(link)
        for rack in layout.racks:
            index.remove_rack(rack, with_contents=True)
        self._touch(layout)
        layout.racks = []
        layout.links = []
        for key, value in self._old.items():
            setattr(layout, key, value)
        index.catalog = for_layout(layout)

    def _touch(self, layout: Layout) -> None:
        for rack in layout.racks:
            self.effect.rack(rack)
        self.effect.everything = True
        self.effect.fabric = True
        self.refs = [("layout", "")]


__all__ = ["CUSTOM", "FillLayout", "GenerateError", "template_defaults", "template_names"]
