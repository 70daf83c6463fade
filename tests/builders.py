"""Small builders the tests share: layouts as text (racks, feeds, cables), a session or the
findings of one rule on them, and the layouts a few journeys change."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rackdesigner.check.engine import check
from rackdesigner.edit import Session
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


def rack_text(
    rid: str,
    models: list[str],
    slot: int | None = 1,
    row: str = "A",
    *,
    cooling: str | None = None,
    extra: str = "",
) -> str:
    """A rack holding one device of each model (``rid``-d1, -d2, ...), 10 units apart from
    U1; ``cooling`` and the ``extra`` lines (feeds, a CDU) under its header."""
    text = f'[[racks]]\nid = "{rid}"\nrow = "{row}"\n'
    if slot is not None:
        text += f"slot = {slot}\n"
    if cooling is not None:
        text += f'cooling = "{cooling}"\n'
    text += extra
    position = 1
    for index, model in enumerate(models, 1):
        text += (
            f'\n[[racks.devices]]\nid = "{rid}-d{index}"\nmodel = "{model}"\n'
            f"position = {position}\n"
        )
        position += 10
    return text + "\n"


def feed(
    fid: str, voltage: str = "415 V", phases: int = 3, current: str = "63 A", **keys: object
) -> str:
    """A feed as an inline table: ``feed("a01-A", side="A")`` is 415 V 3-phase 63 A on side A;
    ``keys`` (side, circuit, derate, ...) follow in the order given."""
    more = "".join(f", {key} = {_toml(value)}" for key, value in keys.items())
    return (
        f'{{ id = "{fid}", voltage = "{voltage}", phases = {phases}, current = "{current}"{more} }}'
    )


def feeds_line(*tables: str) -> str:
    """A rack's ``feeds`` key: the inline tables, one a line."""
    return "feeds = [\n" + "".join(f"  {table},\n" for table in tables) + "]\n"


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string for the plain values tests give
    return repr(value)


# Rack a01's two feeds, sides A and B on circuits of their own: 415 V 3-phase 63 A each.
FEEDS_AB = feeds_line(
    feed("a01-A", side="A", circuit="C-A"), feed("a01-B", side="B", circuit="C-B")
)


def rack_a01(
    devices: list[tuple[str, int | None]], *, cooling: str = "air", extra: str = ""
) -> str:
    """Rack a01 with :data:`FEEDS_AB` (unless ``extra`` replaces them) and devices
    ``(model, position)`` (None: a 0U device), named a01-d1, a01-d2, ..."""
    feeds = extra if extra else FEEDS_AB
    text = f'[[racks]]\nid = "a01"\nrow = "A"\nslot = 1\ncooling = "{cooling}"\n{feeds}\n'
    for number, (model, position) in enumerate(devices, 1):
        text += f'[[racks.devices]]\nid = "a01-d{number}"\nmodel = "{model}"\n'
        if position is not None:
            text += f"position = {position}\n"
        text += "\n"
    return text


def links_text(*cables: tuple[str, str, str]) -> str:
    """Cables ``(a, b, extra lines)`` as ``[[links]]`` tables."""
    return "".join(f'[[links]]\na = "{a}"\nb = "{b}"\n{extra}\n' for a, b, extra in cables)


def session_of(text: str) -> Session:
    """An edit session on a layout given without its header lines."""
    return Session(loads(HEADER + text))


def first(session: Session, code: str) -> Diagnostic:
    """The session's first ``code`` finding (the test fails where there is none)."""
    found = [d for d in session.findings if d.code == code]
    assert found, f"{code} does not fire: {[d.code for d in session.findings]}"
    return found[0]


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
