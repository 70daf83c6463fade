"""Small builders the rule unit tests share: layouts as text, and running one rule."""

from __future__ import annotations

import re
from pathlib import Path

from rackdesigner.check.engine import check
from rackdesigner.layout_io.document import loads
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout
from tests.conftest import ROOT

HEADER = 'format = 1\nname = "t"\n'


def findings(code: str, text: str) -> list[Diagnostic]:
    """The findings of rule ``code`` on a layout given without its header lines."""
    document = loads(HEADER + text)
    _, diagnostics = check(document.layout, select=[code], source_map=document.source_map)
    return [d for d in diagnostics if d.code == code]


def rack_text(rid: str, models: list[str], slot: int | None = 1, row: str = "A") -> str:
    """A rack holding one device of each model, 10 units apart from U1."""
    text = f'[[racks]]\nid = "{rid}"\nrow = "{row}"\n'
    if slot is not None:
        text += f"slot = {slot}\n"
    position = 1
    for index, model in enumerate(models, 1):
        text += (
            f'\n[[racks.devices]]\nid = "{rid}-d{index}"\nmodel = "{model}"\n'
            f"position = {position}\n"
        )
        position += 10
    return text + "\n"


def panel_every_open_unit(layout: Layout) -> Layout:
    """A 1U blanking panel device on every open front unit of each air rack (as layouts
    listed them before a rack could declare ``blanking``): racks with no room left."""
    from rackdesigner.edit import LayoutIndex, PlaceDevice

    index = LayoutIndex(layout)
    for rack in layout.racks:
        if rack.cooling_mode != "air":
            continue
        taken = set(index.occupied(rack.id, "front"))
        for unit in range(1, int(rack.height_u) + 1):
            if unit not in taken:
                PlaceDevice(rack.id, "blank-1u", unit, face="front").apply(layout, index)
    return layout


def hdr_fabric(tmp_path: Path) -> Path:
    """The bundled inference layout without its [catalog.dgx-b200]: 400G nodes on 200G
    leaves, every node-to-leaf cable a CAB004 warning (written to ``tmp_path``)."""
    text = (ROOT / "layouts" / "inference-32-b200.toml").read_text()
    text = re.sub(r"\[catalog\.dgx-b200\]\n(?:.*\n)*?notes = .*\n", "", text, count=1)
    target = tmp_path / "hdr.toml"
    target.write_text(text)
    return target
