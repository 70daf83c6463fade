"""The topology outline (export/render/topology_outline.py, the designer's topology tree):
a rack-scale rack is one NVLink domain block with its uplinks, not 27 devices."""

from __future__ import annotations

from rackdesigner.edit import Session
from rackdesigner.export.render.topology_outline import Entry, outline
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT


def _walk(entry: Entry) -> list[Entry]:
    return [entry, *(e for child in entry.children for e in _walk(child))]


def test_each_nvl72_rack_is_one_domain_block_with_its_uplinks_and_switch_trays() -> None:
    session = Session(load_path(ROOT / "layouts" / "gb200-nvl72-su.toml"))
    assert session.analysis is not None
    fabric = [root for root in outline(session.analysis) if root.network is None]
    entries = [e for root in fabric for e in _walk(root)]
    blocks = [e for e in entries if e.label.startswith("nvl-")]
    domains = [r for r in session.layout.racks if r.nvlink_domain]
    assert [b.label.split(" · ")[0] for b in blocks] == [r.nvlink_domain for r in domains]
    first = blocks[0]
    assert first.label == f"{domains[0].nvlink_domain} · NVL72 · 72 GPUs · 18 trays"
    assert first.target == f"{domains[0].id}-c01"  # choosing it jumps to its first tray
    uplinks, switches = first.children
    # 18 trays x 4 compute ports (ConnectX-7 at 400G), one cable each to the rail leaves.
    assert uplinks.label.startswith("uplinks · 72 × 400G to ")
    # Four far ends are all named (not "… 1 more"); more than four: three and the rest
    # counted, as the hall's second domain (8 rail leaves) shows.
    assert uplinks.label.endswith("to 4 switches: a06-leaf1, a06-leaf2, a06-leaf3, a06-leaf4")
    second = blocks[1].children[0].label
    assert second.endswith("to 8 switches: a06-leaf1, a06-leaf2, a06-leaf3 and 5 more")
    assert uplinks.target is not None and "leaf" in uplinks.target
    assert switches.label == "NVLink switch trays · 9 × nvl72-switch-tray (NVLink in the rack)"
    # No tray is listed on its own: the domain stands for them.
    assert not any("gb200-compute-tray" in e.label for e in entries)


def test_racks_of_ordinary_nodes_keep_their_rack_entries() -> None:
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    assert session.analysis is not None
    labels = [e.label for root in outline(session.analysis) for e in _walk(root)]
    assert any(label.startswith("rack a01 · ") for label in labels)
    assert not any(label.startswith("nvl-") for label in labels)


def test_bundle_counts_and_su_captions_never_overlap() -> None:
    """training-128: the spines' four ×8 bundles cross, two of them at the same midpoint
    (where "×8" was drawn over "×8"), and the leaves' lines ran through the SU caption.
    Every count and caption now has its own rectangle on the frame's colour, and none of
    them overlaps another; the caption is drawn over the lines."""
    import re

    from rackdesigner.analysis import Analysis
    from rackdesigner.export.render import topology_svg
    from rackdesigner.layout_io import load_path
    from tests.conftest import ROOT

    svg = topology_svg.topology(Analysis(load_path(ROOT / "layouts" / "training-128.toml")))
    rects = [
        tuple(float(v) for v in m)
        for m in re.findall(
            r'<rect class="cap" x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"',
            svg,
        )
    ]
    assert len(rects) == 7  # six bundle counts and one SU caption
    for i, (x, y, w, h) in enumerate(rects):
        for a, b, c, d in rects[i + 1 :]:
            assert not (x < a + c and a < x + w and y < b + d and b < y + h), (x, y, a, b)
    assert svg.rindex('<rect class="cap"') > svg.rindex('<path class="ln')  # over the lines
