"""docs/cable-plant.md's worked example, figure by figure (the arithmetic is in the doc)."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.export.tables import BOM_COLUMNS, bom_rows, to_csv
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

EXAMPLE = ROOT / "tests" / "data" / "plant" / "example.toml"
DOC = ROOT / "docs" / "cable-plant.md"


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return Analysis(load_path(EXAMPLE))


def test_the_lengths(analysis: Analysis) -> None:
    node, channel = analysis.links[0], analysis.links[8]
    assert node.route == pytest.approx(1.94465 + 0.6 + 1.255675)
    assert node.length == pytest.approx(4.300325)
    runs = analysis.plant.route(channel).runs
    assert [round(r.length or 0, 6) for r in runs] == [1.43345, 5.34445, 1.43345]
    assert runs[1].route_text == "tray-a > cross-0 > tray-b"
    assert channel.length == pytest.approx(8.21135)


def test_the_fill(analysis: Analysis) -> None:
    fills = {f.pathway.id: f for f in analysis.plant.fills(0.4)}
    assert fills["tray-a"].cables == 9 and fills["tray-a"].at == pytest.approx(0.6)
    assert fills["tray-a"].area * 1e6 == pytest.approx(141.37, abs=0.01)
    assert fills["tray-a"].ratio == pytest.approx(0.028274, rel=1e-3)
    assert fills["tray-b"].ratio == pytest.approx(0.016965, rel=1e-3)


def test_the_loss(analysis: Analysis) -> None:
    loss = analysis.plant.loss(analysis.links[8])
    assert loss is not None
    assert loss.total == pytest.approx(0.7 + 8.21135 * 0.0004)
    assert (loss.budget, loss.budget_part) == (1.6, "MMS4X00-NM")


def test_the_bill_is_the_docs(analysis: Analysis) -> None:
    bill = to_csv(BOM_COLUMNS, bom_rows(analysis)).decode().replace("\r\n", "\n")
    assert bill in DOC.read_text(encoding="utf-8")
