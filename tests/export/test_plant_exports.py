"""(v1.4) Pull sheets and labels (``export --pull-sheets DIR``, ``--labels FILE.csv``): golden
files of the cable plant's worked example (docs/cable-plant.md) and of a hall without
pathways, the order an installer works in, every run on one sheet, the identifiers, and
the print pack's pages.

After an intended change, rewrite the golden files with
``RACKDESIGNER_REGENERATE_GOLDEN=1 python -m pytest tests/export/test_plant_exports.py``
and review the diff.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.labels import Identifiers, labels
from rackdesigner.export.pull_sheets import sheet_rows, sheets
from rackdesigner.layout_io import load_path
from rackdesigner.layout_io.reader import load_text as loads
from tests.conftest import ROOT

EXAMPLE = ROOT / "tests" / "data" / "plant" / "example.toml"
SMALL = ROOT / "tests" / "data" / "exports" / "small.toml"
GOLDEN = ROOT / "tests" / "data" / "plant" / "golden"


def _export(tmp_path: Path, layout: Path, name: str) -> dict[str, bytes]:
    out = tmp_path / name
    result = CliRunner().invoke(
        cli,
        ["export", str(layout), "--pull-sheets", str(out / "pulls"), "--labels",
         str(out / "labels.csv")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.csv"))}


@pytest.mark.parametrize(("layout", "name"), [(EXAMPLE, "example"), (SMALL, "small")])
def test_pull_sheets_and_labels_match_their_golden_files(
    tmp_path: Path, layout: Path, name: str
) -> None:
    files = _export(tmp_path, layout, name)
    folder = GOLDEN / name
    if os.environ.get("RACKDESIGNER_REGENERATE_GOLDEN"):
        for relative, data in files.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_bytes(data)
    expected = {str(p.relative_to(folder)) for p in folder.rglob("*.csv")}
    assert set(files) == expected
    for relative, data in files.items():
        assert data == (folder / relative).read_bytes(), f"{relative} differs from its golden"
        # RFC 4180: CRLF ends every record; UTF-8 without a byte-order mark
        assert data.endswith(b"\r\n") and b"\n" not in data.replace(b"\r\n", b"")
        assert not data.startswith(b"\xef\xbb\xbf")


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))


def test_the_worked_example_sheet_by_sheet(tmp_path: Path) -> None:
    """docs/cable-plant.md's example, by hand.

    - tray-a: the 8 node cords a01 -> a02, each 1.94465 + 0.6 + 1.255675 + 0.5 = 4.300325 m
      (4.3), stock 5 m (the generic series): 34.4 m routed, 40 m ordered, one pull;
    - cross-0: trunk t1, 0.322225 + 4.2 + 0.322225 + 0.5 = 5.34445 m; its legs are tray-a
      1.2 m, cross-0 2.4 m, tray-b 0.6 m, so it is laid on cross-0, its longest; ordered at
      7 m (the series, as the bill orders it);
    - rack a02 and rack b01: the channels' 8 patch cords each, 0.93345 + 0.5 = 1.43345 m
      (1.43), 1.5 m stock: 8 x 1.43345 = 11.4676 m routed, 12 m ordered.
    """
    files = _export(tmp_path, EXAMPLE, "example")
    index = _rows(files["pulls/index.csv"])
    columns = ("where", "runs", "pulls", "length_m", "stock_length_m")
    assert [tuple(r[c] for c in columns) for r in index] == [
        ("tray-a", "8", "1", "34.4", "40"),
        ("cross-0", "1", "1", "5.34", "7"),
        ("rack a02", "8", "1", "11.47", "12"),
        ("rack b01", "8", "1", "11.47", "12"),
    ]  # fmt: skip
    trunk = _rows(files["pulls/002-cross-0.csv"])
    assert [(r["kind"], r["cable"], r["route"], r["label"]) for r in trunk] == [
        ("trunk", "t1", "tray-a > cross-0 > tray-b", "A02-42/B01-42")
    ]
    cords = _rows(files["pulls/004-b01.csv"])
    assert cords[0]["from_port"] == "b01-pp1:p1" and cords[0]["to_port"] == "b01-spine1:p1"


def test_every_run_is_on_one_sheet() -> None:
    """The sheets add up to the bill: each cable, patch cord and trunk once (a hall of
    1,024 GPUs generated with structured cabling: cords, trunks and twin-port copper)."""
    from rackdesigner.design.templates import NewOptions, build

    layout = build(NewOptions(gpus=256, fabric="rail", cabling="structured")).layout
    analysis = Analysis(layout)
    found = sheets(analysis)
    runs = [run for sheet in found for run in sheet.runs]
    assert len(runs) == len(analysis.plant.cables()) + len(layout.trunks)
    assert sum(1 for run in runs if run.kind == "trunk") == len(layout.trunks) > 0
    twins = [c for c in analysis.plant.cables() if len(c.links) == 2]
    assert sum(1 for run in runs if " + " in run.cable) == len(twins)


HALL = """
format = 1
name = "order"

