"""The print pack's pages (``export --pdf``): a small registry, read without drawing code.

Each entry names a section of the pack and the function that lays out its pages
(``"module:function"``, imported only when the pack is made, like :data:`registry.KINDS`).
The function takes a :class:`~rackdesigner.export.render.pdf.PackInput` (the analysis, the
findings, the paper, theme and date) and yields
:class:`~rackdesigner.export.render.pdf.Page`\\ s. ``--pages`` picks sections by name, in
the order given; by default every section but the installer's (pull sheets, labels), in
the order listed here.

A new drawing joins the pack by adding one :class:`PackSection` line: the one-line
diagram, the cooling loop or cable labels write their page function in ``export/render/``
and list it here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PackSection:
    name: str  # what --pages calls it
    title: str  # what its pages hold
    target: str  # "module:function", imported on use
    # In the pack without --pages. The installer's sheets (pull sheets, labels: a page
    # per 70 cables, a hall's thousands) are printed when asked for by name.
    default: bool = True

    def load(self) -> Callable[[Any], Iterable[Any]]:
        """The page function: PackInput -> Pages (render/pdf.py; not imported here, so
        that this list costs nothing to read)."""
        module, _, name = self.target.partition(":")
        function: Any = getattr(importlib.import_module(module), name)
        return function


PDF = "rackdesigner.export.render.pdf"
SECTIONS = "rackdesigner.export.render.pack_sections"
PLANT = "rackdesigner.export.render.plant_pages"
COOLING = "rackdesigner.export.render.cooling_diagram"

PACK_SECTIONS: list[PackSection] = [
    PackSection("elevations", "rack elevations, front and rear", f"{PDF}:elevation_pages"),
    PackSection("floor", "the floor plan", f"{PDF}:floorplan_pages"),
    PackSection("topology", "the compute fabric in tiers", f"{SECTIONS}:topology_pages"),
    PackSection("one-line", "the power chain's single-line diagram", f"{SECTIONS}:one_line_pages"),
    PackSection("devices", "a device table per rack", f"{PDF}:device_pages"),
    PackSection("power", "the power-cord schedule, rack by rack", f"{SECTIONS}:power_pages"),
    PackSection(
        "cooling",
        "the liquid cooling: loops, CDU groups, racks (none without it)",
        f"{COOLING}:cooling_pages",
    ),
    PackSection("cables", "the cable schedule", f"{PDF}:cable_pages"),
    PackSection(
        "pulls", "the pull sheets, pathway by pathway", f"{PLANT}:pull_pages", default=False
    ),
    PackSection(
        "labels",
        "the cable and panel-port labels, rack by rack",
        f"{PLANT}:label_pages",
        default=False,
    ),
    PackSection("findings", "the layout's findings, by rule", f"{SECTIONS}:findings_pages"),
]


def section_names() -> list[str]:
    return [section.name for section in PACK_SECTIONS]


class UnknownPage(ValueError):
    """A ``--pages`` name no section has; the message lists the names."""


def chosen(pages: str | None) -> list[PackSection]:
    """The sections ``--pages`` names (a comma-separated list, in its order, each once), or
    every default section."""
    if pages is None:
        return [section for section in PACK_SECTIONS if section.default]
    by_name = {section.name: section for section in PACK_SECTIONS}
    names = [name.strip().lower() for name in pages.split(",") if name.strip()]
    unknown = [name for name in names if name not in by_name]
    if unknown or not names:
        what = f"no page {unknown[0]!r}" if unknown else "no page named"
        raise UnknownPage(f"--pages: {what}; the pages are {', '.join(by_name)}")
    return [by_name[name] for name in dict.fromkeys(names)]
