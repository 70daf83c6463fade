"""The print pack's device tables list blanking panels as filler: one row per panel model
(how many units, and where), and one for a rack that declares its blanking (v1.4)."""

from __future__ import annotations

from rackdesigner.analysis import Analysis
from rackdesigner.export.render.schedule import device_rows
from rackdesigner.layout_io.document import loads
from tests.builders import HEADER


def _rows(rack: str) -> list[tuple[str, ...]]:
    return device_rows(Analysis(loads(HEADER + rack).layout).racks[0])


def test_listed_panels_are_one_row_per_model() -> None:
    """A DGX H100 (U1-U8) and a QM9700 (U20); 1U panels on U9-U19 (11) and 2U panels on
    U21-U24 (2, 4 units): two panel rows, not thirteen."""
    text = '[[racks]]\nid = "a01"\n'
    devices = [("a01-n01", "dgx-h100", 1), ("a01-leaf", "qm9700", 20)]
    devices += [(f"a01-blank{u}", "blank-1u", u) for u in range(9, 20)]
    devices += [("a01-b21", "blank-2u", 21), ("a01-b23", "blank-2u", 23)]
    for ident, model, unit in devices:
        text += f'[[racks.devices]]\nid = "{ident}"\nmodel = "{model}"\nposition = {unit}\n'
    rows = _rows(text)
    assert [r[1] for r in rows] == ["a01-leaf", "a01-n01", "11 panels", "2 panels"]
    assert rows[2] == ("11 U", "11 panels", "blank-1u", "blank", "–", "", "U9–U19")
    assert rows[3] == ("4 U", "2 panels", "blank-2u", "blank", "–", "", "U21–U24")


def test_a_declared_blanking_is_one_row_of_the_units_it_closes() -> None:
    """blanking = true, a DGX H100 on U1-U8 and a 1U panel listed on U42: the declared
    panels close U9-U41, 33 units."""
    text = (
        '[[racks]]\nid = "a01"\nblanking = true\n'
        '[[racks.devices]]\nid = "a01-n01"\nmodel = "dgx-h100"\nposition = 1\n'
        '[[racks.devices]]\nid = "a01-top"\nmodel = "blank-1u"\nposition = 42\n'
    )
    rows = _rows(text)
    assert rows[-1] == ("33 U", "panels", "blanking = true", "blank", "–", "", "U9–U41")
    assert rows[-2] == ("1 U", "a01-top", "blank-1u", "blank", "–", "", "U42")