[[racks]]
id = "a01"
row = "A"
slot = 1

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 2

[[racks]]
id = "a02"
row = "A"
slot = 2

[[racks.devices]]
id = "a02-leaf1"
model = "qm9700"
position = 21

[[racks]]
id = "a03"
row = "A"
slot = 3

[[racks]]
id = "a04"
row = "A"
slot = 4

[[racks.devices]]
id = "a04-leaf1"
model = "qm9700"
position = 21

[[pathways]]
id = "tray-a"
row = "A"
slots = [0, 5]
width = "200 mm"
depth = "100 mm"

[[links]]
a = "a01-n01:ib1"
b = "a02-leaf1:p2"
media = "mmf"

[[links]]
a = "a01-n01:ib2"
b = "a02-leaf1:p1"
media = "mmf"

[[links]]
a = "a01-n01:ib3"
b = "a04-leaf1:p1"
media = "mmf"
"""


def test_pulls_go_longest_first_then_by_destination() -> None:
    """On tray-a: a01 -> a04 (three slots, 1.8 m along the tray) is the longer pull and is
    laid first; a01 -> a02 (0.6 m) second, its cables by their far port: p1 before p2,
    though the layout lists the cable to p2 first."""
    analysis = Analysis(loads(HALL))
    (sheet,) = sheets(analysis)
    rows = sheet_rows(sheet)
    assert [(r[0], r[1], r[3], r[9]) for r in rows] == [
        ("1", "1", "a01-n01:ib3", "a04-leaf1:p1"),
        ("2", "2", "a01-n01:ib2", "a02-leaf1:p1"),
        ("3", "2", "a01-n01:ib1", "a02-leaf1:p2"),
    ]
    # 1.8 m along the tray against 0.6 m, from the same port heights: 1.2 m longer
    assert float(rows[0][12]) - float(rows[1][12]) == pytest.approx(1.2, abs=0.01)


def test_identifiers_follow_the_cabinet_unit_port_form() -> None:
    """A cabinet is its row and two-digit slot; two devices in one unit get a and b; a rack
    whose row is not letters keeps its id; a cable's label names its own end first."""
    panels = (
        '\n[[racks.devices]]\nid = "a03-pp1"\nmodel = "fibre-panel-mpo-1u"\nposition = 21\n'
        'face = "rear"\n\n[[racks.devices]]\nid = "a03-pp2"\nmodel = "fibre-panel-mpo-1u"\n'
        'position = 21\nface = "front"\n'
    )
    text = HALL.replace(
        'id = "a03"\nrow = "A"\nslot = 3\n', 'id = "x-9"\nrow = "7"\nslot = 3\n' + panels
    )
    analysis = Analysis(loads(text))
    names = Identifiers(analysis)
    by_id = analysis.device_by_id
    assert names.port(by_id["a01-n01"], "ib1") == "A01-02:ib1"
    assert names.device(by_id["a03-pp1"]) == "x-9-21a"
    assert names.device(by_id["a03-pp2"]) == "x-9-21b"
    found = labels(analysis)
    ends = {(lab.cable, lab.end): lab.text for lab in found if lab.kind == "cable"}
    assert ends["a01-n01:ib3", "a"] == "A01-02:ib3/A04-21:p1"
    assert ends["a01-n01:ib3", "b"] == "A04-21:p1/A01-02:ib3"
    ports = [lab for lab in found if lab.kind == "panel-port"]
    assert len(ports) == 2 * 48 and ports[0].text == "x-9-21a:p1"


def test_labels_of_the_example_name_each_panel_port_through_its_trunk() -> None:
    """a02-pp1:p1 carries the first channel to b01-pp1:p1 (via = ["a02-pp1:p1",
    "b01-pp1:p1"]); p9 carries none; the trunk's ends name the two panels."""
    found = labels(Analysis(load_path(EXAMPLE)))
    text = {(lab.kind, lab.device.id if lab.device else "", lab.port): lab.text for lab in found}
    assert text["panel-port", "a02-pp1", "p1"] == "A02-42:p1/B01-42:p1"
    assert text["panel-port", "a02-pp1", "p9"] == "A02-42:p9"
    assert text["trunk", "b01-pp1", ""] == "B01-42/A02-42"
    assert text["cord", "a02-leaf1", "p33"] == "A02-21:p33/A02-42:p1"
    # 8 node cables x 2 ends, 8 channels x 2 cords x 2 ends, 2 trunk ends, 2 x 48 ports
    assert len(found) == 16 + 32 + 2 + 96


