"""Small builders the rule unit tests share: layouts as text, and running one rule."""

from __future__ import annotations

from rackdesigner.check.engine import check
from rackdesigner.layout_io.document import loads
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout

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


def chain_hall(
    blocks: int, rows_per_block: int, racks_per_row: int, model: str | None = None
) -> str:
    """A 2N hall: a utility and one switchboard a side; per block a UPS a side; per block
    and row a busway a side, every rack of the row on both (one device of ``model``)."""
    out = ['format = 1\nname = "hall"\n']

    def element(ident: str, kind: str, fed_by: list[str] | None = None, **keys: str) -> None:
        lines = [f'[[power.elements]]\nid = "{ident}"\nkind = "{kind}"']
        if fed_by:
            lines.append("fed_by = [" + ", ".join(f'"{f}"' for f in fed_by) + "]")
        lines.extend(f'{k} = "{v}"' for k, v in keys.items())
        out.append("\n".join(lines) + "\n")

    element("utility-1", "utility", capacity="100 MW")
    for side in "ab":
        element(f"swbd-{side}", "switchgear", ["utility-1"], capacity="100 MW")
    rack_number = 0
    for block in range(1, blocks + 1):
        for side in "ab":
            element(f"ups-{block}-{side}", "ups", [f"swbd-{side}"], capacity="10 MW")
        for row in range(rows_per_block):
            name = f"r{block}{chr(ord('a') + row)}"
            for side in "ab":
                element(
                    f"bw-{name}-{side}",
                    "busway",
                    [f"ups-{block}-{side}"],
                    voltage="415 V",
                    current="4000 A",
                )
            for slot in range(1, racks_per_row + 1):
                rack_number += 1
                rid = f"{name}-{slot:03d}"
                feeds = ", ".join(
                    f'{{ id = "{rid}-{s.upper()}", side = "{s.upper()}", voltage = "415 V", '
                    f'phases = 3, current = "63 A", source = "bw-{name}-{s}" }}'
                    for s in "ab"
                )
                rack = (
                    f'[[racks]]\nid = "{rid}"\nrow = "{name}"\nslot = {slot}\nfeeds = [{feeds}]\n'
                )
                if model is not None:
                    rack += (
                        f'\n[[racks.devices]]\nid = "{rid}-n1"\nmodel = "{model}"\nposition = 2\n'
                    )
                out.append(rack)
    return "\n".join(out)
