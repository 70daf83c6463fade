"""NET009: deleting the only leaf must not make a design look healthier."""

from __future__ import annotations

from rackdesigner.design.templates import NewOptions, build
from rackdesigner.edit import RemoveDevice, Session
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.document import loads
from tests.conftest import ROOT

LAYOUT = ROOT / "tests" / "rules" / "NET009" / "silent.toml"


def _warnings(session: Session) -> list[tuple[str, str]]:
    return sorted(
        (d.code, d.entity)
        for d in session.findings
        if d.severity == "warning" and not d.suppressed and d.code.startswith("NET")
    )


def test_deleting_the_only_leaf_raises_the_warning_count() -> None:
    """The issue's design: 32 GPUs for inference on one leaf (NET005 warns about the leaf;
    ``new`` builds two leaves by default, so one is asked for here)."""
    built = build(NewOptions(gpus=32, workload="inference", redundant=False))
    session = Session(loads(dumps(built.layout)))
    before = _warnings(session)
    assert [code for code, _ in before] == ["NET005"]
    [leaf] = [d.id for _, d in session.layout.devices() if d.model == "qm9700"]
    session.do(RemoveDevice(leaf))
    after = _warnings(session)
    assert [code for code, _ in after] == ["NET009"] * 4  # one per DGX H100
    assert len(after) > len(before)


def test_each_uncabled_node_is_named_once() -> None:
    session = Session(loads(LAYOUT.read_text(encoding="utf-8")))
    assert [code for code, _ in _warnings(session) if code == "NET009"] == []
    session.do(RemoveDevice("a01-leaf"))
    named = [entity for code, entity in _warnings(session) if code == "NET009"]
    assert named == ["device a01-n01", "device a01-n02"]


def test_training_leaves_the_uncabled_node_to_net006() -> None:
    text = LAYOUT.read_text(encoding="utf-8").replace('kind = "inference"', 'kind = "training"')
    session = Session(loads(text))
    session.do(RemoveDevice("a01-leaf"))
    codes = {d.code for d in session.findings}
    assert "NET006" in codes and "NET009" not in codes


def test_one_gpu_node_alone_needs_no_fabric() -> None:
    text = LAYOUT.read_text(encoding="utf-8")
    session = Session(loads(text))
    session.do(RemoveDevice("a01-n02"))
    session.do(RemoveDevice("a01-leaf"))
    assert "NET009" not in {d.code for d in session.findings}


def _nvl_racks(keep: int, kind: str) -> list:
    """The bundled GB200 SU cut to its first ``keep`` NVL72 racks, without any cable: each
    rack one NVLink domain of 18 trays (72 GPUs)."""
    from rackdesigner.check.engine import check
    from rackdesigner.layout_io import load_path
    from rackdesigner.model.layout import Workload

    layout = load_path(ROOT / "layouts" / "gb200-nvl72-su.toml")
    nvl = [r for r in layout.racks if r.nvlink_domain][:keep]
    layout.racks = nvl
    layout.links = []
    layout.workload = Workload(kind=kind)
    _, diagnostics = check(layout, select=["NET006", "NET009"])
    return [d for d in diagnostics if d.code in ("NET006", "NET009")]


def test_a_lone_nvl72_rack_needs_no_scale_out_fabric() -> None:
    """One NVL72 rack is one 72-GPU NVLink domain: a job inside it needs no compute fabric.
    NET006 used to raise 18 errors on it (one per tray), NET009 18 warnings."""
    assert _nvl_racks(1, "training") == []
    assert _nvl_racks(1, "inference") == []


def test_nvlink_domains_without_a_fabric_are_named_once_each() -> None:
    """Two NVL72 racks with no compute cable: two units that cannot work together, one
    finding per domain (not 36, one per tray)."""
    found = _nvl_racks(2, "training")
    assert [(d.code, d.entity) for d in found] == [
        ("NET006", "NVLink domain nvl-a04"),
        ("NET006", "NVLink domain nvl-a05"),
    ]
    assert "NVLink domain nvl-a04 (72 GPUs on 18 trays) has no compute-fabric link" in (
        found[0].message
    )
    found = _nvl_racks(2, "inference")
    assert [d.code for d in found] == ["NET009", "NET009"]
