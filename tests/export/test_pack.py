"""The print pack's sections (export/pack.py) and ``export --pdf --pages``."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.cli.main import cli
from rackdesigner.export.pack import PACK_SECTIONS, UnknownPage, chosen
from rackdesigner.export.render.pdf import pages
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

TRAINING = ROOT / "layouts" / "training-128.toml"


def _sections(documents: list[str]) -> list[str]:
    """Each page's section, from its running head (``<layout> · <section>``)."""
    return [re.search(r"<title>[^<]*? · ([^<]*)</title>", d).group(1) for d in documents]


def test_every_section_is_listed_once_and_loads() -> None:
    names = [s.name for s in PACK_SECTIONS]
    assert names == [
        "elevations",
        "floor",
        "topology",
        "one-line",
        "devices",
        "power",
        "cooling",
        "cables",
        "pulls",
        "labels",
        "findings",
    ]
    for section in PACK_SECTIONS:
        assert callable(section.load())


def test_pages_picks_sections_in_the_order_given() -> None:
    assert [s.name for s in chosen("findings, Topology,findings")] == ["findings", "topology"]
    # The installer's sheets are printed when named: a hall's are thousands of pages.
    defaults = [s.name for s in PACK_SECTIONS if s.name not in ("pulls", "labels")]
    assert [s.name for s in chosen(None)] == defaults
    assert [s.name for s in chosen("labels,pulls")] == ["labels", "pulls"]
    with pytest.raises(UnknownPage, match="no page 'legend'; the pages are elevations, floor"):
        chosen("elevations,legend")
    with pytest.raises(UnknownPage):
        chosen(" , ")


def test_power_topology_and_findings_pages_of_training_128() -> None:
    """training-128's pack, three sections: the topology on one landscape page; 94 cords
    over the racks' power tables (a01: 20 cords, 16 C19-C20 for its four nodes' 4 PSUs
    and 4 C13-C14 for its two leaves); the findings by rule."""
    analysis, diagnostics = check(load_path(TRAINING))
    documents = pages(analysis, diagnostics, sections=chosen("topology,power,findings"))
    sections = _sections(documents)
    assert sections[0] == "Topology" and sections[-1] == "Findings"
    assert set(sections[1:-1]) == {"Power cords"}
    power = "".join(d for d, s in zip(documents, sections, strict=True) if s == "Power cords")
    assert "Rack a01 · load 39.5 kW of 55.2 kW · 20 cords: 4 × C13, 16 × C19" in power
    assert power.count(">C19-C20<") == 68 and power.count(">C13-C14<") == 26
    assert 'width="297mm" height="210mm"' in documents[0]  # A4 landscape
    findings = documents[-1]
    codes = {d.code for d in diagnostics if d.suppressed is None}
    for code in codes:
        assert f">{code} · " in findings


def test_the_cli_prints_only_the_pages_asked_and_refuses_unknown_ones(tmp_path: Path) -> None:
    from pypdf import PdfReader

    out = tmp_path / "pack.pdf"
    bad = CliRunner().invoke(
        cli, ["export", str(TRAINING), "--pdf", str(out), "--pages", "topology,oneline"]
    )
    assert bad.exit_code == 2 and "--pages: no page 'oneline'" in bad.output
    assert not out.exists()
    good = CliRunner().invoke(
        cli, ["export", str(TRAINING), "--pdf", str(out), "--pages", "topology"]
    )
    assert good.exit_code == 0, good.output
    reader = PdfReader(io.BytesIO(out.read_bytes()))
    assert len(reader.pages) == 1
    assert "· Topology" in reader.pages[0].extract_text()


def test_pdf_without_pages_keeps_every_section() -> None:
    analysis = Analysis(load_path(ROOT / "tests" / "data" / "exports" / "small.toml"))
    sections = _sections(pages(analysis, []))
    for title in ("Rack elevations", "Floor plan", "Topology", "Devices by rack", "Power cords"):
        assert any(s.startswith(title) for s in sections), (title, sections)
    assert sections[-1] == "Findings"


def test_a_rule_with_many_findings_lists_its_first_hundred_and_counts_the_rest() -> None:
    """250 findings of one rule: 100 printed, then "… and 150 more"; 3 of another rule all
    printed, errors before warnings."""
    from rackdesigner.export.render.pack_sections import FINDINGS_PER_RULE, findings_pages
    from rackdesigner.export.render.pdf import PackInput, Paper
    from rackdesigner.model.diagnostics import Diagnostic

    found = [
        Diagnostic("CAB001", "warning", f"cable {i} too long", f"link {i}") for i in range(250)
    ]
    found += [Diagnostic("PWR001", "error", "over", f"rack r{i}") for i in range(3)]
    analysis = Analysis(load_path(ROOT / "tests" / "data" / "exports" / "small.toml"))
    pack = PackInput(analysis, found, Paper("a4"), "light", None)
    lines = [
        line[1] if isinstance(line[1], str) else " ".join(v for _, v in line[1])
        for page in findings_pages(pack)
        for line in page.lines or []
    ]
    text = "\n".join(lines)
    assert FINDINGS_PER_RULE == 100
    assert text.index("PWR001 · error · 3 findings") < text.index("CAB001 · warning")
    assert text.count("too long") == 100
    assert "… and 150 more (rackdesigner validate lists them all)" in text