def test_print_pack_pages_of_pulls_and_labels() -> None:
    from rackdesigner.check.engine import check
    from rackdesigner.export.pack import chosen
    from rackdesigner.export.render.pdf import pages

    analysis, diagnostics = check(load_path(EXAMPLE))
    documents = pages(analysis, diagnostics, sections=chosen("pulls,labels"))
    assert len(documents) >= 2
    pulls = documents[0]
    # the heading in two lines, so that a tray's long one stays on a portrait page
    assert ">Sheet 2 · cross-0 (overhead tray)<" in pulls
    assert ">1 run in 1 pull · 5.3 m routed, 7.0 m ordered<" in pulls
    assert ">tray-a &gt; cros…<" in pulls  # the route, cut to its column (whole in the CSV)
    labelled = "".join(documents[1:])
    assert "Rack a01 · 8 labels" in labelled and "A01-02:ib1/A02-21:p1" in labelled
    assert labelled.count('stroke-dasharray="2 2"') == 16 + 32 + 2 + 96  # a box a label


def test_a_table_heading_too_long_for_the_page_is_cut_to_its_width() -> None:
    """A4 portrait is 595.3 - 2 x 28 = 539.3 pt wide; a 10 pt heading character is
    4.82 x 10 / 8 = 6.025 pt: 89 characters, the last an ellipsis. The first line is
    repeated (cut too) where the group goes on over the page."""
    import re

    from rackdesigner.export.render.pdf import Paper, table_pages

    long = "Sheet 1 · " + "x" * 200
    rows = [(str(n),) for n in range(200)]
    pages = list(table_pages("T", [("n", 5)], [(long + "\nsecond line", rows)], Paper("a4")))
    assert len(pages) == 3
    headings = [
        h for page in pages for h in re.findall(r'class="th"[^>]*>([^<]*)<', "".join(page.body))
    ]
    assert headings[:2] == ["Sheet 1 · " + "x" * 78 + "…", "second line"]
    assert all(len(h) <= 89 for h in headings) and headings[2].endswith("…")


def test_a_pull_sheets_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "sheets"
    target.write_text("not a folder")
    result = CliRunner().invoke(cli, ["export", str(EXAMPLE), "--pull-sheets", str(target)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_csv_written_to_a_terminal_is_escaped(tmp_path: Path) -> None:
    """``--labels /dev/pts/N``: a rack id with a bidi override and an OSC title reaches the
    terminal escaped, as ``verify --format csv`` does on one (docs/reliability.md)."""
    import pty

    text = EXAMPLE.read_text(encoding="utf-8").replace('"b01', '"b\u202e01')
    layout = tmp_path / "hostile.toml"
    layout.write_text(text, encoding="utf-8")
    master, slave = pty.openpty()
    try:
        name = os.ttyname(slave)
        result = CliRunner().invoke(cli, ["export", str(layout), "--labels", name])
        assert result.exit_code == 0, result.output
        os.set_blocking(master, False)
        written = b""
        try:
            while chunk := os.read(master, 65536):
                written += chunk
        except BlockingIOError:
            pass
    finally:
        os.close(master)
        os.close(slave)
    shown = written.decode("utf-8")
    assert "\u202e" not in shown and "\\u202e" in shown


def test_the_pdf_schedule_orders_the_stock_lengths_the_csv_does() -> None:
    """The print pack's cable schedule reads the CSV's rows. training-128's a02-leaf1:p17
    is a 3.70 m active copper cable: MCA4J80 is sold at 3, 4 and 5 m (the media table), so
    4 m, where the generic series (3, 5, 7 m ...) would order 5 m. A channel's stock is its
    two patch cords' (the example's: 1.43 m each, 1.5 m stock)."""
    from rackdesigner.export.render.schedule import cable_rows as pdf_rows
    from rackdesigner.export.tables import cable_rows as csv_rows

    analysis = Analysis(load_path(ROOT / "layouts" / "training-128.toml"))
    printed = {row.cable_id: row for row in pdf_rows(analysis)}
    assert (printed["a02-leaf1:p17"].length_m, printed["a02-leaf1:p17"].stock_m) == ("3.7", "4")
    for row in csv_rows(analysis):
        assert (printed[row[0]].length_m, printed[row[0]].stock_m) == (row[11], row[12])
    example = {row.cable_id: row for row in pdf_rows(Analysis(load_path(EXAMPLE)))}
    assert (example["a02-leaf1:p33"].length_m, example["a02-leaf1:p33"].stock_m) == (
        "8.21",
        "2 × 1.5",
    )
    assert example["a01-n01:ib1"].stock_m == "5"
